//! `ptx-litmus run`: check each test with the SAT engine (the allowed final
//! states), emit its kernel, run it for `--iterations` instances and compare
//! every observed final state with the model (D30-D34).

use super::driver::{self, Gpu};
use super::{emit_module, EmitOptions, Module, Source};
use crate::check::{check_source_at, CheckOptions, TestResult};
use crate::error::{ErrorKind, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK};
use crate::outcome::{eval, State};
use crate::shard::{Start, Sweep};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    /// Litmus files or directories (recursive *.litmus).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Instances to run per test (suffixes k and M: 10M).
    #[arg(long, default_value = "1M", value_parser = parse_count)]
    pub iterations: u64,
    /// Instances per launch (rounded up to a multiple of 32).
    #[arg(long, default_value = "64k", value_parser = parse_count)]
    pub per_launch: u64,
    /// Extra CTAs hammering a 128 KiB scratch buffer while the test runs.
    #[arg(long, default_value_t = 0, value_name = "CTAS")]
    pub stress: u32,
    /// Read-modify-writes per stress thread and launch.
    #[arg(long, default_value_t = 1024)]
    pub stress_iters: u32,
    /// Read-modify-writes of the stress buffer by each test thread before its code (GPUHarbor's pre-stress).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub pre_stress: u32,
    /// Keep CTAs in grid order instead of shuffling which real cluster plays which group or stress CTA.
    #[arg(long)]
    pub fixed_ctas: bool,
    /// Bytes between two variables of an instance (multiple of 8; 128 = a cache line each).
    #[arg(long, default_value_t = 128, value_parser = parse_stride)]
    pub loc_stride: u64,
    /// A label reached more often than this abandons the instance (bounds spin loops).
    #[arg(long, default_value_t = 10_000)]
    pub spin_limit: u32,
    /// Loop unrolling bound of the model; instances that loop more are counted apart.
    #[arg(long, default_value_t = 2)]
    pub unroll: u32,
    /// Seed of the thread-to-instance permutations.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Write each test's kernel to `DIR/<test>.ptx` and stop (no GPU needed).
    #[arg(long, value_name = "DIR")]
    pub emit: Option<PathBuf>,
    /// Print what each test would launch (grid, CTA and cluster shape, launches, seed, stress, module digest) and stop: no GPU or CUDA driver needed.
    #[arg(long)]
    pub dry_run: bool,
    /// One JSON object per test instead of text.
    #[arg(long)]
    pub json: bool,
    /// The model observed states are judged by: ptx (default), ptx-alloy, or a model file.
    #[arg(long, value_name = "NAME|FILE.cat")]
    pub model: Option<String>,
    /// --shard K/N, --output FILE, --resume: one part of a campaign (README "Sweeping on a cluster").
    #[command(flatten)]
    pub sweep: crate::shard::ShardArgs,
}

fn parse_count(s: &str) -> Result<u64, String> {
    let (num, mul) = match s.trim().chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1_000),
        Some('M' | 'm') => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1),
    };
    let n: u64 = num.replace('_', "").parse().map_err(|_| format!("`{}` is not a count (e.g. 100000, 64k, 10M)", s))?;
    if n == 0 {
        return Err("the count must be positive".into());
    }
    n.checked_mul(mul).ok_or_else(|| "count too large".into())
}

fn parse_stride(s: &str) -> Result<u64, String> {
    let n: u64 = s.parse().map_err(|_| format!("`{}` is not a number", s))?;
    if n < 8 || !n.is_multiple_of(8) || n > 1 << 20 {
        return Err("the stride must be a multiple of 8 between 8 and 1048576".into());
    }
    Ok(n)
}

/// What the GPU showed for one test.
#[derive(Default, Debug)]
pub struct Tally {
    pub states: BTreeMap<State, u64>,
    /// Some thread looped past `--spin-limit`.
    pub abandoned: u64,
    /// Some label was reached more than `--unroll` times: outside the model's paths.
    pub beyond_unroll: u64,
    /// The state fails the test's `filter`.
    pub filtered: u64,
    /// Some thread never wrote its status word (an emitter or launch bug).
    pub unfinished: u64,
    pub instances: u64,
    pub launches: u64,
}

