//! Option values shared by `check` and `explain`, each checked for range at
//! parse time: a bad value is an input error (exit 2), never a panic nor a
//! silent "no limit" (issue 11).

use std::time::Duration;

/// Longest `--timeout`: a week. `Duration::from_secs_f64` panics on overflow,
/// and no test is worth more.
const MAX_TIMEOUT_S: f64 = 7.0 * 24.0 * 3600.0;

/// The per-test budgets and the worker count.
#[derive(clap::Args, Clone, Debug)]
pub struct Limits {
    /// Per-test time limit in seconds (0 < SECONDS <= 604800), covering parsing,
    /// encoding, solving and explanations; the test's work stops at the deadline
    /// (its core is free within milliseconds), a batch reports it and goes on.
    #[arg(long, value_name = "SECONDS", value_parser = timeout)]
    pub timeout: Option<Duration>,
    /// Per-test memory budget in MB for the unrolled program and its encoding
    /// (estimated as they grow, and the process's measured resident size, also
    /// read before each large allocation); exceeding it is a limit (exit 3).
    #[arg(long, value_name = "MB", default_value_t = ptx_litmus::budget::DEFAULT_MAX_MEMORY_MB,
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub max_memory: u64,
    /// Tests checked in parallel (default: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
}

impl Limits {
    pub fn jobs(&self) -> usize {
        self.jobs.map_or_else(ptx_litmus::batch::default_jobs, usize::from)
    }
    pub fn max_bytes(&self) -> u64 {
        self.max_memory << 20
    }
    /// The per-test budget these flags give (`timeout`: `--timeout`, or a command's default).
    pub fn budget(&self, timeout: Option<Duration>) -> ptx_litmus::budget::Limits {
        ptx_litmus::budget::Limits { timeout, max_bytes: self.max_bytes(), max_work: None }
    }
}

/// `--timeout`: a finite number of seconds, more than 0, at most a week.
pub fn timeout(s: &str) -> Result<Duration, String> {
    let t: f64 = s.trim().parse().map_err(|_| format!("`{}` is not a number of seconds", s))?;
    if !t.is_finite() || t <= 0.0 || t > MAX_TIMEOUT_S {
        return Err(format!("`{}`: the timeout must be more than 0 and at most {} seconds", s, MAX_TIMEOUT_S));
    }
    Ok(Duration::from_secs_f64(t))
}

/// `--unroll`: loops unrolled more than this never finish checking anyway.
pub fn unroll(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| format!("`{}` is not a whole number", s))?;
    if n > 100_000 {
        return Err(format!("`{}`: --unroll may be at most 100000", s));
    }
    Ok(n)
}

/// `--engine`: the command line's names for `check::Engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// SAT encoding solved by varisat (default; every model: its rows are compiled into clauses).
    Sat,
    /// Plain explicit enumeration of candidate executions (slow, for cross-checking; every model).
    Reference,
}

/// `--encoding`: the command line's names for `check::ThreadEncoding`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EncodingArg {
    /// Each thread's paths, and the symbolic encoding where the path builder stops at its limit of paths (default).
    Auto,
    /// Each thread's paths only, as before the symbolic encoding (issue 27).
    Paths,
    /// Each thread's code encoded once, with symbolic values (issue 27; SAT engine only).
    Symbolic,
}

pub fn encoding(encoding: EncodingArg) -> ptx_litmus::check::ThreadEncoding {
    use ptx_litmus::check::ThreadEncoding;
    match encoding {
        EncodingArg::Auto => ThreadEncoding::Auto,
        EncodingArg::Paths => ThreadEncoding::Paths,
        EncodingArg::Symbolic => ThreadEncoding::Symbolic,
    }
}

/// `--model NAME|FILE.cat`: the model that decides (None: ptx, or rc11 for
/// a C test), and whether it was given; a bad file is reported (`file:line:col`,
/// the line, a caret) and gives exit 2.
pub fn model(arg: Option<&str>) -> Result<(std::sync::Arc<ptx_litmus::model::Model>, bool), i32> {
    let Some(arg) = arg else { return Ok((ptx_litmus::model::ModelKind::Ptx.shared(), false)) };
    ptx_litmus::model::rows::model_arg(arg).map(|m| (m, true)).map_err(|e| {
        ptx_litmus::out::eprintln(&e.render(arg, ""));
        e.exit_code()
    })
}

/// The context of a command: the model of `--model` (see [`model`]) under
/// the per-test budget `limits`.
pub fn context(model_arg: Option<&str>, limits: ptx_litmus::budget::Limits) -> Result<ptx_litmus::context::Ctx, i32> {
    let (model, explicit) = model(model_arg)?;
    Ok(ptx_litmus::context::Ctx::of_command(model, explicit, limits))
}

/// The engine for `--engine`: SAT unless the reference engine is asked for
/// (both engines evaluate every model's rows, issue 13).
pub fn engine(engine: Option<EngineArg>) -> ptx_litmus::check::Engine {
    use ptx_litmus::check::Engine;
    match engine {
        None | Some(EngineArg::Sat) => Engine::Sat,
        Some(EngineArg::Reference) => Engine::Reference,
    }
}

/// `ptx-litmus model`.
#[derive(clap::Args)]
pub struct ModelArgs {
    /// Which model to print: ptx, ptx-alloy, rc11, scoped-rc11, or a model file (what is printed loads back).
    #[arg(long, default_value = "ptx", value_name = "NAME|FILE.cat")]
    model: String,
}

/// Print the model's rows and the primitives they read.
pub fn run_model(a: &ModelArgs) -> i32 {
    match model(Some(&a.model)) {
        Ok((m, _)) => {
            ptx_litmus::out::print(&ptx_litmus::model::render_with_primitives(&m));
            ptx_litmus::error::EXIT_OK
        }
        Err(code) => code,
    }
}
