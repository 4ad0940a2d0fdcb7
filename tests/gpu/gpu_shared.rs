//! The forms issue 46 added to the emitter, checked without a GPU: strong
//! vector accesses as PTX vector instructions (D276), per-instance `.shared`
//! copies and `mbarrier` (D277), `bar.red` combined per instance (D278), the
//! CTA order and positions in the `perm` buffer (D279), and `run --dry-run`
//! (D280).

use ptx_litmus::gpu::layout::{cta_order, layout, permutations, Rng};
use ptx_litmus::gpu::{emit_source, emit_source_at, EmitOptions, Module};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn module(rel: &str) -> Module {
    let f = root().join(rel);
    let src = std::fs::read_to_string(&f).unwrap();
    emit_source_at(&src, f.parent().unwrap(), &EmitOptions::default())
        .unwrap()
        .unwrap_or_else(|why| panic!("{}: {}", rel, why))
}

fn skip_reason(src: &str) -> String {
    emit_source(src, &EmitOptions::default()).unwrap().expect_err("the test should be skipped")
}

/// The instruction lines of thread `t`'s code, from the end of its pre-stress
/// loop (`--pre-stress`) to its end label.
fn thread_lines(m: &Module, t: usize) -> Vec<String> {
    let start = m.ptx.find(&format!("T{}$pre_done:", t)).unwrap();
    let end = m.ptx.find(&format!("T{}$end:", t)).unwrap();
    m.ptx[start..end].lines().map(|l| l.trim().to_string()).filter(|l| !l.starts_with("//")).collect()
}

/// 8.2.4 leaves the order of a vector's elements unspecified; the kernel leaves
/// it to the device by issuing the one vector instruction the test wrote, with
/// its sem and scope, and no scalar access of its elements.
#[test]
fn strong_vectors_are_one_vector_instruction() {
    let m = module("litmus/regressions/vector-acquire-elements-unordered.litmus");
    let p1 = thread_lines(&m, 1);
    let loads: Vec<&String> = p1.iter().filter(|l| l.starts_with("ld.")).collect();
    assert_eq!(loads.len(), 1, "{:?}", p1);
    assert!(loads[0].starts_with("ld.acquire.gpu.v2.u32 {%t1_r0, %t1_r1}, [%t1_addr_v]"), "{}", loads[0]);
    let m = module("litmus/regressions/vector-relaxed-v4-any-order.litmus");
    let all: Vec<String> = (0..m.layout.threads()).flat_map(|t| thread_lines(&m, t)).collect();
    assert!(all.iter().any(|l| l.contains(".v4.")), "{:?}", all);
    // A vector wider than a variable's stride would be misaligned: skipped, saying why.
    let src = std::fs::read_to_string(root().join("litmus/regressions/vector-relaxed-v4-any-order.litmus")).unwrap();
    let narrow = EmitOptions { loc_stride: 8, ..Default::default() };
    if let Ok(Err(why)) = emit_source(&src, &narrow) {
        assert!(why.contains("not aligned to its size"), "{}", why);
    }
}

/// MP+mbarrier: the object `M` is a per-instance `.shared` copy; P0 (the lowest
/// thread of the CTA) writes its initial value, both threads meet at a barrier
/// number the test does not use (15, for the CTA's 2 x 32 threads) before the
/// test, and each mbarrier operation keeps its qualifiers.
#[test]
fn mbarrier_objects_are_per_instance_shared_copies() {
    let m = module("litmus/sync/MP+mbarrier.litmus");
    assert!(m.ptx.contains(".shared .align 16 .b8 litmus_shm[512];"), "{}", m.ptx);
    assert_eq!((m.needs.ptx, m.needs.sm), (80, 80), "{:?}", m.needs);
    let (p0, p1) = (thread_lines(&m, 0), thread_lines(&m, 1));
    for lines in [&p0, &p1] {
        assert!(lines.iter().any(|l| l == "bar.sync 15, 64;"), "{:?}", lines);
    }
    assert!(p0.iter().any(|l| l.starts_with("st.shared.u64 [%t0_shm+0]")), "P0 writes M's initial word: {:?}", p0);
    assert!(!p1.iter().any(|l| l.starts_with("st.shared")), "only one thread writes the copies: {:?}", p1);
    for want in
        ["mbarrier.init.shared.b64 [%t0_saddr_M], 1;", "mbarrier.arrive.release.cta.shared.b64 %t0_rd1, [%t0_saddr_M];"]
    {
        assert!(p0.contains(&want.to_string()), "{} in {:?}", want, p0);
    }
    let wait = "mbarrier.test_wait.parity.acquire.cta.shared.b64 %t1_p1, [%t1_saddr_M], 0;";
    assert!(p1.contains(&wait.to_string()), "{:?}", p1);
    // The state token and its pending count: a 64-bit token, a 32-bit count widened.
    let m = module("litmus/sync/mbarrier-token.litmus");
    let p0 = thread_lines(&m, 0);
    assert!(p0.contains(&"mbarrier.pending_count.b64 %s32_3, %t0_rd1;".to_string()), "{:?}", p0);
    assert!(p0.contains(&"mbarrier.arrive_drop.shared.b64 %t0_rd2, [%t0_saddr_N];".to_string()), "{:?}", p0);
}

