//! Helpers for the robustness tests (issue 11): run the release binary with
//! chosen standard streams under a wall-clock guard, and write hostile inputs.

#![allow(dead_code)]

use crate::common::child::wait_or_kill;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// No run may take longer (the suite cannot hang).
pub const WALL_CLOCK: Duration = Duration::from_secs(30);

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub const MP: &str = "litmus/seed/MP.litmus";

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    /// No panic, no abort message, no "internal error".
    pub fn assert_clean(&self, what: &str) {
        for text in [&self.stdout, &self.stderr] {
            for bad in ["panicked", "RUST_BACKTRACE", "internal error", "memory allocation"] {
                assert!(!text.contains(bad), "{}: output contains `{}`:\n{}", what, bad, text);
            }
        }
    }
}

/// A fresh empty folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxl-robust-{}-{}", std::process::id(), name));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

pub fn cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"));
    c.args(args).current_dir(root()).stdin(Stdio::null());
    c
}

/// Wait for `c` (stdout and stderr already set), killing it past `WALL_CLOCK`.
pub fn wait(mut c: Command, what: &str) -> (i32, Duration) {
    let start = Instant::now();
    let mut child = c.spawn().expect("start ptx-litmus");
    let status = wait_or_kill(&mut child, start, WALL_CLOCK, what);
    let code = status.code().unwrap_or_else(|| panic!("{}: killed by a signal ({:?})", what, status));
    (code, start.elapsed())
}

/// Run with stdout and stderr captured in files (never a full pipe).
pub fn run(args: &[&str]) -> Run {
    run_stdin(args, None)
}

/// `run` with `input` on standard input.
pub fn run_stdin(args: &[&str], input: Option<&str>) -> Run {
    let d = temp_dir(&format!("run-{:?}", std::thread::current().id()).replace(['(', ')'], ""));
    let (o, e) = (d.join("out"), d.join("err"));
    let mut c = cmd(args);
    c.stdout(fs::File::create(&o).unwrap()).stderr(fs::File::create(&e).unwrap());
    if let Some(text) = input {
        fs::write(d.join("in"), text).unwrap();
        c.stdin(fs::File::open(d.join("in")).unwrap());
    }
    let (code, elapsed) = wait(c, &format!("{:?}", args));
    let r = Run { code, stdout: fs::read_to_string(&o).unwrap(), stderr: fs::read_to_string(&e).unwrap(), elapsed };
    let _ = fs::remove_dir_all(&d);
    r
}

/// `n` threads in one CTA, each `bar.sync 0`.
pub fn barrier_test(n: usize) -> String {
    let hdr: Vec<String> = (0..n).map(|i| format!("P{}@cta 0,gpu 0", i)).collect();
    let row = vec!["bar.sync 0;"; n];
    format!("PTX bar{}\n{{\nx = 0;\n}}\n {} ;\n {} ;\nexists (x == 0)\n", n, hdr.join(" | "), row.join(" | "))
}

/// A test the solver needs minutes for: `n` threads' `atom.add` on one counter,
/// one adding 2, so the counting facts (D60: one operation) do not apply and
/// refuting `x != n + 1` is a pigeonhole argument; each thread first moves its
/// own number to a register, so no two threads have the same code and symmetry
/// breaking (D70) does not apply either. (A barrier of 100 threads used to be
/// slow; it is now decided in well under a second, D63.)
pub fn slow_test(n: usize) -> String {
    let hdr: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let own: Vec<String> = (0..n).map(|i| format!("mov.u32 r1, {}", i)).collect();
    let row: Vec<String> = (0..n).map(|i| format!("atom.relaxed.gpu.add r0, x, {}", 1 + usize::from(i == 0))).collect();
    format!(
        "PTX slow{}\n{{\nx = 0;\n}}\n {} ;\n {} ;\n {} ;\nforall (x == {})\n",
        n,
        hdr.join(" | "),
        own.join(" | "),
        row.join(" | "),
        n + 1
    )
}

/// One thread storing to one location `n` times.
pub fn stores_test(n: usize) -> String {
    let body: String = (0..n).map(|_| " st.weak x, 1 ;\n").collect();
    format!("PTX st{}\n{{\nx = 0;\n}}\n P0@cta 0,gpu 0 ;\n{}exists (x == 0)\n", n, body)
}

/// `threads` threads (each in its own CTA) storing to one location `stores` times each.
pub fn writers_test(threads: usize, stores: usize) -> String {
    let hdr: Vec<String> = (0..threads).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let row = vec!["st.relaxed.gpu x, 1"; threads].join(" | ");
    let body: String = (0..stores).map(|_| format!(" {} ;\n", row)).collect();
    format!("PTX wr{}x{}\n{{\nx = 0;\n}}\n {} ;\n{}exists (x == 0)\n", threads, stores, hdr.join(" | "), body)
}

/// One thread storing once to each of `n` locations.
pub fn locations_test(n: usize) -> String {
    let init: String = (0..n).map(|i| format!("x{} = 0; ", i)).collect();
    let body: String = (0..n).map(|i| format!(" st.weak x{}, 1 ;\n", i)).collect();
    format!("PTX loc{}\n{{\n{}\n}}\n P0@cta 0,gpu 0 ;\n{}exists (x0 == 0)\n", n, init, body)
}

/// A three-instruction spin loop.
pub const SPIN: &str = "PTX spin\n{\nx = 0;\n}\n P0@cta 0,gpu 0 ;\n LOOP: ;\n ld.global.u32 %r0, [x] ;\n setp.ne.u32 %p1, %r0, 1 ;\n @%p1 bra LOOP ;\nexists (P0:%r0 == 0)\n";

/// `SPIN` counting its polls in a register the condition reads: no iteration
/// comes back to the state it started from, so failed iterations cannot be
/// left out (D113) and `--unroll 1000` really unrolls 1000 of them.
pub const SPIN_COUNTING: &str = "PTX spin-counting\n{\nx = 0;\n}\n P0@cta 0,gpu 0 ;\n LOOP: ;\n ld.global.u32 %r0, [x] ;\n add.u32 %r5, %r5, 1 ;\n setp.ne.u32 %p1, %r0, 1 ;\n @%p1 bra LOOP ;\nexists (P0:%r0 == 0 /\\ P0:%r5 == 1)\n";

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

pub fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(st.success());
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
