//! The fence advisor (issue 16): textbook repairs of the classic shapes,
//! weakenings, `--out` files that `check` confirms, the JSON schema, the cost
//! table, and property tests of exactness (no proper subset or weaker version
//! of a repair works, every weakening keeps the outcome forbidden, stronger
//! variants allow no more states, the AST route builds what the text route does).

use crate::common;
use proptest::prelude::*;
use ptx_litmus::advise::menu::{CostTable, Level};
use ptx_litmus::advise::sites::{self, Mode};
use ptx_litmus::advise::{advise_source, edit, oracle, Advice, AdviseOptions};
use ptx_litmus::check::{check_source, CheckOptions};
use ptx_litmus::outcome::Verdict;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{}: {}", rel, e))
}

fn advise(src: &str) -> Advice {
    advise_source(src, &AdviseOptions::default()).unwrap_or_else(|e| panic!("{}", e.message))
}

/// Each repair as sorted `P<t>:<after>` strings.
fn repairs(a: &Advice) -> Vec<Vec<String>> {
    a.repairs.iter().map(|r| r.changes.iter().map(|c| format!("P{}:{}", c.thread, c.after)).collect()).collect()
}

/// Is the outcome reachable according to the full `check` pipeline?
fn reachable_by_check(src: &str) -> bool {
    let r = check_source(src, &CheckOptions::default()).expect("checks");
    let bad = if r.program.quantifier == ptx_litmus::ast::Quantifier::Exists { Verdict::Ok } else { Verdict::No };
    r.summary.verdict == bad
}

const SB: &str =
    "PTX SB+weak\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | st.weak y, 1 ;\n ld.weak r0, y | ld.weak r1, x ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n";
const IRIW: &str = "PTX IRIW+weak\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 | P3@cta 3,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x | st.weak y, 1 | ld.weak r2, y ;\n | ld.weak r1, y | | ld.weak r3, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0 /\\ P3:r2 == 1 /\\ P3:r3 == 0)\n";
const WRC: &str = "PTX WRC+weak\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x | ld.weak r1, y ;\n | st.weak y, 1 | ld.weak r2, x ;\nexists (P1:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 0)\n";
const ISA2: &str = "PTX ISA2+weak\n{ x = 0; y = 0; z = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.weak x, 1 | ld.weak r0, y | ld.weak r1, z ;\n st.weak y, 1 | st.weak z, 1 | ld.weak r2, x ;\nexists (P1:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 0)\n";

#[test]
fn mp_across_ctas_needs_release_acquire_at_gpu() {
    // Expected: the one cheapest repair is release.gpu on the flag store and acquire.gpu on the flag load.
    let a = advise(&read("litmus/classic/MP+weak.litmus"));
    assert!(a.reachable);
    assert_eq!(repairs(&a), vec![vec!["P0:st.release.gpu.global.u32 [y], 1", "P1:ld.acquire.gpu.global.u32 %r0, [y]"]]);
    assert_eq!(a.min_cost, Some(8));
    assert!(a.repairs[0].forbidden_by.starts_with("Causality (8.10.6)"), "{}", a.repairs[0].forbidden_by);
}

#[test]
fn mp_in_one_cta_needs_only_cta_scope() {
    // Expected: the same pair of qualifiers, at .cta.
    let src = read("litmus/classic/MP+weak.litmus").replace("P1@cta 1,gpu 0 ", "P1@cta 0,gpu 0 ");
    let a = advise(&src);
    assert_eq!(repairs(&a), vec![vec!["P0:st.release.cta.global.u32 [y], 1", "P1:ld.acquire.cta.global.u32 %r0, [y]"]]);
}

#[test]
fn sb_needs_fence_sc_on_both_threads() {
    // Expected: fence.sc.gpu inserted in both threads; fence.acq_rel is in no repair.
    let a = advise(SB);
    assert_eq!(repairs(&a), vec![vec!["P0:fence.sc.gpu", "P1:fence.sc.gpu"]]);
    assert!(a.repairs[0].changes.iter().all(|c| c.action == "insert"));
    assert!(!repairs(&a).concat().iter().any(|c| c.contains("acq_rel")));
}

