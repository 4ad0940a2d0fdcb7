//! The command-line arguments of `check`, `explain`, `advise` and `scaffold`
//! (clap derives); `main.rs` maps them onto the library's options.

use super::opts;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ScaffoldArgs {
    /// The PTX module (`nvcc -ptx` output).
    pub module: PathBuf,
    /// One kernel launched on --ctas CTAs of --threads threads, every thread calling it with the same
    /// arguments, each pointer parameter a `u32` array of --len elements (the name as in the module, or
    /// demangled). Without it: one thread per function, each in its own CTA.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// CTAs of the --kernel launch.
    #[arg(long, default_value_t = 2, requires = "kernel")]
    pub ctas: u32,
    /// Threads per CTA of the --kernel launch (`tid 0`, `tid 1`, ...).
    #[arg(long, default_value_t = 1, requires = "kernel")]
    pub threads: u32,
    /// Elements of each pointer parameter's `u32` array in the --kernel form.
    #[arg(long, default_value_t = 4, requires = "kernel")]
    pub len: u32,
}

#[derive(clap::Args)]
pub struct AdviseArgs {
    /// Litmus files or directories (a directory gives a summary table).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Only the weakening analysis: what can be removed or weakened while the outcome stays forbidden.
    #[arg(long)]
    pub weaken: bool,
    /// Cost table overrides, `key = value` lines (keys in the README).
    #[arg(long, value_name = "FILE")]
    pub cost: Option<PathBuf>,
    /// Write each repaired or weakened test as a litmus file into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// One JSON object per test (schema/advise.schema.json).
    #[arg(long)]
    pub json: bool,
    /// How many times one instruction may run on a path (loop unrolling bound).
    #[arg(long, default_value_t = 2, value_parser = opts::unroll)]
    pub unroll: u32,
    /// --timeout covers the whole advice for one test (default 300 s); --max-memory each variant decided.
    #[command(flatten)]
    pub limits: opts::Limits,
    /// Which model decides: ptx (the ISA text, default for PTX tests), ptx-alloy (NVIDIA's formalization),
    /// rc11 (default for C tests: herd7's model, without scopes), scoped-rc11 (reads scopes; `map`'s default),
    /// or a model file (`ptx-litmus model` prints one to start from).
    #[arg(long, value_name = "NAME|FILE.cat")]
    pub model: Option<String>,
}

