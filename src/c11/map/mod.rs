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
//!
//! The parts: this file maps one test; `report` writes its result as text or
//! JSON; `command` is `ptx-litmus map` over files (arguments, tally, exit status).

mod command;
mod report;

pub use command::run;
pub use report::{report, report_json};

use super::mapping::Mapping;
use super::nvcc::Nvcc;
use crate::check::{check_source_at, CheckOptions, TestResult};
use crate::error::{Error, Result};
use crate::model::ModelKind;
use crate::outcome::State;
use std::path::{Path, PathBuf};

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
    /// The C model whose outcomes the PTX must stay within: scoped-rc11 (the model the mapping is
    /// proved for, which reads scopes) or rc11 (herd7's, without scopes: `check`'s default for C tests).
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
    /// --shard K/N, --output FILE, --resume: one part of a sweep (README "Sweeping on a cluster").
    #[command(flatten)]
    pub sweep: crate::shard::ShardArgs,
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
    /// The source has a racy execution: no outcome is forbidden. `plain`:
    /// the C test has a plain (non-atomic) access, which may be what races;
    /// without one, only atomics out of each other's scope can (scoped-rc11).
    Racy {
        plain: bool,
    },
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
            // The compiled test's locations hold bit patterns; the source's
            // signed ones read as their C type (D285).
            None => {
                st.iter().zip(&self.target.program.observables).map(|(&v, o)| self.source.program.shown(o, v)).collect()
            }
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
        Soundness::Racy { plain: has_plain_access(&c_ast) }
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

/// Whether a C test has a non-atomic access (the order C gives `*x`: `Na`).
fn has_plain_access(c_ast: &crate::ast::Litmus) -> bool {
    let Some(orders) = &c_ast.c11 else { return false };
    c_ast.code.iter().enumerate().any(|(t, code)| {
        code.iter().enumerate().any(|(pc, i)| {
            matches!(i.kind, crate::ast::InstrKind::Load { .. } | crate::ast::InstrKind::Store { .. })
                && orders.get(t, pc) == Some(crate::c11::Order::Na)
        })
    })
}

/// The C test compiled by the mapping table and decided (soundness not yet known).
fn by_table(c_ast: &crate::ast::Litmus, source: TestResult, base: &Path, s: &MapSetup) -> Result<Mapped> {
    let ptx_ast = super::mapping::compile(c_ast, &s.mapping)?;
    // Built as `check` builds it (D188): the compiled test's locations, whichever builder decides it.
    let ptx_opts = CheckOptions { ctx: s.opts.ctx.with_model(s.target.shared()), ..s.opts.clone() };
    let program = crate::check::build_encoded(&ptx_ast, &ptx_opts)?;
    let doc = format!("{} compiled by the mapping {}", c_ast.name, s.mapping.name);
    let ptx_text = super::emit::litmus_text(&ptx_ast, &program, &doc);
    let target = check_source_at(&ptx_text, base, &ptx_opts)?;
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
