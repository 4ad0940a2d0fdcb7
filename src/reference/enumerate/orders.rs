//! The orders of one choice of traces: every coherence order (8.9.6) and
//! every Fence-SC order (8.9.3), each a strict partial order relating every
//! morally strong pair, and the final values they leave.

use super::{Ctx, Odometer};
use crate::error::{Error, Result};
use crate::program::LocId;
use crate::reference::rel::Rel;
use std::collections::BTreeMap;

/// Every strict partial order (irreflexive, transitive) on `items` that relates
/// each pair for which `must_relate` holds, as lists of pairs. Pairs are decided
/// one at a time (a before b, b before a, or unrelated); a partial assignment
/// already breaking transitivity is abandoned. `budget` counts the assignments
/// tried; running out is a limit error.
pub(crate) fn strict_partial_orders(
    items: &[usize],
    must_relate: impl Fn(usize, usize) -> bool,
    budget: &mut u64,
    what: &str,
) -> Result<Vec<Vec<(usize, usize)>>> {
    let k = items.len();
    let pairs: Vec<(usize, usize)> = (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).collect();
    // lt[a][b]: Some(true) a before b; Some(false) decided not; None undecided.
    let mut lt = vec![vec![None; k]; k];
    for (a, row) in lt.iter_mut().enumerate() {
        row[a] = Some(false);
    }
    let mut out = Vec::new();
    fn consistent(lt: &[Vec<Option<bool>>]) -> bool {
        let k = lt.len();
        for a in 0..k {
            for b in 0..k {
                if lt[a][b] != Some(true) {
                    continue;
                }
                if (0..k).any(|c| lt[b][c] == Some(true) && lt[a][c] == Some(false)) {
                    return false;
                }
            }
        }
        true
    }
    #[allow(clippy::too_many_arguments)]
    fn go(
        at: usize,
        pairs: &[(usize, usize)],
        items: &[usize],
        lt: &mut Vec<Vec<Option<bool>>>,
        must: &dyn Fn(usize, usize) -> bool,
        budget: &mut u64,
        what: &str,
        out: &mut Vec<Vec<(usize, usize)>>,
    ) -> Result<()> {
        if *budget == 0 {
            return Err(Error::limit(format!("the reference engine ran out of its candidate budget while enumerating {} (raise the candidate limit or use the SAT engine)", what)));
        }
        *budget -= 1;
        if at == pairs.len() {
            let mut order = Vec::new();
            for (a, row) in lt.iter().enumerate() {
                for (b, &v) in row.iter().enumerate() {
                    if v == Some(true) {
                        order.push((items[a], items[b]));
                    }
                }
            }
            out.push(order);
            return Ok(());
        }
        let (i, j) = pairs[at];
        let mut options = vec![(true, false), (false, true)];
        if !must(items[i], items[j]) {
            options.push((false, false));
        }
        for (ij, ji) in options {
            lt[i][j] = Some(ij);
            lt[j][i] = Some(ji);
            if consistent(lt) {
                go(at + 1, pairs, items, lt, must, budget, what, out)?;
            }
            lt[i][j] = None;
            lt[j][i] = None;
        }
        Ok(())
    }
    go(0, &pairs, items, &mut lt, &must_relate, budget, what, &mut out)?;
    Ok(out)
}

/// 8.9.6 Every coherence order of one location: a strict partial order on its
/// executed writes relating every morally strong pair, the initial write first.
pub(crate) fn coherence_orders(ctx: &Ctx, l: LocId, ms: &Rel, budget: &mut u64) -> Result<Vec<Vec<(usize, usize)>>> {
    let init = ctx.init_of(l);
    let writes: Vec<usize> = ctx.writes_to(l).into_iter().filter(|&w| w != init).collect();
    let orders = strict_partial_orders(&writes, |a, b| ms.has(a, b), budget, "coherence orders")?;
    Ok(orders
        .into_iter()
        .map(|mut o| {
            o.extend(writes.iter().map(|&w| (init, w)));
            o
        })
        .collect())
}

/// Every coherence relation over all locations (one order per location, combined).
pub fn coherence_choices(ctx: &Ctx, ms: &Rel, budget: &mut u64) -> Result<Vec<Rel>> {
    let mut per_loc = Vec::new();
    for l in 0..ctx.p.locations.len() {
        per_loc.push(coherence_orders(ctx, l, ms, budget)?);
    }
    let sizes: Vec<usize> = per_loc.iter().map(|o| o.len()).collect();
    let mut out = Vec::new();
    for idx in Odometer::new(sizes) {
        if *budget == 0 {
            return Err(Error::limit("the reference engine ran out of its candidate budget while combining coherence orders (raise the candidate limit or use the SAT engine)"));
        }
        *budget -= 1;
        let pairs = per_loc.iter().zip(idx).flat_map(|(o, i)| o[i].iter().copied());
        out.push(Rel::from_pairs(ctx.n(), pairs));
    }
    Ok(out)
}

/// 8.9.3 Every Fence-SC order: a strict partial order on the executed fence.sc
/// operations relating every morally strong pair.
pub fn fence_sc_choices(ctx: &Ctx, ms: &Rel, budget: &mut u64) -> Result<Vec<Rel>> {
    let fences: Vec<usize> = (0..ctx.n()).filter(|&i| ctx.event(i).is_fence_sc()).collect();
    let orders = strict_partial_orders(&fences, |a, b| ms.has(a, b), budget, "Fence-SC orders")?;
    Ok(orders.into_iter().map(|o| Rel::from_pairs(ctx.n(), o)).collect())
}

/// The final values: for each location, the coherence-maximal executed writes
/// (any of them may be the last one).
pub(crate) fn maximal_writes(ctx: &Ctx, co: &Rel) -> BTreeMap<LocId, Vec<usize>> {
    let mut out = BTreeMap::new();
    for l in 0..ctx.p.locations.len() {
        let ws = ctx.writes_to(l);
        let max: Vec<usize> = ws.iter().copied().filter(|&w| !ws.iter().any(|&w2| co.has(w, w2))).collect();
        out.insert(l, max);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_orders_counts() {
        // Labelled strict partial orders on 0..4 elements: 1, 1, 3, 19, 219.
        for (k, want) in [(0usize, 1usize), (1, 1), (2, 3), (3, 19), (4, 219)] {
            let items: Vec<usize> = (0..k).collect();
            let mut budget = 1_000_000;
            let got = strict_partial_orders(&items, |_, _| false, &mut budget, "test").unwrap();
            assert_eq!(got.len(), want, "k = {}", k);
        }
        // Total orders when every pair must be related: k!.
        let items: Vec<usize> = (0..4).collect();
        let mut budget = 1_000_000;
        let got = strict_partial_orders(&items, |_, _| true, &mut budget, "test").unwrap();
        assert_eq!(got.len(), 24);
        let mut budget = 3;
        assert!(strict_partial_orders(&items, |_, _| false, &mut budget, "test").is_err());
    }
}
