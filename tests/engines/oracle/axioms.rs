//! FROZEN ORACLE (issue 13): the reference engine's hand-written relations as
//! they were before the model became rows (`src/model/rows.rs`). Do not edit to
//! follow a row: a disagreement with the evaluator is a bug in one of them.
//!
//! 8.10 The axioms, one function each: does the candidate execution satisfy it?

use ptx_litmus::model::rel::Rel;
use ptx_litmus::reference::enumerate::Ctx;

/// The axioms of ISA 8.10, in the order the ISA lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axiom {
    Coherence,
    FenceSc,
    Atomicity,
    NoThinAir,
    ScPerLocation,
    Causality,
}

impl Axiom {
    pub const ALL: [Axiom; 6] =
        [Axiom::Coherence, Axiom::FenceSc, Axiom::Atomicity, Axiom::NoThinAir, Axiom::ScPerLocation, Axiom::Causality];

    pub fn name(self) -> &'static str {
        match self {
            Axiom::Coherence => "Coherence",
            Axiom::FenceSc => "Fence-SC",
            Axiom::Atomicity => "Atomicity",
            Axiom::NoThinAir => "No-Thin-Air",
            Axiom::ScPerLocation => "SC-per-Location",
            Axiom::Causality => "Causality",
        }
    }

    pub fn section(self) -> &'static str {
        match self {
            Axiom::Coherence => "8.10.1",
            Axiom::FenceSc => "8.10.2",
            Axiom::Atomicity => "8.10.3",
            Axiom::NoThinAir => "8.10.4",
            Axiom::ScPerLocation => "8.10.5",
            Axiom::Causality => "8.10.6",
        }
    }
}

impl std::fmt::Display for Axiom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name(), self.section())
    }
}

/// The relations of one candidate execution the axioms look at.
pub struct Relations<'a> {
    pub po: &'a Rel,
    pub ms: &'a Rel,
    pub dep: &'a Rel,
    pub rf: &'a Rel,
    pub co: &'a Rel,
    pub fr: &'a Rel,
    pub sc: &'a Rel,
    pub cb: &'a Rel,
    pub cause: &'a Rel,
}

/// 8.10.1: "If a write W precedes an overlapping write W' in causality order, then
/// W must precede W' in coherence order."
pub fn coherence(ctx: &Ctx, cause: &Rel, co: &Rel) -> bool {
    for w in 0..ctx.n() {
        for w2 in 0..ctx.n() {
            let overlapping_writes = w != w2
                && ctx.is_write(w)
                && ctx.is_write(w2)
                && !ctx.is_init(w)
                && !ctx.is_init(w2)
                && ctx.write_loc(w) == ctx.write_loc(w2);
            if overlapping_writes && cause.has(w, w2) && !co.has(w, w2) {
                return false;
            }
        }
    }
    true
}

/// 8.10.2: "Fence-SC order cannot contradict causality order. For a pair of
/// morally strong fence.sc operations F1 and F2, if F1 precedes F2 in causality
/// order, then F1 must precede F2 in Fence-SC order."
/// Causality order between fences is read as base causality (proxy preservation
/// only concerns memory operations); "must precede" as "must not follow"
/// (Lustig et al., Figure 7: irreflexive(sc ; cause)).
pub fn fence_sc(ctx: &Ctx, ms: &Rel, cb: &Rel, sc: &Rel) -> bool {
    for f1 in 0..ctx.n() {
        for f2 in 0..ctx.n() {
            let pair = ctx.event(f1).is_fence_sc() && ctx.event(f2).is_fence_sc() && ms.has(f1, f2);
            if pair && cb.has(f1, f2) && sc.has(f2, f1) {
                return false;
            }
        }
    }
    true
}