#[test]
fn iriw_needs_fence_sc_between_each_observers_reads() {
    // Expected: fence.sc.gpu after the first read of P1 and of P3 (and the
    // accesses made morally strong, as weak writes are never observed).
    let a = advise(IRIW);
    assert_eq!(a.repairs.len(), 1);
    let inserts: Vec<(usize, String)> =
        a.repairs[0].changes.iter().filter(|c| c.action == "insert").map(|c| (c.thread, c.after.clone())).collect();
    assert_eq!(inserts, vec![(1, "fence.sc.gpu".to_string()), (3, "fence.sc.gpu".to_string())]);
}

#[test]
fn lb_needs_release_acquire() {
    // Expected: each cheapest repair makes one load acquire and the other thread's store release.
    let a = advise(&read("litmus/classic/LB+relaxed.litmus"));
    assert!(!a.repairs.is_empty());
    for r in repairs(&a) {
        assert_eq!(r.len(), 2, "{:?}", r);
        assert!(r.iter().any(|c| c.contains("ld.acquire")) && r.iter().any(|c| c.contains("st.release")), "{:?}", r);
    }
}

#[test]
fn wrc_and_isa2_are_repaired_through_the_middle_thread() {
    // Expected: cumulativity: the middle thread's store becomes a release (WRC),
    // and the middle thread both acquires and releases (ISA2).
    let w = repairs(&advise(WRC));
    assert_eq!(w.len(), 1);
    assert!(w[0].contains(&"P1:st.release.gpu y, 1".to_string()), "{:?}", w);
    let i = repairs(&advise(ISA2));
    assert_eq!(i.len(), 1);
    assert!(
        i[0].contains(&"P1:ld.acquire.gpu r0, y".to_string()) && i[0].contains(&"P1:st.release.gpu z, 1".to_string()),
        "{:?}",
        i
    );
}

#[test]
fn mp_fence_gpu_weakens_to_release_and_acquire_fences() {
    // Expected: fence.sc -> fence.release in the writer, -> fence.acquire in the reader, also together.
    let a = advise(&read("litmus/classic/MP+fence.gpu.litmus"));
    assert!(!a.reachable);
    let singles: Vec<String> =
        a.weakenings.iter().map(|w| format!("P{}:{}", w.changes[0].thread, w.changes[0].after)).collect();
    assert_eq!(singles, vec!["P0:fence.release.gpu", "P1:fence.acquire.gpu"]);
    assert_eq!(a.maximal_weakening.as_ref().map(|m| m.changes.len()), Some(2));
}

#[test]
fn a_custom_cost_table_changes_the_cheapest_repair() {
    // Expected: with expensive release/acquire qualifiers, MP is repaired with
    // fences in both threads (release/acquire fences with relaxed flag accesses,
    // or fence.sc pairs: both cost 18).
    let costs = CostTable::parse("acquire = 20\nrelease = 20\nacq_rel = 30  # atoms\n").expect("parses");
    let opts = AdviseOptions { costs, ..Default::default() };
    let a = advise_source(&read("litmus/classic/MP+weak.litmus"), &opts).expect("advises");
    let r = repairs(&a);
    assert_eq!((r.len(), a.min_cost), (2, Some(18)), "{:?}", r);
    for x in &r {
        assert!(
            x.iter().any(|c| c.starts_with("P0:fence.")) && x.iter().any(|c| c.starts_with("P1:fence.")),
            "{:?}",
            r
        );
    }
    assert_eq!(CostTable::parse("").expect("the default table is strictly monotone"), CostTable::default());
    assert!(CostTable::parse("bogus = 1").is_err());
    assert!(CostTable::parse("relaxed = 3\nacquire = 2").is_err(), "a stronger level must cost more");
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
}

