//! The host side of `ptx-litmus run` without a GPU: placement, permutations,
//! the tally of output records, and the command line (`--emit`; exit 3 when
//! no GPU can be used).

use ptx_litmus::check::{check_source, CheckOptions};
use ptx_litmus::gpu::layout::{layout, permutations, Rng};
use ptx_litmus::gpu::run::{memory_image, tally, Tally};
use ptx_litmus::gpu::{emit_source, EmitOptions, Source};
use std::process::Command;

fn read(rel: &str) -> String {
    std::fs::read_to_string(format!("{}/{}", env!("CARGO_MANIFEST_DIR"), rel)).unwrap()
}

#[test]
fn clusters_and_ctas_are_placed_as_the_header_says() {
    let lit = ptx_litmus::parse::parse_litmus(&read("litmus/classic/MP+barrier.cluster.litmus")).unwrap();
    let l = layout(&lit).unwrap();
    assert_eq!((l.cluster_dim, l.clusters, l.warps), (2, 1, 1));
    assert_ne!(l.block_of[0], l.block_of[1], "different CTAs");
    let lit = ptx_litmus::parse::parse_litmus(&read("litmus/classic/SB+fence.sc.cta-same-cta.litmus")).unwrap();
    let l = layout(&lit).unwrap();
    assert_eq!((l.cluster_dim, l.clusters, l.warps), (1, 1, 2), "one CTA, one warp per thread");
    assert_eq!(l.block_of[0], l.block_of[1]);
    let lit = ptx_litmus::parse::parse_litmus(&read("litmus/classic/SB+fence.sc.cluster-diff-cluster.litmus")).unwrap();
    let l = layout(&lit).unwrap();
    assert_eq!(l.clusters, 2);
    assert_ne!(l.cluster_of[0], l.cluster_of[1]);
}

#[test]
fn permutations_cover_every_instance_and_keep_ctas_together() {
    let lit = ptx_litmus::parse::parse_litmus(&read("litmus/classic/SB+fence.sc.cta-same-cta.litmus")).unwrap();
    let l = layout(&lit).unwrap();
    let groups = 8;
    let perm = permutations(&l, groups, &mut Rng(7));
    let slots = groups * 32;
    for t in 0..2 {
        let mut seen: Vec<u32> = perm[t * slots..(t + 1) * slots].to_vec();
        seen.sort();
        assert_eq!(seen, (0..slots as u32).collect::<Vec<_>>(), "thread {} runs each instance once", t);
    }
    // Both threads share a CTA: each instance's two slots are in the same group.
    for i in 0..slots as u32 {
        let g = |t: usize| perm[t * slots..(t + 1) * slots].iter().position(|&x| x == i).unwrap() / 32;
        assert_eq!(g(0), g(1), "instance {}", i);
    }
    // The pairing is random: not every instance keeps its lane.
    assert!((0..slots).any(|s| perm[s] != perm[slots + s]));
}

#[test]
fn tally_judges_states_and_sets_aside_unfinished_and_abandoned_instances() {
    let src = read("litmus/classic/SB+fence.sc.cta-diff-cta.litmus");
    let m = emit_source(&src, &EmitOptions::default()).unwrap().unwrap();
    let res = check_source(&src, &CheckOptions::default()).unwrap();
    assert_eq!(m.sources, vec![Source::Out(0), Source::Out(1)]);
    let rec = |a: u64, b: u64, s0: u64, s1: u64| vec![a, b, s0, s1];
    let out: Vec<u64> = [
        rec(0, 0, 1, 1),
        rec(1, 0, 1, 1),
        rec(0, 0, 1, 1),
        rec(0, 0, 0, 1),
        rec(0, 0, 1, u32::MAX as u64),
        rec(0, 1, 1, 4),
    ]
    .concat();
    let mem = memory_image(&m, 6);
    let mut t = Tally::default();
    tally(&m, &res, 2, &out, &mem, &mut t);
    assert_eq!(t.instances, 6);
    assert_eq!(t.states.get(&vec![0, 0]), Some(&2));
    assert_eq!(t.states.get(&vec![1, 0]), Some(&1));
    assert_eq!((t.unfinished, t.abandoned, t.beyond_unroll), (1, 1, 1));
}

