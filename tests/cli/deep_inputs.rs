//! Issue 39, "crashes and runaway memory": deep and long inputs to the `.cat`
//! parser and the C front end. Each used to abort on a stack overflow (exit
//! 134) or grow past 6 GB; now a nesting past the bound is an input error at
//! its place (exit 2), and a long flat input is read in linear time and space.

use crate::robust;

use robust::*;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// The built-in PTX model with one more row, `acyclic EXPR as Deep`.
fn model_with(d: &Path, name: &str, expr: &str) -> std::path::PathBuf {
    let base = run(&["model"]);
    assert_eq!(base.code, 0, "{}", base.stderr);
    write(d, name, &format!("{}\nlet deep = {}\nacyclic deep as Deep\n", base.stdout, expr))
}

/// A C test whose one thread runs `body`.
fn c_test(name: &str, body: &str, cond: &str) -> String {
    format!("C {}\n{{}}\nP0 (atomic_int* x) {{\n{}\n}}\n{}\n", name, body, cond)
}

/// Wait for `child`, reading its `VmHWM` (the peak resident size, KB) as it runs.
fn peak_resident_kb(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return (st, peak_kb);
        }
        if let Ok(text) = fs::read_to_string(&status_path) {
            let hwm = text.lines().find(|l| l.starts_with("VmHWM:"));
            peak_kb = peak_kb.max(hwm.and_then(|l| l.split_whitespace().nth(1)?.parse().ok()).unwrap_or(0));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// 30,000 nested parentheses (60 KB) and 100,000 postfix `?` aborted `check
/// --model` and `model --model`; each is an input error at the token past
/// the bound. A 60,000-term union is a model like any other: `po | po | ...`
/// is `po`, and `acyclic po` holds in every execution (program order is a
/// strict order), so MP keeps the built-in model's three states.
#[test]
fn deep_and_long_cat_rows_are_bounded_or_read() {
    let d = temp_dir("deepcat");
    let parens = model_with(&d, "parens.cat", &format!("{}po{}", "(".repeat(30_000), ")".repeat(30_000)));
    let opts = model_with(&d, "opts.cat", &format!("po{}", "?".repeat(100_000)));
    let union = model_with(&d, "union.cat", &["po"].repeat(60_000).join(" | "));
    let line = run(&["model"]).stdout.lines().count() + 2;
    for (f, at, what) in [
        (&parens, format!(":{}:76:", line), "parentheses are nested deeper than 64 levels"),
        (&opts, format!(":{}:269:", line), "nests more than 256 operators deep"),
    ] {
        for args in [vec!["check", "--model", s(f), MP], vec!["model", "--model", s(f)]] {
            let r = run(&args);
            r.assert_clean(s(f));
            assert_eq!(r.code, 2, "{:?}: {}", args, r.stderr);
            assert!(r.stderr.contains(&format!("{}{}", s(f), at)) && r.stderr.contains(what), "{}", r.stderr);
        }
    }
    let r = run(&["check", "--model", s(&union), MP]);
    let base = run(&["check", MP]);
    assert_eq!((r.code, base.code), (0, 0), "{}", r.stderr);
    let states = |out: &str| {
        out.lines()
            .skip(2)
            .take_while(|l| !l.starts_with("Ok") && !l.starts_with("No"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(states(&r.stdout), states(&base.stdout));
    assert_eq!(states(&r.stdout).len(), 3, "{}", r.stdout);
    let printed = run(&["model", "--model", s(&union)]);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
}

/// 100,000 unary minus signs (100 KB) and 50,000 nested blocks aborted the C
/// front end; 20,000 nested `if`s grew to 6.8 GB. Each is an input error now.
#[test]
fn deep_c_statements_and_operators_are_input_errors() {
    let d = temp_dir("deepc");
    let ifs = format!(
        "  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n{} r0 = 1;",
        "if (r0 == 0) ".repeat(20_000)
    );
    let cases = [
        (
            "neg",
            format!("  int r1 = 1;\n  int r0 = {}r1;", "-".repeat(100_000)),
            ":5:12:",
            "more than 64 prefix operators",
        ),
        (
            "blocks",
            format!("{} int r0 = 1; {}", "{".repeat(50_000), "}".repeat(50_000)),
            ":4:64:",
            "statements are nested deeper than 64 levels",
        ),
        ("ifs", ifs, ":5:820:", "statements are nested deeper than 64 levels"),
    ];
    for (name, body, at, what) in cases {
        let f = write(&d, &format!("{}.litmus", name), &c_test(name, &body, "exists (0:r0=0)"));
        let r = run(&["check", s(&f)]);
        r.assert_clean(name);
        assert_eq!(r.code, 2, "{}: {}", name, r.stderr);
        assert!(r.stderr.contains(&format!("{}{}", s(&f), at)) && r.stderr.contains(what), "{}", r.stderr);
    }
}

/// A 40,000-term sum (160 KB) reached 6.6 GB and ran past `--timeout 3`: each
/// of its 40,000 additions carried a copy of the whole statement. It is read
/// in linear space now: the sum of 40,000 ones is 40,000, its one final state.
#[test]
fn a_long_c_sum_is_linear() {
    let d = temp_dir("sumc");
    let body = format!("  int r0 = {};", ["1"].repeat(40_000).join(" + "));
    let f = write(&d, "sum.litmus", &c_test("sum", &body, "forall (0:r0=40000)"));
    assert!(fs::metadata(&f).unwrap().len() < 1 << 20);
    let mut c = cmd(&["check", s(&f), "--timeout", "10"]);
    c.stdout(fs::File::create(d.join("out")).unwrap()).stderr(fs::File::create(d.join("err")).unwrap());
    let start = std::time::Instant::now();
    let (status, peak_kb) = peak_resident_kb(c.spawn().unwrap());
    let (out, err) = (fs::read_to_string(d.join("out")).unwrap(), fs::read_to_string(d.join("err")).unwrap());
    assert_eq!(status.code(), Some(0), "{}", err);
    assert!(out.contains("States 1\n0:r0=40000;\nOk\n"), "{}", out);
    assert!(peak_kb < 1 << 20, "peak {} KB resident", peak_kb);
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
}
