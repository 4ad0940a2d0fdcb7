//! Atomics and CTA barriers -> real PTX. Split from `instr.rs` because both need
//! more than a line: 32-bit atomics take 32-bit registers (copied from and to
//! the 64-bit litmus registers), and barrier counts are in lanes, not litmus threads.

use super::instr::{reg, Ctx};
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
        AtomOp::MbarrierArrive | AtomOp::MbarrierArriveDrop => return Err(MBARRIER_SKIP.into()),
    };
    Ok(format!(".{}{}", kind, bits))
}

/// Why warp collectives are not emitted: the 32 lanes of a device warp are 32
/// instances of one litmus thread (D30), not the test's lanes.
pub(super) const WARP_SKIP: &str =
    "warp collectives exchange values among a warp's lanes, and each device warp runs 32 instances of one litmus thread (D30)";

/// Why `mbarrier` operations are not emitted.
pub(super) const MBARRIER_SKIP: &str =
    "mbarrier objects live in `.shared` memory, and the emitter places every location in global memory";

impl Ctx<'_> {
    /// `atom{.sem}{.scope}{.space}.op.type` / `red...`: the sem is written
    /// unless it is the default `.relaxed` left implicit in the litmus text.
    pub(super) fn atomic(&mut self, ins: &Instr) -> Result<Vec<String>, String> {
        let InstrKind::Atomic { sem, scope, proxy, op, dst, addr, operands, size, shared, .. } = &ins.kind else {
            return Err("not an atomic".into());
        };
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
        let a = self.addr_text(addr);
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
            return Err("`.shared` locations (the emitter places every location in global memory)".into());
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

    fn addr_text(&self, a: &Addr) -> String {
        let base = match &a.base {
            AddrBase::Sym(s) => super::instr::addr_reg(self.thread, s),
            AddrBase::Reg(r) => reg(self.thread, r),
        };
        if a.offset == 0 {
            format!("[{}]", base)
        } else {
            format!("[{}+{}]", base, a.offset)
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
        if red.is_some() || matches!(op, BarrierOp::Red(_)) {
            return Err("bar.red reduces over the whole CTA, which runs 32 instances at once (D30): the result would mix the instances' predicates".into());
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
            BarrierOp::Red(_) | BarrierOp::Warp => unreachable!(),
        };
        Ok(vec![format!("{}.{} {}, {};", spelled, what, id, threads * 32)])
    }
}
