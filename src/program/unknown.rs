//! Initial values the ISA leaves unknown (8.2.6, D311): when the verdict is
//! the same for every one of them, and which few values stand for all.
//!
//! A `.shared` variable has no initializer; its bytes hold "an unknown but
//! constant value". The verdict is the model's answer only if it is the
//! same for every such value. This module reads, from a symbolic program
//! built with [`super::build::BuildOptions::probe_unknown`], how values
//! read from those cells are used. Where they are only *moved*: loaded,
//! converted (`cvt`, `mov`) or stored at their width or wider, chosen between by a
//! condition that does not depend on them, then the executions (events,
//! guards, reads-from, coherence) are the same for every initial value, and
//! each final observable is, in each execution, either independent of the
//! unknown values or an unknown cell's value `v` in its low bits. A
//! condition atom `obs == k` or `obs != k` on such an observable then holds
//! only if `v == k mod 2^w` (`w` the cell's width). So the verdict, a function
//! of those atoms, is decided for every value by the values `k mod 2^w` of
//! the constants the condition compares the cell with plus one value that is
//! none of them, per cell: [`Independence::cells`].
//!
//! Anything else (a value read from such a cell in arithmetic, a branch, a
//! predicate, a read-modify-write on the cell, an order comparison in the
//! condition, or a private byte) is not followed: [`independence`] says why,
//! and the check falls back to two fills (a refusal either way).

use super::symbolic::{SymFacts, SymOp, Term};
use super::{LocId, Program};
use crate::ast::{AluOp, Observable, Prop, Term as CondTerm};
use std::collections::{BTreeMap, BTreeSet};

/// How a value depends on the unknown initial values.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Taint {
    /// Not at all.
    Clean,
    /// In each execution, either not at all or its low bits are one of these
    /// unknown cells' whole value.
    Moved(BTreeSet<LocId>),
    /// In a way not followed (computed with, compared).
    Used,
}

impl Taint {
    fn join(&self, other: &Taint) -> Taint {
        match (self, other) {
            (Taint::Used, _) | (_, Taint::Used) => Taint::Used,
            (Taint::Clean, t) | (t, Taint::Clean) => t.clone(),
            (Taint::Moved(a), Taint::Moved(b)) => Taint::Moved(a.union(b).copied().collect()),
        }
    }
}

/// An unknown cell the verdict may depend on, with the values that stand
/// for all its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCell {
    /// The location's name (`s`, `s@cta1`): the key of `BuildOptions::unknown_values`.
    pub name: String,
    /// `k mod 2^w` for each constant the condition compares it with, and
    /// one value that is none of them (0 where 0 is not one).
    pub values: Vec<i64>,
}

/// The unknown cells the verdict may depend on; where none, the verdict
/// is the same for every initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Independence {
    pub cells: Vec<UnknownCell>,
}

/// Why the uses of unknown values cannot be followed.
pub type NotFollowed = String;

/// Read the uses of the unknown initial values of `p`, a symbolic program
/// built with `probe_unknown` (see the module text).
pub fn independence(p: &Program) -> Result<Independence, NotFollowed> {
    let sym = p.symbolic.as_deref().ok_or("the symbolic encoding did not build the test")?;
    if p.reads_unknown_private {
        return Err("the bytes are private memory, which the symbolic walk keeps as numbers".into());
    }
    let (locs, terms) = taints(p, sym)?;
    if terms.contains(&Taint::Used) {
        return Err("a value read from it is computed with, compared or branched on, not only moved".into());
    }
    let decides = sym.guard.iter().chain(sym.cut.iter()).chain(sym.assume.iter().map(|(_, t)| t));
    if decides.chain(sym.deps.iter().map(|(_, _, c)| c)).any(|&t| terms[t] != Taint::Clean) {
        return Err("a value read from it decides whether an instruction runs".into());
    }
    let observed = observed_taints(p, sym, &locs, &terms)?;
    let mut compared: BTreeMap<LocId, BTreeSet<i64>> = BTreeMap::new();
    for prop in std::iter::once(&p.condition).chain(p.filter.as_ref()) {
        constants_compared(prop, &observed, &mut compared)?;
    }
    let moved = observed.values().flat_map(|t| match t {
        Taint::Moved(cells) => cells.clone(),
        _ => BTreeSet::new(),
    });
    let cells = moved.collect::<BTreeSet<_>>().into_iter().map(|l| {
        let bits = cell_bits(p, l);
        let mut values: BTreeSet<i64> = compared.get(&l).into_iter().flatten().map(|&k| low_bits(k, bits)).collect();
        let fresh = (0..).find(|v| !values.contains(v)).unwrap_or(0);
        values.insert(fresh);
        UnknownCell { name: p.locations[l].name.clone(), values: values.into_iter().collect() }
    });
    Ok(Independence { cells: cells.collect() })
}