/// How many tests of a run were run (or emitted) and skipped.
#[derive(Default)]
struct Counts {
    ran: usize,
    skipped: usize,
}

/// One `run` over its files: the options every test shares, the GPU once
/// opened, and what the run has done so far.
struct Session<'a> {
    args: &'a RunArgs,
    check: CheckOptions,
    emit_opts: EmitOptions,
    /// Opened for the first test that runs on it (`--emit` needs none).
    gpu: Option<Gpu>,
    counts: Counts,
    /// Kernel files written so far: two tests of one name get `name-2.ptx`, ...
    written: std::collections::BTreeSet<String>,
}

/// `ptx-litmus run PATH...`: the exit status is the highest any test leaves.
pub fn run(a: &RunArgs) -> i32 {
    let check = match check_options(a) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let emit_opts = EmitOptions { loc_stride: a.loc_stride, spin_limit: a.spin_limit };
    let mut session =
        Session { args: a, check, emit_opts, gpu: None, counts: Counts::default(), written: Default::default() };
    let files = crate::check::collect_files(&a.paths);
    let (sweep, files) = match Sweep::start("run", if a.json { "json" } else { "text" }, &a.sweep, files) {
        Start::Run(s, f) => (*s, f),
        Start::Done(code) => return code,
    };
    let mut worst = EXIT_OK;
    for path in files {
        match session.file(&path) {
            Ok(code) => worst = worst.max(code),
            // No GPU to run on: the run stops there (and a shard leaves no complete output).
            Err(code) => return code,
        }
    }
    // One shard of several may run nothing; whether the campaign did is `merge`'s to say.
    if !sweep.is_part() {
        worst = worst.max(nothing_ran(a, &session.counts));
    }
    let c = &session.counts;
    let counts = [("ran".to_string(), c.ran), ("skipped".to_string(), c.skipped)].into();
    sweep.finish(worst, counts, Vec::new(), Vec::new())
}

/// The checking options of `--model` and `--unroll`; a bad `--model` is
/// printed, and its exit status returned. Every allowed state is listed: an
/// observed state is judged by whether the listing has it (`report`), so a
/// listing cut at `check`'s default length would judge the rest forbidden.
pub fn check_options(a: &RunArgs) -> Result<CheckOptions, i32> {
    let model = a.model.as_deref().map(crate::model::rows::model_arg).transpose().map_err(|e| {
        eprintln!("{}", e.render(a.model.as_deref().unwrap_or_default(), ""));
        e.exit_code()
    })?;
    Ok(CheckOptions {
        build: crate::program::BuildOptions { unroll: a.unroll, ..Default::default() },
        ctx: crate::context::Ctx::of_command(
            model.clone().unwrap_or_else(|| crate::model::ModelKind::Ptx.shared()),
            model.is_some(),
            crate::budget::Limits::default(),
        ),
        list_states: None,
        ..Default::default()
    })
}