#[derive(clap::Args)]
pub struct ExplainArgs {
    /// Litmus files or directories (recursive *.litmus); `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per test (schema/explain.schema.json) instead of text.
    #[arg(long)]
    pub json: bool,
    /// How many times one instruction may run on a path (loop unrolling bound).
    #[arg(long, default_value_t = 2, value_parser = opts::unroll)]
    pub unroll: u32,
    #[command(flatten)]
    pub limits: opts::Limits,
    /// Which model decides: ptx (the ISA text, default for PTX tests), ptx-alloy (NVIDIA's formalization),
    /// rc11 (default for C tests: herd7's model, without scopes), scoped-rc11 (reads scopes; `map`'s default),
    /// or a model file (`ptx-litmus model` prints one to start from).
    #[arg(long, value_name = "NAME|FILE.cat")]
    pub model: Option<String>,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files or directories; `-` reads one test from standard input. With --expect
    /// and no paths: the tests listed in the CSV.
    pub paths: Vec<PathBuf>,
    /// One JSON object per test on its own line instead of herd-style text.
    #[arg(long)]
    pub json: bool,
    /// CSV `test,expected[,note]` (paths relative to the CSV's folder, `Ok` or `No`;
    /// a note marks a documented deviation, counted as matched and listed).
    #[arg(long, value_name = "FILE.csv")]
    pub expect: Option<PathBuf>,
    /// Which engine decides (default: sat; both engines decide every model).
    #[arg(long, value_enum)]
    pub engine: Option<opts::EngineArg>,
    /// Which model decides: ptx (the ISA text, default for PTX tests), ptx-alloy (NVIDIA's formalization),
    /// rc11 (default for C tests: herd7's model, without scopes), scoped-rc11 (reads scopes; `map`'s default),
    /// or a model file (`ptx-litmus model` prints one to start from).
    #[arg(long, value_name = "NAME|FILE.cat")]
    pub model: Option<String>,
    /// How many times one instruction may run on a path (loop unrolling bound).
    #[arg(long, default_value_t = 2, value_parser = opts::unroll)]
    pub unroll: u32,
    /// Most instruction instances (over all threads; loops unrolled) a test may have.
    #[arg(long, default_value_t = 20_000)]
    pub max_events: usize,
    /// Most distinct final states enumerated per test with `--states all` (SAT engine).
    #[arg(long, default_value_t = 100_000)]
    pub max_states: usize,
    /// How many allowed final states to list: `all`, a number, or `none`. The
    /// verdict and the Observation kind are decided first by their own queries and
    /// are exact whatever is listed; past N the output says `States >= N (more not
    /// listed)` and the Positive/Negative counts are of the listed states. They
    /// count final states, not executions as herd7 does (its counts can be larger,
    /// never zero where ours are not; README "Reading the output", D136).
    #[arg(long, default_value = "256", value_parser = parse_states, value_name = "all|N|none")]
    pub states: StatesArg,
    /// Do not re-check the SAT engine's executions with the reference engine's
    /// relations and axioms (the self-check is on by default; see README).
    #[arg(long)]
    pub no_self_check: bool,
    /// Do not break the symmetry of interchangeable threads (same code, same
    /// placement relations, condition unchanged by swapping them); verdicts and
    /// complete state listings never depend on it (see README).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Give the SAT engine one event per path's copy of an instruction instead
    /// of one per instruction instance shared by its paths, and keep the paths
    /// that only add failed spin-loop iterations (slower on branching loops;
    /// verdicts, states and flags never depend on it, see README).
    #[arg(long)]
    pub no_merge: bool,
    /// How threads are encoded: `auto` (default: each thread's paths; past the path builder's limit of
    /// paths, the symbolic encoding), `paths` (paths only: past the limit, exit 3), `symbolic` (each thread's
    /// code once, with symbolic values; SAT engine only). Verdicts and states do not depend on it where both
    /// decide (see README).
    #[arg(long, value_enum, default_value = "auto", value_name = "auto|paths|symbolic")]
    pub encoding: opts::EncodingArg,
    #[command(flatten)]
    pub limits: opts::Limits,
    /// Explain: `witness` (an allowed execution per allowed state satisfying the
    /// condition), `forbidden` (candidate executions of forbidden states and the
    /// axiom each violates), or both: `--show witness,forbidden`.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KIND")]
    pub show: Vec<ptx_litmus::explain::ShowKind>,
    /// With --show: at most N states of each kind, and N candidates per forbidden state.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub max_show: u16,
    /// Write one Graphviz DOT file per shown execution into DIR (without --show: shows both kinds).
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// Write one SVG picture per shown execution into DIR (without --show: shows both kinds).
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// --shard K/N, --output FILE, --resume: one part of a sweep (README "Sweeping on a cluster").
    #[command(flatten)]
    pub sweep: ptx_litmus::shard::ShardArgs,
}

/// `--states`: how many final states to list (None: all).
#[derive(Clone, Copy, Debug)]
pub struct StatesArg(pub Option<usize>);

pub fn parse_states(s: &str) -> Result<StatesArg, String> {
    match s {
        "all" => Ok(StatesArg(None)),
        "none" => Ok(StatesArg(Some(0))),
        n => n
            .parse::<usize>()
            .map(|k| StatesArg(Some(k)))
            .map_err(|_| format!("`{}` is not `all`, `none` or a number of states", n)),
    }
}

#[derive(clap::Args)]
#[command(mut_arg("timeout", |a| a.help(serve_timeout_help())))]
pub struct ServeArgs {
    /// TCP port on 127.0.0.1 (the playground listens on the loopback interface only); 0 picks a free port.
    #[arg(long, default_value_t = 8117)]
    pub port: u16,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    pub open: bool,
    /// Per request: --timeout (default 10 s; a request may ask for less) and --max-memory;
    /// -j: requests decided at once (more wait in a queue, past it they are refused).
    #[command(flatten)]
    pub limits: opts::Limits,
    /// Internal: decide one request read from standard input and exit (the
    /// server runs each request in such a process, D245).
    #[arg(long, hide = true)]
    pub worker: bool,
}

/// `serve --timeout`: the command's own default, not `check`'s (none).
fn serve_timeout_help() -> String {
    format!(
        "Per-request time limit in seconds (0 < SECONDS <= 604800) [default: {}]; a request may ask for less. \
         The check and its explanation each run under it; a request still running at twice the limit plus {} s \
         is stopped",
        ptx_litmus::serve::DEFAULT_TIMEOUT.as_secs(),
        ptx_litmus::serve::HARD_LIMIT_GRACE.as_secs()
    )
}
