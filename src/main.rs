//! The `ptx-litmus` command line: wires arguments to the library, nothing more.

use clap::{Parser, Subcommand};
use ptx_litmus::check::{check_file, collect_files, CheckOptions, Engine, FileReport};
use ptx_litmus::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK};
use ptx_litmus::error::ErrorKind;
use ptx_litmus::program::BuildOptions;
use ptx_litmus::explain::{self, ShowKind, ShowOptions, Shown};
use ptx_litmus::report;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Duration;

const EXIT_CODES: &str = "Exit codes:\n  0  success (with --expect: every verdict matched)\n  1  verdict mismatches against --expect\n  2  input errors (syntax, unsupported construct, unreadable file)\n  3  internal errors or limits hit (--unroll cut every path, --max-events, --max-states, --timeout)";

#[derive(Parser)]
#[command(name = "ptx-litmus", version, about = "Decide PTX litmus tests exactly under the PTX memory consistency model (PTX ISA 9.2, chapter 8).", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check litmus files or directories (recursive *.litmus), in parallel.
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Generate litmus test families (diy-style shapes and cycles).
    Gen(ptx_litmus::gen::GenArgs),
    /// Explain a test statically: morally strong pairs (and why not), release and
    /// acquire patterns, and which pairs synchronize in some allowed execution.
    Explain(ExplainArgs),
    /// Fence and qualifier advisor: the cheapest changes that forbid a test's
    /// outcome, or what can be weakened while it stays forbidden (README "Fence advisor").
    #[command(after_help = EXIT_CODES)]
    Advise(AdviseArgs),
}

#[derive(clap::Args)]
struct AdviseArgs {
    /// Litmus files or directories (a directory gives a summary table).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Only the weakening analysis: what can be removed or weakened while the outcome stays forbidden.
    #[arg(long)]
    weaken: bool,
    /// Cost table overrides, `key = value` lines (keys in the README).
    #[arg(long, value_name = "FILE")]
    cost: Option<PathBuf>,
    /// Write each repaired or weakened test as a litmus file into DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// One JSON object per test (schema/advise.schema.json).
    #[arg(long)]
    json: bool,
    /// How many times one instruction may run on a path (loop unrolling bound).
    #[arg(long, default_value_t = 2)]
    unroll: u32,
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// Litmus files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How many times one instruction may run on a path (loop unrolling bound).
    #[arg(long, default_value_t = 2)]
    unroll: u32,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files or directories. With --expect and no paths: the tests listed in the CSV.
    paths: Vec<PathBuf>,
    /// One JSON object per test on its own line instead of herd-style text.
    #[arg(long)]
    json: bool,
    /// CSV with header `test,expected` (paths relative to the CSV, `Ok` or `No`).
    #[arg(long, value_name = "FILE.csv")]
    expect: Option<PathBuf>,
    /// Which engine decides.
    #[arg(long, value_enum, default_value = "sat")]
    engine: Engine,
    /// How many times one instruction may run on a path (loop unrolling bound).
    #[arg(long, default_value_t = 2)]
    unroll: u32,
    /// Most events (over all paths of all threads) a test may have.
    #[arg(long, default_value_t = 20_000)]
    max_events: usize,
    /// Most distinct final states enumerated per test (SAT engine).
    #[arg(long, default_value_t = 100_000)]
    max_states: usize,
    /// Do not re-check the SAT engine's executions with the reference engine's
    /// relations and axioms (the self-check is on by default; see README).
    #[arg(long)]
    no_self_check: bool,
    /// Per-test time limit in seconds; a batch reports the timeout and goes on.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Explain: `witness` (an allowed execution per allowed state satisfying the
    /// condition), `forbidden` (candidate executions of forbidden states and the
    /// axiom each violates), or both: `--show witness,forbidden`.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KIND")]
    show: Vec<ptx_litmus::explain::ShowKind>,
    /// With --show: at most N states of each kind, and N candidates per forbidden state.
    #[arg(long, default_value_t = 3, value_name = "N")]
    max_show: usize,
    /// Write one Graphviz DOT file per shown execution into DIR (without --show: shows both kinds).
    #[arg(long, value_name = "DIR")]
    dot: Option<PathBuf>,
    /// Write one SVG picture per shown execution into DIR (without --show: shows both kinds).
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Check(a) => run_check(a),
        Cmd::Gen(a) => ptx_litmus::gen::run(&a),
        Cmd::Explain(a) => run_explain(a),
        Cmd::Advise(a) => run_advise(a),
    };
    std::process::exit(code);
}

