//! The candidate executions of a program, enumerated explicitly: one trace per
//! thread, then for those traces every reads-from map, every barrier matching,
//! every Fence-SC order and every coherence order.
//!
//! Within one choice of traces the executed events are renumbered `0..n` (the
//! initial writes first, then the events of the chosen traces); relations are
//! bit matrices over those local numbers.

use super::rel::Rel;
use crate::error::{Error, Result};
use crate::program::{Access, Event, EventId, EventKind, LocId, Placement, Program, TraceId};
use std::collections::BTreeMap;

/// The executed events of one choice of traces.
pub struct Ctx<'p> {
    pub p: &'p Program,
    /// The trace chosen for each thread.
    pub traces: Vec<TraceId>,
    /// Local number -> event.
    pub ev: Vec<EventId>,
    /// Event -> local number, for executed events.
    pub local: Vec<Option<usize>>,
}

impl<'p> Ctx<'p> {
    /// An event executes if it is an initial write or its trace is chosen.
    pub fn new(p: &'p Program, traces: Vec<TraceId>) -> Ctx<'p> {
        let mut ev = Vec::new();
        for e in &p.events {
            let executes = match e.trace {
                None => matches!(e.kind, EventKind::Init),
                Some(_) => e.paths.iter().any(|t| traces.contains(t)),
            };
            if executes {
                ev.push(e.id);
            }
        }
        let mut local = vec![None; p.events.len()];
        for (i, &e) in ev.iter().enumerate() {
            local[e] = Some(i);
        }
        Ctx { p, traces, ev, local }
    }

    pub fn n(&self) -> usize {
        self.ev.len()
    }

    pub fn event(&self, i: usize) -> &'p Event {
        &self.p.events[self.ev[i]]
    }

    pub fn access(&self, i: usize) -> Option<&'p Access> {
        self.event(i).access()
    }

    pub fn is_init(&self, i: usize) -> bool {
        matches!(self.event(i).kind, EventKind::Init)
    }

    pub fn thread(&self, i: usize) -> Option<usize> {
        self.event(i).thread
    }

    pub fn placement(&self, i: usize) -> Option<Placement> {
        self.thread(i).map(|t| self.p.threads[t].placement)
    }

    pub fn is_mem(&self, i: usize) -> bool {
        self.access(i).is_some()
    }

    /// The location written, for writes and initial writes.
    pub fn write_loc(&self, i: usize) -> Option<LocId> {
        self.event(i).write_loc()
    }

    pub(crate) fn read_loc(&self, i: usize) -> Option<LocId> {
        self.event(i).read_loc()
    }

    /// The location a memory operation accesses (or an initial write writes).
    pub fn loc(&self, i: usize) -> Option<LocId> {
        match &self.event(i).kind {
            EventKind::Init => self.event(i).init_loc,
            EventKind::Mem(a) => Some(a.loc),
            _ => None,
        }
    }

    pub fn is_write(&self, i: usize) -> bool {
        self.write_loc(i).is_some()
    }

    pub fn is_read(&self, i: usize) -> bool {
        self.read_loc(i).is_some()
    }

    /// Executed writes to `l`, the initial write included (it comes first).
    pub(crate) fn writes_to(&self, l: LocId) -> Vec<usize> {
        (0..self.n()).filter(|&i| self.write_loc(i) == Some(l)).collect()
    }

    /// The initial write of `l`.
    pub(crate) fn init_of(&self, l: LocId) -> usize {
        self.local[self.p.init_events[l]].expect("initial writes always execute")
    }

    pub(crate) fn written_value(&self, i: usize) -> Option<i64> {
        self.event(i).written_value(self.p)
    }

    /// Convert local pairs back to event ids.
    pub(crate) fn global_pairs(&self, r: &Rel) -> Vec<(EventId, EventId)> {
        r.pairs().into_iter().map(|(a, b)| (self.ev[a], self.ev[b])).collect()
    }
}

/// Every combination of indices `0..sizes[k]`, first index fastest.
/// One empty combination when `sizes` is empty; none when some size is 0.
pub(crate) struct Odometer {
    sizes: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Odometer {
    pub fn new(sizes: Vec<usize>) -> Odometer {
        let next = if sizes.contains(&0) { None } else { Some(vec![0; sizes.len()]) };
        Odometer { sizes, next }
    }
}

impl Iterator for Odometer {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        let cur = self.next.take()?;
        let mut nxt = cur.clone();
        let mut k = 0;
        loop {
            if k == nxt.len() {
                break; // wrapped around: `self.next` stays None
            }
            nxt[k] += 1;
            if nxt[k] < self.sizes[k] {
                self.next = Some(nxt);
                break;
            }
            nxt[k] = 0;
            k += 1;
        }
        Some(cur)
    }
}

/// One trace per thread: every combination.
pub fn trace_combinations(p: &Program) -> impl Iterator<Item = Vec<TraceId>> + '_ {
    let sizes: Vec<usize> = p.threads.iter().map(|t| t.traces.len()).collect();
    Odometer::new(sizes).map(move |idx| p.threads.iter().zip(idx).map(|(t, i)| t.traces[i]).collect())
}