/// The width of an unknown cell in bits: its one access size.
fn cell_bits(p: &Program, l: LocId) -> u32 {
    8 * u32::from(p.locations[l].sizes.first().copied().unwrap_or(8))
}

/// `k`'s low `bits` bits, unsigned: the cell value a comparison with `k` needs.
fn low_bits(k: i64, bits: u32) -> i64 {
    if bits >= 64 {
        k
    } else {
        ((k as u64) & (u64::MAX >> (64 - bits))) as i64
    }
}

/// The taint of every location and term, at the fixpoint: a location is as
/// tainted as what its writes write, a read as its location.
fn taints(p: &Program, sym: &SymFacts) -> Result<(Vec<Taint>, Vec<Taint>), NotFollowed> {
    let mut locs = vec![Taint::Clean; p.locations.len()];
    for &l in &p.unknown_locs {
        if p.locations[l].sizes.len() > 1 {
            return Err("it is accessed at more than one size".into());
        }
        if !is_initialised_mbarrier(p, l) {
            locs[l] = Taint::Moved(BTreeSet::from([l]));
        }
    }
    loop {
        let terms = term_taints(p, sym, &locs)?;
        let mut next = locs.clone();
        for e in &p.events {
            let Some(a) = e.access().filter(|_| e.thread.is_some()) else { continue };
            if a.atomic && a.reads || a.rmw.is_some() {
                let touched = e.read_loc().into_iter().chain(e.write_loc()).any(|l| locs[l] != Taint::Clean);
                let operands = sym.operands.get(&e.id).into_iter().flatten();
                if touched || operands.into_iter().any(|&t| terms[t] != Taint::Clean) {
                    return Err(format!("a read-modify-write reads or writes it (`{}`)", e.text));
                }
                continue;
            }
            if let (Some(l), Some(&t)) = (e.write_loc(), sym.write.get(&e.id)) {
                next[l] = next[l].join(&terms[t]);
            }
        }
        if next == locs {
            return Ok((locs, terms));
        }
        locs = next;
    }
}

/// An mbarrier object some thread initialises, every access of which is an
/// mbarrier operation: its initial bytes decide nothing a defined execution
/// shows, since "performing any mbarrier operation except mbarrier.init on
/// an uninitialized mbarrier object results in undefined behavior"
/// (9.7.15.16), whatever the bytes are, and `mbarrier.init` overwrites
/// them all.
fn is_initialised_mbarrier(p: &Program, l: LocId) -> bool {
    use super::access::MbarrierUse;
    let uses: Vec<&super::access::Access> =
        p.events.iter().filter(|e| e.thread.is_some()).filter_map(|e| e.access()).filter(|a| a.loc == l).collect();
    let is_mbarrier =
        |a: &&super::access::Access| a.mbarrier.is_some() || a.rmw.as_ref().is_some_and(|r| r.op.is_mbarrier());
    uses.iter().all(is_mbarrier) && uses.iter().any(|a| a.mbarrier == Some(MbarrierUse::Init))
}

/// Each term's taint, given the locations' (terms are hash-consed: every
/// argument comes before the term).
fn term_taints(p: &Program, sym: &SymFacts, locs: &[Taint]) -> Result<Vec<Taint>, NotFollowed> {
    let mut out: Vec<Taint> = Vec::with_capacity(sym.terms.len());
    for (id, term) in sym.terms.iter().enumerate() {
        let t = match term {
            Term::Const(_) | Term::Choice(_) => Taint::Clean,
            Term::Read(e) => read_taint(p, *e, locs),
            Term::Op(op, args) => {
                if args.iter().any(|&a| a >= id) {
                    return Err("internal: a term before its arguments".into());
                }
                op_taint(p, op, &args.iter().map(|&a| &out[a]).collect::<Vec<_>>())
            }
        };
        out.push(t);
    }
    Ok(out)
}

