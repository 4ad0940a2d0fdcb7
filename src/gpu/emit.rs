//! The kernel around the litmus threads: find which litmus thread and which
//! instance this GPU thread runs, compute the instance's addresses, run the
//! thread's code, store the observed registers and a status word. Extra CTAs
//! past the test's blocks run the memory stress loop (D30, D34).

use super::instr::{addr_reg, private_var, reg, shared_reg, Ctx};
use super::scan::{arrivals_of, private_names, private_vars, registers};
use super::{EmitOptions, Module, Needs, ENTRY};
use crate::ast::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Scratch lines of the stress loop: 1024 lines of 128 bytes (`--stress`).
pub const STRESS_LINES: u32 = 1024;

/// The PTX module of a test and the version/target it needs.
pub fn kernel(
    lit: &Litmus,
    m: &Module,
    observed: &[(usize, String)],
    opts: &EmitOptions,
) -> Result<(String, Needs), String> {
    let mut needs = Needs::default();
    let lay = &m.layout;
    if lay.cluster_dim > 1 {
        needs.require(super::needs::CLUSTER_LAUNCH);
    }
    let mut decls = String::new();
    let mut bodies = String::new();
    let private = private_names(lit);
    for t in 0..lit.threads.len() {
        let privates = private_vars(lit, t, &private).map_err(|e| format!("P{}: {}", t, e))?;
        for (name, bytes) in &privates {
            writeln!(decls, "    .local .align 8 .b8 {}[{}];", private_var(t, name), bytes.len()).unwrap();
        }
        let (vals, preds) = registers(lit, t, observed)?;
        let labels: Vec<String> = lit.code[t]
            .iter()
            .filter_map(|i| if let InstrKind::Label(l) = &i.kind { Some(l.clone()) } else { None })
            .collect();
        for v in &vals {
            writeln!(decls, "    .reg .b64 {};", reg(t, v)).unwrap();
        }
        for p in &preds {
            writeln!(decls, "    .reg .pred {};", reg(t, p)).unwrap();
        }
        let syms: BTreeSet<&String> = m.memory.offsets.keys().collect();
        for s in &syms {
            writeln!(decls, "    .reg .b64 {};", addr_reg(t, s)).unwrap();
        }
        if m.shared.used() {
            writeln!(decls, "    .reg .b64 %t{}_shm;", t).unwrap();
        }
        for s in m.shared.vars.keys() {
            writeln!(decls, "    .reg .b64 {};", shared_reg(t, s)).unwrap();
        }
        writeln!(decls, "    .reg .b32 %t{}_maxv;", t).unwrap();
        for i in 0..labels.len() {
            writeln!(decls, "    .reg .b32 %t{}_visits{};", t, i).unwrap();
        }
        let body = thread_body(lit, m, t, (&vals, &labels, &privates), observed, opts, &mut needs)?;
        bodies.push_str(&body);
    }
    let mut s = String::new();
    header(&mut s, lit, m, &needs);
    if m.shared.used() {
        // Declared inside the entry: one array per CTA, 32 instance regions (D277).
        writeln!(s, "    .shared .align 16 .b8 litmus_shm[{}];", m.shared.total()).unwrap();
    }
    s.push_str(&decls);
    prologue(&mut s, m);
    s.push_str(&bodies);
    stress(&mut s);
    s.push_str("DONE:\n    ret;\n}\n");
    Ok((s, needs))
}

