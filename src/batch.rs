//! Batches (issue 12): tests run on `-j N` worker threads and their results are
//! handed out in input order as soon as each is known. A worker takes the next
//! test in order, so only results overtaken by a slower earlier test wait.
//!
//! One file is checked and explained under one budget ([`check_file`]): the
//! check itself is `crate::check`, the explanation `crate::explain`.

use crate::check::{check_source_at, guarded, model_for, read_source, CheckOptions, TestResult};
use crate::error::ErrorKind;
use crate::error::Result;
use crate::explain::{ShowOptions, Shown};
use crate::outcome::Verdict;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Stack of a worker: the parser recurses on nested conditions.
pub(crate) const WORKER_STACK: usize = 64 << 20;

/// Run `work` on every item with `jobs` threads; `emit` sees the results in
/// input order, on the calling thread, as soon as each (and all before it) is done.
pub fn run_ordered<T: Send>(items: &[PathBuf], jobs: usize, work: impl Fn(&Path) -> T + Sync, mut emit: impl FnMut(T)) {
    let jobs = jobs.clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let (tx, next, work) = (tx.clone(), &next, &work);
            std::thread::Builder::new()
                .stack_size(WORKER_STACK)
                .spawn_scoped(s, move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                })
                .expect("start a worker thread");
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, T> = BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&want) {
                emit(r);
                want += 1;
            }
        }
    });
}

/// The default `-j`: one worker per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A file's text (for error snippets) and what became of it.
pub struct FileReport {
    pub path: PathBuf,
    pub source: String,
    pub result: Result<TestResult>,
    /// With `CheckOptions::show`: the explanation, computed under the same deadline.
    pub shown: Option<Result<Shown>>,
}

/// Check a file (and explain it with `opts.show`) under one deadline and one
/// memory budget; hitting either is a limit error and the batch goes on.
pub fn check_file(path: &Path, opts: &CheckOptions) -> FileReport {
    let source = match read_source(path, opts.max_file_bytes) {
        Ok(s) => s,
        Err((source, e)) => return FileReport { path: path.to_path_buf(), source, result: Err(e), shown: None },
    };
    let base = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    check_text(path, source, base, opts)
}

/// `check_file` for a text already read: `path` names it in messages, `base`
/// is the folder its `ptx "FILE";` paths are relative to.
pub fn check_text(path: &Path, source: String, base: &Path, opts: &CheckOptions) -> FileReport {
    let (result, shown) = match guarded(opts, || {
        let r = check_source_at(&source, base, opts)?;
        // Explanations read the rows of the model that decided the test.
        let model = model_for(r.program.c11.is_some(), opts)?;
        let shown = opts
            .show
            .as_ref()
            .map(|so| crate::explain::show(&r, &ShowOptions { ctx: opts.ctx.with_model(model), ..so.clone() }));
        Ok((r, shown))
    }) {
        Ok((r, s)) => (Ok(r), s),
        Err(e) => (Err(e), None),
    };
    FileReport { path: path.to_path_buf(), source, result, shown }
}

/// Counts for the closing summary line.
#[derive(Default, Debug, Clone, Copy)]
pub struct Summary {
    pub ok: usize,
    pub no: usize,
    pub errors: usize,
    pub limits: usize,
}

impl Summary {
    pub fn add(&mut self, r: &FileReport) {
        match &r.result {
            Ok(res) if res.summary.verdict == Verdict::Ok => self.ok += 1,
            Ok(_) => self.no += 1,
            Err(e) if e.kind == ErrorKind::Input => self.errors += 1,
            Err(_) => self.limits += 1,
        }
    }

    /// `N tests: Ok a, No b, errors c, limits d, wall time T s` (on stderr: it
    /// must not look like a herd record on stdout).
    pub fn line(&self, wall: Duration) -> String {
        let n = self.ok + self.no + self.errors + self.limits;
        format!(
            "{} tests: Ok {}, No {}, errors {}, limits {}, wall time {:.2} s",
            n,
            self.ok,
            self.no,
            self.errors,
            self.limits,
            wall.as_secs_f64()
        )
    }
}

/// A progress bar on stderr, only for long batches on a terminal.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    pub start: Instant,
}

/// Batches shorter than this finish before a bar is worth drawing.
const PROGRESS_MIN_TESTS: usize = 20;

impl Progress {
    pub fn new(total: usize) -> Self {
        use std::io::IsTerminal;
        let bar = (total >= PROGRESS_MIN_TESTS && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} tests, {elapsed} elapsed, about {eta} left",
            ) {
                b.set_style(style);
            }
            b
        });
        Progress { bar, start: Instant::now() }
    }

    /// Print a stderr line without tearing the bar.
    pub fn eprintln(&self, text: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| crate::out::eprintln(text)),
            None => crate::out::eprintln(text),
        }
    }

    pub fn tick(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Picture file stems (`--dot`, `--svg`) unique per file: the file's stem,
/// or its whole path flattened when two files of the batch share a stem.
pub fn picture_stems(files: &[PathBuf]) -> BTreeMap<PathBuf, String> {
    let stem = |p: &Path| {
        if crate::input::is_stdin(p) {
            return "stdin".to_string();
        }
        p.file_stem().map_or_else(|| "test".into(), |s| s.to_string_lossy().into_owned())
    };
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for f in files {
        *count.entry(stem(f)).or_default() += 1;
    }
    files
        .iter()
        .map(|f| {
            let s = stem(f);
            let name = if count[&s] > 1 {
                let flat: Vec<String> = f
                    .with_extension("")
                    .components()
                    .filter_map(|c| match c {
                        std::path::Component::Normal(x) => Some(x.to_string_lossy().into_owned()),
                        std::path::Component::ParentDir => Some("up".into()),
                        _ => None,
                    })
                    .collect();
                flat.join("__")
            } else {
                s
            };
            let safe =
                name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_+.".contains(c) { c } else { '_' }).collect();
            (f.clone(), safe)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_input_order() {
        let items: Vec<PathBuf> = (0..50).map(|i| PathBuf::from(i.to_string())).collect();
        let mut got = Vec::new();
        run_ordered(
            &items,
            4,
            |p| {
                let i: u64 = p.to_str().unwrap().parse().unwrap();
                std::thread::sleep(Duration::from_micros((50 - i) * 50));
                i
            },
            |i| got.push(i),
        );
        assert_eq!(got, (0..50).collect::<Vec<u64>>());
    }

    #[test]
    fn picture_stems_are_unique() {
        let files = [PathBuf::from("a/MP.litmus"), PathBuf::from("b/MP.litmus"), PathBuf::from("c/SB.litmus")];
        let s = picture_stems(&files);
        assert_eq!(s[&files[0]], "a__MP");
        assert_eq!(s[&files[1]], "b__MP");
        assert_eq!(s[&files[2]], "SB");
    }
}