/// 8.10.3: "When an atomic operation A and a write W overlap and are morally
/// strong, then the following two communications cannot both exist in the same
/// execution, for the set of bytes accessed by both A and W:
/// 1. A reads any byte from a write W' that precedes W in coherence order.
/// 2. A follows W in coherence order."
pub fn atomicity(ctx: &Ctx, ms: &Rel, fr: &Rel, co: &Rel) -> bool {
    for a in 0..ctx.n() {
        if !ctx.access(a).is_some_and(|x| x.atomic && x.writes) {
            continue;
        }
        for w in 0..ctx.n() {
            if w == a || !ctx.is_write(w) || ctx.is_init(w) || !ms.has(a, w) {
                continue;
            }
            if fr.has(a, w) && co.has(w, a) {
                return false;
            }
        }
    }
    true
}

/// 8.10.4: "Values may not appear “out of thin air”: an execution cannot
/// speculatively produce a value in such a way that the speculation becomes
/// self-satisfying through chains of instruction dependencies and inter-thread
/// communication." acyclic(rf ∪ dep), rf from the program's own writes.
pub fn no_thin_air(ctx: &Ctx, rf: &Rel, dep: &Rel) -> bool {
    rf.filter(|w, _| !ctx.is_init(w)).union(dep).is_acyclic()
}

/// 8.10.5: "Within any set of overlapping memory operations that are pairwise
/// morally strong, communication order cannot contradict program order, i.e., a
/// concatenation of program order between overlapping operations and morally
/// strong relations in communication order cannot result in a cycle."
/// Per location: acyclic(po_loc ∪ (ms ∩ (rf ∪ co ∪ fr))) over the threads' memory
/// operations (initial writes excluded).
pub fn sc_per_location(ctx: &Ctx, po: &Rel, ms: &Rel, rf: &Rel, co: &Rel, fr: &Rel) -> bool {
    for l in 0..ctx.p.locations.len() {
        let on_l = |i: usize| ctx.is_mem(i) && !ctx.is_init(i) && ctx.loc(i) == Some(l);
        let po_loc = po.restrict(on_l);
        let com = ms.intersect(&rf.union(co).union(fr)).restrict(on_l);
        if !po_loc.union(&com).is_acyclic() {
            return false;
        }
    }
    true
}

/// 8.10.6: "Relations in communication order cannot contradict causality order.
/// 1. If a read R precedes an overlapping write W in causality order, then R cannot
///    read from W.
/// 2. If a write W precedes an overlapping read R in causality order, then for any
///    byte accessed by both R and W, R cannot read from any write W' that precedes
///    W in coherence order."
pub fn causality(ctx: &Ctx, rf: &Rel, fr: &Rel, cause: &Rel) -> bool {
    for a in 0..ctx.n() {
        for b in 0..ctx.n() {
            // 1. rf(W, R) with cause(R, W).
            if rf.has(a, b) && cause.has(b, a) {
                return false;
            }
            // 2. fr(R, W) with cause(W, R).
            if fr.has(a, b) && cause.has(b, a) {
                return false;
            }
        }
    }
    true
}

/// Does the execution satisfy this axiom?
pub fn holds(ctx: &Ctx, r: &Relations, ax: Axiom) -> bool {
    match ax {
        Axiom::Coherence => coherence(ctx, r.cause, r.co),
        Axiom::FenceSc => fence_sc(ctx, r.ms, r.cb, r.sc),
        Axiom::Atomicity => atomicity(ctx, r.ms, r.fr, r.co),
        Axiom::NoThinAir => no_thin_air(ctx, r.rf, r.dep),
        Axiom::ScPerLocation => sc_per_location(ctx, r.po, r.ms, r.rf, r.co, r.fr),
        Axiom::Causality => causality(ctx, r.rf, r.fr, r.cause),
    }
}

/// The first axiom (in ISA order) the execution violates, if any.
pub fn first_violated(ctx: &Ctx, r: &Relations) -> Option<Axiom> {
    Axiom::ALL.into_iter().find(|&ax| !holds(ctx, r, ax))
}