#[test]
fn out_files_are_confirmed_by_check_and_keep_the_users_text() {
    // Expected: every written file checks as forbidden; lines not changed are the user's.
    let dir = std::env::temp_dir().join(format!("ptxl-advise-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files = [
        "litmus/classic/MP+weak.litmus",
        "litmus/classic/MP+fence.gpu.litmus",
        "litmus/classic/SB+fence.sc.cta-diff-cta.litmus",
    ];
    let out = bin().arg("advise").arg("--out").arg(&dir).args(files.iter().map(|f| root().join(f))).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let written: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(written.len() >= 4, "{:?}", written);
    for f in &written {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(!reachable_by_check(&text), "{} does not forbid the outcome", f.display());
    }
    let repaired = std::fs::read_to_string(dir.join("MP+weak.repair1.litmus")).unwrap();
    let original = read("litmus/classic/MP+weak.litmus");
    // The name line names the variant; two instructions change; the rest
    // differs at most in the blanks that keep the columns aligned.
    assert_eq!(repaired.lines().next(), Some("PTX MP+weak.repair1"));
    let squeeze = |l: &str| l.split_whitespace().collect::<String>();
    let changed: Vec<(&str, &str)> =
        original.lines().zip(repaired.lines()).skip(1).filter(|(a, b)| squeeze(a) != squeeze(b)).collect();
    assert_eq!(changed.len(), 2, "{:?}", changed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--out` names each variant after its file (`SB6+weak.repair1`), so a
/// batch of them has no two tests of one name, and the rewritten table keeps
/// its `|` in line however long the changed instructions are.
#[test]
fn out_files_are_named_after_their_file_and_keep_columns_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let files = ["litmus/advise/SB6+weak.litmus", "litmus/advise/ISA6+weak.litmus", "litmus/classic/MP+weak.litmus"];
    let strong = ["litmus/classic/IRIW+fence.sc.litmus"];
    let out = bin()
        .arg("advise")
        .arg("--weaken")
        .arg("--out")
        .arg(dir.path())
        .args(strong.iter().map(|f| root().join(f)))
        .output()
        .unwrap();
    let out2 =
        bin().arg("advise").arg("--out").arg(dir.path()).args(files.iter().map(|f| root().join(f))).output().unwrap();
    assert_eq!(
        (out.status.code(), out2.status.code()),
        (Some(0), Some(0)),
        "{}",
        String::from_utf8_lossy(&out2.stderr)
    );
    let mut written = 0;
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let stem = path.file_name().unwrap().to_str().unwrap().trim_end_matches(".litmus").to_string();
        assert_eq!(text.lines().next(), Some(format!("PTX {}", stem).as_str()));
        let table: Vec<&str> =
            text.lines().skip_while(|l| !l.contains("@cta")).take_while(|l| l.trim_end().ends_with(';')).collect();
        let bars = |l: &str| l.char_indices().filter(|&(_, c)| c == '|').map(|(i, _)| i).collect::<Vec<_>>();
        assert!(table.len() >= 3, "{}", text);
        assert!(
            table.iter().all(|l| bars(l) == bars(table[0])),
            "{}: columns out of line:\n{}",
            stem,
            table.join("\n")
        );
        written += 1;
    }
    assert!(written >= 5, "{} files", written);
    let check = bin().arg("check").arg(dir.path()).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&check.stderr).contains("warning: test name"),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn a_directory_gives_a_summary_table() {
    // Expected: a header and one row per test, with cost and counts.
    let dir = std::env::temp_dir().join(format!("ptxl-advise-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.litmus"), read("litmus/classic/MP+weak.litmus")).unwrap();
    std::fs::write(dir.join("b.litmus"), read("litmus/classic/MP+fence.gpu.litmus")).unwrap();
    let out = bin().arg("advise").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{}", text);
    assert!(lines[0].starts_with("test"));
    let a: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(&a[1..5], &["Ok", "allowed", "8", "1"], "{}", lines[1]);
    let b: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(&b[1..6], &["No", "forbidden", "-", "-", "2"], "{}", lines[2]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_inputs_exit_2() {
    // Expected: an unreadable cost file and a syntax error are input errors (exit 2).
    let mp = root().join("litmus/classic/MP+weak.litmus");
    let out = bin().args(["advise", "--cost", "/nonexistent/costs"]).arg(&mp).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["advise", "--json"]).arg(root().join("tests/bad-input/blank.litmus")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_valid(&serde_json::from_slice(&out.stdout).expect("a JSON failure object"));
}

// JSON against schema/advise.schema.json.
fn errors(v: &Value) -> Vec<String> {
    common::schema::errors("advise.schema.json", v)
}

fn assert_valid(v: &Value) {
    let e = errors(v);
    assert!(e.is_empty(), "{}\n{}", e.join("\n"), v);
}

#[test]
fn json_follows_the_schema() {
    // Expected: repairs, weakenings and a forall test all validate; a broken object does not.
    let files = [
        "litmus/classic/MP+weak.litmus",
        "litmus/classic/MP+fence.gpu.litmus",
        "litmus/classic/SB+fence.sc.cta-diff-cta.litmus",
    ];
    let out = bin().args(["advise", "--json"]).args(files.iter().map(|f| root().join(f))).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let objs: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(objs.len(), 3);
    for o in &objs {
        assert_valid(o);
    }
    let mut bad = objs[0].clone();
    bad["repairs"][0]["changes"][0]["action"] = Value::String("rewrite".into());
    assert!(!errors(&bad).is_empty());
}

// ---------------------------------------------------------------------------
// Asynchronous tests (issue 41 item 4, D313): proxy fences, bulk waits and
// mbarrier waits in the menu.

/// FlashKDA #24: P0's generic store of the tile `s` (line 7) reaches P1's
/// bulk copy, which reads `s` through the async proxy, only through
/// `bar.sync`; 8.6 and 8.9.5 need a `fence.proxy.async` on that path, and in
/// the reading every answer keeps (D263) it is P0's, after the store. `s` is
/// shared and both threads are in one CTA: `.shared::cta`, cost 3 + 1. No
/// thread fence or qualifier can stand in for it. DeepEP #642 is the mirror
/// image: P0's generic load of `s` (line 7) before P1's refill by a bulk copy,
/// the fence in P0 after the load. The wrong-space version has
/// `fence.proxy.async.global` (line 8): dropping its state space (cost 2)
/// beats a second fence (4).
#[test]
fn async_bugs_get_the_proxy_fence_in_the_generic_accesss_thread() {
    for f in ["litmus/async/core/flashkda-24-no-fence.litmus", "litmus/async/core/deepep-642-no-fence.litmus"] {
        let a = advise(&read(f));
        assert_eq!(repairs(&a), vec![vec!["P0:fence.proxy.async.shared::cta".to_string()]], "{}", f);
        assert_eq!((a.repairs[0].changes[0].line, a.repairs[0].changes[0].action), (7, "insert"), "{}", f);
        assert_eq!(a.min_cost, Some(4), "{}", f);
        assert!(!reachable_by_check(&a.repairs[0].source), "{}", f);
    }
    let a = advise(&read("litmus/async/core/flashkda-24-wrong-space.litmus"));
    assert_eq!(repairs(&a), vec![vec!["P0:fence.proxy.async".to_string()]]);
    assert_eq!((a.repairs[0].changes[0].action, a.min_cost), ("change", Some(2)));
}

/// A proxy fence lies on the causality path only before the release that
/// hands the data over (8.9.5: "along the base causality path"): in
/// `MP-proxy+weak` with release and acquire made dearer than fences, the
/// cheapest repair inserts, after P0's store of `s`, the proxy fence and then
/// `fence.release.cta`, makes the flag accesses relaxed and puts
/// `fence.acquire.cta` after P1's load (4 + 4 + 1 + 1 + 4 = 14). The other
/// order (release fence first) leaves the outcome reachable.
#[test]
fn a_proxy_fence_goes_before_the_release_fence_it_shares_a_gap_with() {
    let costs = CostTable::parse("acquire = 20\nrelease = 20\nacq_rel = 30\n").unwrap();
    let opts = AdviseOptions { costs, ..AdviseOptions::default() };
    let src = read("litmus/advise/MP-proxy+weak.litmus");
    let a = advise_source(&src, &opts).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(a.min_cost, Some(14));
    assert_eq!(
        repairs(&a),
        vec![vec![
            "P0:fence.proxy.async.shared::cta".to_string(),
            "P0:fence.release.cta".into(),
            "P0:st.relaxed.cta.global.u32 [flag], 1".into(),
            "P1:ld.relaxed.cta.global.u32 %r0, [flag]".into(),
            "P1:fence.acquire.cta".into(),
        ]]
    );
    let text = &a.repairs[0].source;
    let (proxy, release) = (text.find("fence.proxy.async").unwrap(), text.find("fence.release.cta").unwrap());
    assert!(proxy < release, "{}", text);
    assert!(!reachable_by_check(text));
    let swapped = text
        .replacen("fence.proxy.async.shared::cta", "@@", 1)
        .replacen("fence.release.cta", "fence.proxy.async.shared::cta", 1)
        .replacen("@@", "fence.release.cta", 1);
    assert!(reachable_by_check(&swapped), "{}", swapped);
}

/// Completion mechanisms in the menu: `cp.async.bulk.wait_group.read` waits
/// for the source reads only (D260), so reading the copy's destination after
/// it needs the full wait (cost 1); a `.relaxed` mbarrier wait does not
/// acquire (9.7.15.16.16), so the generic read after it needs `.acquire`; a
/// `.cta` wait does not synchronize with a remote CTA's release arrive at
/// `.cluster` (8.9.4 needs morally strong, 8.7), so it needs `.cluster`.
#[test]
fn waits_are_repaired_by_their_own_qualifiers() {
    let cases = [
        ("tests/async-pending/bulk-wait_group.read-then-read-destination.litmus", "P0:cp.async.bulk.wait_group 0"),
        (
            "tests/async-pending/bulk-relaxed-wait.litmus",
            "P1:mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [F], 0",
        ),
        (
            "tests/async-pending/remote-arrive-cta-acquire.litmus",
            "P0:mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [M], 0",
        ),
    ];
    for (f, want) in cases {
        let a = advise(&read(f));
        assert_eq!(repairs(&a), vec![vec![want.to_string()]], "{}", f);
        assert_eq!(a.min_cost, Some(1), "{}", f);
        assert!(!reachable_by_check(&a.repairs[0].source), "{}", f);
    }
}

/// `advise --weaken` finds idle proxy fences: in TransformerEngine #3417's fix
/// the condition is about `g[0]`, copied from `s[0]`, which P1 writes; P0's
/// fence after its store of `s+4` (line 8) orders nothing the condition sees,
/// and the last full `wait_group 0` (line 14) can be `.read`. P1's fence
/// (between its store of `s` and the barrier) is needed and is not listed.
#[test]
fn weaken_finds_idle_proxy_fences() {
    let a = advise(&read("tests/async-pending/TE-3417-fixed.litmus"));
    let singles: Vec<(usize, usize, &str, String)> =
        a.weakenings.iter().flat_map(|w| &w.changes).map(|c| (c.thread, c.line, c.action, c.after.clone())).collect();
    assert_eq!(
        singles,
        vec![(0, 8, "remove", String::new()), (0, 14, "change", "cp.async.bulk.wait_group.read 0".to_string())]
    );
    for w in &a.weakenings {
        assert!(!reachable_by_check(&w.source));
    }
}

/// A test that hangs (D299: no value any execution writes ends a spin loop)
/// has no final state whatever its fences: the advisor says so, exit 2, and
/// no internal error.
#[test]
fn a_hanging_test_is_refused_with_the_reason() {
    let out = bin()
        .args(["advise"])
        .arg(root().join("litmus/async/multicast/tma-multicast-one-rank.litmus"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("P1 never leaves its spin loop") && err.contains("D299"), "{}", err);
}

// ---------------------------------------------------------------------------
// Property tests (few cases: each decides dozens of variants).

const SMALL: &[&str] = &[
    "litmus/classic/MP+weak.litmus",
    "litmus/classic/MP+relaxed.litmus",
    "litmus/classic/LB+relaxed.litmus",
    "litmus/classic/MP+fence.gpu.litmus",
    "litmus/classic/SB+fence.sc.cta-diff-cta.litmus",
    "litmus/classic/WRC+rel+acq.litmus",
    "litmus/classic/CoRR+weak-loads.litmus",
    "litmus/classic/2+2W+fence.sc.litmus",
    "litmus/async/core/flashkda-24-no-fence.litmus",
    "litmus/async/core/deepep-642-no-fence.litmus",
    "litmus/advise/MP-proxy+weak.litmus",
    "tests/async-pending/TE-3417-fixed.litmus",
    "tests/async-pending/bulk-wait_group.read-then-read-destination.litmus",
    "tests/async-pending/remote-arrive-cta-acquire.litmus",
];

fn states(src: &str) -> std::collections::BTreeSet<Vec<i64>> {
    check_source(src, &CheckOptions::default()).expect("checks").outcome.states.into_keys().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Monotonicity, which the search relies on: making one site stronger
    /// (any level above the original) allows no final state the original forbids.
    #[test]
    fn strengthening_never_allows_more(file in 0..SMALL.len(), pick in 0usize..1000, lvl in 0usize..1000) {
        let src = read(SMALL[file]);
        let lit = ptx_litmus::parse::parse_litmus(&src).unwrap();
        let p = ptx_litmus::program::build_program(&lit, &Default::default()).unwrap();
        let ss = sites::sites(&lit, &p, Mode::Repair);
        prop_assume!(!ss.is_empty());
        let i = pick % ss.len();
        let mut levels: Vec<Level> = ss.iter().map(|s| s.original).collect();
        levels[i] = ss[i].levels[lvl % ss[i].levels.len()];
        let text = edit::variant_source(&src, &lit, &ss, &levels).unwrap();
        let (before, after) = (states(&src), states(&text));
        prop_assert!(after.is_subset(&before), "{} with site {} at {:?} allows {:?}", SMALL[file], i, levels[i], after.difference(&before).collect::<Vec<_>>());
    }

    /// The AST route (what the search decides) and the text route (what --out writes) agree.
    #[test]
    fn ast_and_text_variants_agree(file in 0..SMALL.len(), seeds in proptest::collection::vec(0usize..1000, 12)) {
        let src = read(SMALL[file]);
        let lit = ptx_litmus::parse::parse_litmus(&src).unwrap();
        let p = ptx_litmus::program::build_program(&lit, &Default::default()).unwrap();
        for mode in [Mode::Repair, Mode::Weaken] {
            let ss = sites::sites(&lit, &p, mode);
            let levels: Vec<Level> = ss.iter().zip(seeds.iter().cycle()).map(|(s, &k)| s.levels[k % s.levels.len()]).collect();
            let text = edit::variant_source(&src, &lit, &ss, &levels).unwrap();
            let parsed = edit::verify(&text, &lit, &ss, &levels).unwrap();
            let a = ptx_litmus::program::build_program(&edit::variant_ast(&lit, &ss, &levels), &Default::default()).unwrap();
            let b = ptx_litmus::program::build_program(&parsed, &Default::default()).unwrap();
            prop_assert_eq!(a.events.len(), b.events.len());
            prop_assert_eq!(oracle::reachable(&a, ptx_litmus::model::ModelKind::Ptx.model()).unwrap(), oracle::reachable(&b, ptx_litmus::model::ModelKind::Ptx.model()).unwrap());
            prop_assert_eq!(oracle::reachable(&b, ptx_litmus::model::ModelKind::Ptx.model()).unwrap(), reachable_by_check(&text));
        }
    }
}

/// Exactness of repairs: each listed repair forbids the outcome (by `check`),
/// and no proper subset of its changes, nor any weaker level of one change, does.
#[test]
fn no_proper_subset_or_weaker_version_of_a_repair_works() {
    let mut tested = 0;
    for f in SMALL.iter().map(|f| read(f)).chain([SB, WRC, ISA2].iter().map(|s| s.to_string())) {
        let a = advise(&f);
        let lit = ptx_litmus::parse::parse_litmus(&f).unwrap();
        let p = ptx_litmus::program::build_program(&lit, &Default::default()).unwrap();
        let ss = sites::sites(&lit, &p, Mode::Repair);
        let orig: Vec<Level> = ss.iter().map(|s| s.original).collect();
        for r in &a.repairs {
            assert!(!reachable_by_check(&r.source));
            let k = r.picks.len();
            for mask in 0..(1u32 << k) - 1 {
                let mut v = orig.clone();
                for (j, &(i, l)) in r.picks.iter().enumerate() {
                    if mask & (1 << j) != 0 {
                        v[i] = l;
                    }
                }
                let text = edit::variant_source(&f, &lit, &ss, &v).unwrap();
                assert!(reachable_by_check(&text), "a proper subset of a repair of {} works:\n{}", a.test, text);
                tested += 1;
            }
            for &(i, l) in &r.picks {
                for &w in ss[i].levels.iter().filter(|&&w| w != l && w.at_most(l)) {
                    let mut v = orig.clone();
                    for &(i2, l2) in &r.picks {
                        v[i2] = l2;
                    }
                    v[i] = w;
                    let text = edit::variant_source(&f, &lit, &ss, &v).unwrap();
                    assert!(reachable_by_check(&text), "a weaker version of a repair of {} works:\n{}", a.test, text);
                    tested += 1;
                }
            }
        }
        for w in a.weakenings.iter().chain(a.maximal_weakening.iter()) {
            assert!(!reachable_by_check(&w.source), "a weakening of {} makes the outcome reachable", a.test);
        }
    }
    assert!(tested > 20, "only {} variants tested", tested);
}

/// A harness that calls a PTX module is advised on its inlined program, and
/// each change is told in the module's terms: the function and its line in the
/// module (D254). `_Z10mp_relaxedPiS_S_` (ptx/MP.sm_90.ptx) is message passing
/// with relaxed.gpu accesses: block 0 stores data (line 216) then the flag
/// (line 219); block 1 loads the flag (line 203) then data (line 206). Across
/// CTAs the outcome flag=1, data=0 is forbidden only by causality order
/// (8.10.6), which needs a release pattern in the writer and an acquire pattern
/// in the reader: expected, one cheapest repair, the flag store made release
/// and the flag load acquire, at .gpu (the narrowest scope holding both CTAs).
#[test]
fn a_harness_is_advised_in_the_modules_terms() {
    let harness = root().join("litmus/compiled/MP-relaxed.sm_90.litmus");
    let base = harness.parent().unwrap().to_path_buf();
    let a = ptx_litmus::advise::advise_source_at(
        &read("litmus/compiled/MP-relaxed.sm_90.litmus"),
        &base,
        &AdviseOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.message));
    assert!(a.reachable);
    assert_eq!(repairs(&a), vec![vec!["P0:st.release.gpu.b32 [%rd2],%r5", "P1:ld.acquire.gpu.b32 %r2,[%rd2]"]]);
    let places: Vec<(usize, usize, String, String)> = a.repairs[0]
        .changes
        .iter()
        .map(|c| {
            let m = c.module.as_ref().expect("a change of the module names it");
            (c.thread, c.line, m.function.clone(), m.file.clone())
        })
        .collect();
    let f = "_Z10mp_relaxedPiS_S_".to_string();
    let file = base.join("ptx/MP.sm_90.ptx").display().to_string();
    assert_eq!(places, vec![(0, 219, f.clone(), file.clone()), (1, 203, f, file)]);
    assert!(a.repairs[0].forbidden_by.starts_with("Causality (8.10.6)"), "{}", a.repairs[0].forbidden_by);

    // The command line prints the same places; `--out` cannot write module edits and says so.
    let out = bin().arg("advise").arg(&harness).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}{}", text, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("P0 _Z10mp_relaxedPiS_S_ (") && text.contains("ptx/MP.sm_90.ptx) line 219 "), "{}", text);
    assert!(text.contains("P1 _Z10mp_relaxedPiS_S_ (") && text.contains("ptx/MP.sm_90.ptx) line 203 "), "{}", text);
    let dir = tempfile::tempdir().unwrap();
    let out = bin().arg("advise").arg("--out").arg(dir.path()).arg(&harness).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("edits of its PTX module"));
}
