//! The reference engine: explicit enumeration, for cross-checking the SAT
//! engine and re-checking every execution it reports (`verify`).
//!
//! Every candidate execution is enumerated explicitly (one trace per thread, a
//! reads-from map, a barrier matching, a Fence-SC order, a coherence order),
//! and the model's rows (`crate::model::rows`, the same rows the SAT engine
//! compiles into clauses) are evaluated on it as bit matrices by
//! `crate::model::eval`, over the primitives of `crate::model::prims`. What
//! differs from the SAT engine is the search: no encoding, no solver, no
//! merging of paths or symmetry breaking. Slow; meant to be obviously right.

pub mod barriers;
pub mod enumerate;
pub mod rel;
pub mod verify;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_sync;

use crate::ast::Observable;
use crate::error::{Error, Result};
use crate::model::eval::{Evaluator, Exec, Statics, Violation};
use crate::model::prims;
use crate::model::view::View;
use crate::model::{Model, ModelKind};
use crate::outcome::{apply_filter, Execution, Flags, Outcome};
use crate::program::{LocId, Program, TraceId};
use enumerate::{
    barrier_matchings, coherence_choices, fence_sc_choices, matching_deadlocks, matching_values_hold, maximal_writes,
    rf_choices, trace_combinations, Ctx, Matching, Odometer,
};
use rel::Rel;
use std::collections::BTreeSet;

/// Limits of one run, and the model it decides.
#[derive(Clone, Debug)]
pub struct ReferenceOptions {
    /// Most candidate executions (and partial-order steps) examined before giving up.
    pub max_candidates: u64,
    /// The rows the candidates are checked against (default: `ptx`) in `ctx.model`.
    pub ctx: crate::context::Ctx,
}

impl Default for ReferenceOptions {
    fn default() -> Self {
        ReferenceOptions { max_candidates: 5_000_000, ctx: crate::context::Ctx::default() }
    }
}

/// Program order and moral strength over the executed events, one event per
/// operation: what enumeration needs (coherence and Fence-SC orders must
/// relate morally strong pairs; barrier deadlocks follow program order).
struct Static {
    po: Rel,
    ms: Rel,
}

impl Static {
    fn new(ctx: &Ctx) -> Static {
        let v = View::new(ctx.p, &ctx.traces, &ctx.ev, false);
        Static { po: prims::program_order(&v), ms: prims::morally_strong(&v) }
    }
}

/// Give the evaluator the barrier matching (arrive -> wait, every kind).
fn set_matching(ev: &mut Evaluator, m: &Matching) {
    let bar = ev.view().map_rel(&m.pairs, false, false);
    ev.set(Exec::Bar, bar);
}

fn out_of_budget(max: u64) -> Error {
    Error::limit(format!("the reference engine needs more than {} candidate executions for this test (raise its candidate limit or use the SAT engine)", max))
}

fn take(budget: &mut u64, n: u64, max: u64) -> Result<()> {
    // The test's deadline (issue 11): candidates are taken often enough.
    crate::budget::check_time();
    if *budget < n {
        return Err(out_of_budget(max));
    }
    *budget -= n;
    Ok(())
}

/// The locations some observable shows.
fn observed_locations(p: &Program) -> BTreeSet<LocId> {
    p.observables
        .iter()
        .flat_map(|o| match o {
            Observable::Loc(name) => match p.loc_parts.get(name) {
                Some(parts) => parts.iter().map(|x| x.0).collect(),
                None => p.loc_names.get(name).copied().into_iter().collect(),
            },
            Observable::Reg { .. } => Vec::new(),
        })
        .collect()
}

/// One choice of traces with everything enumerated but the model's verdict:
/// the barrier matchings (an empty one when every matching deadlocks), the
/// reads-from maps, Fence-SC orders and coherence orders.
struct Candidates<'p> {
    ctx: Ctx<'p>,
    deadlocked: bool,
    matchings: Vec<Matching>,
    rfs: Vec<Rel>,
    scs: Vec<Rel>,
    cos: Vec<Rel>,
}

