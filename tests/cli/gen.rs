//! `ptx-litmus gen`: generated tests parse and check, verdicts derived by hand
//! from the PTX model (ISA 9.2, chapter 8), deterministic names, the CLI.

use ptx_litmus::check::{check_source, CheckOptions};
use ptx_litmus::gen::{self, cycle_test, shape_test, FenceOpt, GenArgs, Placement, ProxyOpt, Scope, SemOpt, Variant};
use ptx_litmus::outcome::Verdict;
use std::path::PathBuf;
use std::process::Command;

#[allow(clippy::too_many_arguments)]
fn args(
    shapes: &[&str],
    cycles: &[&str],
    sem: &str,
    fence: &str,
    scope: &str,
    placement: &str,
    proxy: &str,
    out: PathBuf,
) -> GenArgs {
    let list = |s: &str| s.split(',').map(str::to_string).collect::<Vec<_>>();
    GenArgs {
        shapes: shapes.iter().map(|s| s.to_string()).collect(),
        cycles: cycles.iter().map(|s| s.to_string()).collect(),
        sem: list(sem),
        fence: list(fence),
        scope: list(scope),
        placement: list(placement),
        proxy: list(proxy),
        out,
        expect_csv: None,
        quiet: true,
    }
}

fn verdict(t: &gen::GenTest) -> Verdict {
    match check_source(&t.source, &CheckOptions::default()) {
        Ok(r) => r.summary.verdict,
        Err(e) => panic!("{} does not check: {}\n{}", t.name, e.message, t.source),
    }
}

fn v(sem: SemOpt, fence: FenceOpt, scope: Scope, placement: Placement) -> Variant {
    Variant { sem, fence, scope, placement, proxy: ProxyOpt::Generic }
}

fn expect(shape: &str, var: Variant, want: Verdict) {
    let t = shape_test(shape, &var).unwrap();
    assert_eq!(verdict(&t), want, "{}\n{}", t.name, t.source);
}

#[test]
fn every_shape_and_option_parses_and_checks() {
    // All named shapes x all sems x two fences x two scopes x two placements x all
    // proxies, plus the families with N = 3: every test parses and checks.
    let a = args(
        &["all", "MP-chain:3", "IRIW:3", "RA-ring:3", "LB-ring:3", "SB-ring:3"],
        &["Rfe Acq.gpu PodRR Fre Rel.gpu PodWW", "PodWR Fre Fence.sc.gpudWR Fre", "Rfe PosRR Fre"],
        "all",
        "none,sc,rel-acq",
        "cta,sys",
        "same-cta,same-cluster,diff-gpu",
        "all",
        PathBuf::from("unused"),
    );
    let tests = gen::generate(&a).unwrap();
    assert!(tests.len() > 1000, "{} tests", tests.len());
    let opts = CheckOptions::default();
    use rayon::prelude::*;
    let failures: Vec<String> = tests
        .par_iter()
        .filter_map(|t| match check_source(&t.source, &opts) {
            Ok(r) => {
                // The header's name is the test's name.
                assert!(t.source.starts_with(&format!("PTX {}\n", t.name)));
                assert_eq!(r.program.threads.len(), t.threads, "{}", t.name);
                None
            }
            Err(e) => Some(format!("{}: {}", t.name, e.message)),
        })
        .collect();
    assert!(failures.is_empty(), "{} failures, first: {:?}", failures.len(), &failures[..failures.len().min(5)]);
}

