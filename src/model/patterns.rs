//! 8.8 Release and acquire patterns, found statically in each trace.

use crate::ast::FenceSem;
use crate::program::{EventId, EventKind, Program};

/// A pattern: the operation that bounds it (first of a release pattern, last of an
/// acquire pattern) and the memory operation that communicates (write or read on M).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub bound: EventId,
    pub access: EventId,
}

fn fence_sem(p: &Program, e: EventId) -> Option<FenceSem> {
    match p.events[e].kind {
        EventKind::Fence { sem, .. } => Some(sem),
        _ => None,
    }
}

/// A release or acquire-release fence (fence.sc is also one: it is stronger than fence.acq_rel).
fn is_release_fence(p: &Program, e: EventId) -> bool {
    matches!(fence_sem(p, e), Some(FenceSem::Release | FenceSem::AcqRel | FenceSem::Sc))
}

fn is_acquire_fence(p: &Program, e: EventId) -> bool {
    matches!(fence_sem(p, e), Some(FenceSem::Acquire | FenceSem::AcqRel | FenceSem::Sc))
}

/// 8.8: a release pattern on M is
/// 1. a release operation on M, or
/// 2. a release or acquire-release operation on M followed by a strong write on M in program order, or
/// 3. a release or acquire-release memory fence followed by a strong write on M in program order.
pub fn release_patterns(p: &Program) -> Vec<Pattern> {
    let mut out = Vec::new();
    for tr in &p.traces {
        for (i, &x) in tr.events.iter().enumerate() {
            let xa = p.events[x].access();
            if let Some(a) = xa {
                if a.writes && a.sem.is_release() {
                    out.push(Pattern { bound: x, access: x });
                }
            }
            let opens_on_m = xa.map(|a| a.sem.is_release());
            for &w in &tr.events[i + 1..] {
                let Some(wa) = p.events[w].access() else { continue };
                if !(wa.writes && wa.sem.is_strong()) {
                    continue;
                }
                let same_m = xa.is_some_and(|a| a.loc == wa.loc);
                if (opens_on_m == Some(true) && same_m) || is_release_fence(p, x) {
                    out.push(Pattern { bound: x, access: w });
                }
            }
        }
    }
    out
}

/// 8.8: an acquire pattern on M is
/// 1. an acquire operation on M, or
/// 2. a strong read on M followed by an acquire operation on M in program order, or
/// 3. a strong read on M followed by an acquire memory fence in program order.
///
/// 8.11.1: the strong read of a reduction (`red`) never forms an acquire pattern.
pub fn acquire_patterns(p: &Program) -> Vec<Pattern> {
    let mut out = Vec::new();
    for tr in &p.traces {
        for (i, &r) in tr.events.iter().enumerate() {
            let Some(ra) = p.events[r].access() else { continue };
            if !ra.reads || ra.is_red || !ra.sem.is_strong() {
                continue;
            }
            if ra.sem.is_acquire() {
                out.push(Pattern { bound: r, access: r });
            }
            for &y in &tr.events[i + 1..] {
                let acq_on_m = p.events[y].access().is_some_and(|a| a.loc == ra.loc && a.sem.is_acquire());
                if acq_on_m || is_acquire_fence(p, y) {
                    out.push(Pattern { bound: y, access: r });
                }
            }
        }
    }
    out
}
