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
