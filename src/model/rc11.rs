//! The C models as rows (issue 28): herd's `rc11.cat` (RC11, Lahav et al.,
//! PLDI'17) line by line, and the scoped RC11 of Lustig et al., ASPLOS'19,
//! Figure 10 (`incl` on the synchronising communication and on `psc`, no
//! No-Thin-Air). Read-modify-writes are split into a read and a write linked
//! by `rmw`, as herd's C semantics makes them (so rc11.cat's `[RMW]` is empty
//! and `myrmw` is `rmw`).
//!
//! Names as in rc11.cat: `sb` is `po`, `mo` is `co`. Event sets: `NA`, `RLX`,
//! `CON`, `ACQ`, `REL`, `ACQ_REL`, `SC` (the C order of the access or fence),
//! `IW` (initial writes), `F` (fences), `R`, `W`. `A * A` (both atomic) within
//! the conflicting pairs is `[~NA]; cnf; [~NA]` (cnf relates memory events only).
//! paper-notes/c11.md maps every line.

use super::rows::Table;

const RS: &str = "let rs = [W]; (po & loc)?; [W & (RLX | REL | ACQ_REL | ACQ | SC)]; (rf; rmw)*";
const RS_SCOPED: &str = "let rs = [W]; (po & loc)?; [W & (RLX | REL | ACQ_REL | ACQ | SC)]; ((incl & rf); rmw)*";
const SW: &str = "let sw = [REL | ACQ_REL | SC]; ([F]; po)?; rs; rf; [R & (RLX | REL | ACQ | ACQ_REL | SC)]; (po; [F])?; [ACQ | ACQ_REL | SC]";
const SW_SCOPED: &str = "let sw = [REL | ACQ_REL | SC]; ([F]; po)?; rs; (incl & rf); [R & (RLX | REL | ACQ | ACQ_REL | SC)]; (po; [F])?; [ACQ | ACQ_REL | SC]";
const HB: &str = "let hb = (po | sw)+";
const HB_SCOPED: &str = "let hb = (po | (incl & sw))+";
const DR: &str = "let dr = (cnf & ext) \\ (hb | hb^-1 | ([~NA]; cnf; [~NA]))";
const DR_SCOPED: &str = "let dr = (cnf & ext) \\ (hb | hb^-1 | (([~NA]; cnf; [~NA]) & incl))";
const PSC: &str = "acyclic psc as SC";
const PSC_SCOPED: &str = "acyclic incl & psc as SC";

/// The rows of `rc11` (`scoped`: false) or `scoped-rc11` (true).
pub(super) fn rc11_table(scoped: bool) -> Table {
    let pick = |plain: &'static str, sc: &'static str| if scoped { sc } else { plain };
    let cite = if scoped { "Lustig et al., ASPLOS'19, Figure 10" } else { "rc11.cat" };
    let mut t: Table = vec![
        ("rc11.cat", "\"let rb = (rf^-1; mo) \\ id\"", "let rb = (rf^-1; co) \\ id"),
        ("rc11.cat", "\"let eco = (rf | mo | rb)+\"", "let eco = (rf | co | rb)+"),
        (cite, "\"let rs = [W]; (sb & loc)?; [W & (RLX | REL | ACQ_REL | ACQ | SC)]; (rf; myrmw)*\" (scoped: (incl ∩ rf); rmw)", pick(RS, RS_SCOPED)),
        (
            cite,
            "\"let sw = [(REL | ACQ_REL | SC)]; ([F]; sb)?; rs; rf; [R & (RLX | REL | ACQ | ACQ_REL | SC)]; (sb; [F])?; [(ACQ | ACQ_REL | SC)]\" (scoped: incl ∩ rf)",
            pick(SW, SW_SCOPED),
        ),
        (cite, "\"let hb = (sb | sw)+\" (scoped: hb := (sb ∪ (incl ∩ sw))+)", pick(HB, HB_SCOPED)),
        ("rc11.cat", "\"let sbl = sb \\ loc\"", "let sbl = po \\ loc"),
        ("rc11.cat", "\"let hbl = hb & loc\"", "let hbl = hb & loc"),
        ("rc11.cat", "\"let scb = sb | sbl; hb; sbl | hbl | mo | rb\"", "let scb = po | (sbl; hb; sbl) | hbl | co | rb"),
        ("rc11.cat", "\"let pscb = ([SC] | [F & SC]; hb?); scb; ([SC] | hb?; [F & SC])\"", "let pscb = ([SC] | ([F & SC]; hb?)); scb; ([SC] | (hb?; [F & SC]))"),
        ("rc11.cat", "\"let pscf = [F & SC]; (hb | hb; eco; hb); [F & SC]\"", "let pscf = [F & SC]; (hb | (hb; eco; hb)); [F & SC]"),
        ("rc11.cat", "\"let psc = pscb | pscf\"", "let psc = pscb | pscf"),
        ("rc11.cat", "\"let cnf = ((W * _) | (_ * W)) & loc \\ ((IW * _) | (_ * IW))\"", "let cnf = [~IW]; (([W]; loc) | (loc; [W])); [~IW]"),
        (cite, "\"let dr = (cnf & ext) \\ (hb | hb^-1 | A * A)\"; \"undefined_unless empty dr as Dr\" (scoped: both atomic and incl)", pick(DR, DR_SCOPED)),
        ("rc11.cat", "\"irreflexive hb; eco? as coherence1\"", "irreflexive hb; eco? as coherence1"),
        ("rc11.cat", "\"irreflexive (myrmw; eco) as coherencermw\"", "irreflexive rmw; eco as coherencermw"),
        ("rc11.cat", "\"empty (myrmw & (rb; mo)) as atomicity\"", "empty rmw & (rb; co) as atomicity"),
        (cite, "\"acyclic psc as SC\" (scoped: acyclic(incl ∩ psc))", pick(PSC, PSC_SCOPED)),
    ];
    if !scoped {
        t.push(("rc11.cat", "\"acyclic (sb | rf) as no-thin-air\"", "acyclic po | rf as no-thin-air"));
    }
    t
}

#[cfg(test)]
mod tests {
    use crate::model::ModelKind;

    /// Without scopes, scoped-rc11 is rc11 without its No-Thin-Air row: the
    /// rows differ only where `incl` is added and in that row.
    #[test]
    fn scoped_rows_are_rc11_rows_with_incl_and_without_no_thin_air() {
        let (a, b) = (ModelKind::Rc11.model(), ModelKind::ScopedRc11.model());
        assert_eq!(a.rows.len(), b.rows.len() + 1);
        assert!(a.rows.last().is_some_and(|r| r.stmt.to_string() == "acyclic po | rf as no-thin-air"));
        for (x, y) in a.rows.iter().zip(&b.rows) {
            let (x, y) = (x.stmt.to_string(), y.stmt.to_string());
            assert!(x == y || y.contains("incl"), "{} vs {}", x, y);
        }
    }
}
