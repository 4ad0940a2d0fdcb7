//! One instruction on one path (split from build.rs by concern).

use super::meaning::{self, Branched, Flow};
use super::paths::step_of;
use super::*;
use crate::ast::{self, InstrKind, IntTy, RedOp};
use crate::error::{Error, Result};
use crate::program::private::Found;
use std::collections::BTreeSet;

/// How one use of a synchronizing object is pushed (`Ctx::push_sync`).
pub(super) struct SyncUse {
    /// What its wait expects.
    pub expected: Expected,
    /// The arrive synchronizes (8.9.4); a warp collective's does not.
    pub orders_memory: bool,
    /// The thread's contribution to a reduction (`bar.red`).
    pub value: Option<i64>,
}

/// How far a timer read may be later than the thread's previous read of its
/// counter (D81): far past any deadline a loop may set, in both the 32-bit and
/// the 64-bit views.
pub(super) const TIMER_LATER: i64 = (1 << 40) | (1 << 31);

/// The hidden register holding the thread's last reading of counter `timer` (D81).
pub(super) fn timer_register(timer: &str) -> String {
    format!("%__timer#{}", timer)
}

/// What a `mov` from a timer register shows of counter value `now`: its
/// `bits` bits from bit `shift` (`%globaltimer_hi` is the high 32 bits).
pub(crate) fn timer_view(now: i64, shift: u8, bits: u8) -> i64 {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    (((now as u64) >> shift) & mask) as i64
}

