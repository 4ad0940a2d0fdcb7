//! Batches are isolated and stream (issues 11 and 12): items 10, 12 and 16 of
//! issue 11, and the batch features of issue 12 (order, streaming, summary,
//! `-j`, `-`, `explain` on folders, `--expect` notes and JSON fields, unique
//! picture names).

use crate::robust;

use ptx_litmus::batch::check_file;
use ptx_litmus::check::CheckOptions;
use ptx_litmus::context::Ctx;
use robust::*;
use std::fs;
use std::io::BufRead;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Item 10: a timed-out test stops: the check runs on the calling thread and
/// returns shortly after the deadline, leaving nothing running.
#[test]
fn a_timed_out_check_stops_at_the_deadline() {
    let d = temp_dir("stop");
    let f = write(&d, "slow.litmus", &slow_test(14));
    let limit = Duration::from_millis(200);
    let start = Instant::now();
    let r = check_file(&f, &CheckOptions { ctx: Ctx::default().with_timeout(Some(limit)), ..Default::default() });
    let over = start.elapsed().saturating_sub(limit);
    let e = r.result.expect_err("a timeout");
    assert!(e.message.contains("--timeout"), "{}", e.message);
    // 100 ms is the requirement; the slack is for a loaded CI machine.
    assert!(over < Duration::from_millis(400), "stopped {:?} after the deadline", over);
}

/// Items 10 and 12: 40 timeouts, one good and one bad file: every result is
/// reported, in input order, and the run ends promptly.
#[test]
fn timeouts_do_not_lose_the_rest_of_the_batch() {
    let d = temp_dir("forty");
    let slow = slow_test(14);
    for i in 0..40 {
        write(&d, &format!("t{:02}.litmus", i), &slow);
    }
    fs::copy(root().join(MP), d.join("t20a-good.litmus")).unwrap();
    write(&d, "t30a-bad.litmus", "PTX bad\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n frobnicate x ;\nexists (x == 0)\n");
    let r = run(&["check", s(&d), "--timeout", "0.1", "-j", "2"]);
    r.assert_clean("40 timeouts");
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stdout.contains("Test MP Allowed"), "{}", r.stdout);
    assert!(r.stderr.contains("t30a-bad.litmus:4:2: error:"), "{}", r.stderr);
    assert_eq!(r.stderr.matches("limit: timeout").count(), 40, "{}", r.stderr);
    let (good, bad) = (r.stderr.find("t20.litmus").unwrap(), r.stderr.find("t30a-bad").unwrap());
    assert!(good < bad && bad < r.stderr.find("t31.litmus").unwrap(), "input order:\n{}", r.stderr);
    assert!(r.stderr.contains("42 tests: Ok 0, No 1, errors 1, limits 40, wall time"), "{}", r.stderr);
    assert!(r.elapsed < Duration::from_secs(20), "{:?}", r.elapsed);
}

/// Results stream: the first test's verdict is out while the second still runs.
#[test]
fn results_stream_as_they_are_known() {
    let d = temp_dir("stream");
    let slow = write(&d, "slow.litmus", &slow_test(14));
    let mut c = cmd(&["check", MP, s(&slow), "--timeout", "8", "-j", "2"]);
    let start = Instant::now();
    let mut child = c.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("Observation MP"))).is_some();
    let at = start.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "no verdict for MP");
    assert!(at < Duration::from_secs(6), "MP's verdict came only after {:?}", at);
}

/// Item 16: `--expect` refuses duplicates and paths escaping its folder,
/// accepts a BOM, quotes and a note column; input errors are not hidden by mismatches.
#[test]
fn expect_csv_is_read_strictly() {
    let d = temp_dir("expect");
    fs::copy(root().join(MP), d.join("MP.litmus")).unwrap();
    fs::copy(root().join("litmus/classic/Atom+st.weak.litmus"), d.join("A b.litmus")).unwrap();
    write(&d, "bad.litmus", "PTX bad\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n frobnicate x ;\nexists (x == 0)\n");
    let refused = [
        (
            "test,expected\nMP.litmus,No\n./MP.litmus,Ok\n",
            "3:1: error: `./MP.litmus` is listed twice (first on line 2)",
        ),
        ("test,expected\n../etc/passwd,Ok\n", "stay inside"),
        ("test,expected\n/etc/passwd,Ok\n", "stay inside"),
        ("test,expected\nMP.litmus,maybe\n", "`maybe`"),
    ];
    for (i, (text, msg)) in refused.iter().enumerate() {
        let csv = write(&d, &format!("r{}.csv", i), text);
        let r = run(&["check", "--expect", s(&csv)]);
        assert_eq!(r.code, 2, "{}: {}", text, r.stderr);
        assert!(r.stderr.contains(msg) && r.stderr.contains(":1: error:"), "{}: {}", text, r.stderr);
        assert!(!r.stderr.contains("root:"), "{}", r.stderr);
    }
    let csv =
        write(&d, "ok.csv", "\u{feff}test,expected,note\n\"A b.litmus\",Ok\nMP.litmus,Ok,\"argued, see notes\"\n");
    let r = run(&["check", "--expect", s(&csv)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("2 matched (1 documented deviations)"), "{}", r.stderr);
    assert!(r.stderr.contains("deviation: ") && r.stderr.contains("argued, see notes"), "{}", r.stderr);
    let csv = write(&d, "mixed.csv", "test,expected\nMP.litmus,Ok\nbad.litmus,Ok\n");
    let r = run(&["check", "--expect", s(&csv)]);
    assert_eq!(r.code, 2, "a mismatch must not hide the input error: {}", r.stderr);
    assert!(r.stderr.contains("1 mismatched, 1 errors"), "{}", r.stderr);
    let r = run(&["check", "--json", "--expect", s(&csv)]);
    let first: serde_json::Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["expected"], "Ok");
    assert_eq!(first["match"], false);
}

