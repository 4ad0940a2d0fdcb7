//! Barriers, written once for both builders (issue 40, D306, D309): CTA
//! barriers (`bar{.cta}.sync`, `barrier{.cta}.sync`, `bar{.cta}.arrive`,
//! `bar.red`; 9.7.13.1-9.7.13.3), `bar.warp.sync` (9.7.13.2) and cluster
//! barriers (9.7.13.4). Each use of a barrier is one phase of its object
//! (`SyncKey`): the number of the state's earlier uses of it
//! (`Values::sync_uses`, the same on every path of a symbolic state).

use super::{Flow, Values};
use crate::ast::{self, BarrierCount, BarrierOp, InstrKind, Operand};
use crate::error::Error;
use crate::program::event::EventKind;
use crate::program::{Expected, Sync, SyncKey, SyncKind, SyncRole};

/// One half of a use of a barrier, carrying no value (`bar.red`'s halves
/// carry the thread's contribution: `Values::barrier_reduction`).
pub(in crate::program::build) fn half(key: &SyncKey, role: SyncRole, expected: &Expected, orders_memory: bool) -> Sync {
    Sync {
        key: key.clone(),
        role,
        expected: expected.clone(),
        orders_memory,
        value: None,
        result: None,
        assumed: Vec::new(),
    }
}

/// The key of the state's next use of the object `base` (at phase 0),
/// counted.
fn next_use<B: Values>(st: &mut B::State, base: SyncKey) -> SyncKey {
    let key = SyncKey { phase: B::sync_uses(st, &base, None), ..base.clone() };
    B::count_sync_use(st, &base, None);
    key
}

/// A barrier operand's value and what it depends on; one computed from a
/// value read is outside the symbolic builder (the path builder forks on it).
fn operand_value<B: Values>(
    b: &mut B,
    st: &B::State,
    o: &Operand,
    what: &str,
    ins: &ast::Instr,
) -> Result<(i64, B::Deps), B::Stop> {
    let v = b.operand(st, o);
    let n = b.number(st, &v)?;
    let c = b.constant(n).ok_or_else(|| b.outside(ins, &format!("{} is computed from a value read", what)))?;
    Ok((c, B::deps(&v).clone()))
}

/// `bar{.cta}.sync a{, b}` / `barrier{.cta}.sync` (arrive and wait),
/// `bar{.cta}.arrive a, b` (arrive only) and `bar.red.op` (9.7.13.1,
/// 9.7.13.3): a use of barrier `a` of the thread's CTA, expecting `b`
/// threads (every thread of the CTA without `b`; the corpus's
/// `bar.cta.sync a` the threads that arrive, paper-notes/barriers.md); ids
/// 0 to 15, counts 1 to 1024. `bar.red`'s result is the builders' own
/// (`Values::barrier_reduction`), from the thread's predicate. `bar.warp.sync
/// membermask` is a barrier of the mask's lanes (D174).
pub(in crate::program::build) fn cta_barrier<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
) -> Result<Flow<B::State>, B::Stop> {
    let InstrKind::Barrier { op, id, logical, count, red } = &ins.kind else {
        return Err(b.internal("a barrier meaning on another instruction"));
    };
    if *op == BarrierOp::Warp {
        warp_barrier(b, st, ins, logical.as_ref().unwrap_or(id))?;
        return Ok(Flow::Next);
    }
    let (idv, mut deps) = operand_value(b, st, id, "a barrier operand", ins)?;
    let logical_v = match logical {
        Some(l) => {
            let (v, d) = operand_value(b, st, l, "a barrier operand", ins)?;
            b.join(&mut deps, &d)?;
            Some(v)
        }
        None => None,
    };
    let expected = match count {
        BarrierCount::AllThreadsInCta => Expected::Count(b.cta_size()),
        BarrierCount::Arrivals => Expected::Arrivals,
        BarrierCount::Count(n) => {
            let (v, _) = operand_value(b, st, n, "a barrier operand", ins)?;
            if !(1..=1024).contains(&v) {
                let why = format!("barrier thread count {} is out of range (1 to 1024)", v);
                return Err(Error::input(why, ins.span).into());
            }
            Expected::Count(v as usize)
        }
    };
    if !(0..=15).contains(&idv) {
        return Err(Error::input(format!("barrier id {} is out of range (0 to 15)", idv), ins.span).into());
    }
    let kind = match op {
        BarrierOp::Red(r) => SyncKind::CtaReduction(*r),
        _ => SyncKind::CtaBarrier,
    };
    let base = SyncKey { kind, unit: b.cta(), id: idv, logical: logical_v, phase: 0 };
    if let (BarrierOp::Red(r), Some((dst, pred, negated))) = (op, red) {
        // The thread's contribution: its predicate, made a number before
        // the use is counted (the path builder forks on a read here).
        let p = b.operand(st, pred);
        let n = b.number(st, &p)?;
        let c = b.nonzero(n, ins)?;
        let own = if *negated { b.not(c)? } else { c };
        let key = next_use::<B>(st, base);
        let own = (own, B::deps(&p).clone());
        return b.barrier_reduction(st, ins, (key, expected), (*r, dst), own, deps);
    }
    let key = next_use::<B>(st, base);
    let mut halves = vec![half(&key, SyncRole::Arrive, &expected, true)];
    if *op != BarrierOp::Arrive {
        halves.push(half(&key, SyncRole::Wait, &expected, true));
    }
    b.push_halves(st, halves, ins)?;
    Ok(Flow::Next)
}