impl Ctx<'_> {
    pub(super) fn step(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        match &ins.kind {
            InstrKind::Label(_) | InstrKind::Nop => Ok(Step::Next),
            InstrKind::Choose(offsets) => Ok(Step::Continue(
                offsets
                    .iter()
                    .map(|o| {
                        let mut c = st.clone();
                        c.pc += o;
                        c
                    })
                    .collect(),
            )),
            InstrKind::Skip(n) => {
                st.pc += n;
                Ok(Step::Continue(vec![st.clone()]))
            }
            InstrKind::Timer { .. } => self.step_timer(t, st, ins),
            InstrKind::Refused(message) => Err(Error::input(message.clone(), ins.span)),
            InstrKind::IsSpace { .. } => self.step_isspace(t, st, ins),
            // `module::expand` replaces every call by the function's body.
            InstrKind::Call { name, .. } => Err(Error::input(
                format!("`call {}` needs a `ptx \"FILE.ptx\";` line that loads a module defining it", name),
                ins.span,
            )),
            InstrKind::Alu { .. } => self.step_alu(t, st, ins),
            InstrKind::Setp { .. } => self.step_setp(t, st, ins),
            InstrKind::Selp { .. } => self.step_selp(t, st, ins),
            InstrKind::Branch { .. } => self.step_branch(t, st, ins),
            InstrKind::Load { .. } => self.step_load(t, st, ins),
            InstrKind::Store { .. } => self.step_store(t, st, ins),
            InstrKind::Atomic { .. } => step_of(meaning::atomic(&mut self.on(t), st, ins).map(|()| Step::Next)),
            InstrKind::Fence { .. }
            | InstrKind::SharedFence { .. }
            | InstrKind::ProxyFence { .. }
            | InstrKind::InitFence => step_of(meaning::fence(&mut self.on(t), st, ins).map(|()| Step::Next)),
            InstrKind::Mapa { .. } => step_of(meaning::mapa(&mut self.on(t), st, ins).map(|()| Step::Next)),
            InstrKind::CtaRank { .. } => step_of(meaning::ctarank(&mut self.on(t), st, ins).map(|()| Step::Next)),
            InstrKind::Barrier { .. } => {
                step_of(meaning::cta_barrier(&mut self.on(t), st, ins).map(|flow| self.performed(flow)))
            }
            InstrKind::ClusterBarrier { .. } => {
                step_of(meaning::cluster_barrier(&mut self.on(t), st, ins).map(|()| Step::Next))
            }
            InstrKind::Mbarrier { .. } => {
                step_of(meaning::mbarrier(&mut self.on(t), st, ins).map(|flow| self.performed(flow)))
            }
            InstrKind::Async(_) => {
                step_of(meaning::async_op(&mut self.on(t), st, ins).map(|flow| self.performed(flow)))
            }
            InstrKind::Warp { .. } => self.step_warp(t, st, ins),
            InstrKind::ActiveMask { .. } => step_of(meaning::activemask(&mut self.on(t), st, ins).map(|()| Step::Next)),
        }
    }

    /// `Alu` instructions (their meaning: `meaning::alu`).
    fn step_alu(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        step_of(meaning::alu(&mut self.on(t), st, ins).map(|()| Step::Next))
    }

    /// A timer read (`meaning::timer`): one path where no time has passed
    /// since the thread's previous read of the timer, one where much has.
    fn step_timer(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        step_of(meaning::timer(&mut self.on(t), st, ins).map(|flow| self.performed(flow)))
    }

    /// `Setp` instructions (`meaning::setp`).
    fn step_setp(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        step_of(meaning::setp(&mut self.on(t), st, ins).map(|flow| self.performed(flow)))
    }

    /// The step after an instruction whose meaning may split the path: each
    /// part goes on to the next instruction.
    fn performed(&self, flow: Flow<PathState>) -> Step {
        match flow {
            Flow::Next => Step::Next,
            Flow::Split(mut paths) => {
                paths.iter_mut().for_each(|c| c.pc += 1);
                Step::Continue(paths)
            }
        }
    }

    /// `Selp` instructions (`meaning::selp`).
    fn step_selp(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        step_of(meaning::selp(&mut self.on(t), st, ins).map(|()| Step::Next))
    }

    /// `Branch` instructions (`meaning::branch`).
    fn step_branch(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Branch { cond, target } = &ins.kind else {
            return Err(Error::internal("step_branch on another instruction"));
        };
        step_of(meaning::branch(&mut self.on(t), st, cond, ins).map(|to| {
            match to {
                Branched::Goes(true) => Step::Jump(target.clone()),
                Branched::Goes(false) => Step::Next,
                Branched::Split(parts) => Step::Continue(
                    parts
                        .into_iter()
                        .map(|(mut c, taken)| {
                            c.pc = if taken { self.label_index(t, target) } else { c.pc + 1 };
                            c
                        })
                        .collect(),
                ),
            }
        }))
    }

    /// `Load` instructions (`meaning::load`).
    fn step_load(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        step_of(meaning::load(&mut self.on(t), st, ins).map(|flow| self.performed(flow)))
    }

    /// A load of the path's own private bytes: the value stored, when one
    /// store's value is read back whole at a type that keeps it; else its
    /// bytes, extended by the load's type (untyped: a signed value, D17).
    pub(super) fn private_load(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        key: &LocKey,
        adeps: BTreeSet<usize>,
    ) -> Result<Step> {
        let InstrKind::Load { dst, size, ty, .. } = &ins.kind else {
            return Err(Error::internal("private_load on another instruction"));
        };
        let (size, ty) = (*size, *ty);
        self.check_private_bounds(key, size, ins)?;
        let unwritten = std::cell::Cell::new(false);
        let init = |i: i64| {
            unwritten.set(true);
            self.init_byte(&key.root, i)
        };
        let number = |name: &str, off: i64| address_number(self.names.keys().position(|n| n == name).unwrap_or(0), off);
        let found = st.private.load(&key.root, key.offset, size, &init, &number);
        if unwritten.get() && self.vars.get(&key.root).is_some_and(|d| d.init.is_none()) {
            self.reads_unknown.get_or_insert_with(|| key.root.clone());
        }
        let mut v = match found {
            Found::Symbolic(i) => return Ok(self.fork_read(st, i)),
            Found::Whole(v) if matches!(v.v, V::Addr(..)) || self.keeps(st, &v, ty) => v,
            Found::Whole(Val { v: V::Free(i), .. }) => return Ok(self.fork_read(st, i)),
            Found::Whole(_) => return Err(Error::internal("a private constant read whole")),
            Found::Bytes(raw, deps) => {
                let read = IntTy { bits: 8 * size as u32, signed: ty.is_none_or(|t| t.signed) };
                Val { v: V::Const(arith::convert(ty, arith::norm(read, raw))), deps }
            }
        };
        v.deps.extend(adeps);
        v.deps.extend(st.ctrl.iter().copied());
        st.regs.insert(dst.to_string(), v);
        Ok(Step::Next)
    }

    /// A private variable's declared bytes bound its accesses (8.2).
    pub(super) fn check_private_bounds(&self, key: &LocKey, size: u8, ins: &ast::Instr) -> Result<()> {
        let Some(d) = self.vars.get(&key.root) else { return Ok(()) };
        if d.size == 0 || (key.offset >= 0 && key.offset as u64 + u64::from(size) <= d.size) {
            return Ok(());
        }
        let shown = key.root.split('#').next().unwrap_or(&key.root);
        Err(Error::input(
            format!(
                "this access of bytes {}..{} of `{}` lies outside it: `{}` is {} bytes",
                key.offset,
                key.offset + size as i64,
                shown,
                shown,
                d.size
            ),
            ins.span,
        ))
    }

    /// `Store` instructions (`meaning::store`).
    fn step_store(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        step_of(meaning::store(&mut self.on(t), st, ins).map(|()| Step::Next))
    }

    /// A store to the path's own private bytes: an address or a read not yet
    /// concrete is kept whole (D72), any other value converted to the type.
    pub(super) fn private_store(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        key: &LocKey,
        deps: BTreeSet<usize>,
    ) -> Result<Step> {
        let InstrKind::Store { src, size, ty, .. } = &ins.kind else {
            return Err(Error::internal("private_store on another instruction"));
        };
        self.check_private_bounds(key, *size, ins)?;
        let v = self.operand(st, src);
        let mut v = match v.v {
            V::Addr(..) => v,
            V::Free(_) if self.keeps(st, &v, *ty) => v,
            _ => {
                let (c, d) = conc!(self, st, ins, src);
                Val { v: V::Const(arith::convert(*ty, c)), deps: d }
            }
        };
        v.deps.extend(deps);
        st.private.store(&key.root, key.offset, *size, &v);
        Ok(Step::Next)
    }

    /// `isspacep.space d, a`: whether `a` points into a variable of `space`
    /// (ISA 6.4.1.1: a generic address lies in one state space's window). A
    /// test's own locations are global memory (litmus-format 5).
    fn step_isspace(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        step_of(meaning::isspace(&mut self.on(t), st, ins).map(|()| Step::Next))
    }

    /// The result of `bar.red` depends on the other threads' predicates: one
    /// path per result it can have (`.popc`: 0 to the CTA's size; `.and`,
    /// `.or`: 0 or 1), each assuming it on its wait; the engines keep the paths
    /// whose assumption the matched arrivals' values give (`Sync::result_holds`).
    pub(super) fn fork_reduction(
        &self,
        t: usize,
        st: &PathState,
        (op, dst): (RedOp, &str),
        deps: BTreeSet<usize>,
    ) -> Vec<PathState> {
        let most = if op == RedOp::Popc { self.cta_size(t) as i64 } else { 1 };
        let mut children = Vec::new();
        for v in 0..=most {
            let mut c = st.clone();
            if let Some(DraftKind::Other(EventKind::Sync(wait))) = c.events.last_mut().map(|e| &mut e.kind) {
                wait.result = Some((op, v));
            }
            c.regs.insert(dst.to_string(), Val { v: V::Const(v), deps: deps.clone() });
            children.push(c);
        }
        children
    }

    /// Push the halves `roles` of one use of a synchronizing object `(kind,
    /// unit, id, logical)`, in its next phase.
    pub(super) fn push_sync(
        &self,
        st: &mut PathState,
        ins: &ast::Instr,
        object: (SyncKind, usize, i64, Option<i64>),
        roles: &[SyncRole],
        at: SyncUse,
    ) {
        let (kind, unit, id, logical) = object;
        let base = SyncKey { kind, unit, id, logical, phase: 0 };
        for &role in roles {
            // One use is one phase (`bar.arrive` then `bar.sync` on one
            // barrier are two); a cluster barrier counts its roles apart
            // (`meaning::cluster_barrier`).
            let counter = st.sync_phase.entry((base.clone(), None)).or_insert(0);
            let key = SyncKey { phase: *counter, ..base.clone() };
            if role == roles[roles.len() - 1] {
                *counter += 1;
            }
            let (expected, orders_memory, value) = (at.expected.clone(), at.orders_memory, at.value);
            let sync = Sync { key, role, expected, orders_memory, value, result: None, assumed: Vec::new() };
            self.push_other(st, EventKind::Sync(sync), ins);
        }
    }
}
