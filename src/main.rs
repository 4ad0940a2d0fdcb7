//! The `ptx-litmus` command line: wires arguments to the library, nothing more.

use clap::{Parser, Subcommand};
mod args;
mod opts;

use args::*;

use ptx_litmus::batch::{self, Progress, Summary};
use ptx_litmus::batch::{check_file, FileReport};
use ptx_litmus::check::{guarded, read_source, CheckOptions};
use ptx_litmus::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK};
use ptx_litmus::explain::{self, ShowKind, ShowOptions, Shown};
use ptx_litmus::out;
use ptx_litmus::program::BuildOptions;
use ptx_litmus::report::{self, expect::Expectations};
use std::collections::BTreeMap;
use std::path::PathBuf;

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
        Cmd::Check(a) => run_check(a),
        Cmd::Gen(a) => ptx_litmus::gen::run(&a),
        Cmd::Explain(a) => run_explain(a),
        Cmd::Run(a) => ptx_litmus::gpu::run::run(&a),
        Cmd::Advise(a) => run_advise(a),
        Cmd::Model(a) => opts::run_model(&a),
        Cmd::Map(a) => ptx_litmus::c11::map::run(&a),
        Cmd::Scaffold(a) => {
            let launch = a.kernel.as_ref().map(|k| ptx_litmus::module::scaffold::Launch {
                kernel: k.clone(),
                ctas: a.ctas,
                threads: a.threads,
                len: a.len,
            });
            ptx_litmus::module::scaffold::run(&a.module, launch.as_ref())
        }
        Cmd::Serve(a) => run_serve(&a),
        Cmd::Man { subcommand } => print_generated(|cmd, buf| man_page(cmd, subcommand.as_deref(), buf)),
        Cmd::Completions { shell } => print_generated(|mut cmd, buf| {
            clap_complete::generate(shell, &mut cmd, "ptx-litmus", buf);
            Ok(())
        }),
    };
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

/// The files of a command line, with notes about what the walk skipped.
fn inputs(paths: &[PathBuf], progress: Option<&Progress>) -> Vec<PathBuf> {
    let found = ptx_litmus::input::collect(paths);
    for n in &found.notes {
        match progress {
            Some(p) => p.eprintln(n),
            None => out::eprintln(n),
        }
    }
    found.files
}

/// `ptx-litmus explain FILE|DIR...`.
fn run_explain(a: ExplainArgs) -> i32 {
    let ctx = match opts::context(a.model.as_deref(), a.limits.budget(a.limits.timeout)) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let opts =
        CheckOptions { build: BuildOptions { unroll: a.unroll, ..Default::default() }, ctx, ..Default::default() };
    let files = inputs(&a.files, None);
    let mut worst = EXIT_OK;
    let work = |f: &std::path::Path| match read_source(f, opts.max_file_bytes) {
        Ok(src) => {
            let base = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            let r = guarded(&opts, || explain::pairs::explanation_of_source(&src, base, &opts));
            (f.to_path_buf(), src, r)
        }
        Err((src, e)) => (f.to_path_buf(), src, Err(e)),
    };
    batch::run_ordered(&files, a.limits.jobs(), work, |(f, src, r)| match r {
        Ok(x) if a.json => {
            let mut obj = serde_json::to_value(&x).expect("an explanation is JSON");
            obj["file"] = f.display().to_string().into();
            out::println(&obj.to_string());
        }
        Ok(x) => out::print(&x.text()),
        Err(e) => {
            out::eprintln(&e.render(&f.display().to_string(), &src));
            if a.json {
                // The failure object of `check --json` (schema/result.schema.json).
                out::println(
                    &report::json(&FileReport { path: f, source: src, result: Err(e.clone()), shown: None })
                        .to_string(),
                );
            }
            worst = worst.max(e.exit_code());
            out::note_code(worst);
        }
    });
    worst
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
            Err(e) => self.fail(e.exit_code(), &e.render(&r.path.display().to_string(), &r.source)),
        }
    }
}

fn load_expectations(csv: &std::path::Path) -> Result<Expectations, String> {
    report::expect::load(csv).map_err(|e| {
        let text = ptx_litmus::input::read_text_capped(csv, report::expect::MAX_CSV_BYTES).unwrap_or_default();
        e.render(&csv.display().to_string(), &text)
    })
}