/// What per-instance copies cannot show as the model does is skipped, each with its reason.
#[test]
fn unfaithful_shared_tests_are_skipped_with_their_reason() {
    let token = "PTX t\n{ M = 0; }\n P0@cta 0,gpu 0 ;\n mbarrier.init.shared.b64 [M], 1 ;\n mbarrier.arrive.shared.b64 %rd1, [M] ;\nexists (P0:%rd1 == 0)\n";
    assert!(skip_reason(token).contains("state token"), "{}", skip_reason(token));
    let uninit = "PTX t\n{ M = 0; }\n P0@cta 0,gpu 0 ;\n mbarrier.arrive.shared.b64 %rd1, [M] ;\n mbarrier.test_wait.parity.shared.b64 %p1, [M], 0 ;\nexists (P0:%p1 == 1)\n";
    assert!(skip_reason(uninit).contains("never initialised"), "{}", skip_reason(uninit));
    let observed = "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.shared.u32 [x], 1 ;\nlocations [x;]\nexists (x == 1)\n";
    let why = skip_reason(observed);
    assert!(why.contains("not read back") || why.contains("no memory"), "{}", why);
    let two_ctas = "PTX t\n{ x = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n st.shared::cluster.u32 [x], 1 | ld.shared::cluster.u32 %r1, [x] ;\nexists (P1:%r1 == 1)\n";
    if let Ok(Err(why)) = emit_source(two_ctas, &EmitOptions::default()) {
        assert!(why.contains("distributed shared memory"), "{}", why);
    }
}

/// bar.red.popc-counts-predicates: each thread stores its predicate in its own
/// word of the instance's region, executes the real `bar.red.popc` over the
/// CTA's 96 threads, and adds the words of all three threads: the count of one
/// instance's true predicates (9.7.13.1), which the ISA says is 2 for every thread.
#[test]
fn bar_red_combines_the_predicates_of_one_instance() {
    let m = module("litmus/sync/bar.red.popc-counts-predicates.litmus");
    let mut stored = BTreeSet::new();
    let mut loaded: Vec<BTreeSet<String>> = Vec::new();
    for t in 0..3 {
        let lines = thread_lines(&m, t);
        let word = |l: &String, op: &str| {
            l.strip_prefix(op).map(|r| r.split(']').next().unwrap().replace(&format!("%t{}_", t), ""))
        };
        let st: Vec<String> = lines.iter().filter_map(|l| word(l, "st.shared.u32 [")).collect();
        assert_eq!(st.len(), 1, "{:?}", lines);
        assert!(stored.insert(st[0].clone()), "P{} shares a word: {:?}", t, st);
        loaded.push(lines.iter().filter_map(|l| word(l, "ld.shared.u32 %s32_2, [")).collect());
        assert!(lines.contains(&format!("bar.red.popc.u32 %s32_1, 0, 96, %t{}_p1;", t)), "{:?}", lines);
        assert_eq!(lines.iter().filter(|l| l.starts_with("add.u32 %s32_3, %s32_3, %s32_2;")).count(), 3);
        assert!(lines.contains(&format!("cvt.u64.u32 %t{}_r1, %s32_3;", t)), "{:?}", lines);
    }
    for l in &loaded {
        assert_eq!(l, &stored, "every thread reads the three words the three threads wrote");
    }
    // Three reductions on two barriers (and, or on 0; or on 1): every use of a
    // barrier by every thread has a word of its own, so no reduction reads a
    // word that another one wrote.
    let m = module("litmus/sync/bar.red.and-or-negated.litmus");
    let mut words = BTreeSet::new();
    for t in 0..2 {
        for l in thread_lines(&m, t).iter().filter(|l| l.starts_with("st.shared.u32 [")) {
            assert!(words.insert(l.split(']').next().unwrap().replace(&format!("%t{}_", t), "")), "{} twice", l);
        }
    }
    assert_eq!(words.len(), 6, "{:?}", words);
    // and/or: the combined word becomes the destination predicate.
    let m = module("litmus/sync/MP+bar.red.and.litmus");
    let p1 = thread_lines(&m, 1);
    assert!(p1.contains(&"bar.red.and.pred %sp, 0, 64, %t1_p1;".to_string()), "{:?}", p1);
    assert!(p1.contains(&"and.b32 %s32_3, %s32_3, %s32_2;".to_string()), "{:?}", p1);
    assert!(p1.contains(&"setp.ne.u32 %t1_p2, %s32_3, 0;".to_string()), "{:?}", p1);
}

