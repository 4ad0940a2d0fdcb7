//! Atomics and CTA barriers -> real PTX. Split from `instr.rs` because both need
//! more than a line: 32-bit atomics take 32-bit registers (copied from and to
//! the 64-bit litmus registers), and barrier counts are in lanes, not litmus threads.

use super::instr::{reg, Ctx};
use super::needs;
use crate::ast::*;

fn atom_type(op: AtomOp, size: u8) -> Result<String, String> {
    let bits = match size {
        4 => 32,
        8 => 64,
        _ => return Err(format!("a {}-byte atomic", size)),
    };
    let kind = match op {
        AtomOp::Add => "u",
        AtomOp::FAdd => return Err("floating-point atomics are not emitted for the GPU runner".into()),
        AtomOp::Inc | AtomOp::Dec if bits == 32 => "u",
        AtomOp::Inc | AtomOp::Dec => return Err("64-bit atom.inc/dec (PTX has only .u32)".into()),
        AtomOp::Exch | AtomOp::Cas | AtomOp::And | AtomOp::Or | AtomOp::Xor => "b",
        AtomOp::Min | AtomOp::Max => "s",
        AtomOp::MbarrierArrive | AtomOp::MbarrierArriveDrop => return Err("an mbarrier arrive is not an atom".into()),
        AtomOp::MbarrierExpectTx | AtomOp::MbarrierCompleteTx | AtomOp::MbarrierArriveExpectTx => {
            return Err("mbarrier transaction counts are not emitted: the copies that complete them write .shared memory, and the emitter places every location in global memory".into())
        }
    };
    Ok(format!(".{}{}", kind, bits))
}

/// Why warp collectives are not emitted: the 32 lanes of a device warp are 32
/// instances of one litmus thread (D30), not the test's lanes.
pub(super) const WARP_SKIP: &str =
    "warp collectives exchange values among a warp's lanes, and each device warp runs 32 instances of one litmus thread (D30)";

/// Whether the mnemonic (the first word of `text`) has qualifier `.q`.
fn has_qual(text: &str, q: &str) -> bool {
    text.split_whitespace().next().unwrap_or("").split('.').any(|x| x == q)
}

