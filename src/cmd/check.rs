//! `ptx-litmus check`: decide each file of a batch in parallel and print its
//! result as it is known (herd text or JSON lines), with the explanations and
//! pictures asked for, the verdicts judged against `--expect`, and a summary.

use super::inputs;
use crate::args::CheckArgs;
use crate::opts;
use ptx_litmus::batch::{self, check_file, FileReport, Progress, Summary};
use ptx_litmus::check::CheckOptions;
use ptx_litmus::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK};
use ptx_litmus::explain::{self, ShowKind, ShowOptions, Shown};
use ptx_litmus::out;
use ptx_litmus::program::BuildOptions;
use ptx_litmus::report::{self, expect::Expectations};
use ptx_litmus::shard::{Start, Sweep};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `--show`, `--dot`, `--svg`: what to explain (None: nothing).
fn show_options(a: &CheckArgs) -> Option<ShowOptions> {
    if a.show.is_empty() && a.dot.is_none() && a.svg.is_none() {
        return None;
    }
    let both = a.show.is_empty();
    Some(ShowOptions {
        witness: both || a.show.contains(&ShowKind::Witness),
        forbidden: both || a.show.contains(&ShowKind::Forbidden),
        max: a.max_show as usize,
        // The model that decides each test replaces it (`batch::check_text`).
        ctx: Default::default(),
    })
}

/// One DOT and/or SVG file per shown execution, each written whole or not at all.
fn write_pictures(a: &CheckArgs, stem: &str, p: &ptx_litmus::program::Program, s: &Shown) -> Result<(), String> {
    for (dir, ext) in [(&a.dot, "dot"), (&a.svg, "svg")] {
        let Some(dir) = dir else { continue };
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
        for x in s.executions() {
            let text = if ext == "dot" { explain::dot::render(p, x) } else { explain::svg::render(p, x) };
            let path = dir.join(format!("{}.{}", x.stem(stem), ext));
            out::write_atomic(&path, text.as_bytes()).map_err(|e| format!("cannot write {}: {}", path.display(), e))?;
        }
    }
    Ok(())
}

/// What the results of a batch add up to, kept as they stream.
struct Emitter<'a> {
    a: &'a CheckArgs,
    exp: Option<&'a Expectations>,
    stems: BTreeMap<PathBuf, String>,
    /// The file each test name came from first: two tests of one name make
    /// herd's log tools reject the whole log.
    names: BTreeMap<String, PathBuf>,
    dup_names: std::collections::BTreeSet<String>,
    progress: Progress,
    summary: Summary,
    tally: report::expect::Tally,
    listing: Vec<String>,
    /// Files without a result, for the trailer of a sharded text run (their errors go to stderr).
    failures: Vec<ptx_litmus::shard::Failure>,
    worst: i32,
}

impl Emitter<'_> {
    fn fail(&mut self, code: i32, msg: &str) {
        self.progress.eprintln(msg);
        self.worst = self.worst.max(code);
        out::note_code(self.worst);
    }

    /// Warn (once per name) when a second file of the batch has a test name
    /// already seen: herd's `mcompare7` and `msum7` drop a log with two tests
    /// of one name.
    fn note_name(&mut self, name: &str, path: &std::path::Path) {
        match self.names.get(name) {
            None => {
                self.names.insert(name.to_string(), path.to_path_buf());
            }
            Some(first) if first != path && !self.dup_names.contains(name) => {
                let msg = format!("warning: test name `{}` is used by {} and {}: herd's log tools reject a log with two tests of one name", name, first.display(), path.display());
                self.dup_names.insert(name.to_string());
                if !out::quiet() {
                    self.progress.eprintln(&msg);
                }
            }
            Some(_) => {}
        }
    }

    /// Print one test's result at once (stdout: herd text or one JSON line).
    fn emit(&mut self, r: FileReport) {
        self.progress.tick();
        self.summary.add(&r);
        let judged = self.exp.map(|e| e.judge(&r, &mut self.tally));
        if let Some(line) = judged.as_ref().and_then(|j| j.line.clone()) {
            self.listing.push(line);
        }
        let shown = match &r.shown {
            Some(Ok(s)) => Some(s),
            Some(Err(e)) => {
                self.fail(EXIT_INTERNAL, &format!("{}: explanation: {}", r.path.display(), e.message));
                None
            }
            None => None,
        };
        if self.a.json {
            let mut obj = report::json(&r);
            if let (Ok(res), Some(s)) = (&r.result, shown) {
                explain::json::extend(&mut obj, &res.program, s);
            }
            if let (Some(j), Some(o)) = (&judged, obj.as_object_mut()) {
                o.insert("expected".into(), j.expected.map_or(serde_json::Value::Null, |v| format!("{:?}", v).into()));
                o.insert("match".into(), j.matched.map_or(serde_json::Value::Null, Into::into));
            }
            out::println(&obj.to_string());
        }
        match &r.result {
            Ok(res) => {
                self.note_name(&res.program.name, &r.path);
                let notes = [
                    report::reading_note(res),
                    report::spin_note(res),
                    report::unknown_note(res),
                    report::foreign_wait_note(res),
                ];
                for note in notes.into_iter().flatten() {
                    out::eprintln(&format!("note: {}: {}", r.path.display(), note));
                }
                if !self.a.json {
                    let mut text = report::text(res, &r.source);
                    if let Some(s) = shown {
                        text.push_str(&explain::show::text(&res.program, s));
                    }
                    text.push('\n');
                    out::print(&text);
                }
                if let Some(s) = shown {
                    let stem = self.stems.get(&r.path).cloned().unwrap_or_else(|| res.program.name.clone());
                    if let Err(e) = write_pictures(self.a, &stem, &res.program, s) {
                        self.fail(EXIT_INTERNAL, &format!("error: {}", e));
                    }
                }
                out::note_code(self.worst);
            }
            Err(e) => {
                let file = r.path.display().to_string();
                self.failures.push(ptx_litmus::shard::Failure {
                    file: file.clone(),
                    message: e.message.clone(),
                    exit_code: e.exit_code(),
                });
                self.fail(e.exit_code(), &e.render(&file, &r.source))
            }
        }
    }
}

