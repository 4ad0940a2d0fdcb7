//! The commands besides `check` on tests only the symbolic encoding decides
//! (issue 27, D216-D219): `explain`, `advise`, `serve` and `run` build the
//! program `check` builds (`check::build_encoded`: past the path builder's
//! limit of 4096 paths per thread, the symbolic one), so they answer where
//! they used to stop at the limit; `check --show forbidden` explains the
//! forbidden states of such a test from its symbolic program's candidates;
//! `map` refuses a C test past the limit, saying why. Each answer is argued
//! from the ISA and checked against what the path builder says of the test's
//! twin (`litmus/symbolic`: the same core with fewer noise reads) or
//! re-checked with `check`.

use ptx_litmus::advise::{advise_source, AdviseOptions};
use ptx_litmus::check::{check_source, CheckOptions};
use ptx_litmus::outcome::Verdict;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn symbolic_test(name: &str) -> PathBuf {
    root().join("litmus/symbolic").join(name)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e))
}

/// `ptx-litmus ARGS`: its exit status and stdout (stderr in the panic message).
fn cli(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(args).current_dir(root()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{:?}: {}", args, stderr);
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap())
}

fn explain_json(path: &Path) -> Value {
    let (code, out) = cli(&["explain", "--json", path.to_str().unwrap()]);
    assert_eq!(code, 0, "explain {}: {}", path.display(), out);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {}", e, out))
}

/// The path builder refuses the test (so only the symbolic encoding decides it).
fn assert_past_the_path_limit(source: &str) {
    let paths = CheckOptions { encoding: ptx_litmus::check::ThreadEncoding::Paths, ..Default::default() };
    let e = check_source(source, &paths).expect_err("the path builder refuses it");
    assert!(e.message.contains("more than 4096 paths"), "{}", e.message);
}

fn verdict(source: &str) -> Verdict {
    check_source(source, &CheckOptions::default()).unwrap_or_else(|e| panic!("{}", e.message)).summary.verdict
}

