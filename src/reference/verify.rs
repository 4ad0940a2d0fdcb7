//! The self-check: one execution, found by another engine, re-checked here with
//! the reference engine's own relations and axioms. An execution that is not a
//! well-formed candidate of the program, or that violates an axiom, means the
//! two engines disagree; the caller reports it as an internal error, never as a
//! verdict.

use super::enumerate::{values_allowed, Ctx};
use super::rel::Rel;
use crate::error::{Error, Result};
use crate::model::eval::{Statics, Violation};
use crate::model::{prims, view::View, Model};
use crate::outcome::Execution;
use crate::program::{EventId, Program, TraceId};
use rustc_hash::FxHashMap as HashMap;

/// Check that `x` is a candidate execution of `p` (8.9: one path per thread, a
/// reads-from source of the same location for every read with a value its path
/// allows, coherence and Fence-SC orders that are strict partial orders relating
/// every morally strong pair, coherence-maximal final writes) and that it
/// satisfies every axiom of 8.10. `Ok(())` when it does.
pub fn verify_execution(p: &Program, x: &Execution) -> Result<()> {
    verify_execution_in(p, x, crate::model::ModelKind::Ptx.model())
}

/// [`verify_execution`] under the rows of `model`.
pub fn verify_execution_in(p: &Program, x: &Execution, model: &Model) -> Result<()> {
    Verifier::new(p, model).verify(x)
}

/// The self-check of many executions of one program under one model. What
/// depends on an execution's traces alone (its executed events, their moral
/// strength, the model's view and the relations of the model that read no
/// execution relation) is computed once per combination of traces and kept;
/// every execution is still checked in full against it, exactly as
/// [`verify_execution_in`] checks one (`paper-notes/encoding.md`, "The
/// self-check").
pub struct Verifier<'p, 'm> {
    p: &'p Program,
    model: &'m Model,
    prepared: HashMap<Vec<TraceId>, Prepared<'p>>,
    /// Bytes of relations kept in `prepared` (bounded by `KEEP_BYTES`).
    kept: usize,
}

/// At most this many bytes of precomputed relations are kept; past it the
/// cache starts again (a test with many paths then recomputes some).
const KEEP_BYTES: usize = 64 << 20;

/// One combination of traces, ready for checking executions that choose it.
struct Prepared<'p> {
    ctx: Ctx<'p>,
    /// The model's view of `ctx`'s events (read-modify-writes split for ptx-alloy).
    view: View<'p>,
    /// Moral strength over `ctx`'s events (one event per operation).
    ms: Rel,
    statics: Statics,
}

impl<'p, 'm> Verifier<'p, 'm> {
    pub fn new(p: &'p Program, model: &'m Model) -> Self {
        Verifier { p, model, prepared: HashMap::default(), kept: 0 }
    }

    /// `Ok(())` when `x` is a candidate execution of the program satisfying
    /// every axiom of the model; an internal error naming the fault otherwise.
    pub fn verify(&mut self, x: &Execution) -> Result<()> {
        let p = self.p;
        for (t, &tr) in x.traces.iter().enumerate() {
            if p.threads.get(t).is_none_or(|th| !th.traces.contains(&tr)) {
                return bad(format!("chooses trace {} for thread P{}, which is not one of its paths", tr, t));
            }
        }
        if x.traces.len() != p.threads.len() {
            return Err(Error::internal("the execution does not choose one trace per thread"));
        }
        if !self.prepared.contains_key(&x.traces) {
            let ctx = Ctx::new(p, x.traces.clone());
            let view = View::new(p, &ctx.traces, &ctx.ev, self.model.split_rmw);
            let ms = prims::morally_strong(&View::new(p, &ctx.traces, &ctx.ev, false));
            self.kept += ms.bytes();
            self.prepared.insert(x.traces.clone(), Prepared { ctx, view, ms, statics: Statics::default() });
        }
        let Some(prep) = self.prepared.get_mut(&x.traces) else { unreachable!("inserted above") };
        let before = prep.statics.bytes();
        let found = check_prepared(prep, self.model, x);
        self.kept = (self.kept + prep.statics.bytes()).saturating_sub(before);
        if self.kept > KEEP_BYTES {
            self.prepared.clear();
            self.kept = 0;
        }
        match found? {
            None => Ok(()),
            Some(axiom) => bad(format!("violates {} when its relations are recomputed by the reference engine", axiom)),
        }
    }
}