/// 8.10.6 (Causality): st.release.gpu y / ld.acquire.gpu y in one GPU are morally
/// strong; the acquire reading the release makes them synchronize, so the data
/// write precedes the data read in causality order and the read cannot read 0.
#[test]
fn mp_release_acquire_same_gpu_is_forbidden() {
    for p in [Placement::SameCta, Placement::SameCluster, Placement::SameGpu] {
        expect("MP", v(SemOpt::RelAcq, FenceOpt::None, Scope::Gpu, p), Verdict::No);
        expect("MP", v(SemOpt::Sync, FenceOpt::None, Scope::Gpu, p), Verdict::No);
    }
    // .gpu scope does not reach another GPU: no synchronization, allowed.
    expect("MP", v(SemOpt::RelAcq, FenceOpt::None, Scope::Gpu, Placement::DiffGpu), Verdict::Ok);
    // .sys does.
    expect("MP", v(SemOpt::RelAcq, FenceOpt::None, Scope::Sys, Placement::DiffGpu), Verdict::No);
    // .cta scope between two CTAs: not morally strong, allowed.
    expect("MP", v(SemOpt::RelAcq, FenceOpt::None, Scope::Cta, Placement::SameGpu), Verdict::Ok);
}

/// Weak accesses never synchronize: MP's outcome is allowed.
#[test]
fn mp_weak_is_allowed() {
    expect("MP", v(SemOpt::Weak, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::Ok);
    expect("MP", v(SemOpt::Relaxed, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::Ok);
}

/// SB with fence.sc.cta between relaxed.cta accesses in one CTA: the two fences are
/// morally strong, so Fence-SC orders them; the first synchronizes with the
/// second (8.8), which puts one thread's write before the other's read in
/// causality order, and a read of 0 would be fr against causality: forbidden.
/// With fence.acq_rel there is no Fence-SC order and nothing orders W before R
/// across threads: allowed.
#[test]
fn sb_fences() {
    expect("SB", v(SemOpt::Relaxed, FenceOpt::Sc, Scope::Cta, Placement::SameCta), Verdict::No);
    expect("SB", v(SemOpt::Relaxed, FenceOpt::Sc, Scope::Gpu, Placement::DiffGpu), Verdict::Ok);
    expect("SB", v(SemOpt::Relaxed, FenceOpt::AcqRel, Scope::Cta, Placement::SameCta), Verdict::Ok);
    expect("SB", v(SemOpt::RelAcq, FenceOpt::AcqRel, Scope::Gpu, Placement::SameGpu), Verdict::Ok);
    expect("SB", v(SemOpt::RelAcq, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::Ok);
}

/// PTX is not multi-copy atomic: acquire loads synchronize each observer only with
/// the write it reads, fr builds no causality, so the observers may disagree.
/// fence.sc between the loads restores the order (Fence-SC).
#[test]
fn iriw() {
    expect("IRIW", v(SemOpt::RelAcq, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::Ok);
    expect("IRIW", v(SemOpt::Relaxed, FenceOpt::Sc, Scope::Gpu, Placement::SameGpu), Verdict::No);
}

/// Release/acquire is transitive through causality: each hop synchronizes, so
/// the first write precedes the last read in causality order.
#[test]
fn chains_and_rings() {
    expect("MP-chain:4", v(SemOpt::RelAcq, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::No);
    expect("MP-chain:4", v(SemOpt::Weak, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::Ok);
    // One hop at .cta scope across CTAs breaks the chain.
    expect("MP-chain:3", v(SemOpt::RelAcq, FenceOpt::None, Scope::Cta, Placement::SameGpu), Verdict::Ok);
    // A release/acquire load-buffering ring would need a causality cycle.
    expect("RA-ring:4", v(SemOpt::Weak, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::No);
    // SB ring with sc fences: forbidden; without: allowed.
    expect("SB-ring:3", v(SemOpt::Relaxed, FenceOpt::Sc, Scope::Gpu, Placement::SameGpu), Verdict::No);
    expect("SB-ring:3", v(SemOpt::RelAcq, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::Ok);
}

/// Coherence: morally strong accesses to one location respect coherence order.
#[test]
fn coherence_shapes() {
    for s in ["CoRR", "CoRW", "CoWR", "CoWW"] {
        expect(s, v(SemOpt::Relaxed, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::No);
    }
    // Program order is causality order: CoWW forbidden even when weak.
    expect("CoWW", v(SemOpt::Weak, FenceOpt::None, Scope::Gpu, Placement::SameGpu), Verdict::No);
}

#[test]
fn release_acquire_message_passing_via_cycle() {
    let var = Variant::default();
    // An annotation sets the access between the two edges around it.
    let t = cycle_test("PodWW Rel.gpu Rfe Acq.gpu PodRR Fre", &var).unwrap();
    assert_eq!(t.name, "PodWW+Rel.gpu+Rfe+Acq.gpu+PodRR+Fre+same-gpu");
    // P0 writes x then (release) y; P1 reads (acquire) y then x.
    assert!(t.source.contains("st.weak x, 1"), "{}", t.source);
    assert!(t.source.contains("st.release.gpu y, 1"), "{}", t.source);
    assert!(t.source.contains("ld.acquire.gpu r0, y"), "{}", t.source);
    assert!(t.source.contains("exists (P1:r0 == 1 /\\ P1:r1 == 0)"), "{}", t.source);
    assert_eq!(verdict(&t), Verdict::No);
    // Here Rel.gpu falls on the access after Fre: the data write x. The flag
    // write is weak, the acquire reads it without synchronizing: allowed.
    let t = cycle_test("Rfe Acq.gpu PodRR Fre Rel.gpu PodWW", &var).unwrap();
    assert!(t.source.contains("st.release.gpu x, 1") && t.source.contains("st.weak y, 1"), "{}", t.source);
    assert_eq!(verdict(&t), Verdict::Ok);
    // Fences as tokens, diy spelling and the FencedXY spelling give the same test body.
    let a = cycle_test("PodWR Fre Fence.sc.cta PodWR Fre", &var).unwrap();
    let b = cycle_test("PodWR Fre Fence.sc.ctadWR Fre", &var).unwrap();
    let c = cycle_test("PodWR Fre FencedWR.sc.cta Fre", &var).unwrap();
    assert_eq!(a.name, b.name);
    assert_eq!(b.name, c.name);
    assert!(a.source.contains("fence.sc.cta"));
    // Scopeless annotations take --scope.
    let d = cycle_test("Rfe Acq PodRR Fre Rel PodWW", &Variant { scope: Scope::Cta, ..var }).unwrap();
    assert!(d.source.contains("ld.acquire.cta"), "{}", d.source);
    assert!(d.name.contains("+cta"), "{}", d.name);
}

#[test]
fn bad_cycles_are_rejected() {
    let var = Variant::default();
    for bad in [
        "PodWW Rfe PodWR Fre", // W then R after Rfe/PodWR mismatch
        "Rfe PodRR",           // Rfe ends at R, PodRR ends at R but Rfe starts at W
        "PodWW Rfe PosRR Fre", // one Pod edge
        "Rel.gpu PodRR Fre Rfe",
        "Rfe Acq.gpu PodRR Fre Rel.gpu PodXX",
        "Fence.sc.gpu Rfe PodRR Fre PodWW",
        "Rfe Fre",
        "Rfe Foo PodRR Fre PodWW",
    ] {
        assert!(cycle_test(bad, &var).is_err(), "{} accepted", bad);
    }
    assert!(shape_test("XYZ", &var).is_err());
    assert!(shape_test("MP-chain:1", &var).is_err());
}

#[test]
fn names_are_deterministic_and_unique() {
    let a = args(&["all", "MP-chain:4"], &[], "all", "all", "all", "all", "generic,alias", PathBuf::from("unused"));
    let t1 = gen::generate(&a).unwrap();
    let t2 = gen::generate(&a).unwrap();
    assert_eq!(t1, t2);
    let names: std::collections::BTreeSet<_> = t1.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names.len(), t1.len());
    for n in [
        "MP+relacq.gpu+same-gpu",
        "MP+weak+same-gpu",
        "SB+relaxed.cta+fence.sc.cta+same-cta",
        "IRIW+relacq.sys+diff-gpu",
        "MP-chain-4+relacq.gpu+same-cluster",
        "2+2W+weak+fence.rel-acq.gpu+diff-gpu",
        "CoWW+weak",
        "MP+sync.gpu+same-gpu+alias",
    ] {
        assert!(names.contains(n), "missing {}", n);
    }
    // Weak without fences does not depend on the scope: one test, not four.
    assert!(!names.iter().any(|n| n.starts_with("MP+weak.")));
    // A name says what the test is: regenerating from the doc line's command gives it back.
    let t = shape_test(
        "MP",
        &Variant { sem: SemOpt::RelAcq, placement: Placement::DiffGpu, scope: Scope::Sys, ..Variant::default() },
    )
    .unwrap();
    assert_eq!(t.name, "MP+relacq.sys+diff-gpu");
    assert!(t.source.contains("\"generated by: ptx-litmus gen MP --sem relacq --fence none --scope sys --placement diff-gpu --proxy generic\""));
    assert!(t.source.contains("P1@cta 0,gpu 1"));
}

#[test]
fn placements_write_the_headers() {
    let h = |p| shape_test("MP", &Variant { placement: p, ..Variant::default() }).unwrap().source;
    assert!(h(Placement::SameCta).contains("P0@cta 0,gpu 0") && h(Placement::SameCta).contains("P1@cta 0,gpu 0"));
    assert!(h(Placement::SameCluster).contains("P1@cta 1,cluster 0,gpu 0"));
    assert!(h(Placement::SameGpu).contains("P1@cta 1,gpu 0"));
    assert!(h(Placement::DiffGpu).contains("P1@cta 0,gpu 1"));
    let al = shape_test("MP", &Variant { proxy: ProxyOpt::AliasFence, ..Variant::default() }).unwrap().source;
    assert!(
        al.contains("x_a @ generic aliases x;") && al.contains("fence.proxy.alias") && al.contains("ld.weak r1, x_a"),
        "{}",
        al
    );
}

#[test]
fn cli_writes_files_and_expectations() {
    let dir = std::env::temp_dir().join(format!("ptxl-gen-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("tests");
    let csv = dir.join("expected.csv");
    let st = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args([
            "gen",
            "MP",
            "SB",
            "MP-chain:3",
            "--sem",
            "weak,relacq",
            "--placement",
            "same-cta,diff-gpu",
            "-q",
            "--out",
        ])
        .arg(&out)
        .arg("--expect-csv")
        .arg(&csv)
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "test,expected");
    assert_eq!(lines.len(), 1 + 12);
    assert!(lines.contains(&"tests/MP+relacq.gpu+same-cta.litmus,No"), "{}", text);
    assert!(lines.contains(&"tests/MP+weak+same-cta.litmus,Ok"), "{}", text);
    assert!(lines.contains(&"tests/MP+relacq.gpu+diff-gpu.litmus,Ok"), "{}", text);
    // The checker agrees with the CSV it helped write.
    let st = Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(["check", "--expect"]).arg(&csv).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    // Bad options: exit code 2.
    let st = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(["gen", "MP", "--sem", "strong", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Generated tests, their expectation CSV and pictures get the mode every
/// tool gives a new file: 0666 less the umask (not a temporary file's 0600).
#[cfg(unix)]
#[test]
fn written_files_follow_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let bin = env!("CARGO_BIN_EXE_ptx-litmus");
    let root = env!("CARGO_MANIFEST_DIR");
    for (umask, want) in [("022", 0o644), ("027", 0o640)] {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().display();
        let script =
            format!("umask {umask} && {bin} gen MP --sem relacq --out {out}/gen --expect-csv {out}/gen/expected.csv && {bin} check --svg {out}/svg {root}/litmus/seed/MP.litmus");
        let run = std::process::Command::new("sh").arg("-c").arg(&script).output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let mut files = 0;
        for sub in ["gen", "svg"] {
            for e in std::fs::read_dir(d.path().join(sub)).unwrap() {
                let mode = e.unwrap().metadata().unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, want, "umask {}", umask);
                files += 1;
            }
        }
        assert!(files >= 3, "{} files", files);
    }
}
