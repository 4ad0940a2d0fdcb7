//! The self-check: one execution, found by another engine, re-checked here with
//! the reference engine's own relations and axioms. An execution that is not a
//! well-formed candidate of the program, or that violates an axiom, means the
//! two engines disagree; the caller reports it as an internal error, never as a
//! verdict.

use super::enumerate::{values_allowed, Ctx};
use super::rel::Rel;
use crate::error::{Error, Result};
use crate::model::{prims, view::View};
use crate::outcome::Execution;
use crate::program::{EventId, Program};

/// Check that `x` is a candidate execution of `p` (8.9: one path per thread, a
/// reads-from source of the same location for every read with a value its path
/// allows, coherence and Fence-SC orders that are strict partial orders relating
/// every morally strong pair, coherence-maximal final writes) and that it
/// satisfies every axiom of 8.10. `Ok(())` when it does.
pub fn verify_execution(p: &Program, x: &Execution) -> Result<()> {
    verify_execution_in(p, x, crate::model::ModelKind::Ptx.model())
}

/// [`verify_execution`] under the rows of `model`.
pub fn verify_execution_in(p: &Program, x: &Execution, model: &crate::model::Model) -> Result<()> {
    let bad = |what: String| Err(Error::internal(format!("self-check: the SAT engine's execution {}", what)));
    for (t, &tr) in x.traces.iter().enumerate() {
        if p.threads.get(t).is_none_or(|th| !th.traces.contains(&tr)) {
            return bad(format!("chooses trace {} for thread P{}, which is not one of its paths", tr, t));
        }
    }
    let ctx = Ctx::new(p, x.traces.clone());
    let local = |e: EventId| ctx.local.get(e).copied().flatten();
    let mut rf = Rel::new(ctx.n());
    for (&r, &w) in &x.rf {
        let (Some(lr), Some(lw)) = (local(r), local(w)) else { return bad(format!("has reads-from {} -> {} between events that do not execute", w, r)) };
        if !ctx.is_write(lw) || !ctx.is_read(lr) || ctx.write_loc(lw) != ctx.read_loc(lr) || lw == lr {
            return bad(format!("has reads-from {} -> {} that is not from a write to a read of its location", w, r));
        }
        rf.add(lw, lr);
    }
    if !values_allowed(&ctx, &rf) {
        return bad("has a read returning a value its path excludes".into());
    }
    let ms = prims::morally_strong(&View::new(p, &ctx.traces, &ctx.ev, false));
    check_order(&ctx, &x.co, &ms, "coherence", |i| ctx.is_write(i), |a, b| ctx.write_loc(a) == ctx.write_loc(b))?;
    check_order(&ctx, &x.sc, &ms, "Fence-SC", |i| ctx.event(i).is_fence_sc(), |_, _| true)?;
    for (&l, &w) in &x.finals {
        let Some(lw) = local(w).filter(|&lw| ctx.write_loc(lw) == Some(l)) else {
            return bad(format!("ends location {} with event {}, not an executed write of it", p.locations[l].name, w));
        };
        if x.co.iter().any(|&(a, b)| a == ctx.ev[lw] && local(b).is_some()) {
            return bad(format!("ends location {} with a write that is not coherence-maximal", p.locations[l].name));
        }
    }
    match super::violated_axiom_in(p, x, model)? {
        None => Ok(()),
        Some(axiom) => bad(format!("violates {} when its relations are recomputed by the reference engine", axiom)),
    }
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
        let (Some(la), Some(lb)) = (ctx.local[a], ctx.local[b]) else { return bad(format!("relates {} and {}, which do not both execute", a, b)) };
        if !member(la) || !member(lb) || !same_class(la, lb) {
            return bad(format!("relates {} and {}, which it may not order", a, b));
        }
        rel.add(la, lb);
    }
    if !rel.is_acyclic() {
        return bad("has a cycle".into());
    }
    let members: Vec<usize> = (0..ctx.n()).filter(|&i| member(i)).collect();
    let closed = rel.closure();
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