fn header(s: &mut String, lit: &Litmus, m: &Module, needs: &Needs) {
    let lay = &m.layout;
    writeln!(s, "// ptx-litmus run: test {} ({} threads)", lit.name, lit.threads.len()).unwrap();
    writeln!(
        s,
        "// layout: {} cluster(s) of {} CTA(s) x {} warp(s) per group of 32 instances",
        lay.clusters, lay.cluster_dim, lay.warps
    )
    .unwrap();
    let why = if needs.why.is_empty() { "scoped memory operations".to_string() } else { needs.why.join(", ") };
    writeln!(s, "// .version {} / sm_{}: {}", needs.version(), needs.sm, why).unwrap();
    writeln!(s, ".version {}\n.target sm_{}\n.address_size 64\n", needs.version(), needs.sm).unwrap();
    writeln!(s, ".visible .entry {}(\n    .param .u64 p_mem,\n    .param .u64 p_out,\n    .param .u64 p_perm,\n    .param .u64 p_scratch,\n    .param .u32 p_groups,\n    .param .u32 p_stress_iters,\n    .param .u32 p_pre_stress\n)", ENTRY).unwrap();
    writeln!(s, ".reqntid {}, 1, 1", 32 * lay.warps).unwrap();
    if lay.cluster_dim > 1 {
        writeln!(s, ".reqnctapercluster {}, 1, 1\n.explicitcluster", lay.cluster_dim).unwrap();
    }
    s.push_str("{\n    .reg .pred %sp;\n    .reg .b32 %s32_<4>;\n    .reg .b64 %s64_<4>;\n");
    s.push_str(
        "    .reg .b32 %blk, %tidx, %warp, %lane, %groups, %ntest, %g, %q, %key, %slot, %inst, %iters, %pre, %pos;\n",
    );
    s.push_str("    .reg .b64 %mem, %out, %perm, %scratch, %base, %oaddr, %tmp;\n");
}

/// Which litmus thread and slot this GPU thread is; padding warps and CTAs exit.
fn prologue(s: &mut String, m: &Module) {
    let lay = &m.layout;
    let b = lay.blocks_per_group();
    s.push_str("    ld.param.u64 %mem, [p_mem];\n    ld.param.u64 %out, [p_out];\n    ld.param.u64 %perm, [p_perm];\n");
    s.push_str("    ld.param.u64 %scratch, [p_scratch];\n    ld.param.u32 %groups, [p_groups];\n    ld.param.u32 %iters, [p_stress_iters];\n");
    s.push_str("    ld.param.u32 %pre, [p_pre_stress];\n");
    cta_order(s, m);
    s.push_str("    mov.u32 %tidx, %tid.x;\n    shr.u32 %warp, %tidx, 5;\n    and.b32 %lane, %tidx, 31;\n");
    writeln!(s, "    mul.lo.u32 %ntest, %groups, {};\n    setp.ge.u32 %sp, %blk, %ntest;\n    @%sp bra STRESS;", b)
        .unwrap();
    writeln!(s, "    div.u32 %g, %blk, {};\n    rem.u32 %q, %blk, {};", b, b).unwrap();
    writeln!(s, "    mad.lo.u32 %key, %q, {}, %warp;\n    mad.lo.u32 %slot, %g, 32, %lane;", lay.warps).unwrap();
    for (key, t) in lay.thread_at.iter().enumerate() {
        if let Some(t) = t {
            writeln!(s, "    setp.eq.u32 %sp, %key, {};\n    @%sp bra T{}$start;", key, t).unwrap();
        }
    }
    s.push_str("    bra DONE;\n");
}

/// `%blk`, the block this CTA plays: real cluster `c = %ctaid.x / cluster_dim`
/// plays cluster `perm[order + c]` (`layout::cta_order`, D279), the CTA keeping
/// its rank in the cluster.
fn cta_order(s: &mut String, m: &Module) {
    let lay = &m.layout;
    let words = lay.threads() as u32 + lay.clusters;
    writeln!(
        s,
        "    mov.u32 %s32_1, %ctaid.x;\n    div.u32 %s32_2, %s32_1, {};\n    rem.u32 %s32_1, %s32_1, {};",
        lay.cluster_dim, lay.cluster_dim
    )
    .unwrap();
    writeln!(
        s,
        "    shl.b32 %s32_0, %groups, 5;\n    mul.lo.u32 %s32_0, %s32_0, {};\n    add.u32 %s32_0, %s32_0, %s32_2;",
        words
    )
    .unwrap();
    s.push_str("    mul.wide.u32 %tmp, %s32_0, 4;\n    add.s64 %tmp, %perm, %tmp;\n    ld.global.u32 %blk, [%tmp];\n");
    writeln!(s, "    mad.lo.u32 %blk, %blk, {}, %s32_1;", lay.cluster_dim).unwrap();
}