/// `bar.warp.sync membermask` (9.7.13.2, D174): a barrier of the lanes of
/// the mask (each a thread of the test, `Values::warp_member_count`), one object
/// per warp and mask, kept apart from the CTA's barriers 0-15 (D92).
fn warp_barrier<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr, mask: &Operand) -> Result<(), B::Stop> {
    let (m, _) = operand_value(b, st, mask, "a member mask", ins)?;
    let members = b.warp_member_count(m, ins)?;
    let (cta, warp) = (b.cta(), b.warp());
    let base =
        SyncKey { kind: SyncKind::WarpBarrier, unit: cta, id: -1 - warp, logical: Some(m as u32 as i64), phase: 0 };
    let key = next_use::<B>(st, base);
    let expected = Expected::Count(members);
    let halves = vec![half(&key, SyncRole::Arrive, &expected, true), half(&key, SyncRole::Wait, &expected, true)];
    b.push_halves(st, halves, ins)
}

/// `barrier.cluster.arrive{.relaxed}` and `barrier.cluster.wait`
/// (9.7.13.4): one half of a use of the cluster's barrier, at which every
/// thread of the test in the cluster arrives; a wait completes once each has
/// arrived in its phase. A thread arrives, may go on, and waits later, so
/// arrives and waits count their phases apart; a wait without an arrive of
/// its own before it is an input error. A `.relaxed` arrive orders no
/// memory.
pub(in crate::program::build) fn cluster_barrier<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
) -> Result<(), B::Stop> {
    let InstrKind::ClusterBarrier { arrive, relaxed } = &ins.kind else {
        return Err(b.internal("cluster barrier on another instruction"));
    };
    let (cluster, members) = b.cluster_members();
    let base = SyncKey { kind: SyncKind::ClusterBarrier, unit: cluster, id: 0, logical: None, phase: 0 };
    let role = if *arrive { SyncRole::Arrive } else { SyncRole::Wait };
    if !*arrive && B::sync_uses(st, &base, Some(SyncRole::Wait)) >= B::sync_uses(st, &base, Some(SyncRole::Arrive)) {
        let message = "barrier.cluster.wait without a preceding barrier.cluster.arrive in this thread";
        return Err(Error::input(message, ins.span).into());
    }
    let key = SyncKey { phase: B::sync_uses(st, &base, Some(role)), ..base.clone() };
    B::count_sync_use(st, &base, Some(role));
    let sync = half(&key, role, &Expected::Threads(members), !*relaxed);
    b.push_other(st, EventKind::Sync(sync), ins)
}
