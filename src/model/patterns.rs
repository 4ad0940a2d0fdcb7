//! 8.8 Release and acquire patterns, found statically in each trace.

use crate::ast::FenceSem;
use crate::program::{Access, Event, EventId, EventKind, Program};

/// A pattern: the operation that bounds it (first of a release pattern, last of an
/// acquire pattern) and the memory operation that communicates (write or read on M).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub bound: EventId,
    pub access: EventId,
}

/// One operation as 8.8 reads it: its memory access (None for a fence or a
/// barrier) and its fence semantics (None unless a memory fence).
#[derive(Clone, Copy)]
pub struct Op<'a> {
    pub access: Option<&'a Access>,
    pub fence: Option<FenceSem>,
}

impl<'a> Op<'a> {
    pub fn of(e: &'a Event) -> Op<'a> {
        let fence = match e.kind {
            EventKind::Fence { sem, .. } => Some(sem),
            _ => None,
        };
        Op { access: e.access(), fence }
    }
}

/// 8.8: "A release pattern on a location M consists of one of the following:
/// (1) A release operation on M (2) Or a release or acquire-release operation
/// on M followed by a strong write on M in program order (3) Or a release or
/// acquire-release memory fence followed by a strong write on M in program
/// order." Does X open one whose write on M is W? `same`: W is X (case 1);
/// otherwise W follows X in program order. fence.sc is a release fence (it is
/// stronger than fence.acq_rel). The one decision: the primitives
/// (`prims::release_patterns`) and the static list below read it.
pub(crate) fn opens_release(x: Op, w: Op, same: bool) -> bool {
    let Some(wa) = w.access else { return false };
    if same {
        return wa.writes && wa.sem.is_release();
    }
    let release_on_m = x.access.is_some_and(|a| a.sem.is_release() && a.loc == wa.loc);
    let release_fence = matches!(x.fence, Some(FenceSem::Release | FenceSem::AcqRel | FenceSem::Sc));
    wa.writes && wa.sem.is_strong() && (release_on_m || release_fence)
}

/// 8.8: "An acquire pattern on a location M consists of one of the following:
/// (1) An acquire operation on M (2) Or a strong read on M followed by an
/// acquire operation on M in program order (3) Or a strong read on M followed
/// by an acquire memory fence in program order". Does the read R on M close
/// one at Y? `same`: Y is R (case 1); otherwise Y follows R in program order.
/// 8.11.1: the strong read of a reduction (`red`) never forms one; fence.sc is
/// an acquire fence.
pub(crate) fn closes_acquire(r: Op, y: Op, same: bool) -> bool {
    let Some(ra) = r.access else { return false };
    if !ra.reads || ra.is_red || !ra.sem.is_strong() {
        return false;
    }
    if same {
        return ra.sem.is_acquire();
    }
    let acquire_on_m = y.access.is_some_and(|a| a.loc == ra.loc && a.sem.is_acquire());
    acquire_on_m || matches!(y.fence, Some(FenceSem::Acquire | FenceSem::AcqRel | FenceSem::Sc))
}

/// Every release pattern of every trace (`opens_release`), as (first operation, write on M).
pub fn release_patterns(p: &Program) -> Vec<Pattern> {
    let mut out = Vec::new();
    for tr in &p.traces {
        for (i, &x) in tr.events.iter().enumerate() {
            let xo = Op::of(&p.events[x]);
            if opens_release(xo, xo, true) {
                out.push(Pattern { bound: x, access: x });
            }
            for &w in &tr.events[i + 1..] {
                if opens_release(xo, Op::of(&p.events[w]), false) {
                    out.push(Pattern { bound: x, access: w });
                }
            }
        }
    }
    out
}

/// Every acquire pattern of every trace (`closes_acquire`), as (last operation, read on M).
pub fn acquire_patterns(p: &Program) -> Vec<Pattern> {
    let mut out = Vec::new();
    for tr in &p.traces {
        for (i, &r) in tr.events.iter().enumerate() {
            let ro = Op::of(&p.events[r]);
            if closes_acquire(ro, ro, true) {
                out.push(Pattern { bound: r, access: r });
            }
            for &y in &tr.events[i + 1..] {
                if closes_acquire(ro, Op::of(&p.events[y]), false) {
                    out.push(Pattern { bound: y, access: r });
                }
            }
        }
    }
    out
}
