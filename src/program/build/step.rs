//! One instruction on one path (split from build.rs by concern).

use super::*;
use crate::ast::{self, AluOp, BarrierCount, BarrierOp, BranchCond, InstrKind, IntTy, Operand, RedOp};
use crate::error::{Error, Result};
use crate::program::access::stored;
use crate::program::private::Found;
use std::collections::BTreeSet;

/// Both operands made concrete: the comparison and its dependencies.
macro_rules! compared {
    ($self:ident, $st:ident, $ins:ident, $cmp:expr, $a:expr, $b:expr, $ty:expr) => {{
        // Two unknown reads: fork on the older (a ticket, an expected value)
        // first; the comparison shortcut (`fork_compare`) then splits the newer
        // one into two paths instead of one per value (issue 27).
        let swap = $self.older_read($st, $b, $a);
        let (first, second) = if swap { ($b, $a) } else { ($a, $b) };
        let (x1, mut d) = conc!($self, $st, $ins, first);
        let (x2, d2) = conc!($self, $st, $ins, second);
        let (x, y) = if swap { (x2, x1) } else { (x1, x2) };
        d.extend(d2);
        (arith::compare($cmp, x, y, $ty), d)
    }};
}

/// How one use of a synchronizing object is pushed (`Ctx::push_sync`).
pub(super) struct SyncUse {
    /// What its wait expects.
    pub expected: Expected,
    /// The arrive synchronizes (8.9.4); `barrier.cluster.arrive.relaxed` does not.
    pub orders_memory: bool,
    /// The thread's contribution to a reduction (`bar.red`).
    pub value: Option<i64>,
    /// Arrives and waits count their phases apart (a cluster barrier's k-th
    /// arrive meets the k-th wait); otherwise one use is one phase (`bar.arrive`
    /// then `bar.sync` on one barrier are two phases).
    pub by_role: bool,
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
            InstrKind::Timer { .. } => self.step_timer(st, ins),
            InstrKind::Refused(message) => Err(Error::input(message.clone(), ins.span)),
            InstrKind::IsSpace { .. } => self.step_isspace(st, ins),
            // `module::expand` replaces every call by the function's body.
            InstrKind::Call { name, .. } => Err(Error::input(
                format!("`call {}` needs a `ptx \"FILE.ptx\";` line that loads a module defining it", name),
                ins.span,
            )),
            InstrKind::Alu { .. } => self.step_alu(st, ins),
            InstrKind::Setp { .. } => self.step_setp(st, ins),
            InstrKind::Selp { .. } => self.step_selp(st, ins),
            InstrKind::Branch { .. } => self.step_branch(t, st, ins),
            InstrKind::Load { .. } => self.step_load(t, st, ins),
            InstrKind::Store { .. } => self.step_store(t, st, ins),
            InstrKind::Atomic { sem, scope, proxy, op, dst, addr, operands, size, ty, shared } => {
                self.atomic(t, st, ins, (*sem, *scope, *proxy, *op, *size, *shared, *ty), dst, addr, operands)
            }
            InstrKind::Fence { sem, scope } => {
                self.push_other(st, EventKind::Fence { sem: *sem, scope: *scope }, ins);
                Ok(Step::Next)
            }
            InstrKind::ProxyFence { proxy, space } => {
                self.push_other(st, EventKind::ProxyFence { proxy: *proxy, space: *space }, ins);
                Ok(Step::Next)
            }
            InstrKind::InitFence => {
                self.push_other(st, EventKind::InitFence, ins);
                Ok(Step::Next)
            }
            InstrKind::Mapa { .. } => self.step_mapa(t, st, ins),
            InstrKind::CtaRank { .. } => self.step_ctarank(t, st, ins),
            InstrKind::Barrier { .. } => self.step_barrier(t, st, ins),
            InstrKind::ClusterBarrier { .. } => self.step_cluster_barrier(t, st, ins),
            InstrKind::Mbarrier { .. } => self.step_mbarrier(t, st, ins),
            InstrKind::Async(_) => self.step_async(t, st, ins),
            InstrKind::Warp { .. } => self.step_warp(t, st, ins),
            InstrKind::ActiveMask { .. } => self.step_activemask(t, st, ins),
        }
    }

    /// `Alu` instructions.
    fn step_alu(&mut self, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Alu { op, dst, srcs, ty, src_ty } = &ins.kind else {
            return Err(Error::internal("step_alu on another instruction"));
        };
        if *op == AluOp::Mov && srcs.len() == 1 {
            let v = self.operand(st, &srcs[0]);
            // A copy that cannot change the value keeps a read symbolic; an
            // address converted at 32 bits or wider stays the address (D90:
            // nvcc's `mov.u32 %r, sym; cvt.u64.u32; cvta.shared.u64`).
            let address_kept = matches!(v.v, V::Addr(..)) && [*ty, *src_ty].iter().flatten().all(|t| t.bits >= 32);
            if self.keeps(st, &v, *ty) && (src_ty == ty || src_ty.is_none() || address_kept) {
                st.regs.insert(dst.clone(), v);
                return Ok(Step::Next);
            }
        }
        // Address arithmetic: address + constant stays an address.
        if matches!(op, AluOp::Add | AluOp::Sub) && srcs.len() == 2 {
            let a = self.operand(st, &srcs[0]);
            if let V::Addr(name, off) = a.v.clone() {
                let (b, bdeps) = conc!(self, st, ins, &srcs[1]);
                let mut deps = a.deps.clone();
                deps.extend(bdeps);
                let off = if *op == AluOp::Add { off.wrapping_add(b) } else { off.wrapping_sub(b) };
                st.regs.insert(dst.clone(), Val { v: V::Addr(name, off), deps });
                return Ok(Step::Next);
            }
        }
        let mut vals = Vec::new();
        let mut deps = BTreeSet::new();
        for s in srcs {
            let (c, d) = conc!(self, st, ins, s);
            vals.push(c);
            deps.extend(d);
        }
        let r = arith::alu(*op, &vals, *ty, *src_ty).map_err(|e| {
            let why = match e {
                NoValue::DivByZero => "divides by zero on some path, whose result the ISA leaves unspecified",
                NoValue::Overflow => "overflows 64 bits on some path",
                NoValue::Arity => "has the wrong number of operands",
            };
            Error::input(format!("`{}` {}", ins.text, why), ins.span)
        })?;
        st.regs.insert(dst.clone(), Val { v: V::Const(r), deps });
        Ok(Step::Next)
    }

    /// A timer read (D81): one path where no time has passed since the
    /// thread's previous read of the timer, one where much has (a deadline of
    /// any loop has passed): the value never decreases along the thread.
    fn step_timer(&mut self, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Timer { dst, timer, shift, bits } = &ins.kind else {
            return Err(Error::internal("step_timer on another instruction"));
        };
        let hidden = timer_register(timer);
        let last = match st.regs.get(&hidden).map(|v| &v.v) {
            Some(V::Const(c)) => *c,
            _ => 0,
        };
        let mut out = Vec::new();
        for now in [last, last.wrapping_add(TIMER_LATER)] {
            let mut c = st.clone();
            c.regs.insert(hidden.clone(), Val::konst(now));
            c.regs.insert(dst.clone(), Val::konst(timer_view(now, *shift, *bits)));
            c.pc += 1;
            out.push(c);
        }
        Ok(Step::Continue(out))
    }

    /// `Setp` instructions.
    fn step_setp(&mut self, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Setp { cmp, dst, a, b, ty } = &ins.kind else {
            return Err(Error::internal("step_setp on another instruction"));
        };
        if let Some((yes, no, deps)) = self.fork_compare(st, *cmp, a, b, *ty) {
            let mut out = Vec::new();
            for (mut c, v) in [(yes, 1), (no, 0)] {
                c.regs.insert(dst.clone(), Val { v: V::Const(v), deps: deps.clone() });
                c.pc += 1;
                out.push(c);
            }
            return Ok(Step::Continue(out));
        }
        let (c, d) = compared!(self, st, ins, *cmp, a, b, *ty);
        st.regs.insert(dst.clone(), Val { v: V::Const(c as i64), deps: d });
        Ok(Step::Next)
    }

    /// `Selp` instructions.
    fn step_selp(&mut self, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Selp { dst, a, b, pred, ty } = &ins.kind else {
            return Err(Error::internal("step_selp on another instruction"));
        };
        let (p, pd) = conc!(self, st, ins, pred);
        let chosen = if p != 0 { a } else { b };
        let mut v = self.operand(st, chosen);
        if !self.keeps(st, &v, *ty) {
            let (c, d) = conc!(self, st, ins, chosen);
            v = Val { v: V::Const(arith::convert(*ty, c)), deps: d };
        }
        v.deps.extend(pd);
        st.regs.insert(dst.clone(), v);
        Ok(Step::Next)
    }

    /// `Branch` instructions.
    fn step_branch(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Branch { cond, target } = &ins.kind else {
            return Err(Error::internal("step_branch on another instruction"));
        };
        let taken = match cond {
            BranchCond::Always => true,
            BranchCond::Pred { reg, negated } => {
                let (p, d) = conc!(self, st, ins, &Operand::Reg(reg.clone()));
                st.ctrl.extend(d);
                (p != 0) != *negated
            }
            BranchCond::Compare { cmp, a, b } => {
                if let Some((yes, no, deps)) = self.fork_compare(st, *cmp, a, b, None) {
                    // Keep the read symbolic: one path per outcome.
                    let mut out = Vec::new();
                    for (mut c, taken) in [(yes, true), (no, false)] {
                        c.ctrl.extend(deps.iter().copied());
                        if taken {
                            c.pc = self.label_index(t, target);
                        } else {
                            c.pc += 1;
                        }
                        out.push(c);
                    }
                    return Ok(Step::Continue(out));
                }
                let (c, d) = compared!(self, st, ins, *cmp, a, b, None);
                st.ctrl.extend(d);
                c
            }
        };
        Ok(if taken { Step::Jump(target.clone()) } else { Step::Next })
    }

    /// `Load` instructions.
    fn step_load(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Load { sem, scope, proxy, dst, addr, size, ty, shared, private } = &ins.kind else {
            return Err(Error::internal("step_load on another instruction"));
        };
        let (key, vaddr, adeps) = match self.address(st, t, addr, *shared, ins)? {
            Ok(x) => x,
            Err(i) => return Ok(self.fork_read(st, i)),
        };
        if ty.is_some() {
            self.typed_roots.insert(key.root.clone());
        }
        // `.local`/`.param` memory is private however it is reached (a generic
        // address from `cvta.local`, 5.1.5; a parameter's address, 5.1.6.1).
        let private = *private || self.space(&key.root).is_private();
        self.space_of(&key.root, private, ins)?;
        if private {
            return self.private_load(st, ins, &key, *size, *ty, adeps, dst);
        }
        let parts = self.mem_cells(&key, *size, ins);
        let (msem, mscope) = normalize(*sem, *scope, Scope::Sys);
        let access = Access { reads: true, conv: *ty, ..Access::new(vaddr, *proxy, *size, msem, mscope) };
        if parts.len() > 1 {
            return self.split_load(st, ins, parts, access, adeps, dst);
        }
        let idx = self.push_mem(st, key, access, adeps, ins);
        st.regs.insert(dst.clone(), Val::free(idx));
        Ok(Step::Next)
    }

    /// A load of the path's own private bytes: the value stored, when one
    /// store's value is read back whole at a type that keeps it; else its
    /// bytes, extended by the load's type (untyped: a signed value, D17).
    #[allow(clippy::too_many_arguments)]
    fn private_load(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        key: &LocKey,
        size: u8,
        ty: Option<IntTy>,
        adeps: BTreeSet<usize>,
        dst: &str,
    ) -> Result<Step> {
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

    /// `Store` instructions.
    fn step_store(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Store { sem, scope, proxy, addr, src, size, ty, shared, private } = &ins.kind else {
            return Err(Error::internal("step_store on another instruction"));
        };
        let (key, vaddr, mut deps) = match self.address(st, t, addr, *shared, ins)? {
            Ok(x) => x,
            Err(i) => return Ok(self.fork_read(st, i)),
        };
        if ty.is_some() {
            self.typed_roots.insert(key.root.clone());
        }
        let private = *private || self.space(&key.root).is_private();
        self.space_of(&key.root, private, ins)?;
        if private {
            self.check_private_bounds(&key, *size, ins)?;
            // An address or a read not yet concrete is kept whole (D72).
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
            return Ok(Step::Next);
        }
        let (value, vdeps) = conc!(self, st, ins, src);
        deps.extend(vdeps);
        // A typed store leaves its bit pattern (st.u8 of 300 is 44; st.s32 of
        // -1 is 0xffffffff, D74); an untyped one its value (D15).
        let value = stored(*ty, *size, value);
        let parts = self.mem_cells(&key, *size, ins);
        let (msem, mscope) = normalize(*sem, *scope, Scope::Sys);
        // A store over several cells writes each cell its own bytes (D18).
        let whole = parts.len() == 1;
        for (k, at, len) in parts {
            let v = if whole { value } else { cells::extract(value, at, len) };
            let va = cell_vaddr(&vaddr, k.offset);
            let access =
                Access { writes: true, write_value: v, start: -at, ..Access::new(va, *proxy, *size, msem, mscope) };
            self.push_mem(st, k, access, deps.clone(), ins);
        }
        Ok(Step::Next)
    }

    /// `isspacep.space d, a`: whether `a` points into a variable of `space`
    /// (ISA 6.4.1.1: a generic address lies in one state space's window). A
    /// test's own locations are global memory (litmus-format 5).
    fn step_isspace(&mut self, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::IsSpace { dst, addr, space } = &ins.kind else {
            return Err(Error::internal("step_isspace on another instruction"));
        };
        let v = self.operand(st, addr);
        let root = match &v.v {
            V::Addr(name, _) => self.names.get(name).map_or(name.clone(), |i| i.root.clone()),
            V::Free(i) => return Ok(self.fork_read(st, *i)),
            V::Const(_) => {
                return Err(Error::input(
                    "`isspacep` of a number that is not the address of a variable: its state space is unknown",
                    ins.span,
                ))
            }
        };
        let inside = self.space(&root) == *space;
        st.regs.insert(dst.clone(), Val { v: V::Const(inside as i64), deps: v.deps });
        Ok(Step::Next)
    }

    /// `Barrier` instructions.
    fn step_barrier(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Barrier { op, id, logical, count, red } = &ins.kind else {
            return Err(Error::internal("step_barrier on another instruction"));
        };
        if *op == BarrierOp::Warp {
            let (mask, _) = conc!(self, st, ins, logical.as_ref().unwrap_or(id));
            return self.step_warp_sync(t, st, ins, mask);
        }
        let (idv, mut deps) = conc!(self, st, ins, id);
        let logical_v = match logical {
            Some(l) => {
                let (v, d) = conc!(self, st, ins, l);
                deps.extend(d);
                Some(v)
            }
            None => None,
        };
        let expected = match count {
            BarrierCount::AllThreadsInCta => Expected::Count(self.cta_size(t)),
            BarrierCount::Arrivals => Expected::Arrivals,
            BarrierCount::Count(n) => {
                let (v, _) = conc!(self, st, ins, n);
                if !(1..=1024).contains(&v) {
                    return Err(Error::input(
                        format!("barrier thread count {} is out of range (1 to 1024)", v),
                        ins.span,
                    ));
                }
                Expected::Count(v as usize)
            }
        };
        if !(0..=15).contains(&idv) {
            return Err(Error::input(format!("barrier id {} is out of range (0 to 15)", idv), ins.span));
        }
        let (contribution, pred_deps) = match red {
            Some((_, pred, negated)) => {
                let (v, d) = conc!(self, st, ins, pred);
                (Some(((v != 0) != *negated) as i64), d)
            }
            None => (None, BTreeSet::new()),
        };
        let roles: &[SyncRole] =
            if *op == BarrierOp::Arrive { &[SyncRole::Arrive] } else { &[SyncRole::Arrive, SyncRole::Wait] };
        let kind = match op {
            BarrierOp::Red(r) => SyncKind::CtaReduction(*r),
            _ => SyncKind::CtaBarrier,
        };
        let object = (kind, self.placements[t].cta, idv, logical_v);
        let at = SyncUse { expected, orders_memory: true, value: contribution, by_role: false };
        self.push_sync(st, ins, object, roles, at);
        match (op, red) {
            (BarrierOp::Red(r), Some((dst, ..))) => {
                // The arrive carries the predicate, the result reduces every
                // participant's: both are dependencies (8.10.4, D165).
                let (arrive, wait) = (st.events.len() - 2, st.events.len() - 1);
                st.events[arrive].deps.extend(pred_deps.iter().copied());
                deps.extend(pred_deps);
                deps.insert(wait);
                Ok(self.fork_reduction(t, st, (*r, dst), deps))
            }
            _ => Ok(Step::Next),
        }
    }

    /// The result of `bar.red` depends on the other threads' predicates: one
    /// path per result it can have (`.popc`: 0 to the CTA's size; `.and`,
    /// `.or`: 0 or 1), each assuming it on its wait; the engines keep the paths
    /// whose assumption the matched arrivals' values give (`Sync::result_holds`).
    fn fork_reduction(&self, t: usize, st: &PathState, (op, dst): (RedOp, &String), deps: BTreeSet<usize>) -> Step {
        let most = if op == RedOp::Popc { self.cta_size(t) as i64 } else { 1 };
        let mut children = Vec::new();
        for v in 0..=most {
            let mut c = st.clone();
            if let Some(DraftKind::Other(EventKind::Sync(wait))) = c.events.last_mut().map(|e| &mut e.kind) {
                wait.result = Some((op, v));
            }
            c.regs.insert(dst.clone(), Val { v: V::Const(v), deps: deps.clone() });
            c.pc += 1;
            children.push(c);
        }
        Step::Continue(children)
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
            let counter = st.sync_phase.entry((base.clone(), at.by_role.then_some(role))).or_insert(0);
            let key = SyncKey { phase: *counter, ..base.clone() };
            if at.by_role || role == roles[roles.len() - 1] {
                *counter += 1;
            }
            let (expected, orders_memory, value) = (at.expected.clone(), at.orders_memory, at.value);
            let sync = Sync { key, role, expected, orders_memory, value, result: None, assumed: Vec::new() };
            self.push_other(st, EventKind::Sync(sync), ins);
        }
    }

    /// `ClusterBarrier` instructions.
    fn step_cluster_barrier(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::ClusterBarrier { arrive, relaxed } = &ins.kind else {
            return Err(Error::internal("step_cluster_barrier on another instruction"));
        };
        let cluster = self.placements[t].cluster;
        let members: Vec<usize> =
            (0..self.placements.len()).filter(|&u| self.placements[u].cluster == cluster).collect();
        let object = (SyncKind::ClusterBarrier, cluster, 0, None);
        let role = if *arrive { SyncRole::Arrive } else { SyncRole::Wait };
        if !*arrive {
            let base = SyncKey { kind: object.0, unit: cluster, id: 0, logical: None, phase: 0 };
            let uses = |r| st.sync_phase.get(&(base.clone(), Some(r))).copied().unwrap_or(0);
            if uses(SyncRole::Wait) >= uses(SyncRole::Arrive) {
                return Err(Error::input(
                    "barrier.cluster.wait without a preceding barrier.cluster.arrive in this thread",
                    ins.span,
                ));
            }
        }
        let at = SyncUse { expected: Expected::Threads(members), orders_memory: !*relaxed, value: None, by_role: true };
        self.push_sync(st, ins, object, &[role], at);
        Ok(Step::Next)
    }
}