/// Instance lookup, addresses, register initialisation, code, epilogue.
#[allow(clippy::too_many_arguments)]
fn thread_body(
    lit: &Litmus,
    m: &Module,
    t: usize,
    (vals, labels, privates): (&BTreeSet<String>, &[String], &BTreeMap<String, Vec<u8>>),
    observed: &[(usize, String)],
    opts: &EmitOptions,
    needs: &mut Needs,
) -> Result<String, String> {
    let mut s = prelude(lit, m, t, vals, labels);
    pre_stress(&mut s, t);
    shared_copies(&mut s, m, t);
    // Private memory starts at its initial bytes, fresh for every instance.
    for (name, bytes) in privates {
        for (i, chunk) in bytes.chunks(8).enumerate() {
            let v = u64::from_le_bytes(chunk.try_into().expect("whole 8-byte chunks"));
            writeln!(
                s,
                "    mov.b64 %s64_0, {};
    st.local.u64 [{}+{}], %s64_0;",
                v,
                private_var(t, name),
                i * 8
            )
            .unwrap();
        }
    }
    code(&mut s, lit, m, t, labels, opts, needs)?;
    epilogue(&mut s, m, t, vals, observed);
    Ok(s)
}

/// `--pre-stress`: before its code, the thread read-modify-writes `%pre`
/// lines of the stress scratch buffer, as GPUHarbor's pre-stress does, so the
/// test starts while the memory system is busy (D279).
fn pre_stress(s: &mut String, t: usize) {
    writeln!(s, "    mov.u32 %s32_1, 0;\nT{t}$pre:\n    setp.ge.u32 %sp, %s32_1, %pre;\n    @%sp bra T{t}$pre_done;")
        .unwrap();
    writeln!(s, "    mad.lo.u32 %s32_2, %s32_1, 13, %inst;\n    and.b32 %s32_2, %s32_2, {};", STRESS_LINES - 1)
        .unwrap();
    s.push_str("    shl.b32 %s32_2, %s32_2, 7;\n    cvt.u64.u32 %tmp, %s32_2;\n    add.s64 %tmp, %scratch, %tmp;\n");
    s.push_str(
        "    ld.global.u32 %s32_3, [%tmp];\n    add.u32 %s32_3, %s32_3, 1;\n    st.global.u32 [%tmp], %s32_3;\n",
    );
    writeln!(s, "    add.u32 %s32_1, %s32_1, 1;\n    bra T{t}$pre;\nT{t}$pre_done:").unwrap();
}

/// The instance's `.shared` region (D277): its position in the group, the
/// copies' addresses; in a CTA holding copies, the lowest litmus thread of the
/// CTA writes the initial values and every litmus thread of it meets at a
/// barrier of its own before the test starts, so that no access reads a copy
/// before it holds its initial value (shared memory starts undefined).
fn shared_copies(s: &mut String, m: &Module, t: usize) {
    let plan = &m.shared;
    if !plan.used() {
        return;
    }
    let lay = &m.layout;
    let slots = "%s32_0";
    let k = lay.cluster_of[t];
    writeln!(
        s,
        "    shl.b32 {slots}, %groups, 5;\n    mul.lo.u32 %s32_1, {slots}, {};\n    add.u32 %s32_1, %s32_1, %inst;",
        lay.threads() as u32 + k
    )
    .unwrap();
    s.push_str("    mul.wide.u32 %tmp, %s32_1, 4;\n    add.s64 %tmp, %perm, %tmp;\n    ld.global.u32 %pos, [%tmp];\n");
    writeln!(
        s,
        "    mov.u64 %tmp, litmus_shm;\n    mul.wide.u32 %s64_0, %pos, {};\n    add.s64 %t{t}_shm, %tmp, %s64_0;",
        plan.region
    )
    .unwrap();
    for (name, (off, _)) in &plan.vars {
        writeln!(s, "    add.s64 {}, %t{t}_shm, {};", shared_reg(t, name), off).unwrap();
    }
    let block = lay.block_of[t];
    let (Some(id), true) = (plan.start_barrier, plan.hosts.contains(&block)) else { return };
    if (0..t).all(|u| lay.block_of[u] != block) {
        for (name, (off, bytes)) in &plan.vars {
            let v = plan.init.get(name).copied().unwrap_or(0);
            writeln!(s, "    mov.b64 %s64_0, {};\n    st.shared.u64 [%t{t}_shm+{}], %s64_0;", v, off).unwrap();
            for i in (8..*bytes).step_by(8) {
                writeln!(s, "    mov.b64 %s64_0, 0;\n    st.shared.u64 [%t{t}_shm+{}], %s64_0;", off + i).unwrap();
            }
        }
    }
    writeln!(s, "    bar.sync {}, {};", id, 32 * lay.cta_threads[block as usize]).unwrap();
}