impl Session<'_> {
    /// Check one test file, then emit its kernel (`--emit`) or run it: the
    /// exit status it leaves, or `Err` with the run's when no GPU opens.
    fn file(&mut self, path: &std::path::Path) -> Result<i32, i32> {
        let a = self.args;
        let shown = path.display().to_string();
        let source = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: error: cannot read the file: {}", shown, e);
                return Ok(EXIT_INPUT);
            }
        };
        // `ptx "FILE";` paths are relative to the test's own folder.
        let base = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        let (res, module) = match prepare(&source, base, &self.check, &self.emit_opts) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{}", e.render(&shown, &source));
                return Ok(if e.kind == ErrorKind::Input { EXIT_INPUT } else { EXIT_INTERNAL });
            }
        };
        let m = match module {
            Ok(m) => m,
            Err(why) => {
                report_skip(a, &shown, &res.program.name, &why);
                self.counts.skipped += 1;
                return Ok(EXIT_OK);
            }
        };
        if a.emit.is_some() || a.dry_run {
            let code = self.without_gpu(&shown, &m, &res);
            self.counts.ran += usize::from(code == EXIT_OK);
            return Ok(code);
        }
        self.open_gpu()?;
        let g = self.gpu.as_ref().expect("opened above");
        // A module this device or driver cannot load says so and is skipped (D120).
        if let Some(why) = g.cannot_run(&m) {
            report_skip(a, &shown, &res.program.name, &why);
            self.counts.skipped += 1;
            return Ok(EXIT_OK);
        }
        self.counts.ran += 1;
        match execute(a, g, &m, &res) {
            Ok(t) => Ok(report(a, g, &shown, &m, &res, &t)),
            Err(e) => {
                eprintln!("{}: error: {}", shown, e);
                Ok(EXIT_INTERNAL)
            }
        }
    }

    /// `--emit` (write the kernel) and `--dry-run` (print its launches, with
    /// the written kernel's path when both are given): the exit status.
    fn without_gpu(&mut self, shown: &str, m: &Module, res: &TestResult) -> i32 {
        let a = self.args;
        let path = match &a.emit {
            Some(dir) => match write_ptx(dir, shown, m, &mut self.written) {
                Ok(p) => Some(p),
                Err(code) => return code,
            },
            None => None,
        };
        if !a.dry_run {
            // Without --dry-run this is reached only with --emit, so a path was written.
            if let Some(p) = path.as_deref() {
                print_emitted(a, shown, m, p);
            }
            return EXIT_OK;
        }
        match super::launch::plan(m, a.iterations, a.per_launch, a.stress) {
            Ok(plan) => {
                super::report::dry_run(a, shown, m, res, &plan, path.as_deref());
                EXIT_OK
            }
            Err(e) => {
                eprintln!("{}: error: {}", shown, e);
                EXIT_INPUT
            }
        }
    }

    /// Open the GPU for the first test that runs on it; when none opens, say
    /// why and return the run's exit status.
    fn open_gpu(&mut self) -> Result<(), i32> {
        if self.gpu.is_some() {
            return Ok(());
        }
        match driver::open(self.args.device) {
            Ok(g) => {
                self.gpu = Some(g);
                Ok(())
            }
            Err(why) => {
                eprintln!("error: cannot run on a GPU: {}", why);
                eprintln!("(use --emit DIR to write the kernels without a GPU)");
                Err(EXIT_INTERNAL)
            }
        }
    }
}

/// A run that ran (or emitted) no test says so and exits 3: skipping every
/// test is not a pass (D121).
fn nothing_ran(a: &RunArgs, c: &Counts) -> i32 {
    if c.ran > 0 {
        return EXIT_OK;
    }
    let what = match (a.dry_run, a.emit.is_some()) {
        (true, _) => "no test would run",
        (false, true) => "no kernel was emitted",
        (false, false) => "no test ran",
    };
    match c.skipped {
        0 => eprintln!("error: {}", what),
        n => eprintln!(
            "error: {}: {} test{} skipped (the reasons are above)",
            what,
            n,
            if n == 1 { " was" } else { "s were" }
        ),
    }
    EXIT_INTERNAL
}

/// The model's allowed states and the kernel (or why the test is skipped).
/// Calls into PTX modules are inlined first (`module::expand`), so a harness
/// of compiled code runs as the code the model checked. The test is decided
/// as `check` decides it (`check_source_at`: past the path builder's limit,
/// on its symbolic program, D188), and the kernel emitted from its source.
pub fn prepare(
    source: &str,
    base: &std::path::Path,
    check: &CheckOptions,
    opts: &EmitOptions,
) -> crate::error::Result<(TestResult, Result<Module, String>)> {
    let res = check_source_at(source, base, check)?;
    let lit = crate::check::parse_and_expand(source, base)?;
    let m = emit_module(&lit, &res.program.observables, &res.program, opts);
    Ok((res, m))
}

/// Write the kernel to `dir/<test>.ptx` (two tests of one name: `name-2.ptx`, ...).
fn write_ptx(
    dir: &std::path::Path,
    shown: &str,
    m: &Module,
    written: &mut std::collections::BTreeSet<String>,
) -> Result<PathBuf, i32> {
    let stem: String =
        m.name.chars().map(|c| if c.is_ascii_alphanumeric() || "+-_.".contains(c) { c } else { '_' }).collect();
    let mut file = stem.clone();
    let mut k = 1;
    while !written.insert(file.clone()) {
        k += 1;
        file = format!("{}-{}", stem, k);
    }
    let path = dir.join(format!("{}.ptx", file));
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| crate::out::write_atomic(&path, m.ptx.as_bytes())) {
        eprintln!("{}: error: cannot write {}: {}", shown, path.display(), e);
        return Err(EXIT_INPUT);
    }
    Ok(path)
}