fn bad<T>(what: String) -> Result<T> {
    Err(Error::internal(format!("self-check: the SAT engine's execution {}", what)))
}

/// The checks of [`Verifier::verify`] on `x`'s prepared traces: well-formed
/// reads-from, coherence and Fence-SC orders and final writes, then the
/// model's axioms (`Ok(Some(axiom))`: the first violated one).
fn check_prepared(prep: &mut Prepared, model: &Model, x: &Execution) -> Result<Option<Violation>> {
    let (ctx, ms) = (&prep.ctx, &prep.ms);
    let p = ctx.p;
    let local = |e: EventId| ctx.local.get(e).copied().flatten();
    let mut rf = Rel::new(ctx.n());
    for (&r, &w) in &x.rf {
        let (Some(lr), Some(lw)) = (local(r), local(w)) else {
            return bad(format!("has reads-from {} -> {} between events that do not execute", w, r));
        };
        if !ctx.is_write(lw) || !ctx.is_read(lr) || ctx.write_loc(lw) != ctx.read_loc(lr) || lw == lr {
            return bad(format!("has reads-from {} -> {} that is not from a write to a read of its location", w, r));
        }
        rf.add(lw, lr);
    }
    if !values_allowed(ctx, &rf) {
        return bad("has a read returning a value its path excludes".into());
    }
    check_order(ctx, &x.co, ms, "coherence", |i| ctx.is_write(i), |a, b| ctx.write_loc(a) == ctx.write_loc(b))?;
    check_order(ctx, &x.sc, ms, "Fence-SC", |i| ctx.event(i).is_fence_sc(), |_, _| true)?;
    for (&l, &w) in &x.finals {
        let Some(lw) = local(w).filter(|&lw| ctx.write_loc(lw) == Some(l)) else {
            return bad(format!("ends location {} with event {}, not an executed write of it", p.locations[l].name, w));
        };
        if x.co.iter().any(|&(a, b)| a == ctx.ev[lw] && local(b).is_some()) {
            return bad(format!("ends location {} with a write that is not coherence-maximal", p.locations[l].name));
        }
    }
    super::violated_axiom_on(ctx, &prep.view, model, x, &mut prep.statics)
}

/// `order` (global event pairs) is a strict partial order over executed events
/// satisfying `member`, relating only pairs `same_class` and every morally
/// strong pair of members in one direction.
fn check_order(
    ctx: &Ctx,
    order: &std::collections::BTreeSet<(EventId, EventId)>,
    ms: &Rel,
    name: &str,
    member: impl Fn(usize) -> bool,
    same_class: impl Fn(usize, usize) -> bool,
) -> Result<()> {
    let bad = |what: String| Err(Error::internal(format!("self-check: the SAT engine's {} order {}", name, what)));
    let mut rel = Rel::new(ctx.n());
    for &(a, b) in order {
        let (Some(la), Some(lb)) = (ctx.local[a], ctx.local[b]) else {
            return bad(format!("relates {} and {}, which do not both execute", a, b));
        };
        if !member(la) || !member(lb) || !same_class(la, lb) {
            return bad(format!("relates {} and {}, which it may not order", a, b));
        }
        rel.add(la, lb);
    }
    // Acyclic exactly when its closure is irreflexive; the closure is needed below too.
    let closed = rel.closure();
    if !closed.is_irreflexive() {
        return bad("has a cycle".into());
    }
    let members: Vec<usize> = (0..ctx.n()).filter(|&i| member(i)).collect();
    for (i, &a) in members.iter().enumerate() {
        for &b in &members[i + 1..] {
            let required = ms.has(a, b) && same_class(a, b) && !ctx.is_init(a) && !ctx.is_init(b);
            if required && !closed.has(a, b) && !closed.has(b, a) {
                return bad(format!("leaves the morally strong pair {} and {} unordered", ctx.ev[a], ctx.ev[b]));
            }
        }
    }
    Ok(())
}
