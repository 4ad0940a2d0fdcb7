//! CTA barriers in a symbolic walk (D196): `bar{.cta}.sync`, `barrier{.cta}.sync`
//! and `bar{.cta}.arrive` with constant operands, each use pushed as the path
//! builder pushes it (`step_barrier`, `push_sync`) under the state's guard. A
//! use's phase is the number of earlier uses of its barrier on the path: a
//! state keeps that count, and two states that meet with different counts
//! are refused, so every instance of a barrier has one phase on every path
//! that performs it.

use super::*;
use crate::ast::{BarrierCount, BarrierOp};
use crate::program::{Expected, Sync, SyncKey, SyncKind, SyncRole};

/// Per barrier (its key at phase 0, and the role where arrives and waits
/// count apart), the uses the state's paths performed.
pub(super) type Phases = BTreeMap<(SyncKey, Option<SyncRole>), usize>;

impl Walk<'_, '_> {
    /// A CTA barrier use (`step_barrier`): an arrive and, but for
    /// `bar.arrive`, a wait, at the barrier's next phase.
    pub(super) fn barrier(&mut self, st: &mut SymState, ins: &ast::Instr) -> SResult<()> {
        let InstrKind::Barrier { op, id, logical, count, .. } = &ins.kind else {
            return Err(Stop::Err(Error::internal("barrier on another instruction")));
        };
        if *op == BarrierOp::Warp {
            return self.warp_sync(st, ins);
        }
        let idv = self.constant_operand(st, id, ins)?;
        let logical_v = logical.as_ref().map(|l| self.constant_operand(st, l, ins)).transpose()?;
        let expected = match count {
            BarrierCount::AllThreadsInCta => Expected::Count(self.ctx.cta_size(self.t)),
            BarrierCount::Arrivals => Expected::Arrivals,
            BarrierCount::Count(n) => {
                let v = self.constant_operand(st, n, ins)?;
                if !(1..=1024).contains(&v) {
                    let why = format!("barrier thread count {} is out of range (1 to 1024)", v);
                    return Err(Stop::Err(Error::input(why, ins.span)));
                }
                Expected::Count(v as usize)
            }
        };
        if !(0..=15).contains(&idv) {
            let why = format!("barrier id {} is out of range (0 to 15)", idv);
            return Err(Stop::Err(Error::input(why, ins.span)));
        }
        let cta = self.ctx.placements[self.t].cta;
        let kind = match op {
            BarrierOp::Red(r) => SyncKind::CtaReduction(*r),
            _ => SyncKind::CtaBarrier,
        };
        let key = collective::next_use(st, SyncKey { kind, unit: cta, id: idv, logical: logical_v, phase: 0 });
        if let BarrierOp::Red(r) = op {
            let mut deps = self.operand(st, id).deps;
            if let Some(l) = logical {
                let l = self.operand(st, l);
                self.add_deps(&mut deps, &l.deps)?;
            }
            return self.reduction(st, ins, (key, expected), *r, deps);
        }
        let roles: &[SyncRole] =
            if *op == BarrierOp::Arrive { &[SyncRole::Arrive] } else { &[SyncRole::Arrive, SyncRole::Wait] };
        for (sub, &role) in roles.iter().enumerate() {
            let sync = Sync {
                key: key.clone(),
                role,
                expected: expected.clone(),
                orders_memory: true,
                value: None,
                result: None,
                assumed: Vec::new(),
            };
            self.push(st, (sub, TRUE), DraftKind::Other(EventKind::Sync(sync)), &Deps::new(), ins)?;
        }
        Ok(())
    }

    /// The value of a barrier operand, which must not depend on what the
    /// thread read (the path builder forks on it; here it is refused).
    fn constant_operand(&mut self, st: &SymState, op: &Operand, ins: &ast::Instr) -> SResult<i64> {
        let v = self.operand(st, op);
        let t = self.term_of(&v);
        self.r
            .terms
            .constant(t)
            .ok_or_else(|| outside(ins, "a barrier operand computed from a value read is outside the symbolic builder"))
    }
}
