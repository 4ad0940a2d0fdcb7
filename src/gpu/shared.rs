//! Per-instance `.shared` memory (D277, D278). A real CTA runs 32 instances
//! of its litmus CTA at once (D30), so each `.shared` variable gets 32 copies
//! in the CTA's shared memory, one per instance, at the instance's *position*
//! in its group (`0..32`, drawn by the host with the permutations and read
//! from the `perm` buffer). The same region holds the scratch words through
//! which `bar.red` combines the predicates of one instance's threads.
//!
//! A test's own `.shared` access names its cluster's copy (D19), so a variable
//! is emitted when, in each litmus cluster, the threads that access it
//! through `.shared` are in one litmus CTA: that CTA's shared memory holds the
//! copies (a copy shared by two CTAs of a cluster would need distributed
//! shared memory, which is not emitted).

use super::layout::Layout;
use crate::ast::*;
use std::collections::{BTreeMap, BTreeSet};

/// Where the per-instance shared memory of a test lives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedPlan {
    /// Each `.shared` variable: its byte offset in an instance's region and its bytes.
    pub vars: BTreeMap<String, (u64, u64)>,
    /// Initial value of each variable (0 when the init block has none).
    pub init: BTreeMap<String, i64>,
    /// Offset of the `bar.red` words: `red_slot(id, use, warp)`.
    pub red_base: u64,
    /// Per barrier id used by `bar.red`: the uses of the ids before it (its first
    /// use's word row) and the most uses of it by one thread.
    pub red_ids: BTreeMap<i64, (u64, u64)>,
    /// Warps per CTA (the `bar.red` words of one use are one per warp).
    pub warps: u64,
    /// Bytes of one instance's region (a multiple of 16).
    pub region: u64,
    /// The blocks (`k * cluster_dim + r`) whose shared memory holds copies of variables.
    pub hosts: BTreeSet<u32>,
    /// The barrier id the threads of a host CTA meet at once the copies hold their initial values.
    pub start_barrier: Option<i64>,
}

impl SharedPlan {
    /// Whether the test uses shared memory at all.
    pub fn used(&self) -> bool {
        self.region > 0
    }
    /// Bytes of the kernel's shared array: one region per instance of a group.
    pub fn total(&self) -> u64 {
        32 * self.region
    }
    /// The byte offset, in an instance's region, of thread warp `warp`'s word for
    /// its `use_`-th `bar.red` on barrier `id`.
    pub fn red_slot(&self, id: i64, use_: u64, warp: u64) -> Option<u64> {
        let &(first, uses) = self.red_ids.get(&id)?;
        (use_ < uses && warp < self.warps).then(|| self.red_base + ((first + use_) * self.warps + warp) * 4)
    }
}

/// Shared memory starts undefined in every launch, so the copies are written
/// by one thread of each instance; a region past this many bytes (32 of them
/// in the 48 KiB of static shared memory a CTA may declare) is not emitted.
const MAX_REGION: u64 = 1536;

/// The `.shared` variables each access names, with the bytes it reaches.
fn shared_accesses(ins: &Instr) -> Option<(&Addr, u64)> {
    match &ins.kind {
        InstrKind::Load { shared: true, addr, size, .. }
        | InstrKind::Store { shared: true, addr, size, .. }
        | InstrKind::Atomic { shared: true, addr, size, .. } => Some((addr, *size as u64)),
        // An mbarrier object is an 8-byte word of shared memory (D153).
        InstrKind::Mbarrier { addr: Some(addr), .. } => Some((addr, 8)),
        _ => None,
    }
}

