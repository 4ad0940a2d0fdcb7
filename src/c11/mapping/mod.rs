//! Compilation mappings from C11 to PTX (issue 28): a plain table, one line
//! per (access kind, C order, scope) giving the PTX sequence, and the C test
//! compiled by it into a PTX litmus AST.
//!
//! ```text
//! # kind  order    scope -> PTX sequence (<sco>: the C access's scope)
//! load    seq_cst  *     -> fence.sc.<sco>; ld.acquire.<sco>
//! ```
//!
//! kind: `load`, `store`, `rmw`, `cas`, `fence` (a `cas` line is optional: a
//! compare-exchange without one maps by the `rmw` line; both are looked up
//! by the stronger of its success and failure orders, D144); order: `na`, `relaxed`, `consume`,
//! `acquire`, `release`, `acq_rel`, `seq_cst`; scope: `*`, `block`,
//! `cluster`, `device`, `system` (a line for a scope wins over `*`). A step is
//! `fence.{sc,acq_rel,acquire,release}`, `ld.{weak,relaxed,acquire}`,
//! `st.{weak,relaxed,release}` or `atom[.relaxed|.acquire|.release|.acq_rel]`,
//! each with `.<sco>` (the C scope) or a PTX scope (`.cta`, `.cluster`,
//! `.gpu`, `.sys`); a sequence has exactly one access step for an access
//! kind and none for a fence (an empty sequence: `-`).
//!
//! The table and its parsing are here; `compile` compiles a C test by it.

mod compile;

pub use compile::{compile, stronger};

use super::Order;
use crate::ast::{FenceSem, Scope, Sem};
use std::collections::BTreeMap;

/// What a C operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Load,
    Store,
    Rmw,
    /// A compare-exchange (`rmw` lines unless the table has `cas` lines).
    Cas,
    Fence,
}

/// One PTX instruction of a sequence; `None` scope: the C operation's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Fence(FenceSem, Option<Scope>),
    Access(Sem, Option<Scope>),
}

/// A mapping: its name and its lines.
#[derive(Clone, Debug)]
pub struct Mapping {
    pub name: String,
    rows: BTreeMap<(Kind, Order, Option<Scope>), Vec<Step>>,
}

/// Lustig et al., ASPLOS'19, Figure 11 ("Our mapping from C/C++ to PTX"),
/// which libcu++ emits but for SC stores (`fence.sc; st.relaxed`) and SC RMWs
/// (`fence.sc; atom.acquire`, D147). Consume (not in the figure) as acquire.
pub const FIGURE_11: &str = "\
load  na       * -> ld.weak
load  relaxed  * -> ld.relaxed.<sco>
load  consume  * -> ld.acquire.<sco>
load  acquire  * -> ld.acquire.<sco>
load  seq_cst  * -> fence.sc.<sco>; ld.acquire.<sco>
store na       * -> st.weak
store relaxed  * -> st.relaxed.<sco>
store release  * -> st.release.<sco>
store seq_cst  * -> fence.sc.<sco>; st.release.<sco>
rmw   relaxed  * -> atom.<sco>
rmw   consume  * -> atom.acquire.<sco>
rmw   acquire  * -> atom.acquire.<sco>
rmw   release  * -> atom.release.<sco>
rmw   acq_rel  * -> atom.acq_rel.<sco>
rmw   seq_cst  * -> fence.sc.<sco>; atom.acq_rel.<sco>
fence relaxed  * -> -
fence consume  * -> -
fence acquire  * -> fence.acquire.<sco>
fence release  * -> fence.release.<sco>
fence acq_rel  * -> fence.acq_rel.<sco>
fence seq_cst  * -> fence.sc.<sco>
";

/// The built-in mappings: Figure 11 and three known-broken variants.
pub const BUILTIN: [(&str, &str); 4] = [
    ("figure11", "Lustig et al., ASPLOS'19, Figure 11 (the default)"),
    ("sc-rmw-acquire", "SC RMW as fence.sc; atom.acquire (Figure 12: the release half is needed)"),
    ("sc-load-no-fence", "SC load as ld.acquire (no leading fence.sc)"),
    ("sc-fence-acq-rel", "SC fence as fence.acq_rel"),
];

impl Mapping {
    /// A built-in mapping by name.
    pub fn builtin(name: &str) -> Option<Mapping> {
        let edit = match name {
            "figure11" | "default" => None,
            "sc-rmw-acquire" => Some("rmw seq_cst * -> fence.sc.<sco>; atom.acquire.<sco>"),
            "sc-load-no-fence" => Some("load seq_cst * -> ld.acquire.<sco>"),
            "sc-fence-acq-rel" => Some("fence seq_cst * -> fence.acq_rel.<sco>"),
            _ => return None,
        };
        let mut m = Mapping::parse(if name == "default" { "figure11" } else { name }, FIGURE_11).ok()?;
        if let Some(line) = edit {
            m.merge(Mapping::parse(name, line).ok()?);
        }
        Some(m)
    }