fn print_emitted(a: &RunArgs, shown: &str, m: &Module, path: &std::path::Path) {
    if a.json {
        let v = serde_json::json!({"file": shown, "test": m.name, "status": "emitted", "ptx": path.display().to_string(),
            "version": m.needs.version(), "target": format!("sm_{}", m.needs.sm), "cluster_dim": m.layout.cluster_dim});
        println!("{}", v);
    } else {
        println!("Emitted {} -> {}  (.version {}, sm_{})", m.name, path.display(), m.needs.version(), m.needs.sm);
    }
}

fn report_skip(a: &RunArgs, shown: &str, name: &str, why: &str) {
    if a.json {
        println!("{}", serde_json::json!({"file": shown, "test": name, "status": "skipped", "reason": why}));
    } else {
        println!("Skipped {}: {}\n", name, why);
    }
}

/// All launches of one test, tallied.
fn execute(a: &RunArgs, g: &Gpu, m: &Module, res: &TestResult) -> Result<Tally, String> {
    let plan = super::launch::plan(m, a.iterations, a.per_launch, a.stress)?;
    let mut p = g.prepare(m, plan.groups, a.stress)?;
    let image = memory_image(m, plan.groups as usize * 32);
    let mut rng = super::layout::Rng(a.seed);
    let mut t = Tally::default();
    while t.instances < a.iterations {
        let perm = super::launch::draw(m, plan.groups, plan.stress_ctas, a.fixed_ctas, &mut rng);
        let (out, mem) = g.launch(m, &mut p, &image, &perm, (a.stress_iters, a.pre_stress))?;
        tally(m, res, a.unroll, &out, &mem, &mut t);
        t.launches += 1;
    }
    Ok(t)
}

/// Every instance's variables at their initial values.
pub fn memory_image(m: &Module, instances: usize) -> Vec<u8> {
    let region = m.memory.region_bytes() as usize;
    let mut image = vec![0u8; instances * region];
    for i in 0..instances {
        for init in &m.inits {
            let at = i * region + init.offset as usize;
            let n = init.bytes as usize;
            image[at..at + n].copy_from_slice(&init.value.to_le_bytes()[..n]);
        }
    }
    image
}

/// Add one launch's instances to the tally.
pub fn tally(m: &Module, res: &TestResult, unroll: u32, out: &[u64], mem: &[u8], t: &mut Tally) {
    let region = m.memory.region_bytes() as usize;
    let instances = out.len() / m.out_slots.max(1);
    for i in 0..instances {
        t.instances += 1;
        let rec = &out[i * m.out_slots..(i + 1) * m.out_slots];
        let status = &rec[m.status_slot..];
        if status.contains(&0) {
            t.unfinished += 1;
            continue;
        }
        if status.contains(&(u32::MAX as u64)) {
            t.abandoned += 1;
            continue;
        }
        if status.iter().any(|&s| s - 1 > unroll as u64) {
            t.beyond_unroll += 1;
            continue;
        }
        let state: State = m.sources.iter().map(|s| value(s, rec, &mem[i * region..(i + 1) * region])).collect();
        if res.program.filter.as_ref().is_some_and(|f| !eval(&res.program, f, &state)) {
            t.filtered += 1;
            continue;
        }
        *t.states.entry(state).or_default() += 1;
    }
}

fn value(s: &Source, rec: &[u64], mem: &[u8]) -> i64 {
    match s {
        Source::Out(j) => rec[*j] as i64,
        Source::Mem { offset, size } => {
            let mut b = [0u8; 8];
            let n = (*size as usize).min(8);
            b[..n].copy_from_slice(&mem[*offset as usize..*offset as usize + n]);
            i64::from_le_bytes(b)
        }
    }
}

fn report(a: &RunArgs, g: &Gpu, shown: &str, m: &Module, res: &TestResult, t: &Tally) -> i32 {
    super::report::print(a.json, &g.describe(), shown, m, res, t, a)
}