#[test]
fn memory_image_holds_each_instances_initial_values() {
    let src = "PTX init\n{ x = 5; y = 7; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 5 /\\ y == 7)\n";
    let m = emit_source(src, &EmitOptions { loc_stride: 64, ..Default::default() }).unwrap().unwrap();
    let img = memory_image(&m, 3);
    assert_eq!(img.len(), 3 * 128);
    for i in 0..3 {
        assert_eq!(img[i * 128], 5);
        assert_eq!(img[i * 128 + 64], 7);
    }
    assert_eq!(m.sources[1], Source::Mem { offset: 64, size: 4 });
}

#[test]
fn emit_writes_kernels_without_a_gpu() {
    let dir = std::env::temp_dir().join(format!("ptxl-emit-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(["run", "--emit"])
        .arg(&dir)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/litmus/classic/MP+relaxed.litmus"))
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/litmus/classic/MP+rel+acq-diff-gpu.litmus"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text);
    assert!(text.contains("Emitted MP+relaxed"), "{}", text);
    assert!(text.contains("Skipped MP+rel+acq-diff-gpu: threads on 2 GPUs"), "{}", text);
    assert!(std::fs::read_to_string(dir.join("MP+relaxed.ptx")).unwrap().contains(".entry litmus_test("));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without a CUDA driver `run` says so and exits 3; with one (a GPU machine)
/// this small run must end without a forbidden state.
#[test]
fn run_without_a_gpu_exits_3() {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(["run", "--iterations", "4k"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/litmus/classic/MP+rel+acq.litmus"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("cannot run on a GPU") {
        assert_eq!(out.status.code(), Some(3), "{}", err);
    } else {
        assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), err);
    }
}

/// A run that runs nothing is no pass: every test skipped (here: a test on two
/// GPUs) says so and exits 3, with and without `--emit` (D121).
#[test]
fn a_run_that_skips_every_test_exits_3() {
    let two_gpus = concat!(env!("CARGO_MANIFEST_DIR"), "/litmus/classic/MP+rel+acq-diff-gpu.litmus");
    let dir = std::env::temp_dir().join(format!("ptxl-none-{}", std::process::id()));
    for emit in [true, false] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"));
        cmd.args(["run", "--iterations", "1k"]);
        if emit {
            cmd.arg("--emit").arg(&dir);
        }
        let out = cmd.arg(two_gpus).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "emit {}: {}", emit, err);
        let what = if emit { "no kernel was emitted" } else { "no test ran" };
        assert!(err.contains(&format!("error: {}: 1 test was skipped", what)), "{}", err);
    }
    assert!(!dir.exists(), "nothing was written");
}