/// `-` reads a test from standard input; `explain` takes folders; a batch has a
/// summary line on stderr (stdout stays herd records only).
#[test]
fn stdin_explain_folders_and_the_summary() {
    let text = fs::read_to_string(root().join(MP)).unwrap();
    let r = run_stdin(&["check", "-"], Some(&text));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("Test MP Allowed"), "{}", r.stdout);
    assert!(r.stderr.is_empty(), "one test, no summary: {}", r.stderr);
    let r = run(&["explain", "litmus/seed"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.matches("MP").count() >= 1 && r.stdout.len() > 200, "{}", r.stdout);
    let r = run(&["check", "litmus/classic", "-j", "1"]);
    let summary = r.stderr.lines().last().unwrap_or("");
    assert!(summary.contains(" tests: Ok ") && summary.contains("wall time"), "{}", r.stderr);
    assert!(!r.stdout.contains(" tests: Ok "), "the summary is not on stdout");
}

/// Two tests with the same file name get different picture files.
#[test]
fn picture_names_are_unique_per_file() {
    let d = temp_dir("names");
    let src = fs::read_to_string(root().join("litmus/classic/Atom+st.weak.litmus")).unwrap();
    fs::create_dir_all(d.join("a")).unwrap();
    fs::create_dir_all(d.join("b")).unwrap();
    let (a, b) = (write(&d.join("a"), "T.litmus", &src), write(&d.join("b"), "T.litmus", &src));
    let pics = d.join("pics");
    let r = run(&["check", s(&a), s(&b), "--show", "witness", "--max-show", "1", "--dot", s(&pics)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names: Vec<String> =
        fs::read_dir(&pics).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "{:?}", names);
    assert!(names.iter().any(|n| n.contains("a__T")) && names.iter().any(|n| n.contains("b__T")), "{:?}", names);
}

/// Issue 39 (item 8): a directory walk left out the `*.harness` files that
/// `map --emit` writes without a word, and a directory with no test exited 0
/// in silence. Now (D248) a walk names the harnesses it leaves out (checked
/// when named), and a directory given with no `*.litmus` file is an input
/// error (exit 2) saying what it holds. MP with release/acquire at .gpu is No
/// (Causality, 8.10.6), so the harness named alone exits 0.
#[test]
fn directories_say_what_they_left_out() {
    let d = temp_dir("held");
    let mp = fs::read_to_string(root().join(MP)).unwrap();
    let empty = d.join("empty");
    fs::create_dir_all(&empty).unwrap();
    let r = run(&["check", s(&empty)]);
    r.assert_clean("empty");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("empty: error: no test to check in this directory: no *.litmus file; it is empty"),
        "{}",
        r.stderr
    );
    // What `map --emit --nvcc` writes: a .cu, a .ptx and a .harness.
    let emit = d.join("emit");
    fs::create_dir_all(&emit).unwrap();
    write(&emit, "MP.harness", &mp);
    write(&emit, "MP.cu", "// source\n");
    write(&emit, "MP.ptx", "// module\n");
    let r = run(&["check", s(&emit)]);
    r.assert_clean("emit");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not checked: 1 *.harness file (a directory walk takes *.litmus files; check a harness by naming it): MP.harness"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("it holds 1 *.harness file (named above) and 2 other files that are not tests (MP.cu, MP.ptx)"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let r = run(&["check", s(&emit.join("MP.harness"))]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Test MP Allowed") && r.stdout.contains("\nNo\n"), "{}", r.stdout);
    // Beside a test the harness is named and the test checked (exit 0); -q drops the note.
    write(&emit, "MP2.litmus", &mp.replacen("PTX MP", "PTX MP2", 1));
    let r = run(&["check", s(&emit)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Test MP2 Allowed"), "{}", r.stdout);
    assert!(r.stderr.contains("not checked: 1 *.harness file"), "{}", r.stderr);
    let r = run(&["check", "-q", s(&emit)]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    // An empty directory beside a test: the test is checked, the exit is 2.
    let r = run(&["check", s(&emit.join("MP2.litmus")), s(&empty)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.contains("Test MP2 Allowed"), "{}", r.stdout);
    // explain and advise walk the same way.
    for cmd in ["explain", "advise"] {
        let r = run(&[cmd, s(&empty)]);
        assert_eq!(r.code, 2, "{}: {}", cmd, r.stderr);
        assert!(r.stderr.contains("no test to check in this directory"), "{}: {}", cmd, r.stderr);
    }
}
