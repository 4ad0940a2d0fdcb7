//! `--encoding` (issue 27, D188): a test past the path builder's limit of
//! paths is decided by the symbolic encoding under `auto`, refused as before
//! under `paths` (the default), and refused clearly by the reference engine,
//! which enumerates paths.

use crate::robust::{run_stdin, Run};

/// Message passing with a count: P0 stores 1 to z0..z12 (relaxed) and then
/// releases f; P1 acquires f, then reads each z and counts the ones that read
/// 1 in r20 with a `setp` and `@p bra` per read: 2^13 = 8192 paths for P1,
/// past the path builder's 4096.
fn counted_mp(condition: &str) -> String {
    let n = 13;
    let mut p0: Vec<String> = (0..n).map(|i| format!("st.relaxed.gpu z{}, 1", i)).collect();
    p0.push("st.release.gpu f, 1".into());
    let mut p1 = vec!["ld.acquire.gpu r0, f".to_string(), "mov.u32 r20, 0".to_string()];
    for i in 0..n {
        p1.push(format!("ld.relaxed.gpu r{}, z{}", 30 + i, i));
        p1.push(format!("setp.ne.u32 p{}, r{}, 1", i, 30 + i));
        p1.push(format!("@p{} bra SKIP{}", i, i));
        p1.push("add.u32 r20, r20, 1".into());
        p1.push(format!("SKIP{}:", i));
    }
    let init: Vec<String> = (0..n).map(|i| format!("z{} = 0;", i)).collect();
    let mut text = format!("PTX counted-MP\n{{ f = 0; {} }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n", init.join(" "));
    for k in 0..p0.len().max(p1.len()) {
        let cell = |v: &Vec<String>| v.get(k).cloned().unwrap_or_default();
        text.push_str(&format!(" {} | {} ;\n", cell(&p0), cell(&p1)));
    }
    text.push_str(condition);
    text.push('\n');
    text
}

fn check(args: &[&str], source: &str) -> Run {
    let mut all = vec!["check", "-"];
    all.extend_from_slice(args);
    let r = run_stdin(&all, Some(source));
    r.assert_clean("check --encoding");
    r
}

/// 8.9.4 / 8.10.6: when P1's `ld.acquire.gpu` of f reads P0's
/// `st.release.gpu` of 1, the release pattern synchronizes with the acquire
/// pattern (morally strong: same location, both `.gpu` in one GPU, 8.7), so
/// each store to a z precedes P1's read of it in causality order; the read
/// then cannot return the initial 0, which precedes the store in coherence
/// (8.2.6; 8.10.6 rule 2). Every z reads 1 and r20 = 13: a state with r0 = 1
/// and r20 != 13 is forbidden (No). Without the synchronization (r0 = 0) each
/// read may return either value: r20 = 13 is still allowed (Ok), and so is 0.
#[test]
fn a_test_past_the_path_limit_is_decided_symbolically_under_auto() {
    let forbidden = counted_mp("exists (P1:r0 == 1 /\\ ~(P1:r20 == 13))");
    let r = check(&["--states", "all", "--encoding", "auto"], &forbidden);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.lines().any(|l| l == "No"), "{}", r.stdout);
    assert!(r.stdout.contains("Never"), "{}", r.stdout);
    // With r0 = 0 the 13 reads are independent (each may read 0 or 1): r20 is
    // any of 0..=13; with r0 = 1 only 13. Fifteen states in all.
    assert!(r.stdout.contains("States 15\n"), "{}", r.stdout);
    assert!(r.stdout.contains("1:r0=1; 1:r20=13;") && r.stdout.contains("1:r0=0; 1:r20=7;"), "{}", r.stdout);
    let allowed = counted_mp("exists (P1:r0 == 0 /\\ P1:r20 == 13)");
    let r = check(&["--encoding", "auto"], &allowed);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.lines().any(|l| l == "Ok"), "{}", r.stdout);
    let none = counted_mp("exists (P1:r0 == 0 /\\ P1:r20 == 0)");
    let r = check(&["--encoding", "symbolic"], &none);
    assert!(r.stdout.lines().any(|l| l == "Ok"), "{}", r.stdout);
}

/// `--encoding paths` keeps the path builder's limit (exit 3, the thread and
/// the limit named), the default (`auto`, D188) decides the test; the
/// reference engine refuses a test only the symbolic encoding decides, saying so.
#[test]
fn paths_and_the_reference_engine_refuse_it() {
    let source = counted_mp("exists (P1:r0 == 1 /\\ ~(P1:r20 == 13))");
    let r = check(&["--encoding", "paths"], &source);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("thread P1 has more than 4096 paths"), "{}", r.stderr);
    let r = check(&[], &source);
    assert_eq!(r.code, 0, "the default is auto: {}{}", r.stdout, r.stderr);
    assert!(r.stdout.lines().any(|l| l == "No"), "{}", r.stdout);
    let r = check(&["--engine", "reference", "--encoding", "auto"], &source);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("reference engine enumerates"), "{}", r.stderr);
}
