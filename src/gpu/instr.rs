//! One litmus instruction -> real PTX, keeping its memory qualifiers exactly
//! (sem, scope, state space, size). Litmus registers become 64-bit registers
//! (`.b64`, the model's values are 64-bit) or predicates; an `Err` is the reason
//! the instruction cannot be run faithfully (the test is skipped, D32).

use super::{needs, Needs};
use crate::ast::*;

/// What one thread's translation needs from the kernel around it.
pub struct Ctx<'a> {
    pub thread: usize,
    /// Litmus threads in this thread's CTA (a barrier without a count waits for all).
    pub cta_threads: u32,
    /// Per barrier id: litmus threads of the CTA that use it (corpus `bar.cta.sync a`).
    pub arrivals: &'a dyn Fn(i64) -> Result<u32, String>,
    /// Spin limit: a label reached more often abandons the instance.
    pub spin_limit: u32,
    pub needs: &'a mut Needs,
    /// Labels of this thread, in order: `label_ids[name]` numbers the visit counters.
    pub labels: &'a [String],
    /// The instance's `.shared` copies and `bar.red` words (D277, D278).
    pub shared: &'a super::shared::SharedPlan,
    /// Per barrier id, the warps of this CTA whose threads reduce on it with `bar.red`.
    pub red_peers: std::collections::BTreeMap<i64, Vec<u32>>,
    /// Per barrier id, the `bar.red`s of this thread emitted so far.
    pub red_uses: std::collections::BTreeMap<i64, u64>,
    /// This thread's warp in its CTA.
    pub warp: u32,
    /// Bytes between two variables of an instance (`--loc-stride`).
    pub stride: u64,
}

/// The kernel's `.local` variable holding this thread's private variable
/// `name` (`.local`/`.param` memory of the litmus thread, D125).
pub fn private_var(t: usize, name: &str) -> String {
    label(t, &format!("priv_{}", name))
}

pub fn reg(t: usize, r: &str) -> String {
    let clean: String =
        r.trim_start_matches('%').chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("%t{}_{}", t, clean)
}

/// The register holding this thread's address of variable `x` (+ offset in the address).
pub fn addr_reg(t: usize, sym: &str) -> String {
    reg(t, &format!("addr_{}", sym))
}

/// The register holding the `.shared` address of this instance's copy of `x` (D277).
pub fn shared_reg(t: usize, sym: &str) -> String {
    reg(t, &format!("saddr_{}", sym))
}

pub fn label(t: usize, l: &str) -> String {
    let clean: String = l.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("T{}_{}", t, clean)
}

/// Location names used as addresses or address values by an instruction.
pub fn symbols(k: &InstrKind) -> Vec<String> {
    let mut out = Vec::new();
    let mut op = |o: &Operand| {
        if let Operand::Sym(s) = o {
            out.push(s.clone());
        }
    };
    let addr = match k {
        InstrKind::Load { addr, .. } | InstrKind::Store { addr, .. } | InstrKind::Atomic { addr, .. } => Some(addr),
        _ => None,
    };
    match k {
        InstrKind::Store { src, .. } => op(src),
        InstrKind::Atomic { operands, .. } => operands.iter().for_each(&mut op),
        InstrKind::Alu { srcs, .. } => srcs.iter().for_each(&mut op),
        InstrKind::Setp { a, b, .. } => [a, b].into_iter().for_each(&mut op),
        InstrKind::Selp { a, b, .. } => [a, b].into_iter().for_each(&mut op),
        _ => {}
    }
    if let Some(Addr { base: AddrBase::Sym(s), .. }) = addr {
        out.push(s.clone());
    }
    out
}

fn scope_q(s: Scope) -> &'static str {
    match s {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

fn cmp_q(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "eq",
        Cmp::Ne => "ne",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
    }
}

fn bits(size: u8) -> Result<u32, String> {
    match size {
        1 | 2 | 4 | 8 => Ok(size as u32 * 8),
        _ => Err(format!("access size {} bytes", size)),
    }
}

