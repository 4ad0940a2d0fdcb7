//! The pipeline for one file: text -> AST -> program -> engine -> outcome, with
//! limits (unroll, events, time) and errors kept apart from results.

use crate::error::{Error, ErrorKind, Result};
use crate::outcome::{Outcome, Summary};
use crate::program::{build_program, BuildOptions, Program};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// SAT encoding solved by varisat (default).
    Sat,
    /// Plain explicit enumeration of candidate executions (slow, for cross-checking).
    Reference,
}

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub build: BuildOptions,
    pub engine: Engine,
    /// Per-test wall-clock limit.
    pub timeout: Option<Duration>,
    /// Largest input file accepted, in bytes.
    pub max_file_bytes: usize,
    /// Most candidate executions the reference engine examines.
    pub reference_max_candidates: u64,
    /// Most distinct final states the SAT engine enumerates.
    pub max_states: usize,
    /// Re-check each execution the SAT engine reports with the reference engine's
    /// relations and axioms (an internal error, exit 3, on disagreement).
    pub self_check: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            build: BuildOptions::default(),
            engine: Engine::Sat,
            timeout: None,
            max_file_bytes: 1 << 20,
            reference_max_candidates: crate::reference::ReferenceOptions::default().max_candidates,
            max_states: crate::sat::SolveOptions::default().max_states,
            self_check: crate::sat::SolveOptions::default().self_check,
        }
    }
}

/// The result of checking one test.
#[derive(Clone, Debug)]
pub struct TestResult {
    pub program: Program,
    pub outcome: Outcome,
    pub summary: Summary,
    pub time: Duration,
}

/// A file's text (for error snippets) and what became of it.
pub struct FileReport {
    pub path: PathBuf,
    pub source: String,
    pub result: Result<TestResult>,
}

/// Check a litmus test given as text.
pub fn check_source(source: &str, opts: &CheckOptions) -> Result<TestResult> {
    let start = Instant::now();
    let deadline = opts.timeout.map(|t| start + t);
    let ast = crate::parse::parse_litmus(source)?;
    let program = build_program(&ast, &opts.build)?;
    let outcome = run_engine(&program, opts, deadline)?;
    let summary = outcome.summary(&program);
    Ok(TestResult { program, outcome, summary, time: start.elapsed() })
}

fn run_engine(p: &Program, opts: &CheckOptions, deadline: Option<Instant>) -> Result<Outcome> {
    match opts.engine {
        Engine::Sat => crate::sat::check(p, &crate::sat::SolveOptions { deadline, max_states: opts.max_states, self_check: opts.self_check }),
        Engine::Reference => crate::reference::check(p, &crate::reference::ReferenceOptions { max_candidates: opts.reference_max_candidates }),
    }
}

/// Check a file; a timeout abandons the test (its worker thread is left to finish
/// in the background) and reports a limit error, so a batch continues.
pub fn check_file(path: &Path, opts: &CheckOptions) -> FileReport {
    let bytes = match read_capped(path, opts.max_file_bytes) {
        Ok(b) => b,
        Err(e) => {
            return FileReport {
                path: path.to_path_buf(),
                source: String::new(),
                result: Err(Error::input_nospan(format!("cannot read the file: {}", e))),
            }
        }
    };
    if bytes.len() > opts.max_file_bytes {
        let msg = match std::fs::metadata(path).map(|m| m.len()) {
            Ok(size) if size > opts.max_file_bytes as u64 => {
                format!("the file is {} bytes, more than the {} bytes a litmus test may have", size, opts.max_file_bytes)
            }
            _ => format!("the file is longer than the {} bytes a litmus test may have", opts.max_file_bytes),
        };
        return FileReport { path: path.to_path_buf(), source: String::new(), result: Err(Error::input_nospan(msg)) };
    }
    let source = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let off = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let span = span_at(&text, off);
            return FileReport { path: path.to_path_buf(), source: text, result: Err(Error::input("the file is not UTF-8 text", span)) };
        }
    };
    let result = with_timeout(&source, opts);
    FileReport { path: path.to_path_buf(), source, result }
}

/// The file's bytes, reading at most `max + 1` of them (a huge or endless file
/// is rejected without reading it all).
fn read_capped(path: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take((max as u64).saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn with_timeout(source: &str, opts: &CheckOptions) -> Result<TestResult> {
    let Some(limit) = opts.timeout else { return guarded(source, opts) };
    let (tx, rx) = mpsc::channel();
    let (src, o) = (source.to_string(), opts.clone());
    std::thread::spawn(move || {
        let _ = tx.send(guarded(&src, &o));
    });
    match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => Err(Error::limit(format!("timeout: no verdict within {} s (--timeout)", limit.as_secs_f64()))),
    }
}

/// Run the pipeline, turning a panic (a bug) into an internal error.
fn guarded(source: &str, opts: &CheckOptions) -> Result<TestResult> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_source(source, opts))) {
        Ok(r) => r,
        Err(p) => {
            let what = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default();
            Err(Error { kind: ErrorKind::Internal, message: format!("internal error (please report): {}", what), span: None })
        }
    }
}

fn span_at(text: &str, offset: usize) -> crate::ast::Span {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    crate::ast::Span { line, col, start: offset, end: offset }
}

/// All `*.litmus` files under the given paths (directories recursively), sorted per directory.
pub fn collect_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out);
        } else {
            out.push(p.clone());
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            walk(&e, out);
        } else if e.extension().is_some_and(|x| x == "litmus") {
            out.push(e);
        }
    }
}
