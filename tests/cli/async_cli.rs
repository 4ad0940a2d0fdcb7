//! The async answers end to end: a verdict that depends on which thread's
//! `fence.proxy.async` counts says so (D263, D286).

use std::process::{Command, Output};

fn ptx_litmus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap()
}

/// pytorch/ao #4278 as shipped: the TMA-issuing thread fences after the
/// barrier. Writer-side (the default): the store is unfenced in its own
/// thread, so the TMA store may read the old value (`Ok`); cumulative: the
/// issuer's fence lies on the causality path (`No`). EXPECTED.md argues both.
#[test]
fn the_answer_names_the_other_reading() {
    let test = "tests/async-pending/ao-4278-buggy.litmus";
    let out = ptx_litmus(&["check", test]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{}", stderr);
    assert!(stdout.contains("\nOk\n") && stdout.contains("\nFlag proxy-fence-reading\n"), "{}", stdout);
    assert!(stderr.contains("under the cumulative reading") && stderr.contains("it is No"), "{}", stderr);
    assert!(stderr.contains("--model ptx-cumulative"), "{}", stderr);

    let json = ptx_litmus(&["check", "--json", test]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    assert_eq!(v["verdict"], "Ok");
    assert_eq!(v["other_reading"]["reading"], "cumulative");
    assert_eq!(v["other_reading"]["verdict"], "No");

    let cumulative = ptx_litmus(&["check", "--model", "ptx-cumulative", test]);
    let text = String::from_utf8_lossy(&cumulative.stdout);
    assert!(text.contains("\nNo\n") && !text.contains("proxy-fence-reading"), "{}", text);
}

/// The fixed form fences before the barrier: both readings forbid the stale
/// value, and the answer has no note.
#[test]
fn a_verdict_both_readings_share_has_no_note() {
    let out = ptx_litmus(&["check", "--json", "tests/async-pending/ao-4278-fixed.litmus"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["verdict"], "No");
    assert!(v["other_reading"].is_null(), "{}", v);
}

/// Issue 41 item 4 (D313): a witness allowed because a `fence.proxy.async`
/// is missing says so in the user's terms. FlashKDA #24: W1, P0's generic
/// store of `s` (line 7), precedes R1, P1's bulk-copy read of `s` through the
/// async proxy, in base causality (po, bar.sync, the copy's issue) but not in
/// proxy-preserved base causality (8.6, 8.9.5): the fence is missing in P0
/// between W1 and its `bar.sync 0` (line 8), the reading every answer keeps
/// (D263). The JSON execution carries the same pair (`proxy_gaps`), valid in
/// the schema. Controls: classic MP+weak is allowed for another reason and has
/// no proxy gap; so does a cp.async read before its wait (a generic-proxy
/// copy, D258), whose reason is the missing wait.
#[test]
fn a_witness_names_the_missing_proxy_fence() {
    let test = "litmus/async/core/flashkda-24-no-fence.litmus";
    let out = ptx_litmus(&["check", "--show", "witness", test]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line =
        text.lines().find(|l| l.trim_start().starts_with("Allowed because")).unwrap_or_else(|| panic!("{}", text));
    for want in [
        "W1 (`st.shared.u32 [s], 1` in P0, line 7) writes s",
        "through the generic proxy",
        "R1 (`cp.async.bulk.global.shared::cta.bulk_group [g], [s], 16` in P1, line 8) reads s",
        "through the async proxy",
        "no fence.proxy.async.shared::cta orders them",
        "needed in P0 after W1 and before `bar.sync 0` (line 8)",
    ] {
        assert!(line.contains(want), "missing {:?} in {}", want, line);
    }

    let json = ptx_litmus(&["check", "--json", "--show", "witness", test]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    let errs: Vec<String> =
        crate::common::schema::validator("result.schema.json").iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errs.is_empty(), "{:?}", errs);
    let gap = &v["executions"][0]["proxy_gaps"][0];
    assert_eq!((gap["from"].as_str(), gap["to"].as_str()), (Some("W1"), Some("R1")), "{}", v);
    assert_eq!(gap["fence"], "fence.proxy.async.shared::cta");

    for control in ["litmus/classic/MP+weak.litmus", "litmus/async/core/cp-async-no-wait.litmus"] {
        let out = ptx_litmus(&["check", "--json", "--show", "witness", control]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        let execs = v["executions"].as_array().expect("executions");
        assert!(!execs.is_empty(), "{}", control);
        assert!(execs.iter().all(|x| x["proxy_gaps"].as_array().is_some_and(|g| g.is_empty())), "{}: {}", control, v);
    }
}

/// NVIDIA/TransformerEngine #3417: P1 waits with `cp.async.bulk.wait_group.read
/// 0` for P0's bulk copy, but bulk async-groups are per thread (9.7.9.25,
/// D260): the wait waits for nothing, and the answer says why beside its
/// verdict (Ok: the store of 2 may overwrite the source before the copy reads
/// it). The fix (the issuing thread waits, then a barrier) gets no note.
#[test]
fn a_wait_for_another_threads_copies_is_named() {
    let out = ptx_litmus(&["check", "tests/async-pending/TE-3417-buggy.litmus"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("\nOk\n"), "{}", stdout);
    assert!(
        stderr.contains("P1's `cp.async.bulk.wait_group.read 0` (line 10) waits for no copy")
            && stderr.contains("bulk async-groups are per thread")
            && stderr.contains("the copies of P0"),
        "{}",
        stderr
    );
    let fixed = ptx_litmus(&["check", "tests/async-pending/TE-3417-fixed.litmus"]);
    assert!(!String::from_utf8_lossy(&fixed.stderr).contains("waits for no copy"));
}