/// The candidates of `traces`, charged to `budget`; `None` when they need not
/// be examined: no matching gives the results the paths assume, or every
/// matching deadlocks and `deadlock_known` (a deadlock was already found).
fn candidates<'p>(
    p: &'p Program,
    traces: Vec<TraceId>,
    budget: &mut u64,
    max: u64,
    deadlock_known: bool,
) -> Result<Option<Candidates<'p>>> {
    take(budget, 1, max)?;
    let ctx = Ctx::new(p, traces);
    let n = ctx.n();
    let st = Static::new(&ctx);
    // Barrier progress: the matchings in which every wait completes.
    let live: Vec<Matching> =
        barrier_matchings(&ctx)?.into_iter().filter(|m| !matching_deadlocks(&ctx, &st.po, m)).collect();
    let deadlocked = live.is_empty();
    if deadlocked && deadlock_known {
        return Ok(None); // already known; such traces end in no final state
    }
    // A deadlocked choice of traces is still examined, without barrier
    // synchronization, to tell whether it can really be reached. A live one
    // whose reductions (`bar.red`) cannot give the results its paths assume
    // is not an execution.
    let matchings = if deadlocked {
        vec![Matching::empty(n)]
    } else {
        let holding: Vec<Matching> = live.into_iter().filter(|m| matching_values_hold(&ctx, m)).collect();
        if holding.is_empty() {
            return Ok(None);
        }
        holding
    };
    let rfs = rf_choices(&ctx, *budget)?;
    let scs = fence_sc_choices(&ctx, &st.ms, budget)?;
    let cos = coherence_choices(&ctx, &st.ms, budget)?;
    let total =
        [rfs.len(), matchings.len(), scs.len(), cos.len()].iter().fold(1u64, |a, &k| a.saturating_mul(k as u64));
    take(budget, total, max)?;
    Ok(Some(Candidates { ctx, deadlocked, matchings, rfs, scs, cos }))
}

/// Count the candidates before examining any (D114): evaluating the model on
/// one costs far more than enumerating it (about 0.25 ms at 30 events), so a
/// test past the budget is refused in the time the count takes, not after
/// minutes of evaluation. Deadlocked choices of traces are counted as if a
/// deadlock were already known (the least `check` may charge for them), so
/// the count never exceeds what `check` charges: a test refused here would be
/// refused by `check` later, with the same exit status.
fn count_within_budget(p: &Program, max: u64) -> Result<()> {
    let mut budget = max;
    for traces in trace_combinations(p) {
        candidates(p, traces, &mut budget, max, true)?;
    }
    Ok(())
}

/// Decide the allowed final states of `p` by enumerating candidate executions.
pub fn check(p: &Program, opts: &ReferenceOptions) -> Result<Outcome> {
    let max = opts.max_candidates;
    count_within_budget(p, max)?;
    let mut budget = max;
    let mut out = Outcome::default();
    let mut data_race = false;
    let mut deadlock = false;
    let observed = observed_locations(p);
    for traces in trace_combinations(p) {
        let Some(c) = candidates(p, traces, &mut budget, max, deadlock)? else { continue };
        let ctx = &c.ctx;
        let view = View::new(p, &ctx.traces, &ctx.ev, opts.ctx.model.split_rmw);
        let mut ev = Evaluator::new(&opts.ctx.model, &view);
        'combo: for rf in &c.rfs {
            for which in [Exec::Bar, Exec::Sc, Exec::Co] {
                ev.clear(which);
            }
            ev.set(Exec::Rf, view.map_rel(rf, true, false));
            // An axiom that reads rf alone (No-Thin-Air) and fails rules out
            // every candidate with this rf (the full check below repeats it).
            if ev.first_violated().is_some() {
                continue;
            }
            for m in &c.matchings {
                set_matching(&mut ev, m);
                for sc in &c.scs {
                    ev.set(Exec::Sc, view.map_rel(sc, false, false));
                    for co in &c.cos {
                        ev.set(Exec::Co, view.map_rel(co, true, true));
                        if ev.first_violated().is_some() {
                            continue;
                        }
                        if c.deadlocked {
                            deadlock = true;
                            break 'combo;
                        }
                        if !data_race {
                            data_race = races(&mut ev);
                        }
                        record(ctx, &observed, rf, co, sc, m, &mut out);
                    }
                }
            }
        }
    }
    out.any_execution = !out.states.is_empty();
    apply_filter(p, &mut out.states);
    out.flags =
        Flags { data_race, deadlock, unroll_bound_hit: p.flags.unroll_bound_hit, mixed_size: p.flags.mixed_size };
    Ok(out)
}

