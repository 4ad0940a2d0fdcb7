//! The reads-from maps of one choice of traces: each executed read from a
//! write of its location whose value the read's trace allows.

use super::Ctx;
use crate::error::{Error, Result};
use crate::program::EventId;
use crate::reference::rel::Rel;

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