fn load_expectations(csv: &std::path::Path) -> Result<Expectations, String> {
    report::expect::load(csv).map_err(|e| {
        let text = ptx_litmus::input::read_text_capped(csv, report::expect::MAX_CSV_BYTES).unwrap_or_default();
        e.render(&csv.display().to_string(), &text)
    })
}

/// `ptx-litmus check FILE|DIR...`.
pub fn run(a: CheckArgs) -> i32 {
    let engine = opts::engine(a.engine);
    let ctx = match opts::context(a.model.as_deref(), a.limits.budget(a.limits.timeout)) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let opts = CheckOptions {
        build: BuildOptions { unroll: a.unroll, max_events: a.max_events, ..Default::default() },
        engine,
        ctx,
        max_states: a.max_states,
        show: show_options(&a),
        self_check: !a.no_self_check,
        symmetry: !a.no_symmetry,
        merge_paths: !a.no_merge,
        encoding: opts::encoding(a.encoding),
        list_states: a.states.0,
        ..Default::default()
    };
    let expectations = match a.expect.as_deref().map(load_expectations).transpose() {
        Ok(e) => e,
        Err(msg) => {
            out::eprintln(&msg);
            return EXIT_INPUT;
        }
    };
    let (files, empty_dir) = match (&expectations, a.paths.is_empty()) {
        (Some(e), true) => (e.order.clone(), false),
        (None, true) => {
            out::eprintln("error: no input: give litmus files or directories (see --help)");
            return EXIT_INPUT;
        }
        (_, false) => inputs(&a.paths, None),
    };
    let (sweep, files) = match Sweep::start("check", if a.json { "json" } else { "herd" }, &a.sweep, files) {
        Start::Run(s, f) => (*s, f),
        Start::Done(code) => return code,
    };
    let mut em = Emitter {
        a: &a,
        exp: expectations.as_ref(),
        stems: batch::picture_stems(&files),
        names: BTreeMap::new(),
        dup_names: Default::default(),
        progress: Progress::new(files.len()),
        summary: Summary::default(),
        tally: Default::default(),
        listing: Vec::new(),
        failures: Vec::new(),
        worst: if empty_dir { EXIT_INPUT } else { EXIT_OK },
    };
    batch::run_ordered(&files, a.limits.jobs(), |f| check_file(f, &opts), |r| em.emit(r));
    em.progress.finish();
    if expectations.is_some() {
        for l in &em.listing {
            out::eprintln(l);
        }
        out::eprintln(&em.tally.to_string());
        if em.tally.mismatched > 0 {
            em.worst = em.worst.max(EXIT_MISMATCH);
        }
    }
    if files.len() > 1 {
        out::eprintln(&em.summary.line(em.progress.start.elapsed()));
    }
    let failures = if a.json { Vec::new() } else { std::mem::take(&mut em.failures) };
    let counts = sweep_counts(&em.summary, expectations.as_ref().map(|_| &em.tally));
    sweep.finish(em.worst, counts, failures, std::mem::take(&mut em.listing))
}

/// What a shard's trailer counts: the summary line's numbers, and the
/// `--expect` tally when there is one (`merge` adds them up).
fn sweep_counts(s: &Summary, tally: Option<&report::expect::Tally>) -> BTreeMap<String, usize> {
    let mut c: BTreeMap<String, usize> = [("ok", s.ok), ("no", s.no), ("errors", s.errors), ("limits", s.limits)]
        .map(|(k, v)| (k.to_string(), v))
        .into();
    if let Some(t) = tally {
        for (k, v) in [
            ("expect_matched", t.matched),
            ("expect_deviations", t.deviations),
            ("expect_mismatched", t.mismatched),
            ("expect_errors", t.errors),
            ("expect_without", t.without),
        ] {
            c.insert(k.into(), v);
        }
    }
    c
}