/// The plan of a test, or why its shared memory cannot be emitted.
pub fn plan(lit: &Litmus, lay: &Layout, observed_locs: &[String]) -> Result<SharedPlan, String> {
    let mut extent: BTreeMap<String, u64> = BTreeMap::new();
    let mut host: BTreeMap<(String, u32), u32> = BTreeMap::new();
    for (t, code) in lit.code.iter().enumerate() {
        for ins in code {
            let Some((addr, size)) = shared_accesses(ins) else { continue };
            let AddrBase::Sym(name) = &addr.base else {
                return Err(format!("`{}` reaches `.shared` memory through a register", ins.text));
            };
            if addr.offset < 0 {
                return Err(format!("`{}`: a negative offset into `.shared` variable `{}`", ins.text, name));
            }
            let e = extent.entry(name.clone()).or_default();
            *e = (*e).max(addr.offset as u64 + size);
            let block = lay.block_of[t];
            if let Some(&other) = host.get(&(name.clone(), lay.cluster_of[t])) {
                if other != block {
                    return Err(format!("`.shared` variable `{}` is accessed from two CTAs of one cluster: distributed shared memory is not emitted", name));
                }
            }
            host.insert((name.clone(), lay.cluster_of[t]), block);
        }
    }
    refuse_unfaithful(lit, &extent, observed_locs)?;
    let mut plan = SharedPlan { warps: lay.warps as u64, ..Default::default() };
    let mut next: u64 = 0;
    for (name, bytes) in &extent {
        // 8-byte aligned copies (an mbarrier object needs it); a vector access 16.
        let bytes = bytes.div_ceil(8) * 8;
        next = next.div_ceil(bytes.min(16)) * bytes.min(16);
        plan.vars.insert(name.clone(), (next, bytes));
        next += bytes;
        let value = lit.init.iter().find_map(|i| match i {
            InitItem::Location { name: n, value, .. } if n == name => Some(*value),
            _ => None,
        });
        plan.init.insert(name.clone(), value.unwrap_or(0));
    }
    plan.hosts = host.values().copied().collect();
    plan.red_base = next;
    plan.red_ids = red_ids(lit);
    let red_words: u64 = plan.red_ids.values().map(|&(_, uses)| uses).sum::<u64>() * plan.warps;
    plan.region = (next + 4 * red_words).div_ceil(16) * 16;
    if plan.region > MAX_REGION {
        return Err(format!(
            "{} bytes of `.shared` memory per instance: more than the {} that 32 instances fit in",
            plan.region, MAX_REGION
        ));
    }
    if !plan.hosts.is_empty() {
        plan.start_barrier = Some(free_barrier(lit).ok_or("every barrier number is used by the test: none is left to start the instances once their `.shared` copies are written")?);
    }
    Ok(plan)
}

/// What a device's shared memory cannot show as the model does: an array in
/// shared memory, a final value of a shared copy (only the copies' threads
/// see them), and the contents of an mbarrier object or its state tokens (the
/// model's words encode phase and counts, D153; a device's are opaque).
fn refuse_unfaithful(lit: &Litmus, extent: &BTreeMap<String, u64>, observed_locs: &[String]) -> Result<(), String> {
    for item in &lit.init {
        if let InitItem::Array { name, .. } = item {
            if extent.contains_key(name) {
                return Err(format!("`.shared` array `{}` (shared copies are emitted for scalar variables)", name));
            }
        }
    }
    for l in observed_locs {
        let root = l.split(['[', '+']).next().unwrap_or(l).trim();
        if extent.contains_key(root) {
            return Err(format!("the final value of `{}` is observed, but its `.shared` copies are not read back", l));
        }
    }
    let mbarriers: BTreeSet<&String> = lit
        .code
        .iter()
        .flatten()
        .filter_map(|i| match &i.kind {
            InstrKind::Mbarrier { addr: Some(Addr { base: AddrBase::Sym(s), .. }), .. } => Some(s),
            InstrKind::Atomic {
                op: AtomOp::MbarrierArrive | AtomOp::MbarrierArriveDrop,
                addr: Addr { base: AddrBase::Sym(s), .. },
                ..
            } => Some(s),
            _ => None,
        })
        .collect();
    for m in &mbarriers {
        let init = lit.code.iter().flatten().any(|i| {
            matches!(&i.kind, InstrKind::Mbarrier { op: MbarrierOp::Init, addr: Some(Addr { base: AddrBase::Sym(s), .. }), .. } if s == *m)
        });
        if !init {
            return Err(format!("mbarrier object `{}` is never initialised (mbarrier.init): a device's object would start undefined, the model's at its initial word", m));
        }
    }
    Ok(())
}

/// Per barrier id used by `bar.red`: the rows of the ids before it, and the most
/// times one thread uses it (one row of words per use, so no two uses share a word).
fn red_ids(lit: &Litmus) -> BTreeMap<i64, (u64, u64)> {
    let mut uses: BTreeMap<i64, u64> = BTreeMap::new();
    for code in &lit.code {
        let mut mine: BTreeMap<i64, u64> = BTreeMap::new();
        for i in code {
            if let InstrKind::Barrier { op: BarrierOp::Red(_), id: Operand::Imm(id), .. } = &i.kind {
                *mine.entry(*id).or_default() += 1;
            }
        }
        for (id, n) in mine {
            let u = uses.entry(id).or_default();
            *u = (*u).max(n);
        }
    }
    let mut first = 0;
    uses.into_iter()
        .map(|(id, n)| {
            first += n;
            (id, (first - n, n))
        })
        .collect()
}

/// The highest CTA barrier number no instruction of the test names.
fn free_barrier(lit: &Litmus) -> Option<i64> {
    let used: BTreeSet<i64> = lit
        .code
        .iter()
        .flatten()
        .filter_map(|i| match &i.kind {
            InstrKind::Barrier { id: Operand::Imm(id), op, .. } if *op != BarrierOp::Warp => Some(*id),
            _ => None,
        })
        .collect();
    (0..16).rev().find(|id| !used.contains(id))
}