/// The positions in the `perm` buffer are, in each group, each of 0..32 once
/// (one `.shared` region per instance); the CTA order is a permutation.
#[test]
fn positions_and_cta_order_are_permutations() {
    let src = std::fs::read_to_string(root().join("litmus/sync/MP+mbarrier.litmus")).unwrap();
    let lit = ptx_litmus::parse::parse_litmus(&src).unwrap();
    let l = layout(&lit).unwrap();
    let groups = 4;
    let slots = groups * 32;
    let perm = permutations(&l, groups, &mut Rng(3));
    assert_eq!(perm.len(), (2 + 1) * slots);
    let pos = &perm[2 * slots..];
    for t in 0..2 {
        for g in 0..groups {
            let mut p: Vec<u32> =
                perm[t * slots + g * 32..t * slots + (g + 1) * 32].iter().map(|&i| pos[i as usize]).collect();
            p.sort();
            assert_eq!(p, (0..32).collect::<Vec<u32>>(), "P{} group {}", t, g);
        }
    }
    let mut order = cta_order(40, true, &mut Rng(5));
    assert_ne!(order, (0..40).collect::<Vec<u32>>(), "shuffled");
    order.sort();
    assert_eq!(order, (0..40).collect::<Vec<u32>>());
    assert_eq!(cta_order(5, false, &mut Rng(5)), vec![0, 1, 2, 3, 4]);
}

/// `run --dry-run` needs no GPU and no driver: it prints each test's launches
/// and exits 0. MP+relaxed at 100k instances, 64k per launch: 2000 groups of
/// 32 (2 CTAs each, its threads are in two CTAs), so 2 launches of 4000 + 8
/// stress CTAs, 128,000 instances.
#[test]
fn dry_run_prints_the_launches_without_a_gpu() {
    let dir = std::env::temp_dir().join(format!("ptxl-dry-{}", std::process::id()));
    let file = root().join("litmus/classic/MP+relaxed.litmus");
    let run = |json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"));
        cmd.args(["run", "--dry-run", "--iterations", "100k", "--stress", "8", "--seed", "9", "--emit"]).arg(&dir);
        if json {
            cmd.arg("--json");
        }
        cmd.arg(&file).output().unwrap()
    };
    let out = run(false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}{}", text, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Would run MP+relaxed"), "{}", text);
    assert!(text.contains("2 launch(es) of 4008 CTAs (2000 groups x 2 + 8 stress) of 32 threads"), "{}", text);
    assert!(text.contains("128,000 instances (--iterations 100,000), seed 9"), "{}", text);
    let out = run(true);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "dry-run");
    assert_eq!(v["launch"]["launches"], 2);
    assert_eq!(v["launch"]["grid"], 4008);
    let ptx = std::fs::read_to_string(v["ptx"].as_str().unwrap()).unwrap();
    assert_eq!(v["digest"].as_str().unwrap(), ptx_litmus::gpu::launch::digest(&ptx));
    std::fs::remove_dir_all(&dir).unwrap();
}
