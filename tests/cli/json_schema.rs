//! Every kind of JSON the command line prints, validated against the
//! project's schemas (`schema/`) with the `jsonschema` crate: `check` results
//! and failures, with `--show`, with `--expect`; `explain`; `advise`; `run`
//! (`--emit` without a GPU, real runs where one is present).

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn ptx_litmus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap()
}

/// Each stdout line is one object valid in `schema`; returns them.
fn objects(schema: &str, out: &Output) -> Vec<Value> {
    let v = common::schema::validator(schema);
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let objs: Vec<Value> =
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({}): {}", e, l))).collect();
    for o in &objs {
        let errs: Vec<String> = v.iter_errors(o).map(|e| format!("{}: {}", e.instance_path(), e)).collect();
        assert!(errs.is_empty(), "{} breaks {}:\n{}", o, schema, errs.join("\n"));
    }
    objs
}

#[test]
fn check_results_and_failures() {
    let out = ptx_litmus(&["check", "--json", "litmus", "tests/conformance/litmus", "tests/bad-input"]);
    let objs = objects("result.schema.json", &out);
    let failures = objs.iter().filter(|o| o.get("error").is_some()).count();
    assert!(objs.len() > 400 && failures > 50, "{} objects, {} failures", objs.len(), failures);
    // time_ms: milliseconds to the microsecond, not 17 digits of noise.
    for o in objs.iter().filter_map(|o| o.get("time_ms")) {
        let t = o.as_f64().unwrap();
        assert_eq!((t * 1000.0).round() / 1000.0, t, "{}", t);
    }
}

#[test]
fn check_with_expect() {
    for (csv, want) in
        [("litmus/expected.csv", 140), ("tests/conformance/expected.csv", 110), ("litmus/compiled/expected.csv", 20)]
    {
        let out = ptx_litmus(&["check", "--json", "--expect", csv]);
        let objs = objects("result.schema.json", &out);
        assert!(objs.len() > want, "{}: {}", csv, objs.len());
        assert!(objs.iter().all(|o| o.get("expected").is_some() && o.get("match").is_some()), "{}", csv);
    }
    // A file the CSV does not list: `expected` null; a failing file keeps its error.
    let out = ptx_litmus(&[
        "check",
        "--json",
        "--expect",
        "litmus/expected.csv",
        "litmus/seed/MP.litmus",
        "tests/bad-input/blank.litmus",
    ]);
    let objs = objects("result.schema.json", &out);
    assert_eq!(objs.len(), 2);
    assert!(objs.iter().any(|o| o.get("error").is_some() && o.get("expected").is_some()));
}

#[test]
fn check_with_show() {
    let out = ptx_litmus(&[
        "check",
        "--json",
        "--show",
        "witness,forbidden",
        "litmus/seed",
        "litmus/classic/MP+rel+acq.litmus",
        "litmus/classic/SB+membar.gl.litmus",
        "litmus/classic/LB+relaxed.litmus",
    ]);
    let objs = objects("result.schema.json", &out);
    assert!(objs.iter().any(|o| o.get("explanation").is_some_and(|e| !e.as_array().unwrap().is_empty())));
    assert!(objs.iter().filter(|o| o.get("executions").is_some()).count() >= 3);
}

