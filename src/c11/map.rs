//! `ptx-litmus map`: does the PTX a C test compiles to allow an outcome the
//! C model forbids? (issue 28; Lustig et al., ASPLOS'19, sections 4-6).
//!
//! Each C test is decided under the source model (scoped-rc11 by default,
//! the model the paper's mapping is proved for), compiled by the mapping
//! table into a PTX test (`mapping::compile`), printed (`emit`), and that
//! text is decided under the PTX model like any test given to `check`. The
//! test is *sound* when every PTX final state is a final state the source
//! allows, *unsound* otherwise (the PTX execution reaching the extra state is
//! shown), *racy* when the source has a data race: C gives such a program no
//! semantics (herd's `Undef`), so no outcome of it is wrong (D105).

use super::mapping::Mapping;
use super::nvcc::Nvcc;
use crate::check::{check_source_at, read_source, CheckOptions, TestResult};
use crate::error::{Error, Result};
use crate::explain::show::{shown_exec, ExecKind, ShowOptions, Shown};
use crate::model::ModelKind;
use crate::outcome::State;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `ptx-litmus map` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct MapArgs {
    /// C litmus files or directories (recursive *.litmus).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// A built-in mapping (figure11 (default), sc-rmw-acquire, sc-load-no-fence,
    /// sc-fence-acq-rel) or a mapping table file.
    #[arg(long, default_value = "figure11")]
    pub mapping: String,
    /// The PTX model that decides the compiled tests.
    #[arg(long, value_enum, default_value = "ptx")]
    pub model: TargetModel,
    /// The C model whose outcomes the PTX must stay within.
    #[arg(long, value_enum, default_value = "scoped-rc11")]
    pub source_model: SourceModel,
    /// Write each compiled PTX test to DIR/NAME.litmus.
    #[arg(long, value_name = "DIR")]
    pub emit: Option<PathBuf>,
    /// Show at most this many unsound PTX final states per test.
    #[arg(long, default_value_t = 1)]
    pub max_show: usize,
    /// Worker threads (default: the number of CPUs).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// One JSON object per test per line (`schema/map.schema.json`) instead of text; no summary line.
    #[arg(long)]
    pub json: bool,
    /// Map only the tests whose name matches PATTERN (`*` any characters, `?` one;
    /// repeat the option for several); the others are counted as skipped.
    #[arg(long, value_name = "PATTERN")]
    pub only: Vec<String>,
    /// Compile each C test with the real compiler instead of the mapping table:
    /// `--nvcc=PATH`, or `--nvcc` alone for $PTXL_NVCC, else `nvcc` on PATH.
    #[arg(long, value_name = "PATH", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub nvcc: Option<String>,
    /// With --nvcc: the architecture (`sm_75`, `sm_80`, `sm_90`, ...; default sm_75,
    /// sm_90 for a test that places threads in clusters).
    #[arg(long, value_name = "sm_XX", requires = "nvcc")]
    pub arch: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetModel {
    Ptx,
    PtxAlloy,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceModel {
    Rc11,
    ScopedRc11,
}

/// What `map` found for one test.
pub enum Soundness {
    Sound,
    /// PTX final states the source model does not allow.
    Unsound(Vec<State>),
    /// The source has a racy execution: no outcome is forbidden.
    Racy,
}

/// One mapped test: both results and the PTX text.
pub struct Mapped {
    pub source: TestResult,
    pub target: TestResult,
    /// The compiled PTX test (by nvcc: the harness running nvcc's module).
    pub ptx_text: String,
    pub soundness: Soundness,
    /// For each source observable, the index of the target's that shows it
    /// (`None`: the same observables in the same order, as the table path has).
    pub projection: Option<Vec<usize>>,
    /// By nvcc: the CUDA text and the PTX module nvcc wrote.
    pub nvcc: Option<NvccOutput>,
}

/// What nvcc was given and what it wrote, for `--emit` and `--json`.
pub struct NvccOutput {
    pub stem: String,
    pub arch: String,
    pub cuda: String,
    pub module: String,
}

impl Mapped {
    /// What compiled the test, as reports name it: the mapping, or `nvcc -arch=sm_XX`.
    pub fn compiler(&self, s: &MapSetup) -> String {
        match &self.nvcc {
            None => s.mapping.name.clone(),
            Some(n) => format!("nvcc -arch={}", n.arch),
        }
    }

    /// A target final state in the source's observables. By nvcc every
    /// observable is a 4-byte `int` the harness reports unsigned: its value is
    /// the C `int`'s, sign-extended (D146).
    pub fn in_source(&self, st: &State) -> State {
        match &self.projection {
            Some(p) => p.iter().map(|&k| st.get(k).map_or(0, |&v| v as i32 as i64)).collect(),
            None => st.clone(),
        }
    }

    /// By nvcc, where the harness keeps each C observable (`P1:r0 in out1[0]`), a line; else nothing.
    pub fn renaming(&self) -> String {
        let Some(p) = &self.projection else { return String::new() };
        let (src, tgt) = (&self.source.program.observables, &self.target.program.observables);
        let pairs: Vec<String> = src.iter().zip(p).map(|(o, &k)| format!("{} in {}", o, tgt[k])).collect();
        format!("  (the harness keeps {})\n", pairs.join(", "))
    }

    /// The files `--emit` writes: the compiled test, or the .cu, .ptx and harness.
    pub fn emitted(&self) -> Vec<(String, &str)> {
        match &self.nvcc {
            None => vec![(format!("{}.litmus", self.target.program.name), &self.ptx_text)],
            Some(n) => vec![
                (format!("{}.cu", n.stem), &n.cuda),
                (format!("{}.ptx", n.stem), &n.module),
                (format!("{}.harness", n.stem), &self.ptx_text),
            ],
        }
    }
}

/// The models and the mapping of one run.
pub struct MapSetup {
    pub mapping: Mapping,
    pub source: ModelKind,
    pub target: ModelKind,
    pub opts: CheckOptions,
    /// `--nvcc`: compile by the real compiler instead of `mapping`.
    pub nvcc: Option<Nvcc>,
}

impl MapSetup {
    pub fn new(mapping: Mapping, source: ModelKind, target: ModelKind) -> MapSetup {
        let ctx = crate::context::Ctx { model_explicit: true, ..Default::default() };
        let opts = CheckOptions { list_states: None, ctx, ..CheckOptions::default() };
        MapSetup { mapping, source, target, opts, nvcc: None }
    }
}

/// The mapping named by `--mapping`: a built-in name or a table file.
pub fn load_mapping(arg: &str) -> std::result::Result<Mapping, String> {
    if let Some(m) = Mapping::builtin(arg) {
        return Ok(m);
    }
    let path = Path::new(arg);
    if !path.exists() {
        let names: Vec<&str> = super::mapping::BUILTIN.iter().map(|b| b.0).collect();
        return Err(format!("error: `{}` is neither a built-in mapping ({}) nor a file", arg, names.join(", ")));
    }
    let text = crate::input::read_text_capped(path, 1 << 20).map_err(|e| format!("{}: error: {}", arg, e))?;
    let name = path.file_stem().map_or(arg.to_string(), |s| s.to_string_lossy().into_owned());
    Mapping::parse(&name, &text).map_err(|(line, col, msg)| {
        let src = text.lines().nth(line - 1).unwrap_or("");
        format!(
            "{}:{}:{}: error: {}\n{:>5} | {}\n      | {}^",
            arg,
            line,
            col,
            msg,
            line,
            src,
            " ".repeat(col.saturating_sub(1))
        )
    })
}

/// Map one C test given as text.
pub fn map_source(text: &str, base: &Path, s: &MapSetup) -> Result<Mapped> {
    if !super::is_c_source(text) {
        return Err(Error::input_nospan("`map` reads C tests (the first word is `C`); this is not one"));
    }
    let source =
        check_source_at(text, base, &CheckOptions { ctx: s.opts.ctx.with_model(s.source.shared()), ..s.opts.clone() })?;
    let c_ast = super::parse::parse_c_litmus(text)?;
    if c_ast.filter.is_some() {
        return Err(Error::input_nospan("`map` does not compile a test with a `filter` yet"));
    }
    let mut m = match &s.nvcc {
        None => by_table(&c_ast, source, base, s)?,
        Some(n) => by_nvcc(&c_ast, source, n, s)?,
    };
    m.soundness = if m.source.outcome.flags.data_race {
        Soundness::Racy
    } else {
        let extra: Vec<State> = m
            .target
            .outcome
            .states
            .keys()
            .filter(|st| !m.source.outcome.states.contains_key(&m.in_source(st)))
            .cloned()
            .collect();
        if extra.is_empty() {
            Soundness::Sound
        } else {
            Soundness::Unsound(extra)
        }
    };
    Ok(m)
}

/// The C test compiled by the mapping table and decided (soundness not yet known).
fn by_table(c_ast: &crate::ast::Litmus, source: TestResult, base: &Path, s: &MapSetup) -> Result<Mapped> {
    let ptx_ast = super::mapping::compile(c_ast, &s.mapping)?;
    let program = crate::program::build_program(&ptx_ast, &s.opts.build)?;
    let doc = format!("{} compiled by the mapping {}", c_ast.name, s.mapping.name);
    let ptx_text = super::emit::litmus_text(&ptx_ast, &program, &doc);
    let target = check_source_at(
        &ptx_text,
        base,
        &CheckOptions { ctx: s.opts.ctx.with_model(s.target.shared()), ..s.opts.clone() },
    )?;
    if source.program.observables != target.program.observables {
        return Err(Error::internal("the compiled test observes other registers or locations than its source"));
    }
    Ok(Mapped { source, target, ptx_text, soundness: Soundness::Sound, projection: None, nvcc: None })
}

/// The C test written as CUDA, compiled by nvcc in a scratch folder, and the
/// harness running nvcc's PTX decided (soundness not yet known).
fn by_nvcc(c_ast: &crate::ast::Litmus, source: TestResult, n: &Nvcc, s: &MapSetup) -> Result<Mapped> {
    let nvcc = n.path.as_ref().map_err(|why| Error::limit(why.clone()))?;
    let observables = &source.program.observables;
    let cuda = super::cuda::cuda_source(c_ast, observables)?;
    let (stem, arch) = (super::nvcc::file_stem(&c_ast.name), super::nvcc::arch_for(c_ast, n.arch.as_deref()));
    let dir = tempfile::Builder::new()
        .prefix("ptxl-nvcc-")
        .tempdir()
        .map_err(|e| Error::limit(format!("cannot make a scratch folder for nvcc: {}", e)))?;
    std::fs::write(dir.path().join(format!("{}.cu", stem)), &cuda.text)
        .map_err(|e| Error::limit(format!("cannot write the CUDA file: {}", e)))?;
    let module = super::nvcc::compile(nvcc, dir.path(), &stem, &arch)?;
    let harness = super::nvcc::harness_text(c_ast, &cuda, observables, &stem, &arch);
    let opts = CheckOptions { ctx: s.opts.ctx.with_model(s.target.shared()), ..s.opts.clone() };
    // The harness and nvcc's PTX are ours, not the user's: a failure to read them is a limit of `map --nvcc`.
    let target = check_source_at(&harness, dir.path(), &opts).map_err(|e| match e.exit_code() {
        crate::error::EXIT_INPUT => Error::limit(format!("nvcc's PTX could not be run: {}", e.message)),
        _ => e,
    })?;
    let projection = super::nvcc::projection(observables, &target.program.observables, &cuda)?;
    let out = NvccOutput { stem, arch, cuda: cuda.text, module };
    let soundness = Soundness::Sound;
    Ok(Mapped { source, target, ptx_text: harness, soundness, projection: Some(projection), nvcc: Some(out) })
}

/// The report of one mapped test, in text.
pub fn report(m: &Mapped, s: &MapSetup, max_show: usize) -> String {
    let p = &m.target.program;
    let head = format!("Map {} ({} to {} by {})", p.name, s.source.name(), s.target.name(), m.compiler(s));
    let n = m.target.outcome.states.len();
    match &m.soundness {
        Soundness::Sound => format!("{} sound: {} PTX final state{}, each allowed by {}\n", head, n, if n == 1 { "" } else { "s" }, s.source.name()),
        Soundness::Racy => format!("{} racy: the C test has a data race on a plain access under {} (herd's Undef), so no outcome is forbidden\n", head, s.source.name()),
        Soundness::Unsound(extra) => {
            let mut out = format!("{} UNSOUND: {} of {} PTX final states are forbidden by {}\n", head, extra.len(), n, s.source.name());
            out.push_str(&m.renaming());
            for st in extra.iter().take(max_show.max(1)) {
                out.push_str(&unsound_state(m, s, st));
            }
            if extra.len() > max_show.max(1) {
                out.push_str("(more unsound states; raise --max-show to see them)\n");
            }
            out.push_str("Compiled test:\n");
            for l in m.ptx_text.lines() {
                out.push_str(&format!("  {}\n", l));
            }
            out
        }
    }
}

/// The JSON object of one mapped test (`schema/map.schema.json`): both
/// results, the verdict, the compiled test and, when unsound, the forbidden
/// PTX final states with the first `max_show` explained as in the text.
pub fn report_json(m: &Mapped, s: &MapSetup, file: &str, max_show: usize) -> serde_json::Value {
    use crate::report::{result_json, state_json};
    let p = &m.target.program;
    let (verdict, extra): (&str, &[State]) = match &m.soundness {
        Soundness::Sound => ("sound", &[]),
        Soundness::Racy => ("racy", &[]),
        Soundness::Unsound(extra) => ("unsound", extra),
    };
    let counterexamples: Vec<serde_json::Value> = extra
        .iter()
        .take(max_show.max(1))
        .map(|st| serde_json::json!({ "state": state_json(p, st), "explanation": unsound_state(m, s, st) }))
        .collect();
    let unsound_states: Vec<serde_json::Value> = extra.iter().map(|st| state_json(p, st)).collect();
    let mut v = serde_json::json!({
        "name": p.name,
        "file": file,
        "mapping": m.compiler(s),
        "source_model": s.source.name(),
        "target_model": s.target.name(),
        "verdict": verdict,
        "source": result_json(&m.source, file),
        "target": result_json(&m.target, file),
        "unsound_states": unsound_states,
        "counterexamples": counterexamples,
        "ptx": m.ptx_text,
    });
    if let (Some(n), Some(obj)) = (&m.nvcc, v.as_object_mut()) {
        obj.insert("nvcc".into(), serde_json::json!({ "arch": n.arch, "cuda": n.cuda, "module": n.module }));
    }
    v
}

/// One unsound state: the PTX execution reaching it (explained like
/// `--show`), and why the source forbids it when the condition names it.
fn unsound_state(m: &Mapped, s: &MapSetup, st: &State) -> String {
    let p = &m.target.program;
    let mut out = String::new();
    if let Some(x) = m.target.outcome.states.get(st) {
        let shown = shown_exec(p, x, s.target.model(), ExecKind::Witness, st.clone(), 1, 1);
        let one = Shown { want_witness: true, witnesses: vec![shown], ..Shown::default() };
        for l in crate::explain::show_text::text(p, &one).lines() {
            out.push_str(&format!(
                "  {}\n",
                l.replace("Witness 1: allowed execution", "PTX execution allowed by the PTX model,")
            ));
        }
    }
    let so = ShowOptions { witness: false, forbidden: true, max: 1, ctx: s.opts.ctx.with_model(s.source.shared()) };
    if let Ok(sh) = crate::explain::show(&m.source, &so) {
        let in_source = m.in_source(st);
        if let Some(f) = sh.forbidden.iter().find(|f| f.state == in_source) {
            let one = Shown { want_forbidden: true, forbidden: vec![f.clone()], ..Shown::default() };
            out.push_str(&format!("  Why {} forbids it (the C test's candidate execution):\n", s.source.name()));
            for l in crate::explain::show_text::text(&m.source.program, &one).lines() {
                out.push_str(&format!("    {}\n", l));
            }
        }
    }
    out
}

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
        if let Some(arch) = a.arch.as_deref().filter(|x| !super::nvcc::valid_arch(x)) {
            return Err(bad(&format!("error: `--arch {}`: expected sm_ and a number (sm_75, sm_90, sm_90a)", arch)));
        }
        setup.nvcc = Some(Nvcc { path: super::nvcc::locate(given), arch: a.arch.clone() });
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
    tally.exit_code()
}

/// Count and print one mapped test; with `--emit`, write the files it emitted (a file that cannot be written
/// counts as an error).
fn print_mapped(m: &Mapped, f: &Path, setup: &MapSetup, a: &MapArgs, tally: &mut Tally) {
    match m.soundness {
        Soundness::Sound => tally.sound += 1,
        Soundness::Unsound(_) => tally.unsound += 1,
        Soundness::Racy => tally.racy += 1,
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
    if let Some(name) = super::c_test_name(&text) {
        if !only.is_empty() && !only.iter().any(|p| super::glob_matches(p, name)) {
            return (f.to_path_buf(), src, None);
        }
    }
    let base = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let r = crate::check::guarded(&s.opts, || map_source(&text, base, s));
    (f.to_path_buf(), src, Some(r))
}
