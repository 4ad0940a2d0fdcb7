//! The `ptx-litmus` command line: wires arguments to the library, nothing more.

use clap::{Parser, Subcommand};
use ptx_litmus::check::{check_file, collect_files, CheckOptions, Engine, FileReport};
use ptx_litmus::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK};
use ptx_litmus::error::ErrorKind;
use ptx_litmus::program::BuildOptions;
use ptx_litmus::report;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Duration;

const EXIT_CODES: &str = "Exit codes:\n  0  success (with --expect: every verdict matched)\n  1  verdict mismatches against --expect\n  2  input errors (syntax, unsupported construct, unreadable file)\n  3  internal errors or limits hit (--unroll cut every path, --max-events, --timeout)";

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
    /// Per-test time limit in seconds; a batch reports the timeout and goes on.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Check(a) => run_check(a),
        Cmd::Gen(a) => ptx_litmus::gen::run(&a),
    };
    std::process::exit(code);
}

fn run_check(a: CheckArgs) -> i32 {
    let opts = CheckOptions {
        build: BuildOptions { unroll: a.unroll, max_events: a.max_events, ..Default::default() },
        engine: a.engine,
        timeout: a.timeout.filter(|t| *t > 0.0).map(Duration::from_secs_f64),
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
    let reports: Vec<FileReport> = files.par_iter().map(|f| check_file(f, &opts)).collect();
    let mut worst = EXIT_OK;
    for r in &reports {
        match &r.result {
            Ok(res) => {
                if a.json {
                    println!("{}", report::json(r));
                } else {
                    print!("{}", report::text(res));
                    println!();
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