#[test]
fn explain_and_its_failures() {
    let out = ptx_litmus(&["explain", "--json", "litmus/classic", "tests/bad-input/blank.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    let objs = objects("explain.schema.json", &out);
    assert!(objs.len() > 60);
    assert!(objs.iter().any(|o| o.get("error").is_some()));
    // The JSON says what the text says: same test, same pairs.
    let text = String::from_utf8(ptx_litmus(&["explain", "litmus/seed/MP.litmus"]).stdout).unwrap();
    let json = &objects("explain.schema.json", &ptx_litmus(&["explain", "--json", "litmus/seed/MP.litmus"]))[0];
    assert_eq!(
        text.lines().filter(|l| l.contains(": yes: ") || l.contains(": no: ")).count(),
        json["morally_strong"].as_array().unwrap().len()
    );
}

#[test]
fn advise_and_its_failures() {
    let out =
        ptx_litmus(&["advise", "--json", "litmus/advise", "litmus/seed/MP.litmus", "tests/bad-input/blank.litmus"]);
    let objs = objects("advise.schema.json", &out);
    // litmus/advise's three tests, MP, and the blank file's error.
    assert_eq!(objs.len(), 5);
    assert_eq!(objs.iter().filter(|o| o.get("error").is_some()).count(), 1);
}

#[test]
fn run_emit_without_a_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let out = ptx_litmus(&["run", "--json", "--emit", dir.path().to_str().unwrap(), "litmus/classic", "litmus/dat3m"]);
    let objs = objects("run.schema.json", &out);
    assert!(objs.iter().any(|o| o["status"] == "emitted"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `run --json` on a GPU: skipped (with the reason) where there is none.
#[test]
fn run_on_a_gpu() {
    let out = ptx_litmus(&[
        "run",
        "--json",
        "--iterations",
        "2k",
        "--per-launch",
        "1k",
        "litmus/seed/MP.litmus",
        "litmus/classic/LB+relaxed.litmus",
    ]);
    if out.status.code() == Some(3) {
        eprintln!("skipped: no GPU ({})", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or(""));
        return;
    }
    let objs = objects("run.schema.json", &out);
    assert!(objs.iter().any(|o| o["status"] == "ran"));
}

/// The validator rejects what the schemas exclude, so the tests above can fail.
#[test]
fn the_validator_rejects_what_the_schema_excludes() {
    let out = ptx_litmus(&["check", "--json", "litmus/seed/MP.litmus"]);
    let good = objects("result.schema.json", &out).remove(0);
    let v = common::schema::validator("result.schema.json");
    for (field, bad) in [("verdict", Value::from("Maybe")), ("unknown", Value::from(1)), ("time_ms", Value::from(-1))] {
        let mut o = good.clone();
        o[field] = bad;
        assert!(!v.is_valid(&o), "{} accepted", field);
    }
    let mut o = good.clone();
    o.as_object_mut().unwrap().remove("states");
    assert!(!v.is_valid(&o));
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/explain.schema.json").is_file());
    let e = common::schema::validator("explain.schema.json");
    assert!(!e.is_valid(&good), "a check result is no explanation");
}

/// `map --json`: one object per C test, valid in `map.schema.json`, whose
/// verdicts are the ones `tests/engines/c11_map.rs` argues (`sc-rmw-acquire` breaks
/// Figure 12's ISA2 and no other test of `tests/c11/mapping`); a file that
/// fails is a failure object; the summary goes to stderr.
#[test]
fn map_results_and_failures() {
    let out = ptx_litmus(&[
        "map",
        "--json",
        "--mapping",
        "sc-rmw-acquire",
        "tests/c11/mapping",
        "tests/bad-input/c-cas-bad-order.litmus",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let objs = objects("map.schema.json", &out);
    assert_eq!(objs.len(), 5);
    let verdict = |name: &str| objs.iter().find(|o| o["name"] == name).map(|o| o["verdict"].clone());
    assert_eq!(verdict("ISA2+rmw-sc+fig12"), Some(Value::from("unsound")));
    assert_eq!(verdict("SB+sc"), Some(Value::from("sound")));
    let isa2 = objs.iter().find(|o| o["name"] == "ISA2+rmw-sc+fig12").unwrap();
    assert_eq!(isa2["unsound_states"][0], serde_json::json!({"P1:r0": 1, "P2:r1": 3, "P2:r2": 0}));
    assert!(isa2["counterexamples"][0]["explanation"].as_str().unwrap().contains("Forbidden by coherence1"));
    assert_eq!(isa2["source"]["verdict"], "No");
    assert!(objs.iter().any(|o| o["error"]["line"] == 4), "the failure object");
    assert!(String::from_utf8_lossy(&out.stderr).contains("5 tests: sound 3, unsound 1, racy 0, errors 1"));
}