/// Which instance this slot runs, its addresses, the initial registers.
fn prelude(lit: &Litmus, m: &Module, t: usize, vals: &BTreeSet<String>, labels: &[String]) -> String {
    let mut s = String::new();
    writeln!(s, "T{}$start:\n    // P{}: instance = perm[{} * slots + slot]", t, t, t).unwrap();
    writeln!(s, "    shl.b32 %s32_0, %groups, 5;\n    mad.lo.u32 %s32_0, %s32_0, {}, %slot;", t).unwrap();
    s.push_str("    mul.wide.u32 %tmp, %s32_0, 4;\n    add.s64 %tmp, %perm, %tmp;\n    ld.global.u32 %inst, [%tmp];\n");
    writeln!(s, "    mul.wide.u32 %base, %inst, {};\n    add.s64 %base, %mem, %base;", m.memory.region_bytes())
        .unwrap();
    writeln!(s, "    mul.wide.u32 %oaddr, %inst, {};\n    add.s64 %oaddr, %out, %oaddr;", m.out_slots * 8).unwrap();
    for (name, off) in &m.memory.offsets {
        writeln!(s, "    add.s64 {}, %base, {};", addr_reg(t, name), off).unwrap();
    }
    for v in vals {
        writeln!(s, "    mov.b64 {}, 0;", reg(t, v)).unwrap();
    }
    for item in &lit.init {
        match item {
            InitItem::Register { thread, reg: r, value, .. } if *thread == t => {
                writeln!(s, "    mov.b64 {}, {};", reg(t, r), value).unwrap()
            }
            InitItem::RegisterAddress { thread, reg: r, location, .. } if *thread == t => {
                writeln!(s, "    mov.b64 {}, {};", reg(t, r), addr_reg(t, location)).unwrap()
            }
            _ => {}
        }
    }
    writeln!(s, "    mov.u32 %t{}_maxv, 0;", t).unwrap();
    for i in 0..labels.len() {
        writeln!(s, "    mov.u32 %t{}_visits{}, 0;", t, i).unwrap();
    }
    s
}

/// The thread's instructions, each after its litmus text as a comment. A
/// strong vector access (its orders, `Choose` .. `Skip`, D173) is one PTX
/// vector instruction (D276).
fn code(
    s: &mut String,
    lit: &Litmus,
    m: &Module,
    t: usize,
    labels: &[String],
    opts: &EmitOptions,
    needs: &mut Needs,
) -> Result<(), String> {
    let block = m.layout.block_of[t] as usize;
    let arrivals = arrivals_of(lit, &m.layout, block);
    let mut ctx = Ctx {
        thread: t,
        cta_threads: m.layout.cta_threads[block],
        arrivals: &arrivals,
        spin_limit: opts.spin_limit,
        needs,
        labels,
        shared: &m.shared,
        red_peers: red_peers(lit, &m.layout, block),
        red_uses: BTreeMap::new(),
        warp: warp_of(&m.layout, t),
        stride: m.memory.stride,
    };
    let code = &lit.code[t];
    let mut pc = 0;
    while pc < code.len() {
        let ins = &code[pc];
        if let InstrKind::Branch { target, .. } = &ins.kind {
            if !labels.contains(target) {
                return Err(format!("P{}: `{}` jumps to a label the thread does not have", t, ins.text));
            }
        }
        writeln!(s, "    // {}", ins.text.replace('\n', " ")).unwrap();
        let (lines, next) = match &ins.kind {
            InstrKind::Choose(starts) => vector_orders(code, pc, starts).and_then(|(elems, end)| {
                let ins: Vec<&Instr> = elems.iter().map(|&i| &code[i]).collect();
                Ok((ctx.vector(&ins)?, end))
            }),
            _ => ctx.emit(ins).map(|l| (l, pc + 1)),
        }
        .map_err(|e| format!("P{}: `{}`: {}", t, ins.text, e))?;
        for l in lines {
            if l.ends_with(':') {
                writeln!(s, "{}", l).unwrap();
            } else {
                writeln!(s, "    {}", l).unwrap();
            }
        }
        pc = next;
    }
    Ok(())
}