/// For each executed read, the writes it may read from: a write of the same
/// location (initial write included), executed, not the read itself, and whose
/// value the trace's assumptions allow the read to return (the value it assumed,
/// and none of the values a branch not taken excluded).
pub(crate) fn rf_candidates(ctx: &Ctx) -> Vec<(usize, Vec<usize>)> {
    let mut out = Vec::new();
    for r in 0..ctx.n() {
        let (Some(l), Some(a)) = (ctx.read_loc(r), ctx.access(r)) else { continue };
        let cands: Vec<usize> = ctx
            .writes_to(l)
            .into_iter()
            .filter(|&w| w != r)
            // A read-modify-write's value depends on what it reads: checked per choice.
            .filter(|&w| ctx.written_value(w).is_none_or(|v| a.allows(v)))
            .collect();
        out.push((r, cands));
    }
    out
}

/// Every reads-from relation (write -> read), as relations. More than `budget`
/// of them is a limit error.
pub fn rf_choices(ctx: &Ctx, budget: u64) -> Result<Vec<Rel>> {
    let cands = rf_candidates(ctx);
    let sizes: Vec<usize> = cands.iter().map(|(_, c)| c.len()).collect();
    let count = sizes.iter().fold(1u64, |acc, &s| acc.saturating_mul(s as u64));
    if count > budget {
        // The product saturates: past u64, say so instead of printing u64::MAX.
        let shown = if count == u64::MAX { "more than 2^64".to_string() } else { count.to_string() };
        return Err(Error::limit(format!(
            "the reference engine would have to try {} reads-from choices, more than its remaining candidate budget of {} (use the SAT engine)",
            shown, budget
        )));
    }
    let mut out = Vec::new();
    let mut source = vec![None; ctx.n()];
    rf_search(ctx, &cands, cands.len(), &mut source, &mut out);
    Ok(out)
}

/// The reads-from maps of `rf_choices` in its order (the first read's write
/// changing fastest): the reads `cands[..level]` are still to be given a
/// write, the others have theirs in `source` (read -> write, local numbers).
/// A read whose value is already known and not allowed ends the branch, so
/// that the maps ruled out are not all built and tested one by one; a value
/// that still depends on a read without a write waits for the full map, which
/// is checked as `values_allowed` checks it.
fn rf_search(
    ctx: &Ctx,
    cands: &[(usize, Vec<usize>)],
    level: usize,
    source: &mut Vec<Option<usize>>,
    out: &mut Vec<Rel>,
) {
    if level == 0 {
        out.push(Rel::from_pairs(ctx.n(), cands.iter().filter_map(|(r, _)| Some((source[*r]?, *r)))));
        return;
    }
    let (r, writes) = &cands[level - 1];
    for &w in writes {
        source[*r] = Some(w);
        if cands[level - 1..].iter().all(|(read, _)| value_allowed(ctx, source, *read)) {
            rf_search(ctx, cands, level - 1, source, out);
        }
    }
    source[*r] = None;
}

/// Read `r` (local number), given its write in `source`, may return the value
/// that write writes: a read-modify-write's value along `source`, unknown
/// (allowed here) while a read of its chain has no write yet.
fn value_allowed(ctx: &Ctx, source: &[Option<usize>], r: usize) -> bool {
    let (Some(a), Some(w)) = (ctx.access(r), source[r]) else { return true };
    let global = |g: EventId| ctx.local[g].and_then(|x| source[x]).map(|w| ctx.ev[w]);
    !a.reads || ctx.p.value_written(ctx.ev[w], &global).is_none_or(|v| a.allows(v))
}

/// Every read returns a value its trace allows, values of read-modify-writes
/// computed along reads-from. A cycle of read-modify-writes has no value and is
/// left to the axioms (8.10.4 forbids it).
pub(crate) fn values_allowed(ctx: &Ctx, rf: &Rel) -> bool {
    let source = |g: EventId| ctx.local[g].and_then(|r| (0..ctx.n()).find(|&w| rf.has(w, r))).map(|w| ctx.ev[w]);
    (0..ctx.n()).all(|r| {
        let (Some(a), Some(w)) = (ctx.access(r), source(ctx.ev[r])) else { return true };
        !a.reads || ctx.p.value_written(w, &source).is_none_or(|v| a.allows(v))
    })
}

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

pub use super::barriers::{barrier_matchings, Matching};
pub(crate) use super::barriers::{matching_deadlocks, matching_values_hold};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odometer_counts() {
        assert_eq!(Odometer::new(vec![]).count(), 1);
        assert_eq!(Odometer::new(vec![2, 3]).count(), 6);
        assert_eq!(Odometer::new(vec![2, 0]).count(), 0);
        let all: Vec<Vec<usize>> = Odometer::new(vec![2, 2]).collect();
        assert_eq!(all, vec![vec![0, 0], vec![1, 0], vec![0, 1], vec![1, 1]]);
    }

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
