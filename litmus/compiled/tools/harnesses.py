#!/usr/bin/env python3
"""Writes one harness per kernel, scope variant and compilation of ptx/ (not run by CI).
Each entry: (name, module, kernel, threads, args, condition, expected, why)."""
import os
MP = "exists (out[2] == 1 /\\ out[3] == 0)"
TWO_CTAS = ["P0@cta 0,gpu 0", "P1@cta 1,gpu 0"]
ONE_CTA = ["P0@cta 0,gpu 0", "P1@cta 0,gpu 0"]
FOUR = ["P0@cta 0,gpu 0", "P1@cta 1,gpu 0", "P2@cta 2,gpu 0", "P3@cta 3,gpu 0"]
K = [
 ("MP-sys", "MP", "_Z6mp_sysPiS_S_", TWO_CTAS, "data, flag, out", MP, "No", "release/acquire at thread_scope_system across CTAs: forbidden"),
 ("MP-gpu", "MP", "_Z6mp_gpuPiS_S_", TWO_CTAS, "data, flag, out", MP, "No", "release/acquire at thread_scope_device across CTAs: forbidden"),
 ("MP-cta-2cta", "MP", "_Z6mp_ctaPiS_S_", TWO_CTAS, "data, flag, out", MP, "Ok", "thread_scope_block across CTAs: the release and acquire do not synchronize, allowed"),
 ("MP-cta-1cta", "MP", "_Z6mp_ctaPiS_S_", ["P0@cta 0,gpu 0", "P1@cta 0,gpu 0"], "data, flag, out", MP, "Ok", "one CTA, but the kernel dispatches on blockIdx.x: both threads run block 0's writer side, so out stays 0 and the condition can only hold if... see note"),
 ("MP-fences", "MP", "_Z9mp_fencesPiS_S_", TWO_CTAS, "data, flag, out", MP, "No", "relaxed accesses with release and acquire fences (device scope): fence-fence synchronization, forbidden"),
 ("MP-relaxed", "MP", "_Z10mp_relaxedPiS_S_", TWO_CTAS, "data, flag, out", MP, "Ok", "all relaxed, no fences: allowed"),
 ("MP-calls", "CALL", "_Z8mp_callsPiS_S_", TWO_CTAS, "data, flag, out", MP, "No", "release/acquire inside non-inlined device functions (PTX call): forbidden"),
 ("SB-seq_cst", "SB", "_Z10sb_seq_cstPiS_S_", TWO_CTAS, "x, y, out", "exists (out[0] == 0 /\\ out[1] == 0)", "No", "seq_cst stores and loads: forbidden"),
 ("SB-fences", "SB", "_Z9sb_fencesPiS_S_", TWO_CTAS, "x, y, out", "exists (out[0] == 0 /\\ out[1] == 0)", "No", "relaxed accesses separated by seq_cst fences: forbidden"),
 ("LB-relaxed", "MISC", "_Z10lb_relaxedPiS_S_", TWO_CTAS, "x, y, out", "exists (out[0] == 1 /\\ out[1] == 1)", "Ok", "relaxed load buffering without dependencies: allowed"),
 ("LB-data", "MISC", "_Z7lb_dataPiS_S_", TWO_CTAS, "x, y, out", "exists (out[0] == 1 /\\ out[1] == 1)", "No", "each store writes the value loaded: 1 would come out of thin air, forbidden"),
 ("IRIW-acq-sys", "MISC", "_Z8iriw_acqPiS_S_", FOUR, "x, y, out", "exists (out[0] == 1 /\\ out[1] == 0 /\\ out[2] == 1 /\\ out[3] == 0)", "Ok", "seq_cst writers, acquire readers: C++ allows the readers to disagree"),
 ("IRIW-sc-sys", "MISC", "_Z7iriw_scPiS_S_", FOUR, "x, y, out", "exists (out[0] == 1 /\\ out[1] == 0 /\\ out[2] == 1 /\\ out[3] == 0)", "No", "seq_cst writers and readers: one total order, forbidden"),
 ("CoRR", "MISC", "_Z4corrPiS_", TWO_CTAS, "x, out", "exists (out[0] == 1 /\\ out[1] == 0)", "No", "read-read coherence of relaxed atomics: forbidden"),
 ("MP-shared", "MISC", "_Z9mp_sharedPi", ["P0@cta 0,gpu 0,tid 0", "P1@cta 0,gpu 0,tid 1"], "out", "exists (out[0] != 1)", "No", "__shared__ write, __syncthreads, read in the same CTA: must see 1"),
 ("LOCK-gpu", "LOCK", "_Z8lock_gpuPiS_", TWO_CTAS, "lock, count", "exists (count != 2)", "No", "acquire CAS lock, release unlock: the two increments are mutually excluded (runs cut by the unroll bound are dropped)"),
 ("FLAG-wait", "LOCK", "_Z9flag_waitPiS_S_", TWO_CTAS, "data, flag, out", "exists (out[1] != 42)", "No", "spin on an acquire load until the release store: data is visible after the loop"),
 ("MP-volatile-fence", "LEGACY", "_Z17mp_volatile_fencePViS0_Pi", TWO_CTAS, "data, flag, out", MP, "No", "volatile accesses with __threadfence: forbidden"),
 ("MP-volatile", "LEGACY", "_Z11mp_volatilePViS0_Pi", TWO_CTAS, "data, flag, out", MP, "Ok", "volatile accesses without fences: allowed"),
 ("LOCK-legacy", "LEGACY", "_Z11lock_legacyPiPVi", TWO_CTAS, "lock, count", "exists (count != 2)", "No", "atomicCAS lock, __threadfence around a volatile critical section, atomicExch unlock: mutually excluded"),
 ("ADD-block-1cta", "LEGACY", "_Z9add_blockPiS_", ["P0@cta 0,gpu 0,tid 0", "P1@cta 0,gpu 0,tid 1"], "x, out", "exists (out[0] == out[1])", "No", "atomicAdd_block in one CTA: the adds are atomic, they return 0 and 1"),
 ("ADD-block-2cta", "LEGACY", "_Z9add_blockPiS_", ["P0@cta 0,gpu 0,tid 0", "P1@cta 1,gpu 0,tid 1"], "x, out", "exists (out[0] == out[1])", "Ok", "atomicAdd_block across CTAs: block scope does not cover the other CTA, both may return 0"),
]
K = [k for k in K if k[0] != "MP-cta-1cta"]
COMPILES = [("sm_75", ""), ("sm_90", ""), ("sm_75", ".rdc"), ("sm_90", ".rdc")]
arrays = {"out": "u32 out[4];"}
rows = ["test,expected,note"] if False else ["test,expected"]
for name, mod, kern, threads, args, cond, exp, why in K:
    locs = [a.strip() for a in args.split(",")]
    init = " ".join(("u32 out[4];" if l == "out" else f"{l} = 0;") for l in locs)
    for arch, rdc in COMPILES:
        test = f"{name}.{arch}{rdc}"
        cells = [f"call {kern}, ({args})"] * len(threads)
        w = max(len(c) for c in cells + threads) + 1
        head = " | ".join(t.ljust(w) for t in threads) + " ;"
        row = " | ".join(c.ljust(w) for c in cells) + " ;"
        flags = "-rdc=true " if rdc else ""
        text = f'PTX {test}\n"{kern} of src/{mod}.cu, nvcc -ptx -O3 {flags}-arch={arch}: {why}"\n{{ {init} }}\nptx "ptx/{mod}.{arch}{rdc}.ptx";\n {head}\n {row}\n{cond}\n'
        open(f"{test}.litmus", "w").write(text)
        rows.append(f"{test}.litmus,{exp}")
open("expected.csv", "w").write("\n".join(rows) + "\n")
