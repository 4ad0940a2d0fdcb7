//! Hostile input: every file under `tests/bad-input/` must be rejected by the
//! release binary with the exit code, `file:line:col:` location, caret and
//! message recorded in its sibling `NAME.expected`:
//!
//! ```text
//! exit: 2            <- 2 input error, 3 limit
//! :6:2:              <- the location suffix after the file name, `-` for none
//! unknown instruction   <- a substring of the one-sentence message
//! ```
//!
//! Also: batch runs over the directory, a 10 MB file, the `--max-events`,
//! `--unroll` and `--timeout` limits, and (ignored by default) an in-process
//! random mutation loop over the corpus: `PTX_LITMUS_FUZZ_ITERS=N cargo test
//! --release --test cli bad_input::mutation_fuzz -- --ignored --nocapture`.

use crate::common::child::wait_or_kill;
use ptx_litmus::context::Ctx;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// No single run may take longer than this (the suite cannot hang).
const WALL_CLOCK: Duration = Duration::from_secs(20);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bad_dir() -> PathBuf {
    root().join("tests/bad-input")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Run the binary with `args` in the crate root; kill it and fail past `WALL_CLOCK`.
fn run(args: &[&str]) -> Run {
    let start = Instant::now();
    let dir =
        std::env::temp_dir().join(format!("ptx-litmus-run-{}-{:?}", std::process::id(), std::thread::current().id()));
    fs::create_dir_all(&dir).unwrap();
    let (out_path, err_path) = (dir.join("stdout"), dir.join("stderr"));
    // Output goes to files, so a chatty child can never block on a full pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("start ptx-litmus");
    let status = wait_or_kill(&mut child, start, WALL_CLOCK, &format!("ptx-litmus {:?}", args));
    let elapsed = start.elapsed();
    let stdout = String::from_utf8_lossy(&fs::read(&out_path).unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&fs::read(&err_path).unwrap()).into_owned();
    let _ = fs::remove_dir_all(&dir);
    let code = status
        .code()
        .unwrap_or_else(|| panic!("ptx-litmus {:?} was killed by a signal ({:?})\n{}", args, status, stderr));
    Run { code, stdout, stderr, elapsed }
}

fn assert_no_panic(r: &Run, what: &str) {
    for text in [&r.stdout, &r.stderr] {
        for bad in ["panicked", "RUST_BACKTRACE", "internal error"] {
            assert!(!text.contains(bad), "{}: output contains `{}`:\n{}", what, bad, text);
        }
    }
}

/// One bad file and what it must produce.
struct Case {
    path: PathBuf,
    exit: i32,
    /// `:6:2:` or `None` when the error has no location.
    loc: Option<String>,
    message: String,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(bad_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries.into_iter().filter(|p| p.extension().is_some_and(|x| x == "litmus")) {
        let exp = path.with_extension("expected");
        let text = fs::read_to_string(&exp).unwrap_or_else(|_| panic!("{} has no {}", path.display(), exp.display()));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{}: expected exactly three lines", exp.display());
        let exit = lines[0].strip_prefix("exit: ").and_then(|s| s.trim().parse().ok());
        let exit = exit.unwrap_or_else(|| panic!("{}: line 1 must be `exit: N`", exp.display()));
        let loc = match lines[1].trim() {
            "-" => None,
            l => {
                let ok = l.starts_with(':')
                    && l.ends_with(':')
                    && l.split(':').filter(|s| !s.is_empty()).all(|n| n.parse::<usize>().is_ok());
                assert!(ok, "{}: line 2 must be `:LINE:COL:` or `-`", exp.display());
                Some(l.to_string())
            }
        };
        out.push(Case { path, exit, loc, message: lines[2].to_string() });
    }
    // Every .expected has its .litmus.
    for e in fs::read_dir(bad_dir()).unwrap().map(|e| e.unwrap().path()) {
        if e.extension().is_some_and(|x| x == "expected") {
            assert!(e.with_extension("litmus").exists(), "{} has no .litmus file", e.display());
        }
    }
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The diagnostic header lines (`FILE:...: error|limit: ...`) of `file` in `stderr`.
fn diagnostics<'a>(stderr: &'a str, file: &str) -> Vec<&'a str> {
    stderr.lines().filter(|l| l.strip_prefix(file).is_some_and(|rest| rest.starts_with(':'))).collect()
}

/// Check one case's output; returns the problems found.
fn check_case(c: &Case, r: &Run) -> Vec<String> {
    let file = rel(&c.path);
    let mut problems = Vec::new();
    if r.code != c.exit {
        problems.push(format!("exit code {} instead of {}", r.code, c.exit));
    }
    for (text, name) in [(&r.stdout, "stdout"), (&r.stderr, "stderr")] {
        for bad in ["panicked", "RUST_BACKTRACE", "internal error"] {
            if text.contains(bad) {
                problems.push(format!("{} contains `{}`", name, bad));
            }
        }
    }
    if !r.stdout.trim().is_empty() {
        problems.push("a rejected file printed a verdict on stdout".to_string());
    }
    if !r.stderr.contains(&c.message) {
        problems.push(format!("message does not contain `{}`", c.message));
    }
    let diags = diagnostics(&r.stderr, &file);
    if diags.len() != 1 {
        problems.push(format!("{} diagnostics for the file instead of 1", diags.len()));
        return problems;
    }
    let header = diags[0];
    match &c.loc {
        None => {
            if !header.starts_with(&format!("{}: ", file)) {
                problems.push(format!("expected no location, got `{}`", header));
            }
        }
        Some(loc) => {
            if !header.starts_with(&format!("{}{} ", file, loc)) {
                problems.push(format!("expected `{}{}`, got `{}`", file, loc, header));
                return problems;
            }
            let nums: Vec<usize> = loc.split(':').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
            problems.extend(check_snippet(c, r, header, nums[0], nums[1]));
        }
    }
    problems
}

/// Below the header: `{line:>5} | {source line}` then `      | {pad}^` with the
/// caret under column `col` (in characters, tabs kept so it lines up). A line
/// longer than 200 characters is shown cut around the column, `...` marking
/// each cut, and the caret still sits under the character at `col`.
fn check_snippet(c: &Case, r: &Run, header: &str, line: usize, col: usize) -> Vec<String> {
    let mut problems = Vec::new();
    let lines: Vec<&str> = r.stderr.lines().collect();
    let i = lines.iter().position(|l| *l == header).unwrap();
    let (Some(src_line), Some(caret_line)) = (lines.get(i + 1), lines.get(i + 2)) else {
        return vec!["no source line and caret after the header".to_string()];
    };
    let bytes = fs::read(&c.path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let want: Vec<char> = text.lines().nth(line - 1).unwrap_or("").chars().collect();
    let src_prefix = format!("{:>5} | ", line);
    let Some(shown) = src_line.strip_prefix(&src_prefix) else {
        return vec![format!("source line should start with `{}`: `{}`", src_prefix, src_line)];
    };
    let core = shown.strip_prefix("...").unwrap_or(shown);
    let core = if want.len() > 200 { core.strip_suffix("...").unwrap_or(core) } else { core };
    let want_s: String = want.iter().collect();
    if !want_s.contains(core) || (want.len() <= 200 && core != want_s) {
        problems.push(format!("source line shown `{}` is not line {} of the file", shown, line));
    }
    match caret_line.strip_prefix("      | ") {
        None => problems.push(format!("no caret line: `{}`", caret_line)),
        Some(rest) => {
            let before: Vec<char> = rest.chars().take_while(|&ch| ch != '^').collect();
            let under = shown.chars().nth(before.len());
            if !rest.contains('^') || before.iter().any(|&ch| ch != ' ' && ch != '\t') {
                problems.push(format!("caret line is not blanks then `^`: `{}`", caret_line));
            } else if col <= want.len() && under != want.get(col - 1).copied() {
                problems.push(format!("caret under {:?} instead of column {} ({:?})", under, col, want.get(col - 1)));
            } else if col > want.len() && want.len() <= 200 && before.len() + 1 != col {
                problems.push(format!("caret after the end expected at column {}", col));
            }
        }
    }
    problems
}

#[test]
fn every_bad_file_gets_its_diagnostic() {
    let cases = cases();
    assert!(cases.len() >= 30, "only {} bad-input files", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let file = rel(&c.path);
        let r = run(&["check", &file]);
        let problems = check_case(c, &r);
        if !problems.is_empty() {
            failures.push(format!("{}:\n  - {}\n--- stderr:\n{}", file, problems.join("\n  - "), r.stderr));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad-input files misbehave:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The whole directory in one batch: every file reported exactly once, and the
/// exit code is the worst one (3, because of the limit cases).
#[test]
fn batch_over_the_directory_reports_every_file() {
    let cases = cases();
    let r = run(&["check", "tests/bad-input"]);
    assert_no_panic(&r, "batch");
    let worst = cases.iter().map(|c| c.exit).max().unwrap();
    assert_eq!(r.code, worst, "batch exit code\n{}", r.stderr);
    for c in &cases {
        let file = rel(&c.path);
        let d = diagnostics(&r.stderr, &file);
        assert_eq!(d.len(), 1, "{}: {} diagnostics in the batch\n{}", file, d.len(), r.stderr);
        assert!(d[0].contains(&c.message) || r.stderr.contains(&c.message), "{}: message missing in the batch", file);
    }
    let total = r.stderr.lines().filter(|l| l.starts_with("tests/bad-input/")).count();
    assert_eq!(total, cases.len(), "one error per file\n{}", r.stderr);
    assert!(r.stdout.trim().is_empty(), "no verdicts expected:\n{}", r.stdout);
}

/// Only input errors: the batch exits with 2.
#[test]
fn batch_of_input_errors_exits_2() {
    let files: Vec<String> = cases().iter().filter(|c| c.exit == 2).map(|c| rel(&c.path)).collect();
    let mut args = vec!["check"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&args);
    assert_no_panic(&r, "batch");
    assert_eq!(r.code, 2, "{}", r.stderr);
    for f in &files {
        assert_eq!(diagnostics(&r.stderr, f).len(), 1, "{} not reported once", f);
    }
}

/// A fresh temporary directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-litmus-{}-{}", name, std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn good_file_among_bad_ones_still_gets_its_verdict() {
    let d = temp_dir("mixed");
    fs::copy(root().join("litmus/isa/MP-fence.litmus"), d.join("b-good.litmus")).unwrap();
    for n in ["unknown-instruction", "non-utf8", "deep-parentheses"] {
        fs::copy(bad_dir().join(format!("{}.litmus", n)), d.join(format!("{}.litmus", n))).unwrap();
    }
    let ds = d.display().to_string();
    let r = run(&["check", &ds]);
    assert_no_panic(&r, "mixed batch");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.contains("Test MP-fence "), "verdict of the good file missing:\n{}", r.stdout);
    assert!(r.stdout.contains("Observation MP-fence "), "{}", r.stdout);
    for n in ["unknown-instruction", "non-utf8", "deep-parentheses"] {
        let f = d.join(format!("{}.litmus", n)).display().to_string();
        assert_eq!(diagnostics(&r.stderr, &f).len(), 1, "{} not reported once:\n{}", f, r.stderr);
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn ten_megabyte_file_is_rejected_quickly() {
    let d = temp_dir("huge");
    let f = d.join("huge.litmus");
    let mut text = String::from("PTX huge\n{\nx = 0;\n}\n P0@cta 0,gpu 0 ;\n");
    let row = " st.weak x, 1 ;\n";
    while text.len() < 10 << 20 {
        text.push_str(row);
    }
    text.push_str("exists (x == 1)\n");
    fs::write(&f, &text).unwrap();
    let fs_ = f.display().to_string();
    let r = run(&["check", &fs_]);
    assert_no_panic(&r, "10 MB file");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{}: error: the file is {} bytes, more than the", fs_, text.len())),
        "{}",
        r.stderr
    );
    assert!(r.elapsed < Duration::from_secs(5), "took {:?}", r.elapsed);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn max_events_limit_names_the_flag() {
    let r = run(&["check", "litmus/isa/MP-fence.litmus", "--max-events", "3"]);
    assert_no_panic(&r, "--max-events");
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("litmus/isa/MP-fence.litmus: limit: "), "{}", r.stderr);
    assert!(r.stderr.contains("--max-events 3"), "{}", r.stderr);
    let ok = run(&["check", "litmus/isa/MP-fence.litmus", "--max-events", "100"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}

/// A loop that needs 4 iterations: too few with the default `--unroll 2`, fine with 4.
#[test]
fn unroll_limit_names_the_flag() {
    let d = temp_dir("unroll");
    let f = d.join("count.litmus");
    fs::write(&f, "PTX count\n{\nx = 0;\n}\n P0@cta 0,gpu 0 ;\n mov r1, 0 ;\n L: add r1, r1, 1 ;\n blt r1, 4, L ;\n st.weak x, r1 ;\nexists (x == 4)\n").unwrap();
    let fs_ = f.display().to_string();
    let r = run(&["check", &fs_]);
    assert_no_panic(&r, "--unroll");
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("raise --unroll"), "{}", r.stderr);
    let ok = run(&["check", &fs_, "--unroll", "4"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stdout.contains("Test count Allowed"), "{}", ok.stdout);
    // A loop that can never exit (`L: goto L`) is no limit of the bound: P0
    // never terminates, so no execution has a final state (D299). Argued:
    // `exists` over no state is No, with the deadlock flag, at any bound.
    let inf = d.join("infinite.litmus");
    fs::write(&inf, "PTX infinite-loop\n{\nx = 0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n L: goto L      | ld.weak r0, x  ;\nexists (P1:r0 == 0)\n").unwrap();
    for bound in ["2", "7"] {
        let r = run(&["check", &inf.display().to_string(), "--unroll", bound]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains("\nNo\n") && r.stdout.contains("Flag deadlock"), "{}", r.stdout);
        assert!(
            r.stderr.contains("P0 never leaves its spin loop (the first at `L` (line 6, thread P0))"),
            "{}",
            r.stderr
        );
    }
    let _ = fs::remove_dir_all(&d);
}

/// Six threads that each store and load one location twice: far too slow to
/// list every final state (`--states all`; its verdict alone is quick).
fn slow_test() -> String {
    let n = 6;
    let head: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let mut text = format!("PTX slow\n{{\nx = 0;\n}}\n {} ;\n", head.join(" | "));
    for j in 0..2 {
        let st: Vec<String> = (0..n).map(|i| format!("st.relaxed.gpu x, {}", i * 2 + j + 1)).collect();
        let ld: Vec<String> = (0..n).map(|_| format!("ld.relaxed.gpu r{}, x", j)).collect();
        text.push_str(&format!(" {} ;\n {} ;\n", st.join(" | "), ld.join(" | ")));
    }
    let cond: Vec<String> = (0..n).map(|i| format!("P{}:r0 == 0", i)).collect();
    text + &format!("exists ({})\n", cond.join(" /\\ "))
}

#[test]
fn timeout_is_reported_and_the_batch_goes_on() {
    let d = temp_dir("timeout");
    fs::write(d.join("a-slow.litmus"), slow_test()).unwrap();
    fs::copy(root().join("litmus/isa/CoRR.litmus"), d.join("b-good.litmus")).unwrap();
    let ds = d.display().to_string();
    let r = run(&["check", &ds, "--timeout", "1", "--states", "all"]);
    assert_no_panic(&r, "--timeout");
    assert_eq!(r.code, 3, "{}", r.stderr);
    let slow = d.join("a-slow.litmus").display().to_string();
    let diag = diagnostics(&r.stderr, &slow);
    assert_eq!(diag.len(), 1, "{}", r.stderr);
    assert!(diag[0].contains("limit: timeout") && diag[0].contains("--timeout"), "{}", diag[0]);
    assert!(r.stdout.contains("Test CoRR "), "the next file's verdict is missing:\n{}", r.stdout);
    assert!(r.elapsed < Duration::from_secs(10), "took {:?}", r.elapsed);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn json_errors_carry_the_location() {
    let r = run(&["check", "--json", "tests/bad-input/unknown-instruction.litmus"]);
    assert_no_panic(&r, "--json");
    assert_eq!(r.code, 2);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("one JSON object");
    assert_eq!(v["error"]["kind"], "input");
    assert_eq!(v["error"]["line"], 6);
    assert_eq!(v["error"]["column"], 2);
    assert_eq!(v["error"]["exit_code"], 2);
}

// ---- in-process random mutation loop ------------------------------------

/// xorshift64*: a tiny deterministic generator (no extra dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Tokens worth splicing in: they reach deeper than random bytes.
const DICT: &[&str] = &[
    "ld",
    "st",
    "atom",
    "red",
    "fence",
    "membar",
    "bar",
    "barrier",
    ".cluster",
    ".arrive",
    ".wait",
    ".sync",
    ".red",
    ".popc",
    ".relaxed",
    ".acquire",
    ".release",
    ".acq_rel",
    ".sc",
    ".weak",
    ".volatile",
    ".mmio",
    ".cta",
    ".gpu",
    ".sys",
    ".shared",
    ".global",
    ".u32",
    ".u64",
    ".v4",
    ".add",
    ".cas",
    ".exch",
    ".sub",
    ".proxy",
    ".alias",
    "goto",
    "bra",
    "@%p1",
    "@!p0",
    "beq",
    "bne",
    "setp.eq.u32",
    "selp.u32",
    "mov",
    "add",
    "div",
    "rem",
    "shl",
    "L0:",
    "L0",
    "|",
    ";",
    ",",
    "(",
    ")",
    "[",
    "]",
    "+",
    "-",
    "{",
    "}",
    "P0:",
    "P1:",
    "P9:",
    "%r1",
    "r0",
    "x",
    "y",
    "exists",
    "~exists",
    "forall",
    "locations",
    "filter",
    "/\\",
    "\\/",
    "~",
    "=>",
    "==",
    "!=",
    "0x7fffffffffffffff",
    "-9223372036854775808",
    "99999999999999999999",
    "4294967296",
    "-1",
    "0",
    "1",
    "16",
    "1024",
    "(*",
    "*)",
    "\"",
    "//",
    "\n",
    "\t",
    "@cta 0,gpu 0",
    "@cta 1,cluster 1,gpu 1",
    "texture",
    "surface",
    "constant",
    "aliases",
    " @ ",
    "tld",
    "suld",
    "sust",
    "suatom",
    "sured",
    "ldc",
    "cvta",
    "\u{0}",
    "\u{ffff}",
    "é",
];

fn mutate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut data = corpus[rng.below(corpus.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next() as u8;
            }
            2 => data.truncate(rng.below(len + 1)),
            3 if len > 0 => {
                let (a, b) = (rng.below(len), rng.below(len));
                let (a, b) = (a.min(b), a.max(b).min(a.min(b) + 64));
                data.drain(a..b);
            }
            4 => {
                // Splice: our head, another file's tail.
                let other = &corpus[rng.below(corpus.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            5 | 6 => {
                let tok = DICT[rng.below(DICT.len())].as_bytes();
                let i = rng.below(len + 1);
                data.splice(i..i, tok.iter().copied());
            }
            7 if len > 0 => {
                // Duplicate a slice (lines, rows, parentheses).
                let a = rng.below(len);
                let b = (a + 1 + rng.below(80)).min(len);
                let piece = data[a..b].to_vec();
                for _ in 0..1 + rng.below(3) {
                    data.splice(a..a, piece.iter().copied());
                }
            }
            _ => {
                // Replace a number with a random one.
                let i = rng.below(len + 1);
                let n = match rng.below(3) {
                    0 => rng.below(20).to_string(),
                    1 => (rng.next() as i64).to_string(),
                    _ => format!("0x{:x}", rng.next()),
                };
                data.splice(i..i, n.into_bytes());
            }
        }
    }
    data
}

fn corpus() -> Vec<Vec<u8>> {
    let mut files = ptx_litmus::check::collect_files(&[root().join("litmus"), bad_dir()]);
    files.retain(|f| f.file_name().is_some_and(|n| n != "deep-parentheses.litmus"));
    let public = root().join("tests/conformance/litmus");
    if public.is_dir() {
        files.extend(ptx_litmus::check::collect_files(&[public]));
    }
    files.iter().map(|f| fs::read(f).unwrap()).collect()
}

/// Mutate corpus files (bit flips, truncation, splicing, dictionary tokens) and
/// run the whole pipeline on each mutant; any panic or run over the time guard
/// fails. `PTX_LITMUS_FUZZ_ITERS` (default 2000), `PTX_LITMUS_FUZZ_SEED`.
/// The input being run is kept in `target/fuzz-current.litmus` (for an abort
/// such as a stack overflow); failing inputs go to `target/fuzz-findings/`.
#[test]
#[ignore]
fn mutation_fuzz() {
    use ptx_litmus::check::{check_source, CheckOptions};
    use ptx_litmus::program::BuildOptions;
    let iters: u64 = std::env::var("PTX_LITMUS_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let seed: u64 = std::env::var("PTX_LITMUS_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    }) | 1;
    eprintln!("mutation_fuzz: {} iterations, seed {}", iters, seed);
    let corpus = corpus();
    let mut rng = Rng(seed);
    let target = root().join("target");
    let findings = target.join("fuzz-findings");
    let current = target.join("fuzz-current.litmus");
    let opts = CheckOptions {
        build: BuildOptions { max_events: 2_000, ..Default::default() },
        ctx: Ctx::default().with_timeout(Some(Duration::from_secs(2))),
        ..Default::default()
    };
    let guard = Duration::from_secs(20);
    let start = Instant::now();
    let (mut failures, mut ok, mut input_err, mut limit_err, mut slowest) =
        (Vec::new(), 0u64, 0u64, 0u64, Duration::ZERO);
    for i in 0..iters {
        let data = mutate(&mut rng, &corpus);
        let _ = fs::write(&current, &data);
        let text = String::from_utf8_lossy(&data).into_owned();
        let (tx, rx) = std::sync::mpsc::channel();
        let (t2, o2) = (text.clone(), opts.clone());
        let t0 = Instant::now();
        std::thread::spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_source(&t2, &o2)));
            let _ = tx.send(r.map(|r| r.map_err(|e| e.kind)).map_err(|p| {
                p.downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default()
            }));
        });
        let verdict = match rx.recv_timeout(guard) {
            Ok(Ok(Ok(_))) => {
                ok += 1;
                None
            }
            Ok(Ok(Err(ptx_litmus::error::ErrorKind::Input))) => {
                input_err += 1;
                None
            }
            Ok(Ok(Err(ptx_litmus::error::ErrorKind::Limit))) => {
                limit_err += 1;
                None
            }
            Ok(Ok(Err(ptx_litmus::error::ErrorKind::Internal))) => Some("internal error".to_string()),
            Ok(Err(panic)) => Some(format!("panic: {}", panic)),
            Err(_) => Some(format!("no answer within {:?}", guard)),
        };
        slowest = slowest.max(t0.elapsed());
        if let Some(why) = verdict {
            fs::create_dir_all(&findings).unwrap();
            let f = findings.join(format!("{}-{}.litmus", seed, i));
            fs::write(&f, &data).unwrap();
            eprintln!("iteration {}: {} ({})", i, why, f.display());
            failures.push(why);
            if failures.len() >= 20 {
                break;
            }
        }
    }
    let _ = fs::remove_file(&current);
    eprintln!(
        "mutation_fuzz: {} iterations in {:.1} s: {} verdicts, {} input errors, {} limits, {} failures; slowest {:?}",
        iters,
        start.elapsed().as_secs_f64(),
        ok,
        input_err,
        limit_err,
        failures.len(),
        slowest
    );
    assert!(failures.is_empty(), "{} failing inputs under {}", failures.len(), findings.display());
}