impl Ctx<'_> {
    pub(super) fn opnd(&self, o: &Operand) -> String {
        match o {
            Operand::Reg(r) => reg(self.thread, r),
            Operand::Imm(i) => i.to_string(),
            Operand::Sym(s) => addr_reg(self.thread, s),
        }
    }
    /// `[base+offset]`: a variable's copy in the instance's global region, or
    /// in its `.shared` region for a `.shared` access (D277).
    pub(super) fn addr_in(&self, a: &Addr, shared: bool) -> String {
        let base = match &a.base {
            AddrBase::Sym(s) if shared => shared_reg(self.thread, s),
            AddrBase::Sym(s) => addr_reg(self.thread, s),
            AddrBase::Reg(r) => reg(self.thread, r),
        };
        if a.offset == 0 {
            format!("[{}]", base)
        } else {
            format!("[{}+{}]", base, a.offset)
        }
    }
    fn note_scope(&mut self, s: Option<Scope>) {
        if s == Some(Scope::Cluster) {
            self.needs.require(needs::CLUSTER_SCOPE);
        }
    }
    /// `.shared` for a `.shared` access (the instance's copy, D277); `.global`
    /// when the litmus instruction says so; generic addressing otherwise (the
    /// buffers are global memory either way).
    fn space(text: &str, shared: bool) -> &'static str {
        if shared {
            ".shared"
        } else if text.contains(".global") {
            ".global"
        } else {
            ""
        }
    }

    /// The sem qualifiers, state space and address of an `ld`/`st`: a private
    /// access (`.local`/`.param`, D17) goes to the thread's `.local` copy of
    /// its variable (D125), anything else to the instance's global memory.
    fn access(
        &mut self,
        sem: Sem,
        scope: Option<Scope>,
        a: &Addr,
        shared: bool,
        private: bool,
        text: &str,
    ) -> Result<(String, &'static str, String), String> {
        let q = self.ld_st_sem(sem, scope, text)?;
        if !private {
            return Ok((q, Self::space(text, shared), self.addr_in(a, shared)));
        }
        let AddrBase::Sym(name) = &a.base else {
            return Err("private memory reached through a register".into());
        };
        let var = private_var(self.thread, name);
        let at = if a.offset == 0 { format!("[{}]", var) } else { format!("[{}+{}]", var, a.offset) };
        Ok((q, ".local", at))
    }

    /// The PTX lines of one instruction.
    pub fn emit(&mut self, ins: &Instr) -> Result<Vec<String>, String> {
        let t = self.thread;
        let line = match &ins.kind {
            InstrKind::Load { sem, scope, proxy, dst, addr, size, ty, shared, private } => {
                no_proxy(*proxy)?;
                let (q, space, at) = self.access(*sem, *scope, addr, *shared, *private, &ins.text)?;
                // A signed type sign-extends into the 64-bit register, as the model reads it (D15).
                let sign = if ty.is_some_and(|t| t.signed) { "s" } else { "u" };
                format!("ld{}{}.{}{} {}, {};", q, space, sign, bits(*size)?, reg(t, dst), at)
            }
            InstrKind::Store { sem, scope, proxy, addr, src, size, shared, private, .. } => {
                no_proxy(*proxy)?;
                let (q, space, at) = self.access(*sem, *scope, addr, *shared, *private, &ins.text)?;
                let st = format!("st{}{}.u{}", q, space, bits(*size)?);
                // st takes a register source: a constant goes through a scratch register.
                if let Operand::Imm(v) = src {
                    return Ok(vec![format!("mov.b64 %s64_0, {};", v), format!("{} {}, %s64_0;", st, at)]);
                }
                format!("{} {}, {};", st, at, self.opnd(src))
            }
            InstrKind::Atomic { .. } => return self.atomic(ins),
            InstrKind::Fence { sem, scope } => self.fence(*sem, *scope, &ins.text)?,
            InstrKind::Async(_) => {
                return Err("asynchronous copies need .shared memory, and the emitter places every location in global memory".into())
            }
            InstrKind::ProxyFence { proxy, .. } => {
                if *proxy == Proxy::Async {
                    return Err("fence.proxy.async orders asynchronous copies, which are not emitted".into());
                }
                if *proxy != Proxy::Generic {
                    return Err("texture/surface/constant proxy fences need proxy objects".into());
                }
                self.needs.require(needs::FENCE_PROXY);
                "fence.proxy.alias;".to_string()
            }
            InstrKind::SharedFence { .. } => {
                return Err("a `.sync_restrict` fence orders shared memory only, and the emitter places every location in global memory".into())
            }
            InstrKind::InitFence => {
                return Err("fence.mbarrier_init publishes mbarrier objects to the cluster, and the emitter places every location in global memory".into())
            }
            InstrKind::Mapa { .. } | InstrKind::CtaRank { .. } => {
                return Err("`mapa` and `getctarank` name CTAs' .shared memory, and the emitter places every location in global memory".into())
            }
            InstrKind::Barrier { .. } => return self.barrier(ins),
            InstrKind::ClusterBarrier { arrive, relaxed } => self.cluster_barrier(*arrive, *relaxed),
            InstrKind::Mbarrier { .. } => return self.mbarrier(ins),
            InstrKind::Warp { .. } | InstrKind::ActiveMask { .. } => return Err(super::instr_sync::WARP_SKIP.into()),
            InstrKind::Alu { op, dst, srcs, ty, src_ty } => return self.alu(*op, dst, srcs, *ty, *src_ty),
            InstrKind::Setp { cmp, dst, a, b, ty } => return Ok(self.setp(*cmp, dst, a, b, *ty)),
            InstrKind::Selp { dst, a, b, pred, ty } => return self.selp(dst, a, b, pred, *ty),
            InstrKind::Branch { cond, target } => return Ok(self.branch(cond, target)),
            InstrKind::Label(l) => return Ok(self.label(l)),
            InstrKind::Nop => return Ok(vec![]),
            // `emit::code` emits a vector access's orders as one instruction (D276).
            InstrKind::Choose(_) | InstrKind::Skip(_) => return Err("a strong vector access outside its element orders".into()),
            InstrKind::Refused(m) => return Err(m.clone()),
            InstrKind::Timer { .. } => return Err("timer reads are not emitted: the model's timer values (D81) are not a device clock's".to_string()),
            InstrKind::Call { name, .. } => return Err(format!("`call {}`: calls into PTX modules are not emitted for the GPU runner", name)),
            InstrKind::IsSpace { .. } => return Err("`isspacep` asks which state space an address is in; the emitter moves every variable to its own space (D125)".into()),
        };
        Ok(vec![line])
    }

    /// A strong vector access (D276): its elements (one order of them, D173)
    /// as the one PTX vector instruction the test wrote, `ld.sem.scope.vN.type
    /// {d0, ..}, [x]` / `st.sem.scope.vN.type [x], {s0, ..}`; which element the
    /// device performs first is the device's.
    pub fn vector(&mut self, elems: &[&Instr]) -> Result<Vec<String>, String> {
        let mut by_offset: Vec<&Instr> = elems.to_vec();
        let offset = |i: &Instr| match &i.kind {
            InstrKind::Load { addr, .. } | InstrKind::Store { addr, .. } => Some(addr.offset),
            _ => None,
        };
        if by_offset.iter().any(|i| offset(i).is_none()) || !matches!(elems.len(), 2 | 4) {
            return Err("a vector access whose elements are not loads or stores".into());
        }
        by_offset.sort_by_key(|i| offset(i));
        let (first, n) = (by_offset[0], elems.len());
        let (InstrKind::Load { sem, scope, proxy, addr, size, shared, private, .. }
        | InstrKind::Store { sem, scope, proxy, addr, size, shared, private, .. }) = &first.kind
        else {
            unreachable!("checked above")
        };
        no_proxy(*proxy)?;
        let bytes = n as u64 * *size as u64;
        // A vector access is aligned to its whole size; variables lie on `--loc-stride` bytes.
        if *private || addr.offset.rem_euclid(bytes as i64) != 0 || (!*shared && !self.stride.is_multiple_of(bytes)) {
            return Err(format!(
                "a {}-byte vector access that is private or not aligned to its size (--loc-stride)",
                bytes
            ));
        }
        let (q, space, at) = self.access(*sem, *scope, addr, *shared, false, &first.text)?;
        let mut lines = Vec::new();
        let mut regs = Vec::new();
        for (i, e) in by_offset.iter().enumerate() {
            match &e.kind {
                InstrKind::Load { dst, .. } => regs.push(reg(self.thread, dst)),
                InstrKind::Store { src: Operand::Imm(v), .. } => {
                    lines.push(format!("mov.b64 %s64_{}, {};", i, v));
                    regs.push(format!("%s64_{}", i));
                }
                InstrKind::Store { src, .. } => regs.push(self.opnd(src)),
                _ => unreachable!("checked above"),
            }
        }
        let vec = format!("{{{}}}", regs.join(", "));
        lines.push(match &first.kind {
            InstrKind::Load { ty, .. } => {
                let sign = if ty.is_some_and(|t| t.signed) { "s" } else { "u" };
                format!("ld{}{}.v{}.{}{} {}, {};", q, space, n, sign, bits(*size)?, vec, at)
            }
            _ => format!("st{}{}.v{}.u{} {}, {};", q, space, n, bits(*size)?, at, vec),
        });
        Ok(lines)
    }

    /// `membar.{cta,gl,sys}` when written so, else `fence.sem.scope` with the model's sem.
    fn fence(&mut self, sem: FenceSem, scope: Scope, text: &str) -> Result<String, String> {
        self.note_scope(Some(scope));
        if text.trim_start().starts_with("membar") {
            let s = match scope {
                Scope::Cta => "cta",
                Scope::Gpu => "gl",
                Scope::Sys => "sys",
                Scope::Cluster => return Err("membar at cluster scope".into()),
            };
            Ok(format!("membar.{};", s))
        } else {
            let s = match sem {
                FenceSem::Sc => ".sc",
                FenceSem::AcqRel => ".acq_rel",
                FenceSem::Acquire | FenceSem::Release => {
                    self.needs.require(needs::FENCE_ACQUIRE_RELEASE);
                    if sem == FenceSem::Acquire {
                        ".acquire"
                    } else {
                        ".release"
                    }
                }
            };
            Ok(format!("fence{}{};", s, scope_q(scope)))
        }
    }

    fn cluster_barrier(&mut self, arrive: bool, relaxed: bool) -> String {
        self.needs.require(needs::BARRIER_CLUSTER);
        match (arrive, relaxed) {
            (true, true) => {
                self.needs.require(needs::BARRIER_CLUSTER_RELAXED);
                "barrier.cluster.arrive.relaxed;".into()
            }
            (true, false) => "barrier.cluster.arrive;".into(),
            (false, _) => "barrier.cluster.wait;".into(),
        }
    }

    /// `.weak` (when written), `.relaxed.scope`, `.acquire.scope`, `.release.scope`, `.volatile`, `.mmio.relaxed.sys`.
    fn ld_st_sem(&mut self, sem: Sem, scope: Option<Scope>, text: &str) -> Result<String, String> {
        self.note_scope(scope);
        let sc = scope.map(scope_q).unwrap_or("");
        Ok(match sem {
            Sem::Weak => (if text.contains(".weak") { ".weak" } else { "" }).to_string(),
            Sem::Volatile => ".volatile".into(),
            Sem::Mmio => {
                self.needs.require(needs::MMIO);
                ".mmio.relaxed.sys".into()
            }
            Sem::Relaxed | Sem::Acquire | Sem::Release => {
                if scope.is_none() {
                    return Err("a strong access without a scope".into());
                }
                let s = match sem {
                    Sem::Relaxed => ".relaxed",
                    Sem::Acquire => ".acquire",
                    _ => ".release",
                };
                format!("{}{}", s, sc)
            }
            Sem::AcqRel => return Err("ld/st .acq_rel".into()),
        })
    }

    fn branch(&self, cond: &BranchCond, target: &str) -> Vec<String> {
        let to = label(self.thread, target);
        match cond {
            BranchCond::Always => vec![format!("bra {};", to)],
            BranchCond::Pred { reg: r, negated } => {
                vec![format!("@{}{} bra {};", if *negated { "!" } else { "" }, reg(self.thread, r), to)]
            }
            BranchCond::Compare { cmp, a, b } => vec![
                format!("setp.{}.s64 %sp, {}, {};", cmp_q(*cmp), self.opnd(a), self.opnd(b)),
                format!("@%sp bra {};", to),
            ],
        }
    }

    /// The label, then its visit counter: past `spin_limit` visits the instance
    /// is abandoned (a spin loop that never ends must not hang the launch).
    fn label(&self, l: &str) -> Vec<String> {
        let i = self.labels.iter().position(|x| x == l).unwrap_or(0);
        let c = format!("%t{}_visits{}", self.thread, i);
        vec![
            format!("{}:", label(self.thread, l)),
            format!("add.u32 {}, {}, 1;", c, c),
            format!("max.u32 %t{}_maxv, %t{}_maxv, {};", self.thread, self.thread, c),
            format!("setp.gt.u32 %sp, {}, {};", c, self.spin_limit),
            format!("@%sp bra T{}$abandon;", self.thread),
        ]
    }
}