/// What read `e` returns (its loaded view: an extension, which keeps the low bits).
fn read_taint(p: &Program, e: usize, locs: &[Taint]) -> Taint {
    let Some((a, l)) = p.events.get(e).and_then(|ev| Some((ev.access()?, ev.read_loc()?))) else {
        return Taint::Used;
    };
    keeps_width(p, &locs[l], 8 * u32::from(a.size))
}

/// `t` through an operation that keeps `bits` low bits: moved cells no
/// wider stay moved.
fn keeps_width(p: &Program, t: &Taint, bits: u32) -> Taint {
    match t {
        Taint::Moved(cells) if cells.iter().any(|&l| cell_bits(p, l) > bits) => Taint::Used,
        t => t.clone(),
    }
}

/// The taint of an operation's result from its arguments'.
fn op_taint(p: &Program, op: &SymOp, args: &[&Taint]) -> Taint {
    let clean = |t: &&Taint| **t == Taint::Clean;
    match (op, args) {
        (SymOp::Stored(_, size), [a]) => keeps_width(p, a, 8 * u32::from(*size)),
        (SymOp::Convert(None), [a]) => (*a).clone(),
        (SymOp::Convert(Some(ty)), [a]) => keeps_width(p, a, ty.bits),
        // `mov`/`cvt` between integer types: extended from the source's
        // width, truncated to the result's (`arith::alu`), so the low bits
        // of the narrower stay.
        (SymOp::Alu(AluOp::Mov, ty, src), [a]) => {
            let bits = |t: &Option<crate::ast::IntTy>| t.map_or(64, |t| t.bits);
            keeps_width(p, a, bits(ty).min(bits(&src.or(*ty))))
        }
        (SymOp::Ite, [c, a, b]) if clean(c) => a.join(b),
        _ if args.iter().all(clean) => Taint::Clean,
        _ => Taint::Used,
    }
}

/// The taint of each observable the condition or filter reads.
fn observed_taints(
    p: &Program,
    sym: &SymFacts,
    locs: &[Taint],
    terms: &[Taint],
) -> Result<BTreeMap<Observable, Taint>, NotFollowed> {
    let mut out = BTreeMap::new();
    for o in &p.observables {
        let t = match o {
            Observable::Reg { thread, reg } => {
                sym.regs.get(*thread).and_then(|r| r.get(reg)).map_or(Taint::Clean, |&t| terms[t].clone())
            }
            Observable::Loc(name) => match p.loc_parts.get(name) {
                Some(parts) if parts.iter().any(|(l, _, _)| locs[*l] != Taint::Clean) => {
                    return Err(format!("`{}` is observed composed of several cells", name));
                }
                Some(_) => Taint::Clean,
                None => p.loc_names.get(name).map_or(Taint::Clean, |&l| locs[l].clone()),
            },
        };
        out.insert(o.clone(), t);
    }
    Ok(out)
}

/// Collect the constants each unknown cell is compared with in `prop`; an
/// observable holding an unknown value may only be compared for equality
/// with a constant.
fn constants_compared(
    prop: &Prop,
    observed: &BTreeMap<Observable, Taint>,
    out: &mut BTreeMap<LocId, BTreeSet<i64>>,
) -> Result<(), NotFollowed> {
    let moved = |t: &CondTerm| match t {
        CondTerm::Obs(o, _) => match observed.get(o) {
            Some(Taint::Moved(cells)) => Some((o.to_string(), cells.clone())),
            _ => None,
        },
        CondTerm::Const(_) => None,
    };
    match prop {
        Prop::True | Prop::False => Ok(()),
        Prop::Not(a) => constants_compared(a, observed, out),
        Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
            constants_compared(a, observed, out)?;
            constants_compared(b, observed, out)
        }
        Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
            for (side, other) in [(a, b), (b, a)] {
                let Some((name, cells)) = moved(side) else { continue };
                match (prop, other) {
                    (Prop::Eq(..) | Prop::Ne(..), CondTerm::Const(k)) => {
                        for l in cells {
                            out.entry(l).or_default().insert(*k);
                        }
                    }
                    _ => {
                        return Err(format!(
                            "the condition compares `{}`, which may hold it, other than for equality with a number",
                            name
                        ))
                    }
                }
            }
            Ok(())
        }
    }
}
