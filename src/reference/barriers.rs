//! Barrier matchings of one choice of traces (8.9.4 rules 2 and 3): which
//! arrivals each barrier wait is matched with, and whether a matching deadlocks.

use super::enumerate::{Ctx, Odometer};
use super::rel::Rel;
use crate::error::{Error, Result};
use crate::program::{EventKind, Expected};

/// Which arrivals each barrier wait is matched with (arrive -> wait pairs).
#[derive(Clone, Debug)]
pub struct Matching {
    /// CTA barriers (`bar.sync`, `bar.arrive`, ...).
    pub cta: Rel,
    /// Cluster barriers (`barrier.cluster.arrive` -> `barrier.cluster.wait`).
    pub cluster: Rel,
}

impl Matching {
    pub fn empty(n: usize) -> Matching {
        Matching { cta: Rel::new(n), cluster: Rel::new(n) }
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

/// The events of barrier operations (both halves, CTA and cluster).
pub fn is_barrier_event(ctx: &Ctx, i: usize) -> bool {
    matches!(
        ctx.event(i).kind,
        EventKind::BarrierArrive { .. }
            | EventKind::BarrierWait { .. }
            | EventKind::ClusterArrive { .. }
            | EventKind::ClusterWait { .. }
    )
}

/// Every way of matching barrier waits with arrivals in which every wait gets the
/// arrivals it needs:
/// - a CTA wait expecting all arrivals is matched with every executed arrive of
///   another thread with the same barrier key;
/// - a CTA wait expecting `n` threads is matched with any set of at least `n - 1`
///   executed arrives of other threads with the same key (none: it never completes);
/// - a cluster wait needs the arrive of the same generation of every other thread
///   of its cluster (missing one: it never completes), and is matched with all of them.
///
/// Empty when some wait cannot complete. Cycles with program order are not
/// checked here (see [`matching_deadlocks`]).
pub fn barrier_matchings(ctx: &Ctx) -> Result<Vec<Matching>> {
    let n = ctx.n();
    // For each wait, its options (sets of arrives), in local numbers.
    let mut waits: Vec<(usize, bool, Vec<Vec<usize>>)> = Vec::new();
    for w in 0..n {
        let tw = ctx.thread(w);
        match &ctx.event(w).kind {
            EventKind::BarrierWait { key, expected } => {
                let others: Vec<usize> = (0..n)
                    .filter(|&a| ctx.thread(a) != tw)
                    .filter(|&a| matches!(&ctx.event(a).kind, EventKind::BarrierArrive { key: k, .. } if k == key))
                    .collect();
                let options = match expected {
                    Expected::Arrivals => vec![others],
                    Expected::Count(c) => {
                        if others.len() > 20 {
                            return Err(Error::limit("a barrier has more than 20 arriving threads: too many matchings for the reference engine"));
                        }
                        subsets_at_least(&others, c.saturating_sub(1))
                    }
                };
                waits.push((w, false, options));
            }
            EventKind::ClusterWait { cluster, generation } => {
                let mut set = Vec::new();
                let mut complete = true;
                for th in ctx.p.threads.iter().filter(|t| t.placement.cluster == *cluster && Some(t.id) != tw) {
                    let arrive = (0..n).find(|&a| {
                        ctx.thread(a) == Some(th.id) && matches!(&ctx.event(a).kind, EventKind::ClusterArrive { cluster: c, generation: g, .. } if c == cluster && g == generation)
                    });
                    match arrive {
                        Some(a) => set.push(a),
                        None => complete = false,
                    }
                }
                let options = if complete { vec![set] } else { vec![] };
                waits.push((w, true, options));
            }
            _ => {}
        }
    }
    let sizes: Vec<usize> = waits.iter().map(|(_, _, o)| o.len()).collect();
    let mut out = Vec::new();
    for idx in Odometer::new(sizes) {
        let mut m = Matching::empty(n);
        for ((w, cluster, options), i) in waits.iter().zip(idx) {
            for &a in &options[i] {
                if *cluster {
                    m.cluster.add(a, *w);
                } else {
                    m.cta.add(a, *w);
                }
            }
        }
        out.push(m);
    }
    Ok(out)
}

/// A matching deadlocks when program order and the arrive -> wait edges form a
/// cycle over the barrier events: some wait waits, indirectly, on itself.
pub fn matching_deadlocks(ctx: &Ctx, po: &Rel, m: &Matching) -> bool {
    let g = po.restrict(|i| is_barrier_event(ctx, i)).union(&m.cta).union(&m.cluster);
    !g.is_acyclic()
}

/// Does the program contain any barrier wait (in any trace)?
pub fn has_barrier_waits(ctx: &Ctx) -> bool {
    (0..ctx.n()).any(|i| matches!(ctx.event(i).kind, EventKind::BarrierWait { .. } | EventKind::ClusterWait { .. }))
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