    fn merge(&mut self, other: Mapping) {
        self.rows.extend(other.rows);
    }

    /// Parse a mapping table; errors name the line (1-based) and the column.
    pub fn parse(name: &str, text: &str) -> std::result::Result<Mapping, (usize, usize, String)> {
        let mut rows = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("");
            if line.trim().is_empty() {
                continue;
            }
            let (key, seq) =
                line.split_once("->").ok_or((i + 1, 1, "expected `KIND ORDER SCOPE -> SEQUENCE`".to_string()))?;
            let col = |w: &str| raw.find(w).map_or(1, |c| c + 1);
            let words: Vec<&str> = key.split_whitespace().collect();
            let [kind, order, scope] = words[..] else {
                return Err((i + 1, 1, "expected three words before `->`: kind, order, scope".into()));
            };
            let kind = kind_of(kind).ok_or((
                i + 1,
                col(kind),
                format!("unknown kind `{}` (load, store, rmw, cas, fence)", kind),
            ))?;
            let order = order_of(order).ok_or((
                i + 1,
                col(order),
                format!("unknown order `{}` (na, relaxed, consume, acquire, release, acq_rel, seq_cst)", order),
            ))?;
            let scope = match scope {
                "*" => None,
                s => Some(c_scope(s).ok_or((
                    i + 1,
                    col(s),
                    format!("unknown scope `{}` (*, block, cluster, device, system)", s),
                ))?),
            };
            // The caret goes to the step at fault (or the whole sequence).
            let arrow = raw.find("->").unwrap_or(0) + 2;
            let at = |w: &str| raw[arrow..].find(w).map_or(col(seq.trim()), |c| arrow + c + 1);
            let steps = parse_seq(kind, seq).map_err(|(w, m)| (i + 1, at(w.unwrap_or(seq.trim())), m))?;
            rows.insert((kind, order, scope), steps);
        }
        Ok(Mapping { name: name.to_string(), rows })
    }

    /// The sequence for one C operation, if the table has a line for it (a
    /// compare-exchange without a `cas` line: the `rmw` line).
    pub fn steps(&self, kind: Kind, order: Order, scope: Scope) -> Option<&[Step]> {
        let line = |k: Kind| self.rows.get(&(k, order, Some(scope))).or_else(|| self.rows.get(&(k, order, None)));
        match kind {
            Kind::Cas => line(Kind::Cas).or_else(|| line(Kind::Rmw)),
            k => line(k),
        }
        .map(Vec::as_slice)
    }
}

fn kind_of(w: &str) -> Option<Kind> {
    Some(match w {
        "load" => Kind::Load,
        "store" => Kind::Store,
        "rmw" => Kind::Rmw,
        "cas" => Kind::Cas,
        "fence" => Kind::Fence,
        _ => return None,
    })
}

fn order_of(w: &str) -> Option<Order> {
    Some(match w {
        "na" => Order::Na,
        "relaxed" => Order::Rlx,
        "consume" => Order::Con,
        "acquire" => Order::Acq,
        "release" => Order::Rel,
        "acq_rel" => Order::AcqRel,
        "seq_cst" => Order::Sc,
        _ => return None,
    })
}

fn c_scope(w: &str) -> Option<Scope> {
    Some(match w {
        "block" => Scope::Cta,
        "cluster" => Scope::Cluster,
        "device" => Scope::Gpu,
        "system" => Scope::Sys,
        _ => return None,
    })
}

/// `fence.sc.<sco>; ld.acquire.<sco>` for `kind`.
/// Errors: the step at fault (None: the whole sequence) and a sentence.
fn parse_seq(kind: Kind, text: &str) -> std::result::Result<Vec<Step>, (Option<&str>, String)> {
    let text = text.trim();
    if text == "-" {
        return if kind == Kind::Fence {
            Ok(Vec::new())
        } else {
            Err((None, "only a fence may map to nothing (`-`)".into()))
        };
    }
    let mut steps = Vec::new();
    for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        steps.push(parse_step(kind, item).map_err(|m| (Some(item), m))?);
    }
    let accesses = steps.iter().filter(|s| matches!(s, Step::Access(..))).count();
    match (kind, accesses) {
        (Kind::Fence, 0) | (Kind::Load | Kind::Store | Kind::Rmw | Kind::Cas, 1) => Ok(steps),
        (Kind::Fence, _) => Err((None, "a fence maps to fences only".into())),
        _ => Err((None, "an access maps to exactly one access instruction (ld, st or atom) and fences".into())),
    }
}