/// MP+rel+acq+noise: P0's `st.release.gpu y` is a release pattern and P1's
/// `ld.acquire.gpu y` an acquire pattern (8.8, rule 1: a release or acquire
/// operation alone); they are morally strong (8.7: same location, both
/// strong, each `.gpu` scope includes the other's thread of one GPU), so the
/// release synchronizes with the acquire when the acquire reads its 1
/// (8.9.4), which some allowed execution does (P1 may read y after P0's
/// store). P2's 13 counted reads of the z (2^13 paths) have neither
/// semantics nor fences: no pattern, no other pair. The explanation says so
/// under the symbolic encoding, with the rows the path builder gives the
/// twin (3 noise reads).
#[test]
fn explain_names_the_synchronizing_pair_past_the_path_limit() {
    let path = symbolic_test("MP+rel+acq+noise.litmus");
    assert_past_the_path_limit(&read(&path));
    let x = explain_json(&path);
    assert_eq!(crate::common::schema::errors("explain.schema.json", &x), Vec::<String>::new());
    assert_eq!(x["encoding"], "symbolic", "{}", x);
    assert!(x["threads"].as_array().unwrap().iter().all(|t| t["paths"].is_null()), "{}", x);
    let sync = x["synchronization"].as_array().unwrap();
    assert_eq!(sync.len(), 1, "{}", x);
    assert_eq!(sync[0]["in_some_allowed_execution"], true, "{}", x);
    let on = |rows: &Value| rows.as_array().unwrap().iter().map(|r| r["location"].clone()).collect::<Vec<_>>();
    assert_eq!(on(&x["release_patterns"]), ["y"], "{}", x);
    assert_eq!(on(&x["acquire_patterns"]), ["y"], "{}", x);
    let twin = explain_json(&symbolic_test("MP+rel+acq+noise-twin.litmus"));
    assert_eq!(twin["encoding"], "paths");
    for field in ["release_patterns", "acquire_patterns", "synchronization"] {
        assert_eq!(x[field], twin[field], "{}", field);
    }
    // The text says which encoding built the threads.
    let (code, text) = cli(&["explain", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(text.contains("Encoding: symbolic") && text.contains("P2: CTA 2, GPU 0 (symbolic)"), "{}", text);
}

/// LB+ctrl-chain: every access is `.relaxed` and there is no fence, so there
/// is no release or acquire pattern (8.8) and no two operations can
/// synchronize (8.9.4); the operations are each instruction once (P0's 14
/// reads and its store of y, P1's read and store, P2's 13 stores).
#[test]
fn explain_of_a_relaxed_test_has_no_synchronization() {
    let path = symbolic_test("LB+ctrl-chain.litmus");
    let x = explain_json(&path);
    assert_eq!(x["encoding"], "symbolic");
    assert_eq!(x["synchronization"], Value::Array(vec![]), "{}", x);
    assert_eq!(x["release_patterns"], Value::Array(vec![]));
    assert_eq!(x["acquire_patterns"], Value::Array(vec![]));
    let per_thread = |t: u64| x["operations"].as_array().unwrap().iter().filter(|o| o["thread"] == t).count();
    assert_eq!((per_thread(0), per_thread(1), per_thread(2)), (15, 2, 13), "{}", x);
}

/// MP+rel+acq+noise with P0's release and P1's acquire made `.relaxed`:
/// nothing synchronizes (8.9.4), so P1 may read y == 1 and then x == 0:
/// `exists` is Ok. The cheapest repair (cost 2 in the default table) makes
/// y's store a release and its load an acquire again, the test above, whose
/// outcome Causality forbids (8.10.6): `check` confirms the repaired text is No.
#[test]
fn advise_repairs_a_test_past_the_path_limit() {
    let source = read(&symbolic_test("MP+rel+acq+noise.litmus"))
        .replace("st.release.gpu y, 1", "st.relaxed.gpu y, 1")
        .replace("ld.acquire.gpu r0, y", "ld.relaxed.gpu r0, y");
    assert_past_the_path_limit(&source);
    assert_eq!(verdict(&source), Verdict::Ok);
    let adv = advise_source(&source, &AdviseOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    assert!(adv.reachable);
    assert_eq!(adv.min_cost, Some(2));
    let changed: Vec<Vec<String>> =
        adv.repairs.iter().map(|r| r.changes.iter().map(|c| format!("P{}: {}", c.thread, c.after)).collect()).collect();
    assert!(
        changed.contains(&vec!["P0: st.release.gpu y, 1".into(), "P1: ld.acquire.gpu r0, y".into()]),
        "{:?}",
        changed
    );
    for r in &adv.repairs {
        assert_eq!(verdict(&r.source), Verdict::No, "{:?}", r.changes);
        // Named as `check --show forbidden` names it (D218): what forbids MP's outcome is Causality.
        assert!(r.forbidden_by.starts_with("Causality (8.10.6)"), "{}", r.forbidden_by);
    }
}

/// MP+rel+acq+noise is forbidden (No) by Causality through the release and
/// acquire on y (8.9.4, 8.10.6); weakening either removes the
/// synchronization and allows the outcome, so no weakening touches them.
/// The noise threads' accesses order nothing the outcome depends on: each
/// can be weakened, and every weakening `check`s to No.
#[test]
fn advise_weakens_only_the_noise_past_the_path_limit() {
    let source = read(&symbolic_test("MP+rel+acq+noise.litmus"));
    let adv = advise_source(&source, &AdviseOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    assert!(!adv.reachable);
    assert_eq!(adv.verdict, Verdict::No);
    assert!(!adv.weakenings.is_empty());
    let all = adv.weakenings.iter().chain(&adv.maximal_weakening);
    for w in all {
        assert!(w.changes.iter().all(|c| c.thread >= 2), "{:?}", w.changes);
        assert_eq!(verdict(&w.source), Verdict::No, "{:?}", w.changes);
    }
    let (code, text) = cli(&["advise", symbolic_test("MP+rel+acq+noise.litmus").to_str().unwrap()]);
    assert_eq!(code, 0, "{}", text);
    assert!(text.contains("the outcome is forbidden (exists: No)"), "{}", text);
}

/// `check --show forbidden` on MP+rel+acq+noise: the state `P1:r0=1;
/// P1:r1=0` is forbidden by Causality (8.10.6): W(x) -po-> the release
/// -sync-> the acquire -po-> R(x), and R(x) reads the initial write, which
/// precedes W(x) in coherence. The candidate is one of the symbolic
/// program's, projected (D218); its state, axiom and cycle are those the
/// path builder's candidates give the twin. The JSON follows the schema and
/// `--dot` writes the candidate's picture.
#[test]
fn check_explains_the_forbidden_state_past_the_path_limit() {
    let dir = tempfile::tempdir().unwrap();
    let shown = |name: &str| {
        let path = symbolic_test(name);
        let dot = dir.path().join(name);
        let args = ["check", "--json", "--show", "forbidden", "--dot", dot.to_str().unwrap(), path.to_str().unwrap()];
        let (code, out) = cli(&args);
        assert_eq!(code, 0, "{}", out);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(crate::common::schema::errors("result.schema.json", &v), Vec::<String>::new());
        (v, dot)
    };
    let (x, dot) = shown("MP+rel+acq+noise.litmus");
    let first = &x["explanation"][0];
    assert_eq!(first["axiom"], "Causality", "{}", x);
    assert_eq!(first["state"], serde_json::json!({ "P1:r0": 1, "P1:r1": 0 }), "{}", x);
    assert!(dot.join("MP+rel+acq+noise-forbidden-1-1.dot").is_file());
    let (twin, _) = shown("MP+rel+acq+noise-twin.litmus");
    for field in ["axiom", "state", "cycle"] {
        assert_eq!(first[field], twin["explanation"][0][field], "{}", field);
    }
}

/// The forbidden states `check --show forbidden` explains are the same
/// whether the tests of `litmus/classic` are built as paths or as symbolic
/// programs (D218): the model forbids the same states of the same program.
/// Every candidate shown for them violates an axiom (8.10), named first.
/// (Which candidate comes first may differ: the programs number their events
/// differently.)
#[test]
fn forbidden_explanations_agree_between_the_encodings() {
    use ptx_litmus::check::{check_source_at, ShowOptions, ThreadEncoding};
    let explained = |src: &str, base: &Path, encoding| {
        let opts = CheckOptions { encoding, ..Default::default() };
        let r = check_source_at(src, base, &opts).ok()?;
        let so = ShowOptions { witness: false, forbidden: true, max: 2, ctx: opts.ctx.clone() };
        let s = ptx_litmus::explain::show(&r, &so).unwrap_or_else(|e| panic!("{}", e.message));
        assert!(s.no_forbidden.is_none());
        for f in &s.forbidden {
            assert!(!f.candidates.is_empty() && f.candidates.iter().all(|x| !x.violations.is_empty()));
        }
        Some(s.forbidden.iter().map(|f| f.state.clone()).collect::<Vec<_>>())
    };
    let files = ptx_litmus::check::collect_files(&[root().join("litmus/classic")]);
    let mut compared = 0;
    for f in &files {
        let src = read(f);
        let base = f.parent().unwrap();
        let Some(symbolic) = explained(&src, base, ThreadEncoding::Symbolic) else { continue };
        let paths = explained(&src, base, ThreadEncoding::Paths).expect("the path builder decides litmus/classic");
        assert_eq!(paths, symbolic, "{}", f.display());
        compared += usize::from(!paths.is_empty());
    }
    assert!(compared >= 20, "only {} tests with forbidden states compared", compared);
}

/// The playground answers a test past the path limit as the command line
/// does: MP+rel+acq+noise is No (Causality, as above), its explanation says
/// the symbolic encoding built it; the relaxed variant's repairs check to No.
#[test]
fn the_playground_answers_tests_past_the_path_limit() {
    use crate::common::http::{post, Server};
    // The advice decides one variant per candidate change: more than the default 10 s on a loaded machine.
    let s = Server::start(&["-j", "2", "--timeout", "300"]);
    let source = read(&symbolic_test("MP+rel+acq+noise.litmus"));
    let v = post(&s.addr, "/api/check", &serde_json::json!({ "source": source })).json();
    assert_eq!(v["check"]["verdict"], "No", "{}", v);
    assert_eq!(v["check"]["explanation"][0]["axiom"], "Causality", "{}", v);
    assert_eq!(v["explain"]["encoding"], "symbolic", "{}", v);
    assert_eq!(v["explain"]["synchronization"][0]["in_some_allowed_execution"], true, "{}", v);
    assert_eq!(v["svg"].as_array().unwrap().len(), v["check"]["executions"].as_array().unwrap().len());
    let relaxed = source.replace("st.release.gpu y, 1", "st.relaxed.gpu y, 1");
    let v = post(&s.addr, "/api/advise", &serde_json::json!({ "source": relaxed })).json();
    assert_eq!(v["advise"]["reachable"], true, "{}", v);
    let sources = v["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{}", v);
    for changed in sources {
        assert_eq!(verdict(changed.as_str().unwrap()), Verdict::No);
    }
}

/// `map` decides the C test with the path builder only (the symbolic builder
/// does not translate C orders): a C test whose thread has 2^13 paths (13
/// reads, each deciding a store) is refused with exit 3, both reasons named.
#[test]
fn map_refuses_a_c_test_past_the_path_limit_saying_why() {
    let n = 13;
    let params: Vec<String> = (0..n).map(|i| format!("atomic_int* z{}", i)).collect();
    let body: Vec<String> = (0..n)
        .map(|i| {
            format!("  int r{i} = atomic_load_explicit(z{i},memory_order_relaxed);\n  if (r{i} == 1) {{\n    atomic_store_explicit(w,1,memory_order_relaxed);\n  }}")
        })
        .collect();
    let stores: Vec<String> =
        (0..n).map(|i| format!("  atomic_store_explicit(z{},1,memory_order_relaxed);", i)).collect();
    let text = format!(
        "C noise\n{{}}\n\nP0 ({ps},atomic_int* w) {{\n{body}\n}}\n\nP1 ({ps}) {{\n{stores}\n}}\n\nexists (0:r0=1)\n",
        ps = params.join(","),
        body = body.join("\n"),
        stores = stores.join("\n")
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("noise.litmus");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(["map", file.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{}", stderr);
    assert!(stderr.contains("thread P0 has more than 4096 paths"), "{}", stderr);
    assert!(
        stderr.contains("the symbolic encoding does not cover this test") && stderr.contains("C test"),
        "{}",
        stderr
    );
}