fn no_proxy(p: Proxy) -> Result<(), String> {
    if p == Proxy::Generic {
        Ok(())
    } else {
        Err(format!("{:?} proxy accesses need texture/surface/constant objects", p).to_lowercase())
    }
}

impl Ctx<'_> {
    /// `setp` as the model compares (D15): both operands cut to the type's width
    /// and sign- or zero-extended in the scratch registers, then compared signed
    /// or unsigned; untyped corpus spelling compares 64-bit signed values.
    fn setp(
        &mut self,
        cmp: crate::ast::Cmp,
        dst: &str,
        a: &Operand,
        b: &Operand,
        ty: Option<crate::ast::IntTy>,
    ) -> Vec<String> {
        let signed = ty.is_none_or(|t| t.signed);
        let kind = if signed { "s64" } else { "u64" };
        let d = reg(self.thread, dst);
        let Some(t) = ty.filter(|t| t.bits < 64) else {
            return vec![format!("setp.{}.{} {}, {}, {};", cmp_q(cmp), kind, d, self.opnd(a), self.opnd(b))];
        };
        let k = 64 - t.bits;
        let mut out = Vec::new();
        for (x, r) in [(a, "%s64_0"), (b, "%s64_1")] {
            out.push(format!("mov.b64 {}, {};", r, self.opnd(x)));
            out.push(format!("shl.b64 {}, {}, {};", r, r, k));
            out.push(format!("shr.{} {}, {}, {};", if signed { "s64" } else { "u64" }, r, r, k));
        }
        out.push(format!("setp.{}.{} {}, %s64_0, %s64_1;", cmp_q(cmp), kind, d));
        out
    }
}