fn parse_step(kind: Kind, item: &str) -> std::result::Result<Step, String> {
    let mut parts = item.split('.');
    let op = parts.next().unwrap_or("");
    let mut sem = None;
    let mut scope = None;
    for q in parts {
        match q {
            "<sco>" => scope = None,
            "cta" => scope = Some(Scope::Cta),
            "cluster" => scope = Some(Scope::Cluster),
            "gpu" => scope = Some(Scope::Gpu),
            "sys" => scope = Some(Scope::Sys),
            other => sem = Some(other.to_string()),
        }
    }
    let bad = || {
        format!(
            "`{}` is not a step of this table (fence.{{sc,acq_rel,acquire,release}}, ld/st/atom with a semantics)",
            item
        )
    };
    match op {
        "fence" => {
            let s = match sem.as_deref() {
                Some("sc") => FenceSem::Sc,
                Some("acq_rel") => FenceSem::AcqRel,
                Some("acquire") => FenceSem::Acquire,
                Some("release") => FenceSem::Release,
                _ => return Err(bad()),
            };
            Ok(Step::Fence(s, scope))
        }
        "ld" | "st" | "atom" => {
            let want = match kind {
                Kind::Load => "ld",
                Kind::Store => "st",
                Kind::Rmw | Kind::Cas => "atom",
                Kind::Fence => return Err("a fence maps to fences only".into()),
            };
            if op != want {
                return Err(format!("a {:?} maps to `{}`, not `{}`", kind, want, op).to_lowercase());
            }
            let s = match (op, sem.as_deref()) {
                ("ld" | "st", Some("weak")) => Sem::Weak,
                ("atom", None) | (_, Some("relaxed")) => Sem::Relaxed,
                ("ld" | "atom", Some("acquire")) => Sem::Acquire,
                ("st" | "atom", Some("release")) => Sem::Release,
                ("atom", Some("acq_rel")) => Sem::AcqRel,
                _ => return Err(bad()),
            };
            Ok(Step::Access(s, scope))
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_11_reads_and_the_variants_change_one_line_each() {
        let fig = Mapping::builtin("figure11").expect("figure 11");
        assert_eq!(
            fig.steps(Kind::Load, Order::Sc, Scope::Gpu),
            Some(&[Step::Fence(FenceSem::Sc, None), Step::Access(Sem::Acquire, None)][..])
        );
        assert_eq!(
            fig.steps(Kind::Rmw, Order::Sc, Scope::Sys),
            Some(&[Step::Fence(FenceSem::Sc, None), Step::Access(Sem::AcqRel, None)][..])
        );
        let rmw = Mapping::builtin("sc-rmw-acquire").expect("variant");
        assert_eq!(
            rmw.steps(Kind::Rmw, Order::Sc, Scope::Sys),
            Some(&[Step::Fence(FenceSem::Sc, None), Step::Access(Sem::Acquire, None)][..])
        );
        assert_eq!(rmw.steps(Kind::Load, Order::Sc, Scope::Sys), fig.steps(Kind::Load, Order::Sc, Scope::Sys));
        let ld = Mapping::builtin("sc-load-no-fence").expect("variant");
        assert_eq!(ld.steps(Kind::Load, Order::Sc, Scope::Sys), Some(&[Step::Access(Sem::Acquire, None)][..]));
        let f = Mapping::builtin("sc-fence-acq-rel").expect("variant");
        assert_eq!(f.steps(Kind::Fence, Order::Sc, Scope::Sys), Some(&[Step::Fence(FenceSem::AcqRel, None)][..]));
    }

    /// D144: the stronger order; release with acquire (or consume) is acq_rel, as libcu++ combines them.
    #[test]
    fn a_compare_exchange_takes_the_stronger_of_its_orders() {
        assert_eq!(stronger(Order::Rlx, Order::Acq), Order::Acq);
        assert_eq!(stronger(Order::Rel, Order::Rlx), Order::Rel);
        assert_eq!(stronger(Order::Rel, Order::Acq), Order::AcqRel);
        assert_eq!(stronger(Order::Rel, Order::Con), Order::AcqRel);
        assert_eq!(stronger(Order::AcqRel, Order::Sc), Order::Sc);
        assert_eq!(stronger(Order::Sc, Order::Rlx), Order::Sc);
        let fig = Mapping::builtin("figure11").expect("figure 11");
        assert_eq!(fig.steps(Kind::Cas, Order::Acq, Scope::Gpu), fig.steps(Kind::Rmw, Order::Acq, Scope::Gpu));
        let mut own = fig.clone();
        own.merge(Mapping::parse("t", "cas acquire * -> atom.relaxed.<sco>").expect("a cas line"));
        assert_eq!(own.steps(Kind::Cas, Order::Acq, Scope::Gpu), Some(&[Step::Access(Sem::Relaxed, None)][..]));
        assert_eq!(own.steps(Kind::Rmw, Order::Acq, Scope::Gpu), fig.steps(Kind::Rmw, Order::Acq, Scope::Gpu));
    }

    #[test]
    fn bad_lines_say_where() {
        let e = Mapping::parse("t", "load seq_cst * -> fence.sc; st.release").unwrap_err();
        assert_eq!(e.0, 1);
        assert!(e.2.contains("`ld`"), "{}", e.2);
        let e = Mapping::parse("t", "\nload sc * -> ld.acquire").unwrap_err();
        assert_eq!((e.0, e.1), (2, 6));
        assert!(Mapping::parse("t", "store na * -> -").is_err());
    }
}
