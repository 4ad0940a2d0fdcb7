//! Barrier matchings of one choice of traces (8.9.4 rules 2 and 3): which
//! arrivals each barrier wait is matched with, and whether a matching deadlocks.

use super::enumerate::{Ctx, Odometer};
use super::rel::Rel;
use crate::error::{Error, Result};
use crate::program::{Expected, SyncRole};

/// Which arrivals each wait of a synchronizing operation is matched with
/// (arrive -> wait pairs, every kind of barrier alike).
#[derive(Clone, Debug)]
pub struct Matching {
    pub pairs: Rel,
}

impl Matching {
    pub fn empty(n: usize) -> Matching {
        Matching { pairs: Rel::new(n) }
    }
}

/// All subsets of `xs` with at least `min` elements.
fn subsets_at_least(xs: &[usize], min: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for mask in 0u64..(1u64 << xs.len()) {
        if (mask.count_ones() as usize) < min {
            continue;
        }
        out.push((0..xs.len()).filter(|&i| mask >> i & 1 == 1).map(|i| xs[i]).collect());
    }
    out
}

/// The halves of synchronizing operations.
pub(crate) fn is_barrier_event(ctx: &Ctx, i: usize) -> bool {
    ctx.event(i).sync().is_some()
}

/// The ways wait `w` can be matched with the arrivals `others` (of other
/// threads, at its key), by what it expects ([`Expected`]):
/// - every arrival: matched with all of them;
/// - `n` threads: any set of at least `n - 1` of them (none: it never completes);
/// - one arrival of each listed thread: all of them, when each listed thread
///   other than the waiter has one (a missing one: it never completes).
fn wait_options(ctx: &Ctx, w: usize, expected: &Expected, others: Vec<usize>) -> Result<Vec<Vec<usize>>> {
    Ok(match expected {
        Expected::Arrivals => vec![others],
        Expected::Count(c) => {
            if others.len() > 20 {
                return Err(Error::limit(
                    "a barrier has more than 20 arriving threads: too many matchings for the reference engine",
                ));
            }
            subsets_at_least(&others, c.saturating_sub(1))
        }
        Expected::Threads(threads) => {
            let missing = threads
                .iter()
                .filter(|&&t| Some(t) != ctx.thread(w))
                .any(|&t| !others.iter().any(|&a| ctx.thread(a) == Some(t)));
            if missing {
                vec![]
            } else {
                vec![others.into_iter().filter(|&a| ctx.thread(a).is_some_and(|t| threads.contains(&t))).collect()]
            }
        }
    })
}

/// Every way of matching the waits of synchronizing operations with arrivals
/// of other threads at the same key in which every wait gets the arrivals it
/// needs (`wait_options`). Empty when some wait cannot complete. Cycles with
/// program order are not checked here (see `matching_deadlocks`).
pub fn barrier_matchings(ctx: &Ctx) -> Result<Vec<Matching>> {
    let n = ctx.n();
    // For each wait, its options (sets of arrives), in local numbers.
    let mut waits: Vec<(usize, Vec<Vec<usize>>)> = Vec::new();
    for w in 0..n {
        let Some(sync) = ctx.event(w).sync().filter(|s| s.role == SyncRole::Wait) else { continue };
        let tw = ctx.thread(w);
        let others: Vec<usize> = (0..n)
            .filter(|&a| ctx.thread(a) != tw)
            .filter(|&a| ctx.event(a).sync().is_some_and(|s| s.role == SyncRole::Arrive && s.key == sync.key))
            .collect();
        waits.push((w, wait_options(ctx, w, &sync.expected, others)?));
    }
    let sizes: Vec<usize> = waits.iter().map(|(_, o)| o.len()).collect();
    let mut out = Vec::new();
    for idx in Odometer::new(sizes) {
        let mut m = Matching::empty(n);
        for ((w, options), i) in waits.iter().zip(idx) {
            for &a in &options[i] {
                m.pairs.add(a, *w);
            }
        }
        out.push(m);
    }
    Ok(out)
}

/// A matching deadlocks when program order and the arrive -> wait edges form a
/// cycle over the barrier events: some wait waits, indirectly, on itself.
pub(crate) fn matching_deadlocks(ctx: &Ctx, po: &Rel, m: &Matching) -> bool {
    let g = po.restrict(|i| is_barrier_event(ctx, i)).union(&m.pairs);
    !g.is_acyclic()
}

/// Does every reducing wait get the result its path assumes from the values of
/// the arrivals it is matched with (`Sync::result_holds`), and every
/// Every warp collective's wait, the values it assumes its lanes contributed
/// (`Sync::assumption_holds`, D174).
pub(crate) fn matching_values_hold(ctx: &Ctx, m: &Matching) -> bool {
    (0..ctx.n()).all(|w| match ctx.event(w).sync() {
        Some(sync) if sync.result.is_some() || !sync.assumed.is_empty() => {
            let matched = || (0..ctx.n()).filter(|&a| m.pairs.has(a, w));
            let values = matched().filter_map(|a| ctx.event(a).sync()?.value);
            sync.result_holds(values)
                && matched().all(|a| sync.assumption_holds(ctx.thread(a), ctx.event(a).sync().and_then(|s| s.value)))
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets() {
        assert_eq!(subsets_at_least(&[1, 2, 3], 2).len(), 4);
        assert_eq!(subsets_at_least(&[1, 2], 0).len(), 4);
        assert_eq!(subsets_at_least(&[1], 2).len(), 0);
    }
}