/// Add the final states of an allowed execution: one per choice of a
/// coherence-maximal write for each observed location.
fn record(ctx: &Ctx, observed: &BTreeSet<LocId>, rf: &Rel, co: &Rel, sc: &Rel, m: &Matching, out: &mut Outcome) {
    let p = ctx.p;
    let mut base = Execution { traces: ctx.traces.clone(), ..Default::default() };
    for (w, r) in ctx.global_pairs(rf) {
        base.rf.insert(r, w);
    }
    base.co = ctx.global_pairs(co).into_iter().collect();
    base.sc = ctx.global_pairs(sc).into_iter().collect();
    base.barrier_sync = ctx.global_pairs(&m.pairs).into_iter().collect();
    let maximal = maximal_writes(ctx, co);
    let locs: Vec<LocId> = maximal.keys().copied().collect();
    // Unobserved locations: the first maximal write (it does not change the state).
    let sizes: Vec<usize> = locs.iter().map(|l| if observed.contains(l) { maximal[l].len() } else { 1 }).collect();
    for idx in Odometer::new(sizes) {
        let mut x = base.clone();
        for (l, i) in locs.iter().zip(idx) {
            x.finals.insert(*l, ctx.ev[maximal[l][i]]);
        }
        let state = x.state(p);
        out.states.entry(state).or_insert(x);
    }
}

/// Check one given execution (for instance a witness of the SAT engine) against
/// the axioms: the first violated axiom, or None when it is consistent.
/// Barrier progress is not checked. Errors when the execution does not fit the
/// program (a read without a write, a pair across unexecuted events).
pub fn violated_axiom(p: &Program, x: &Execution) -> Result<Option<Violation>> {
    violated_axiom_in(p, x, ModelKind::Ptx.model())
}

/// [`violated_axiom`] under the rows of `model`.
pub fn violated_axiom_in(p: &Program, x: &Execution, model: &Model) -> Result<Option<Violation>> {
    if x.traces.len() != p.threads.len() {
        return Err(Error::internal("the execution does not choose one trace per thread"));
    }
    let ctx = Ctx::new(p, x.traces.clone());
    let view = View::new(p, &ctx.traces, &ctx.ev, model.split_rmw);
    violated_axiom_on(&ctx, &view, model, x, &mut Statics::default())
}

/// The first axiom `x` violates, on the executed events `ctx` of its traces
/// and the model's `view` of them. `statics` (empty, or left by an earlier
/// call with the same program, traces and model) is taken as the evaluator's
/// start and given back extended.
pub(crate) fn violated_axiom_on(
    ctx: &Ctx,
    view: &View,
    model: &Model,
    x: &Execution,
    statics: &mut Statics,
) -> Result<Option<Violation>> {
    let n = ctx.n();
    let loc = |e: usize| {
        ctx.local.get(e).copied().flatten().ok_or_else(|| Error::internal(format!("event {} does not execute", e)))
    };
    let mut rf = Rel::new(n);
    for (&r, &w) in &x.rf {
        rf.add(loc(w)?, loc(r)?);
    }
    for r in 0..n {
        if ctx.is_read(r) && !(0..n).any(|w| rf.has(w, r)) {
            return Err(Error::internal(format!("read {} reads from no write", ctx.ev[r])));
        }
    }
    let mut co = Rel::new(n);
    for &(a, b) in &x.co {
        co.add(loc(a)?, loc(b)?);
    }
    let mut sc = Rel::new(n);
    for &(a, b) in &x.sc {
        sc.add(loc(a)?, loc(b)?);
    }
    let mut m = Matching::empty(n);
    for &(a, w) in &x.barrier_sync {
        m.pairs.add(loc(a)?, loc(w)?);
    }
    let mut ev = Evaluator::with_statics(model, view, std::mem::take(statics));
    ev.set(Exec::Rf, view.map_rel(&rf, true, false));
    ev.set(Exec::Co, view.map_rel(&co, true, true));
    ev.set(Exec::Sc, view.map_rel(&sc, false, false));
    set_matching(&mut ev, &m);
    let found = ev.first_violated();
    *statics = ev.into_statics();
    Ok(found)
}

/// 8.7.1 for a consistent candidate: some conflicting pair neither morally
/// strong (8.7, the primitive: a row a model names `ms` does not redefine the
/// race, as in the SAT engine) nor ordered by causality (the model's `cause`).
fn races(ev: &mut Evaluator) -> bool {
    // A model with a `dr` row (the C models: herd's `undefined_unless empty dr`).
    if let Some(dr) = ev.value("dr") {
        return !dr.is_empty();
    }
    match (ev.primitive("ms"), ev.value("cause")) {
        (Some(ms), Some(cause)) => prims::has_data_race(ev.view(), &ms, &cause),
        _ => false,
    }
}