fn run_check(a: CheckArgs) -> i32 {
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
    let files = match (&expectations, a.paths.is_empty()) {
        (Some(e), true) => e.order.clone(),
        (None, true) => {
            out::eprintln("error: no input: give litmus files or directories (see --help)");
            return EXIT_INPUT;
        }
        (_, false) => inputs(&a.paths, None),
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
        worst: EXIT_OK,
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
    em.worst
}

/// `ptx-litmus advise PATH...`.
fn run_advise(a: AdviseArgs) -> i32 {
    use ptx_litmus::advise::{self, render, AdviseOptions};
    let costs = match advise_costs(&a) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // The advice decides one variant per candidate edit: a large test can take
    // hours, so without --timeout each test gets a default deadline.
    let timeout = a.limits.timeout.or(Some(std::time::Duration::from_secs(advise::DEFAULT_TIMEOUT_S)));
    let ctx = match opts::context(a.model.as_deref(), a.limits.budget(timeout)) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let check =
        CheckOptions { build: BuildOptions { unroll: a.unroll, ..Default::default() }, ctx, ..Default::default() };
    let table = a.paths.iter().any(|p| p.is_dir());
    let opts = AdviseOptions { check, costs, weaken_only: a.weaken, explain: !table || a.json || a.out.is_some() };
    let files = inputs(&a.paths, None);
    let progress = Progress::new(files.len());
    let mut worst = EXIT_OK;
    if table && !a.json {
        out::println(&render::summary_header());
    }
    let work = |f: &std::path::Path| match read_source(f, opts.check.max_file_bytes) {
        Ok(src) => {
            // The advisor budgets each variant itself (advise::budgeted).
            let r = guarded(&CheckOptions { ctx: opts.check.ctx.with_timeout(None), ..opts.check.clone() }, || {
                advise::advise_source(&src, &opts)
            });
            (f.to_path_buf(), src, r)
        }
        Err((src, e)) => (f.to_path_buf(), src, Err(e)),
    };
    batch::run_ordered(&files, a.limits.jobs(), work, |(f, src, r)| {
        progress.tick();
        let name = f.display().to_string();
        match r {
            Ok(adv) => worst = worst.max(print_advice(&a, table, &name, &adv)),
            Err(e) => {
                if a.json {
                    out::println(&render::failure_json(&name, &e).to_string());
                }
                progress.eprintln(&e.render(&name, &src));
                if a.limits.timeout.is_none() && e.message.starts_with("timeout") {
                    progress.eprintln(&format!(
                        "{}: note: advise stops each test after {} s by default; --timeout sets another limit",
                        name,
                        advise::DEFAULT_TIMEOUT_S
                    ));
                }
                worst = worst.max(e.exit_code());
            }
        }
        out::note_code(worst);
    });
    progress.finish();
    worst
}

/// `advise --cost FILE`'s table (a regular file of at most 1 MiB: a FIFO or a device is refused, not read
/// forever), or the default one; the exit status of a bad file, its message printed.
fn advise_costs(a: &AdviseArgs) -> Result<ptx_litmus::advise::menu::CostTable, i32> {
    use ptx_litmus::advise::menu::CostTable;
    let Some(f) = &a.cost else { return Ok(CostTable::default()) };
    ptx_litmus::input::read_text_capped(f, 1 << 20).and_then(|t| CostTable::parse(&t)).map_err(|e| {
        out::eprintln(&format!("{}: error: {}", f.display(), e));
        EXIT_INPUT
    })
}

/// Print one test's advice as JSON, a table row or text, after writing its files under `--out`; the exit status
/// that leaves (an input error when a file cannot be written).
fn print_advice(a: &AdviseArgs, table: bool, name: &str, adv: &ptx_litmus::advise::Advice) -> i32 {
    use ptx_litmus::advise::{self, render};
    let mut status = EXIT_OK;
    let written = match &a.out {
        Some(dir) => advise::write_out(dir, adv).unwrap_or_else(|e| {
            out::eprintln(&format!("error: {}", e.message));
            status = EXIT_INPUT;
            Vec::new()
        }),
        None => Vec::new(),
    };
    if a.json {
        out::println(&render::json(adv, name, &written).to_string());
    } else if table {
        out::println(&render::summary_row(name, adv));
    } else {
        out::print(&render::text(adv));
    }
    status
}

/// `ptx-litmus serve`: print the address, open it if asked, answer until killed.
fn run_serve(a: &ServeArgs) -> i32 {
    use ptx_litmus::serve;
    let opts = serve::ServeOptions {
        port: a.port,
        workers: a.limits.jobs(),
        timeout: a.limits.timeout.unwrap_or(serve::DEFAULT_TIMEOUT),
        max_memory: a.limits.max_bytes(),
    };
    let ready = |url: &str| {
        out::println(&format!("ptx-litmus playground on {} (Ctrl-C stops it)", url));
        if a.open {
            serve::open_browser(url);
        }
    };
    match serve::serve(opts, ready) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            out::eprintln(&format!("error: {}", e));
            EXIT_INTERNAL
        }
    }
}