/// A harness over nvcc output finds its module next to itself, wherever `run`
/// starts, and its kernel reads the harness array back.
#[test]
fn compiled_harnesses_emit_from_any_directory() {
    let dir = std::env::temp_dir().join(format!("ptxl-compiled-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .current_dir(std::env::temp_dir())
        .args(["run", "--json", "--emit"])
        .arg(&dir)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/litmus/compiled/MP-gpu.sm_90.litmus"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}{}", text, String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    // ld.acquire.gpu / st.release.gpu / ld.global: PTX 6.0 and sm_70 suffice, whatever nvcc's own .target was.
    assert_eq!(
        (v["status"].as_str(), v["version"].as_str(), v["target"].as_str()),
        (Some("emitted"), Some("6.0"), Some("sm_70"))
    );
    let ptx = std::fs::read_to_string(dir.join("MP-gpu.sm_90.ptx")).unwrap();
    assert!(ptx.contains("ld.acquire.gpu.u32") && ptx.contains("st.release.gpu.u32"), "{}", ptx);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Array elements start at their declared values, each written with its element size.
#[test]
fn memory_image_holds_array_elements() {
    let src =
        "PTX arr\n{ x = 1; u32 out[4]; out[1] = 7; out[3] = -1; }\n P0@cta 0,gpu 0 ;\n ld.global.u32 %r1, [out+4] ;\nexists (P0:%r1 == 7 /\\ out[3] == 0xffffffff /\\ x == 1)\n";
    let m = emit_source(src, &EmitOptions::default()).unwrap().unwrap();
    let (out, room) = m.memory.locate("out[0]").unwrap();
    assert_eq!(room, 128, "16 bytes rounded up to a stride");
    let img = memory_image(&m, 2);
    let region = m.memory.region_bytes() as usize;
    assert_eq!(img.len(), 2 * region);
    let at = |i: usize, o: u64| {
        u32::from_le_bytes(img[i * region + o as usize..i * region + o as usize + 4].try_into().unwrap())
    };
    for i in 0..2 {
        assert_eq!((at(i, out), at(i, out + 4), at(i, out + 8), at(i, out + 12)), (0, 7, 0, u32::MAX));
    }
    assert!(m.sources.contains(&Source::Mem { offset: out + 12, size: 4 }));
}

/// `run` on a test only the symbolic encoding decides (MP+rel+acq+noise: its
/// P2 has 2^13 paths, past the path builder's 4096): the test is decided as
/// `check` decides it, its kernel emitted, and observed states judged. The
/// release on y synchronizes with the acquire that reads its 1 (8.8, 8.9.4),
/// so the store of x precedes the read of x in causality order and the read
/// cannot return the initial 0 (8.10.6): `P1:r0=1; P1:r1=0` is FORBIDDEN
/// (exit 1 when observed), the other three pairs of values are allowed.
#[test]
fn run_judges_the_states_of_a_test_past_the_path_limit() {
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Cmd {
        #[command(flatten)]
        run: ptx_litmus::gpu::run::RunArgs,
    }
    let rel = "litmus/symbolic/MP+rel+acq+noise.litmus";
    let a = Cmd::try_parse_from(["run", rel]).unwrap().run;
    let check = ptx_litmus::gpu::run::check_options(&a).unwrap();
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/symbolic");
    let (res, m) = ptx_litmus::gpu::run::prepare(&read(rel), &base, &check, &EmitOptions::default()).unwrap();
    let m = m.expect("the kernel is emitted");
    assert!(res.program.projected, "decided by the symbolic encoding");
    let names: Vec<String> = res.program.observables.iter().map(|o| o.to_string()).collect();
    assert_eq!(names, ["P1:r0", "P1:r1"]);
    let finished = |r0: u64, r1: u64| {
        let mut rec = vec![1u64; m.out_slots];
        for (s, v) in m.sources.iter().zip([r0, r1]) {
            let Source::Out(j) = s else { panic!("a register is an output slot: {:?}", s) };
            rec[*j] = v;
        }
        rec
    };
    let judge = |states: &[(u64, u64)]| {
        let out: Vec<u64> = states.iter().flat_map(|&(r0, r1)| finished(r0, r1)).collect();
        let mem = memory_image(&m, states.len());
        let mut t = Tally::default();
        tally(&m, &res, a.unroll, &out, &mem, &mut t);
        assert_eq!(t.states.values().sum::<u64>(), states.len() as u64);
        ptx_litmus::gpu::report::print(true, "no device (test)", rel, &m, &res, &t, &a)
    };
    assert_eq!(judge(&[(0, 0), (0, 1), (1, 1)]), ptx_litmus::error::EXIT_OK);
    assert_eq!(judge(&[(1, 1), (1, 0)]), ptx_litmus::error::EXIT_MISMATCH);
}
