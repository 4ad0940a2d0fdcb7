//! `ptx-litmus map` over files: its arguments checked, each file mapped in parallel and printed in order, the
//! tally and the exit status.

use super::{
    load_mapping, map_source, report, report_json, MapArgs, MapSetup, Mapped, Nvcc, Soundness, SourceModel, TargetModel,
};
use crate::check::read_source;
use crate::error::Result;
use crate::model::ModelKind;
use crate::shard::{Start, Sweep};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `map` counted over a batch of files.
#[derive(Default)]
struct Tally {
    sound: usize,
    unsound: usize,
    racy: usize,
    errors: usize,
    limits: usize,
    /// Files whose test `--only` does not name.
    skipped: usize,
    /// `unsound: NAME (FILE)` of each unsound test, for a shard's trailer.
    unsound_tests: Vec<String>,
    /// Files without a result, for the trailer of a text run.
    failures: Vec<crate::shard::Failure>,
}

impl Tally {
    fn summary(&self, files: usize, only: bool, seconds: f64) -> String {
        let skipped = if only { format!(", skipped by --only {}", self.skipped) } else { String::new() };
        format!(
            "{} tests: sound {}, unsound {}, racy {}, errors {}, limits {}{}, wall time {:.2} s\n",
            files - self.skipped,
            self.sound,
            self.unsound,
            self.racy,
            self.errors,
            self.limits,
            skipped,
            seconds
        )
    }

    /// The counts of a shard's trailer (`merge` adds them up).
    fn counts(&self) -> std::collections::BTreeMap<String, usize> {
        let c = [
            ("sound", self.sound),
            ("unsound", self.unsound),
            ("racy", self.racy),
            ("errors", self.errors),
            ("limits", self.limits),
            ("skipped", self.skipped),
        ];
        c.map(|(k, v)| (k.to_string(), v)).into()
    }

    /// Input errors first, then limits, then unsound mappings.
    fn exit_code(&self) -> i32 {
        if self.errors > 0 {
            crate::error::EXIT_INPUT
        } else if self.limits > 0 {
            crate::error::EXIT_INTERNAL
        } else if self.unsound > 0 {
            crate::error::EXIT_MISMATCH
        } else {
            crate::error::EXIT_OK
        }
    }
}

/// The mapping, models and tools `map` runs with, or (its message printed) the exit status of a bad argument.
fn map_setup(a: &MapArgs) -> std::result::Result<MapSetup, i32> {
    let bad = |message: &str| {
        crate::out::eprintln(message);
        crate::error::EXIT_INPUT
    };
    let mapping = load_mapping(&a.mapping).map_err(|e| bad(&e))?;
    let source = if a.source_model == SourceModel::Rc11 { ModelKind::Rc11 } else { ModelKind::ScopedRc11 };
    let target = if a.model == TargetModel::Ptx { ModelKind::Ptx } else { ModelKind::PtxAlloy };
    let mut setup = MapSetup::new(mapping, source, target);
    if let Some(given) = &a.nvcc {
        if let Some(arch) = a.arch.as_deref().filter(|x| !crate::c11::nvcc::valid_arch(x)) {
            return Err(bad(&format!("error: `--arch {}`: expected sm_ and a number (sm_75, sm_90, sm_90a)", arch)));
        }
        setup.nvcc = Some(Nvcc { path: crate::c11::nvcc::locate(given), arch: a.arch.clone() });
    }
    if let Some(dir) = &a.emit {
        std::fs::create_dir_all(dir).map_err(|e| bad(&format!("error: cannot create {}: {}", dir.display(), e)))?;
    }
    Ok(setup)
}

/// `ptx-litmus map`: exit 1 when a test is unsound, 2 on bad input, 3 on a limit.
pub fn run(a: &MapArgs) -> i32 {
    let setup = match map_setup(a) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let files = crate::input::collect(&a.paths).files;
    let (sweep, files) = match Sweep::start("map", if a.json { "json" } else { "text" }, &a.sweep, files) {
        Start::Run(s, f) => (*s, f),
        Start::Done(code) => return code,
    };
    let start = Instant::now();
    let mut tally = Tally::default();
    let jobs = a.jobs.unwrap_or_else(crate::batch::default_jobs);
    crate::batch::run_ordered(
        &files,
        jobs,
        |f| map_file(f, &setup, &a.only),
        |(f, src, r)| match r {
            None => tally.skipped += 1,
            Some(Ok(m)) => print_mapped(&m, &f, &setup, a, &mut tally),
            Some(Err(e)) => {
                if e.exit_code() == crate::error::EXIT_INPUT {
                    tally.errors += 1;
                } else {
                    tally.limits += 1;
                }
                if a.json {
                    let failure = crate::report::failure_json(&e, &f.display().to_string());
                    crate::out::print(&format!("{}\n", failure));
                } else {
                    let (file, message) = (f.display().to_string(), e.message.clone());
                    tally.failures.push(crate::shard::Failure { file, message, exit_code: e.exit_code() });
                }
                crate::out::eprintln(&e.render(&f.display().to_string(), &src));
            }
        },
    );
    let summary = tally.summary(files.len(), !a.only.is_empty(), start.elapsed().as_secs_f64());
    // With --json stdout holds only the objects: the summary goes to stderr.
    if a.json {
        crate::out::eprintln(summary.trim_end());
    } else {
        crate::out::print(&summary);
    }
    let code = tally.exit_code();
    let unsound = std::mem::take(&mut tally.unsound_tests);
    sweep.finish(code, tally.counts(), tally.failures.clone(), unsound)
}

/// Count and print one mapped test; with `--emit`, write the files it emitted (a file that cannot be written
/// counts as an error).
fn print_mapped(m: &Mapped, f: &Path, setup: &MapSetup, a: &MapArgs, tally: &mut Tally) {
    match m.soundness {
        Soundness::Sound => tally.sound += 1,
        Soundness::Unsound(_) => {
            tally.unsound += 1;
            tally.unsound_tests.push(format!("unsound: {} ({})", m.target.program.name, f.display()));
        }
        Soundness::Racy { .. } => tally.racy += 1,
    }
    if a.json {
        let file = f.display().to_string();
        crate::out::print(&format!("{}\n", report_json(m, setup, &file, a.max_show)));
    } else {
        crate::out::print(&report(m, setup, a.max_show));
    }
    let Some(dir) = &a.emit else { return };
    for (name, text) in m.emitted() {
        let path = dir.join(name);
        if let Err(e) = crate::out::output_target(&path).and_then(|p| std::fs::write(p, text)) {
            crate::out::eprintln(&format!("error: cannot write {}: {}", path.display(), e));
            tally.errors += 1;
        }
    }
}

/// Map one file; `None` when `--only` patterns are given and its test name
/// matches none of them (a file that names no C test is mapped, to say so).
fn map_file(f: &Path, s: &MapSetup, only: &[String]) -> (PathBuf, String, Option<Result<Mapped>>) {
    let (src, text) = match read_source(f, s.opts.max_file_bytes) {
        Ok(t) => (t.clone(), t),
        Err((src, e)) => return (f.to_path_buf(), src, Some(Err(e))),
    };
    if let Some(name) = crate::c11::c_test_name(&text) {
        if !only.is_empty() && !only.iter().any(|p| crate::c11::glob_matches(p, name)) {
            return (f.to_path_buf(), src, None);
        }
    }
    let base = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let r = crate::check::guarded(&s.opts, || map_source(&text, base, s));
    (f.to_path_buf(), src, Some(r))
}