/// `--show`, `--dot`, `--svg`: what to explain (None: nothing).
fn show_options(a: &CheckArgs) -> Option<ShowOptions> {
    if a.show.is_empty() && a.dot.is_none() && a.svg.is_none() {
        return None;
    }
    let both = a.show.is_empty();
    Some(ShowOptions {
        witness: both || a.show.contains(&ShowKind::Witness),
        forbidden: both || a.show.contains(&ShowKind::Forbidden),
        max: a.max_show,
        deadline: None,
    })
}

/// One DOT and/or SVG file per shown execution.
fn write_pictures(a: &CheckArgs, p: &ptx_litmus::program::Program, s: &Shown) -> Result<(), String> {
    for (dir, ext) in [(&a.dot, "dot"), (&a.svg, "svg")] {
        let Some(dir) = dir else { continue };
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
        for x in s.executions() {
            let text = if ext == "dot" { explain::dot::render(p, x) } else { explain::svg::render(p, x) };
            let path = dir.join(format!("{}.{}", x.stem(&p.name), ext));
            std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {}", path.display(), e))?;
        }
    }
    Ok(())
}

/// `ptx-litmus explain FILE...`.
fn run_explain(a: ExplainArgs) -> i32 {
    let opts = CheckOptions { build: BuildOptions { unroll: a.unroll, ..Default::default() }, ..Default::default() };
    let mut worst = EXIT_OK;
    for f in &a.files {
        let source = match std::fs::read_to_string(f) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: error: cannot read the file: {}", f.display(), e);
                worst = worst.max(EXIT_INPUT);
                continue;
            }
        };
        match explain::pairs::explain_source(&source, &opts) {
            Ok(text) => print!("{}", text),
            Err(e) => {
                eprintln!("{}", e.render(&f.display().to_string(), &source));
                worst = worst.max(if e.kind == ErrorKind::Input { EXIT_INPUT } else { EXIT_INTERNAL });
            }
        }
    }
    worst
}

fn run_check(a: CheckArgs) -> i32 {
    let opts = CheckOptions {
        build: BuildOptions { unroll: a.unroll, max_events: a.max_events, ..Default::default() },
        engine: a.engine,
        timeout: a.timeout.filter(|t| *t > 0.0).map(Duration::from_secs_f64),
        max_states: a.max_states,
        self_check: !a.no_self_check,
        ..Default::default()
    };
    let expectations = match &a.expect {
        Some(csv) => match report::expect::load(csv) {
            Ok(e) => Some(e),
            Err(e) => {
                eprintln!("{}", e.render(&csv.display().to_string(), &std::fs::read_to_string(csv).unwrap_or_default()));
                return EXIT_INPUT;
            }
        },
        None => None,
    };
    let files = if a.paths.is_empty() {
        match &expectations {
            Some(e) => e.order.clone(),
            None => {
                eprintln!("error: no input: give litmus files or directories (see --help)");
                return EXIT_INPUT;
            }
        }
    } else {
        collect_files(&a.paths)
    };
    let show = show_options(&a);
    let (reports, shown): (Vec<FileReport>, Vec<Option<ptx_litmus::error::Result<Shown>>>) = files
        .par_iter()
        .map(|f| {
            let r = check_file(f, &opts);
            let s = match (&show, &r.result) {
                (Some(so), Ok(res)) => {
                    let so = ShowOptions { deadline: opts.timeout.map(|t| std::time::Instant::now() + t), ..so.clone() };
                    Some(explain::show(res, &so))
                }
                _ => None,
            };
            (r, s)
        })
        .unzip();
    let mut worst = EXIT_OK;
    for (r, s) in reports.iter().zip(&shown) {
        match &r.result {
            Ok(res) => {
                let s = match s {
                    Some(Ok(s)) => Some(s),
                    Some(Err(e)) => {
                        eprintln!("{}: explanation: {}", r.path.display(), e.message);
                        worst = worst.max(EXIT_INTERNAL);
                        None
                    }
                    None => None,
                };
                if a.json {
                    let mut obj = report::json(r);
                    if let Some(s) = s {
                        explain::json::extend(&mut obj, &res.program, s);
                    }
                    println!("{}", obj);
                } else {
                    print!("{}", report::text(res));
                    if let Some(s) = s {
                        print!("{}", explain::show::text(&res.program, s));
                    }
                    println!();
                }
                if let Some(s) = s {
                    if let Err(e) = write_pictures(&a, &res.program, s) {
                        eprintln!("error: {}", e);
                        worst = worst.max(EXIT_INPUT);
                    }
                }
            }
            Err(e) => {
                if a.json {
                    println!("{}", report::json(r));
                }
                eprintln!("{}", e.render(&r.path.display().to_string(), &r.source));
                let code = if e.kind == ErrorKind::Input { EXIT_INPUT } else { EXIT_INTERNAL };
                worst = worst.max(code);
            }
        }
    }
    if let Some(exp) = &expectations {
        let (tally, lines) = report::expect::compare(exp, &reports);
        for l in lines {
            eprintln!("{}", l);
        }
        eprintln!("{}", tally);
        if tally.mismatched > 0 {
            return EXIT_MISMATCH;
        }
    }
    worst
}