/// The element accesses of the first order of a strong vector access whose
/// `Choose` is at `pc`, and the index past its last order.
fn vector_orders(code: &[Instr], pc: usize, starts: &[usize]) -> Result<(Vec<usize>, usize), String> {
    let first = pc + starts.first().ok_or("a vector access without element orders")?;
    let skip = (first..code.len())
        .find(|&i| matches!(code[i].kind, InstrKind::Skip(_)))
        .ok_or("a vector access whose order has no end")?;
    let InstrKind::Skip(past) = code[skip].kind else { unreachable!() };
    Ok(((first..skip).collect(), skip + past))
}

/// The warp of thread `t` in its CTA.
fn warp_of(lay: &super::layout::Layout, t: usize) -> u32 {
    let block = lay.block_of[t];
    (0..lay.warps).find(|&w| lay.thread_at[(block * lay.warps + w) as usize] == Some(t)).unwrap_or(0)
}

/// Per barrier id, the warps of CTA `block` whose threads use it in `bar.red`.
fn red_peers(lit: &Litmus, lay: &super::layout::Layout, block: usize) -> BTreeMap<i64, Vec<u32>> {
    let mut out: BTreeMap<i64, BTreeSet<u32>> = BTreeMap::new();
    for (t, code) in lit.code.iter().enumerate() {
        if lay.block_of[t] as usize != block {
            continue;
        }
        for i in code {
            if let InstrKind::Barrier { op: BarrierOp::Red(_), id: Operand::Imm(id), .. } = &i.kind {
                out.entry(*id).or_default().insert(warp_of(lay, t));
            }
        }
    }
    out.into_iter().map(|(id, w)| (id, w.into_iter().collect())).collect()
}

/// Observed registers, then the status word (1 + most label visits).
fn epilogue(s: &mut String, m: &Module, t: usize, vals: &BTreeSet<String>, observed: &[(usize, String)]) {
    writeln!(s, "T{}$end:", t).unwrap();
    for (j, (th, r)) in observed.iter().enumerate() {
        if *th != t {
            continue;
        }
        if vals.contains(r) {
            writeln!(s, "    st.global.u64 [%oaddr+{}], {};", j * 8, reg(t, r)).unwrap();
        } else {
            // An observed predicate: 1 when true.
            writeln!(s, "    selp.u64 %tmp, 1, 0, {};\n    st.global.u64 [%oaddr+{}], %tmp;", reg(t, r), j * 8)
                .unwrap();
        }
    }
    let status = (m.status_slot + t) * 8;
    writeln!(s, "    cvt.u64.u32 %tmp, %t{}_maxv;\n    add.s64 %tmp, %tmp, 1;\n    st.global.u64 [%oaddr+{}], %tmp;\n    bra DONE;", t, status).unwrap();
    writeln!(
        s,
        "T{}$abandon:\n    mov.b64 %tmp, {};\n    st.global.u64 [%oaddr+{}], %tmp;\n    bra DONE;",
        t,
        u32::MAX,
        status
    )
    .unwrap();
}

/// Stress CTAs: read-modify-write a 128 KiB scratch buffer `p_stress_iters`
/// times, line by line, while the test runs (the loaded value feeds the store,
/// so nothing is optimised away).
fn stress(s: &mut String) {
    s.push_str(
        "STRESS:\n    mov.u32 %s32_1, 0;\nSTRESS_LOOP:\n    setp.ge.u32 %sp, %s32_1, %iters;\n    @%sp bra DONE;\n",
    );
    writeln!(s, "    mad.lo.u32 %s32_2, %s32_1, 7, %blk;\n    and.b32 %s32_2, %s32_2, {};", STRESS_LINES - 1).unwrap();
    s.push_str("    shl.b32 %s32_2, %s32_2, 7;\n    shl.b32 %s32_0, %lane, 2;\n    add.u32 %s32_2, %s32_2, %s32_0;\n");
    s.push_str("    cvt.u64.u32 %tmp, %s32_2;\n    add.s64 %tmp, %scratch, %tmp;\n    ld.global.u32 %s32_3, [%tmp];\n");
    s.push_str("    add.u32 %s32_3, %s32_3, %s32_1;\n    st.global.u32 [%tmp], %s32_3;\n    add.u32 %s32_1, %s32_1, 1;\n    bra STRESS_LOOP;\n");
}