impl Ctx<'_> {
    /// `atom{.sem}{.scope}{.space}.op.type` / `red...`: the sem is written
    /// unless it is the default `.relaxed` left implicit in the litmus text.
    pub(super) fn atomic(&mut self, ins: &Instr) -> Result<Vec<String>, String> {
        let InstrKind::Atomic { sem, scope, proxy, op, dst, addr, operands, size, shared, .. } = &ins.kind else {
            return Err("not an atomic".into());
        };
        if matches!(op, AtomOp::MbarrierArrive | AtomOp::MbarrierArriveDrop) {
            return self.mbarrier_arrive(ins);
        }
        let (semq, scq, space) = self.atom_quals(ins, *sem, *scope, *proxy, *shared)?;
        let ty = atom_type(*op, *size)?;
        let mut vals: Vec<&Operand> = operands.iter().collect();
        // The model's inc/dec without a bound never wrap: the widest bound does the same.
        let unbounded = Operand::Imm(u32::MAX as i64);
        if matches!(op, AtomOp::Inc | AtomOp::Dec) && vals.is_empty() {
            vals.push(&unbounded);
        }
        let want = if *op == AtomOp::Cas { 2 } else { 1 };
        if vals.len() != want {
            return Err(format!("`{}` has {} value operands", ins.text, vals.len()));
        }
        let mut lines = Vec::new();
        let mut args = Vec::new();
        for (i, v) in vals.iter().enumerate() {
            args.push(self.narrow(v, *size, i, &mut lines)?);
        }
        let a = self.addr_in(addr, *shared);
        let head = format!("{}{}{}.{}{}", semq, scq, space, op.ptx_name(), ty);
        match dst {
            Some(d) => {
                let d64 = reg(self.thread, d);
                let out = if *size == 4 { "%s32_3".to_string() } else { d64.clone() };
                lines.push(format!("atom{} {}, {}, {};", head, out, a, args.join(", ")));
                if *size == 4 {
                    let cvt = if matches!(op, AtomOp::Min | AtomOp::Max) { "cvt.s64.s32" } else { "cvt.u64.u32" };
                    lines.push(format!("{} {}, %s32_3;", cvt, d64));
                }
            }
            None => {
                if matches!(op, AtomOp::Exch | AtomOp::Cas) {
                    return Err("PTX red has no exch or cas".into());
                }
                if matches!(sem, Sem::Acquire | Sem::AcqRel) {
                    return Err(
                        "PTX red takes only .relaxed or .release (acquire needs atom, which returns a value)".into()
                    );
                }
                lines.push(format!("red{} {}, {};", head, a, args.join(", ")));
            }
        }
        Ok(lines)
    }

    /// The `{.sem}{.scope}{.space}` of an atomic: the sem is written unless it
    /// is the default `.relaxed` left implicit in the litmus text.
    fn atom_quals(
        &mut self,
        ins: &Instr,
        sem: Sem,
        scope: Option<Scope>,
        proxy: Proxy,
        shared: bool,
    ) -> Result<(&'static str, &'static str, &'static str), String> {
        if proxy != Proxy::Generic {
            return Err("surface atomics need surface objects".into());
        }
        let semq = match sem {
            Sem::Relaxed if ins.text.contains(".relaxed") => ".relaxed",
            Sem::Relaxed => "",
            Sem::Acquire => ".acquire",
            Sem::Release => ".release",
            Sem::AcqRel => ".acq_rel",
            _ => return Err(format!("atomic with {:?} semantics", sem)),
        };
        if scope == Some(Scope::Cluster) {
            self.needs.require(super::needs::CLUSTER_SCOPE);
        }
        let scq = match scope {
            Some(Scope::Cta) => ".cta",
            Some(Scope::Cluster) => ".cluster",
            Some(Scope::Gpu) => ".gpu",
            Some(Scope::Sys) => ".sys",
            None => "",
        };
        let space = if shared {
            ".shared"
        } else if ins.text.contains(".global") {
            ".global"
        } else {
            ""
        };
        Ok((semq, scq, space))
    }

    /// A value operand of a `size`-byte atomic: 64-bit registers are narrowed
    /// into scratch register `%s32_i` first.
    fn narrow(&self, v: &Operand, size: u8, i: usize, lines: &mut Vec<String>) -> Result<String, String> {
        match v {
            Operand::Imm(x) if size == 4 => Ok((*x as u32).to_string()),
            Operand::Imm(x) => Ok(x.to_string()),
            Operand::Reg(r) if size == 4 => {
                lines.push(format!("cvt.u32.u64 %s32_{}, {};", i, reg(self.thread, r)));
                Ok(format!("%s32_{}", i))
            }
            Operand::Reg(r) => Ok(reg(self.thread, r)),
            Operand::Sym(s) => Err(format!("the address of `{}` as an atomic operand", s)),
        }
    }

    /// `bar.sync a, b` / `barrier.sync a, b` / `bar.arrive a, b` with the count
    /// in lanes: each litmus thread is a full warp of 32 instances, and the other
    /// instances of the CTA arrive too (their memory is disjoint, D30).
    pub(super) fn barrier(&mut self, ins: &Instr) -> Result<Vec<String>, String> {
        let InstrKind::Barrier { op, id, count, red, .. } = &ins.kind else {
            return Err("not a barrier".into());
        };
        if *op == BarrierOp::Warp {
            return Err(
                "bar.warp.sync meets lanes of one warp, but on the device each litmus thread is a whole warp of 32 instances (D30)"
                    .into(),
            );
        }
        let Operand::Imm(id) = id else {
            return Err("a barrier number held in a register".into());
        };
        if !(0..16).contains(id) {
            return Err(format!("barrier number {}", id));
        }
        let users = (self.arrivals)(*id)?;
        let threads = match count {
            BarrierCount::AllThreadsInCta => self.cta_threads,
            BarrierCount::Count(Operand::Imm(k)) if *k > 0 && *k <= 32 => *k as u32,
            BarrierCount::Count(_) => return Err("a barrier thread count that is not a small constant".into()),
            BarrierCount::Arrivals => users,
        };
        // A generation that can never fill would hang the launch (no watchdog on compute GPUs).
        if threads > users || users % threads != 0 {
            return Err(format!(
                "the barrier waits for {} threads but {} of the CTA use it: some generation could never complete",
                threads, users
            ));
        }
        let spelled = if ins.text.trim_start().starts_with("barrier") { "barrier" } else { "bar" };
        let what = match op {
            BarrierOp::Sync => "sync",
            BarrierOp::Arrive => "arrive",
            BarrierOp::Red(r) => return self.bar_red(*r, *id, (threads, users), red.as_ref()),
            BarrierOp::Warp => unreachable!(),
        };
        Ok(vec![format!("{}.{} {}, {};", spelled, what, id, threads * 32)])
    }
}