/// `ptx-litmus advise PATH...`.
fn run_advise(a: AdviseArgs) -> i32 {
    use ptx_litmus::advise::{self, render, AdviseOptions};
    let costs = match &a.cost {
        None => advise::menu::CostTable::default(),
        Some(f) => match std::fs::read_to_string(f).map_err(|e| e.to_string()).and_then(|t| advise::menu::CostTable::parse(&t)) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{}: error: {}", f.display(), e);
                return EXIT_INPUT;
            }
        },
    };
    let check = ptx_litmus::check::CheckOptions { build: BuildOptions { unroll: a.unroll, ..Default::default() }, ..Default::default() };
    let table = a.paths.iter().any(|p| p.is_dir());
    let opts = AdviseOptions { check, costs, weaken_only: a.weaken, explain: !table || a.json || a.out.is_some() };
    let files = collect_files(&a.paths);
    let results: Vec<_> = files
        .par_iter()
        .map(|f| {
            let source = std::fs::read_to_string(f).map_err(|e| (String::new(), ptx_litmus::error::Error::input_nospan(format!("cannot read the file: {}", e))))?;
            let r = std::panic::catch_unwind(|| advise::advise_source(&source, &opts)).unwrap_or_else(|_| Err(ptx_litmus::error::Error::internal("internal error in the advisor (please report)")));
            r.map_err(|e| (source, e))
        })
        .collect();
    let mut worst = EXIT_OK;
    if table && !a.json {
        println!("{}", render::summary_header());
    }
    for (f, r) in files.iter().zip(results) {
        match r {
            Ok(adv) => {
                let written = match &a.out {
                    Some(dir) => match advise::write_out(dir, &adv) {
                        Ok(w) => w,
                        Err(e) => {
                            eprintln!("error: {}", e.message);
                            worst = worst.max(EXIT_INPUT);
                            Vec::new()
                        }
                    },
                    None => Vec::new(),
                };
                if a.json {
                    println!("{}", render::json(&adv, &f.display().to_string(), &written));
                } else if table {
                    println!("{}", render::summary_row(&f.display().to_string(), &adv));
                } else {
                    print!("{}", render::text(&adv));
                }
            }
            Err((source, e)) => {
                if a.json {
                    println!("{}", render::failure_json(&f.display().to_string(), &e));
                }
                eprintln!("{}", e.render(&f.display().to_string(), &source));
                worst = worst.max(if e.kind == ErrorKind::Input { EXIT_INPUT } else { EXIT_INTERNAL });
            }
        }
    }
    worst
}
