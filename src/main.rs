//! The `ptx-litmus` command line: its definition, and the dispatch of each command to its body (`cmd`, or the
//! library module it belongs to); nothing more.

use clap::{Parser, Subcommand};
mod args;
mod cmd;
mod opts;

use args::*;

use ptx_litmus::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_OK};
use ptx_litmus::out;

// Many small allocations per test (relations, clauses, strings): see the
// Cargo.toml note and paper-notes/performance.md, "Listing throughput".
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EXIT_CODES: &str = "Exit codes (a batch exits with the highest that applies):\n  0  success (with --expect: every verdict matched)\n  1  verdict mismatches against --expect\n  2  input errors (syntax, unsupported construct, unreadable or non-regular file, bad option value)\n  3  internal errors, limits hit (--unroll cut every path, --max-events, --max-states, --timeout, --max-memory),\n     or output that could not be written";

#[derive(Parser)]
#[command(name = "ptx-litmus", version, about = "Decide PTX litmus tests exactly under the PTX memory consistency model (PTX ISA 9.2, chapter 8).", after_help = EXIT_CODES)]
struct Cli {
    /// No warnings on stderr (a newer `.version`, duplicate test names); errors are still printed.
    #[arg(short, long, global = true)]
    quiet: bool,
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
    /// Run tests on a GPU (CUDA driver, loaded at run time): a histogram of the
    /// observed final states, each judged allowed or forbidden by the model.
    /// Exit 1 when a forbidden state is observed, 3 without a GPU.
    #[command(after_help = EXIT_CODES)]
    Run(ptx_litmus::gpu::run::RunArgs),
    /// Fence and qualifier advisor: the cheapest changes that forbid a test's
    /// outcome, or what can be weakened while it stays forbidden (README "Fence advisor").
    #[command(after_help = EXIT_CODES)]
    Advise(AdviseArgs),
    /// Print the model, cat-style: every derived relation and axiom as one row
    /// under its ISA section, then the primitives the rows are written over.
    Model(opts::ModelArgs),
    /// Check a compilation mapping: compile C tests to PTX by a mapping table,
    /// decide both, report each test sound or unsound (README "Checking a
    /// compilation mapping"). Exit 1 when a test is unsound.
    #[command(after_help = EXIT_CODES)]
    Map(ptx_litmus::c11::map::MapArgs),
    /// Merge the outputs of a sweep's shards (`--shard K/N --output FILE`) into the whole run's: checks that
    /// every shard is there once and complete and no test is doubled, prints the run's summary and exits
    /// with its status (README "Sweeping on a cluster").
    #[command(after_help = EXIT_CODES)]
    Merge(ptx_litmus::merge::MergeArgs),
    /// Print a harness skeleton for a PTX module: one thread per `.entry`/`.func`,
    /// a location per pointer parameter, a placeholder condition (README
    /// "Checking compiler output").
    Scaffold(ScaffoldArgs),
    /// The teaching playground: a web page on 127.0.0.1 to edit a test and see
    /// its verdict, states, execution graphs, explanation and repairs (README
    /// "Teaching with the playground"). Runs until interrupted.
    Serve(ServeArgs),
    /// Print the manual page (roff), generated from these options:
    /// `ptx-litmus man > ptx-litmus.1`, `ptx-litmus man check > ptx-litmus-check.1`.
    Man {
        /// The page of one subcommand (`check`, `explain`, ...) instead of the overview.
        subcommand: Option<String>,
    },
    /// Print a completion script for SHELL: `ptx-litmus completions bash >
    /// ~/.local/share/bash-completion/completions/ptx-litmus`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

fn main() {
    let cli = Cli::parse();
    out::set_quiet(cli.quiet);
    let code = match cli.cmd {
        Cmd::Check(a) => cmd::check::run(a),
        Cmd::Gen(a) => ptx_litmus::gen::run(&a),
        Cmd::Explain(a) => cmd::explain::run(a),
        Cmd::Run(a) => ptx_litmus::gpu::run::run(&a),
        Cmd::Advise(a) => cmd::advise::run(a),
        Cmd::Model(a) => opts::run_model(&a),
        Cmd::Map(a) => ptx_litmus::c11::map::run(&a),
        Cmd::Merge(a) => ptx_litmus::merge::run(&a),
        Cmd::Scaffold(a) => {
            let launch = a.kernel.as_ref().map(|k| ptx_litmus::module::scaffold::Launch {
                kernel: k.clone(),
                ctas: a.ctas,
                threads: a.threads,
                len: a.len,
            });
            ptx_litmus::module::scaffold::run(&a.module, launch.as_ref())
        }
        Cmd::Serve(a) => cmd::serve::run(&a),
        Cmd::Man { subcommand } => print_generated(|cmd, buf| man_page(cmd, subcommand.as_deref(), buf)),
        Cmd::Completions { shell } => print_generated(|mut cmd, buf| {
            clap_complete::generate(shell, &mut cmd, "ptx-litmus", buf);
            Ok(())
        }),
    };
    // A run that stopped before its end leaves no partial --output behind.
    out::abandon();
    std::process::exit(out::exit_code(code));
}

/// The man page of the whole command or of one subcommand (`ptx-litmus-check(1)`).
fn man_page(cmd: clap::Command, subcommand: Option<&str>, buf: &mut Vec<u8>) -> std::io::Result<()> {
    let Some(name) = subcommand else { return clap_mangen::Man::new(cmd).render(buf) };
    let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
    let sub = cmd.find_subcommand(name).cloned().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("no subcommand `{}` (one of: {})", name, names.join(", ")),
        )
    })?;
    let page = format!("ptx-litmus-{}", name);
    clap_mangen::Man::new(sub.bin_name(format!("ptx-litmus {}", name))).title(page).render(buf)
}

/// Print what a generator writes from the command-line definition (the man
/// page, a completion script), so that both always match the options.
fn print_generated(write: impl FnOnce(clap::Command, &mut Vec<u8>) -> std::io::Result<()>) -> i32 {
    use clap::CommandFactory;
    let mut buf = Vec::new();
    match write(Cli::command(), &mut buf) {
        Ok(()) => {
            out::print(&String::from_utf8_lossy(&buf));
            EXIT_OK
        }
        Err(e) => {
            out::eprintln(&format!("error: {}", e));
            if e.kind() == std::io::ErrorKind::InvalidInput {
                EXIT_INPUT
            } else {
                EXIT_INTERNAL
            }
        }
    }
}