impl Ctx<'_> {
    /// `bar.red` (D278): the real instruction, for its synchronization (8.9.4
    /// rule 2: it synchronizes like `bar.sync`) over the CTA's 32 instances;
    /// its result, which mixes the instances' predicates, is discarded. Each
    /// thread stores its predicate in its own word of the instance's `.shared`
    /// region before the barrier, and after it combines the words of the
    /// instance's threads that reduce on this barrier: the reduction of one
    /// instance's predicates, as the model computes it (9.7.13.1).
    fn bar_red(
        &mut self,
        r: RedOp,
        id: i64,
        (threads, users): (u32, u32),
        red: Option<&(String, Operand, bool)>,
    ) -> Result<Vec<String>, String> {
        let (dst, pred, negated) = red.ok_or("bar.red without its destination and predicate")?;
        let peers = self.red_peers.get(&id).cloned().unwrap_or_default();
        if peers.len() as u32 != users || threads != users {
            return Err(format!(
                "bar.red on barrier {} reduces over {} threads while {} of the CTA use the barrier and {} reduce: which threads a reduction combines would be decided at run time",
                id, threads, users, peers.len()
            ));
        }
        let use_ = self.red_uses.entry(id).or_default();
        let (this, t) = (*use_, self.thread);
        *use_ += 1;
        let slot = |w: u32| self.shared.red_slot(id, this, w as u64).ok_or("bar.red without its words");
        let mut lines = Vec::new();
        let real_pred = match pred {
            Operand::Reg(p) => {
                let (a, b) = if *negated { (0, 1) } else { (1, 0) };
                lines.push(format!("selp.u32 %s32_0, {}, {}, {};", a, b, reg(t, p)));
                format!("{}{}", if *negated { "!" } else { "" }, reg(t, p))
            }
            Operand::Imm(v) => {
                lines.push(format!("mov.u32 %s32_0, {};", u32::from((*v != 0) != *negated)));
                lines.push("setp.ne.u32 %sp, %s32_0, 0;".into());
                "%sp".into()
            }
            Operand::Sym(_) => return Err("bar.red on an address".into()),
        };
        lines.push(format!("st.shared.u32 [%t{}_shm+{}], %s32_0;", t, slot(self.warp)?));
        let (name, out) = match r {
            RedOp::Popc => ("popc.u32", "%s32_1"),
            RedOp::And => ("and.pred", "%sp"),
            RedOp::Or => ("or.pred", "%sp"),
        };
        lines.push(format!("bar.red.{} {}, {}, {}, {};", name, out, id, threads * 32, real_pred));
        let (start, combine) = match r {
            RedOp::Popc => (0, "add.u32"),
            RedOp::And => (1, "and.b32"),
            RedOp::Or => (0, "or.b32"),
        };
        lines.push(format!("mov.u32 %s32_3, {};", start));
        for w in &peers {
            lines.push(format!("ld.shared.u32 %s32_2, [%t{}_shm+{}];", t, slot(*w)?));
            lines.push(format!("{} %s32_3, %s32_3, %s32_2;", combine));
        }
        lines.push(match r {
            RedOp::Popc => format!("cvt.u64.u32 {}, %s32_3;", reg(t, dst)),
            _ => format!("setp.ne.u32 {}, %s32_3, 0;", reg(t, dst)),
        });
        Ok(lines)
    }

    /// `mbarrier.arrive{_drop}{.sem}{.scope}.shared.b64 state, [M]{, count}` on
    /// the instance's copy of `M` (D277), its qualifiers as written.
    pub(super) fn mbarrier_arrive(&mut self, ins: &Instr) -> Result<Vec<String>, String> {
        let InstrKind::Atomic { op, dst, addr, operands, .. } = &ins.kind else {
            return Err("not an mbarrier arrive".into());
        };
        if has_qual(&ins.text, "shared::cluster") {
            return Err("an arrive on another CTA's mbarrier object (.shared::cluster) is not emitted".into());
        }
        let quals = self.mbarrier_quals(&ins.text)?;
        let mut lines = Vec::new();
        let count = match operands.first() {
            // The count operand as written (`.b32`), or none for the default 1.
            Some(c) if ins.text.matches(',').count() >= 2 => {
                self.needs.require(needs::MBARRIER_SM90);
                match c {
                    Operand::Imm(v) => format!(", {}", v),
                    Operand::Reg(r) => {
                        lines.push(format!("cvt.u32.u64 %s32_0, {};", reg(self.thread, r)));
                        ", %s32_0".into()
                    }
                    Operand::Sym(_) => return Err("an mbarrier count that is an address".into()),
                }
            }
            _ => String::new(),
        };
        let state = dst.as_ref().map_or("%s64_0".to_string(), |d| reg(self.thread, d));
        lines.push(format!("{}{}.shared.b64 {}, {}{};", op.ptx_name(), quals, state, self.addr_in(addr, true), count));
        Ok(lines)
    }

    /// The `.sem` and `.scope` of an mbarrier arrive or wait, as written.
    fn mbarrier_quals(&mut self, text: &str) -> Result<String, String> {
        self.needs.require(needs::MBARRIER);
        let mut q = String::new();
        for s in ["release", "acquire", "relaxed", "cta", "cluster"] {
            if has_qual(text, s) {
                self.needs.require(needs::MBARRIER_SEM);
                match s {
                    "relaxed" => self.needs.require(needs::MBARRIER_RELAXED),
                    "cluster" => self.needs.require(needs::CLUSTER_SCOPE),
                    _ => {}
                }
                q.push('.');
                q.push_str(s);
            }
        }
        Ok(q)
    }

    /// `mbarrier.init/inval/test_wait/try_wait/pending_count` (D277).
    pub(super) fn mbarrier(&mut self, ins: &Instr) -> Result<Vec<String>, String> {
        let InstrKind::Mbarrier { op, dst, addr, operand, .. } = &ins.kind else {
            return Err("not an mbarrier operation".into());
        };
        self.needs.require(needs::MBARRIER);
        let t = self.thread;
        let at = addr.as_ref().map(|a| self.addr_in(a, true));
        let word = |o: &Operand, bits: u32, lines: &mut Vec<String>| match o {
            Operand::Imm(v) => Ok(v.to_string()),
            Operand::Reg(r) if bits == 64 => Ok(reg(t, r)),
            Operand::Reg(r) => {
                lines.push(format!("cvt.u32.u64 %s32_0, {};", reg(t, r)));
                Ok("%s32_0".to_string())
            }
            Operand::Sym(_) => Err("an mbarrier operand that is an address".to_string()),
        };
        let mut lines = Vec::new();
        match (op, at, dst) {
            (MbarrierOp::Init, Some(at), _) => {
                let n = word(operand, 32, &mut lines)?;
                lines.push(format!("mbarrier.init.shared.b64 {}, {};", at, n));
            }
            (MbarrierOp::Inval, Some(at), _) => lines.push(format!("mbarrier.inval.shared.b64 {};", at)),
            (MbarrierOp::TestWait { parity }, Some(at), Some(p)) => {
                let name = if ins.text.trim_start().starts_with("mbarrier.try_wait") {
                    self.needs.require(needs::MBARRIER_SM90);
                    "try_wait"
                } else {
                    "test_wait"
                };
                if *parity {
                    self.needs.require(needs::MBARRIER_PARITY);
                }
                let quals = self.mbarrier_quals(&ins.text)?;
                let v = word(operand, if *parity { 32 } else { 64 }, &mut lines)?;
                let v = if v.starts_with('%') || *parity {
                    v
                } else {
                    lines.push(format!("mov.b64 %s64_0, {};", v));
                    "%s64_0".to_string()
                };
                let par = if *parity { ".parity" } else { "" };
                lines.push(format!("mbarrier.{}{}{}.shared.b64 {}, {}, {};", name, par, quals, reg(t, p), at, v));
            }
            (MbarrierOp::PendingCount, _, Some(d)) => {
                let v = match operand {
                    Operand::Reg(r) => reg(t, r),
                    _ => return Err("mbarrier.pending_count of a constant state".into()),
                };
                lines.push(format!("mbarrier.pending_count.b64 %s32_3, {};", v));
                lines.push(format!("cvt.u64.u32 {}, %s32_3;", reg(t, d)));
            }
            _ => return Err(format!("`{}`: an mbarrier operation without its operands", ins.text)),
        }
        Ok(lines)
    }
}
