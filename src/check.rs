//! The pipeline for one file: text -> AST -> program -> engine -> outcome, with
//! limits (unroll, events, time) and errors kept apart from results.

use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Model, ModelKind};
use crate::outcome::{Outcome, Summary};
use crate::program::{build_program, BuildOptions, Program};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which engine decides (the command line maps `--engine` to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// SAT encoding solved by varisat (default).
    Sat,
    /// Plain explicit enumeration of candidate executions (slow, for cross-checking).
    Reference,
}

/// How the threads of a test are encoded (`--encoding`, D188).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadEncoding {
    /// The path builder; where it stops at its limit of paths per thread,
    /// the symbolic builder (issue 27).
    Auto,
    /// The path builder only.
    Paths,
    /// The symbolic builder only (a test it does not cover is a limit).
    Symbolic,
}

/// By default at most this many final states are listed (`--states`).
pub(crate) const DEFAULT_LISTED_STATES: usize = 256;

#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub build: BuildOptions,
    pub engine: Engine,
    /// The model, the per-test limits (wall clock: parsing, encoding, solving
    /// and explaining; memory: the unrolled program and its encoding) and tracing.
    pub ctx: Ctx,
    /// Largest input file accepted, in bytes.
    pub max_file_bytes: usize,
    /// Most candidate executions the reference engine examines.
    pub reference_max_candidates: u64,
    /// Most distinct final states the SAT engine enumerates (with `list_states: None`).
    pub max_states: usize,
    /// List at most this many final states (`None`: all). The verdict and the
    /// observation do not depend on it (SAT engine).
    pub list_states: Option<usize>,
    /// Explain each checked test (`--show`, `--dot`, `--svg`).
    pub show: Option<ShowOptions>,
    /// Re-check each execution the SAT engine reports with the reference engine's
    /// relations and axioms (an internal error, exit 3, on disagreement).
    pub self_check: bool,
    /// Break thread symmetry in the SAT engine's verdict queries (D70;
    /// `--no-symmetry` turns it off).
    pub symmetry: bool,
    /// Encode one event per instruction instance, shared by the paths that
    /// perform it (D65; `--no-merge` encodes each path's copies).
    pub merge_paths: bool,
    /// Drop the paths that only add failed spin iterations (D66; `--no-merge`
    /// keeps them too). Off only in the tests that compare the reductions
    /// with their absence; no answer depends on it.
    pub drop_spin_paths: bool,
    /// Paths, symbolic threads, or paths and symbolic threads past the path limit (D188).
    pub encoding: ThreadEncoding,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            build: BuildOptions::default(),
            engine: Engine::Sat,
            ctx: Ctx::default(),
            max_file_bytes: 1 << 20,
            reference_max_candidates: crate::reference::ReferenceOptions::default().max_candidates,
            max_states: crate::sat::SolveOptions::default().max_states,
            show: None,
            self_check: crate::sat::SolveOptions::default().self_check,
            list_states: Some(DEFAULT_LISTED_STATES),
            symmetry: true,
            merge_paths: true,
            drop_spin_paths: true,
            // The path builder first, so every test it decides is decided as
            // before; the symbolic encoding only where it gives up (D188).
            encoding: ThreadEncoding::Auto,
        }
    }
}

/// What `--show`, `--dot` and `--svg` explain of a checked test (`crate::explain::show`).
#[derive(Clone, Debug)]
pub struct ShowOptions {
    pub witness: bool,
    pub forbidden: bool,
    /// At most this many states, and candidates per forbidden state.
    pub max: usize,
    /// The model whose rows explain (the one that decided the test) and the
    /// deadline (`None`: the running test's).
    pub ctx: Ctx,
}

impl Default for ShowOptions {
    fn default() -> Self {
        ShowOptions { witness: true, forbidden: true, max: 3, ctx: Ctx::default() }
    }
}

/// The result of checking one test.
#[derive(Clone, Debug)]
pub struct TestResult {
    /// The program the outcome's executions belong to: for a test decided on
    /// its symbolic program, the projection of those executions (D186).
    pub program: Program,
    /// The symbolic program a projected `program` came from (`None` for an
    /// ordinary one): forbidden states are explained from its candidates (D218).
    pub symbolic: Option<Arc<Program>>,
    pub outcome: Outcome,
    pub summary: Summary,
    pub time: Duration,
    /// The verdict differs under the other reading of proxy fences (D263).
    pub other_reading: Option<OtherReading>,
    /// The test reads a variable the ISA gives no initial value (8.2.6): the
    /// verdict was shown the same for every value of it (D311).
    pub unknown_initial: Option<UnknownInitial>,
    /// A wait in a thread that issues no copy while another does (TransformerEngine #3417, D260): the note.
    pub foreign_wait: Option<String>,
}

/// A verdict shown the same for every initial value of a variable without
/// one (D311); the states listed take every such byte as 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownInitial {
    /// The variable (the first one read, where several are).
    pub variable: String,
    /// The cells (locations) whose values reach the condition; empty where
    /// no value read from them decides anything.
    pub cells: Vec<String>,
    /// How many combinations of initial values were checked, each standing
    /// for a class of them.
    pub values_checked: usize,
    /// Where the verdict was not shown for every value, why: it was given
    /// because every byte 0 and every byte 0xa5 give the same final states
    /// and verdict.
    pub not_shown: Option<String>,
}

/// Check a litmus test given as text, under `opts`' budget (the one already
/// running on this thread, if any).
pub fn check_source(source: &str, opts: &CheckOptions) -> Result<TestResult> {
    check_source_at(source, Path::new("."), opts)
}

/// `check_source` for a test whose `ptx "FILE";` paths are relative to `base`.
pub fn check_source_at(source: &str, base: &Path, opts: &CheckOptions) -> Result<TestResult> {
    if !crate::budget::active() {
        return guarded(opts, || check_source_at(source, base, opts));
    }
    let start = Instant::now();
    let ast = parse_and_expand(source, base)?;
    rc11_ignores_scopes(&ast, opts);
    check_parsed(&ast, start, opts)
}

/// Check a parsed test whose calls are inlined (`parse_and_expand`), under
/// the budget already running on this thread; `start` is when its check began.
pub fn check_parsed(ast: &crate::ast::Litmus, start: Instant, opts: &CheckOptions) -> Result<TestResult> {
    if !crate::budget::active() {
        return guarded(opts, || check_parsed(ast, start, opts));
    }
    let opts = &CheckOptions { ctx: opts.ctx.with_model(model_for(ast.c11.is_some(), opts)?), ..opts.clone() };
    let program = build_encoded(ast, opts)?;
    let symbolic = program.symbolic.is_some().then(|| Arc::new(program.clone()));
    let (program, outcome) = decide(program, opts, crate::budget::deadline())?;
    vacuous_unroll(&program, &outcome, opts.build.unroll)?;
    let unknown_checked = match &program.reads_unknown {
        Some(var) => Some(same_for_every_unknown_value(ast, &program, &outcome, var, opts)?),
        None => None,
    };
    let summary = outcome.summary(&program);
    let other_reading = other_fence_reading(ast, &program, &summary, opts)?;
    Ok(TestResult {
        program,
        symbolic,
        outcome,
        summary,
        time: start.elapsed(),
        other_reading,
        unknown_initial: unknown_checked,
        foreign_wait: foreign_wait(ast),
    })
}

/// A wait for asynchronous copies in a thread that issues none, while another
/// thread issues some (NVIDIA/TransformerEngine #3417): cp.async-groups and
/// bulk async-groups are per thread (9.7.9.25, D260), so it waits for
/// nothing; said beside the verdict, which it explains. Read off the code.
pub fn foreign_wait(lit: &crate::ast::Litmus) -> Option<String> {
    use crate::ast::{AsyncInstr, InstrKind};
    // A copy that completes through groups: cp.async (bulk false) or a bulk copy without an mbarrier.
    let issues = |t: usize, bulk: bool| {
        lit.code[t]
            .iter()
            .any(|i| matches!(&i.kind, InstrKind::Async(AsyncInstr::Copy { bulk: b, mbar: None, .. }) if *b == bulk))
    };
    for (t, code) in lit.code.iter().enumerate() {
        for ins in code {
            let InstrKind::Async(AsyncInstr::Wait { bulk, .. }) = &ins.kind else { continue };
            let others: Vec<String> =
                (0..lit.code.len()).filter(|&u| u != t && issues(u, *bulk)).map(|u| format!("P{}", u)).collect();
            if issues(t, *bulk) || others.is_empty() {
                continue;
            }
            return Some(format!(
                "P{}'s `{}` (line {}) waits for no copy: {} are per thread (9.7.9.25, D260) and P{} issues none; the copies of {} are waited for only by their own thread's waits",
                t,
                ins.text.trim_end_matches(';').trim(),
                ins.span.line,
                if *bulk { "bulk async-groups" } else { "cp.async-groups" },
                t,
                others.join(", ")
            ));
        }
    }
    None
}

/// The verdict under the other reading of which thread's `fence.proxy.async`
/// counts (D263), where it differs from the one given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtherReading {
    /// The reading the verdict was decided under (`writer-side`, the default).
    pub decided_under: &'static str,
    /// The other reading (`cumulative`).
    pub reading: &'static str,
    /// The verdict under the other reading.
    pub verdict: crate::outcome::Verdict,
}

/// Issue 41: "when a verdict depends on the reading, the answer says so". A
/// test with an asynchronous operation and an explicit `fence.proxy.async`,
/// decided under the built-in ptx model (the writer-side reading, D263), is
/// decided again under the cumulative reading; a different verdict is
/// returned. A user's model is its own reading and is not second-guessed.
fn other_fence_reading(
    ast: &crate::ast::Litmus,
    program: &Program,
    summary: &crate::outcome::Summary,
    opts: &CheckOptions,
) -> Result<Option<OtherReading>> {
    let builtin_ptx = std::ptr::eq(Arc::as_ptr(&opts.ctx.model), ModelKind::Ptx.model())
        || Arc::ptr_eq(&opts.ctx.model, &ModelKind::Ptx.shared());
    let async_fence = program.proxy_fences.iter().any(|&f| {
        matches!(
            program.events[f].kind,
            crate::program::EventKind::ProxyFence { proxy: crate::ast::Proxy::Async, .. }
                | crate::program::EventKind::Fence { to_async: true, .. }
        )
    });
    if !builtin_ptx || !program.has_async() || !async_fence || !program.condition_given {
        return Ok(None);
    }
    let other = CheckOptions { ctx: opts.ctx.with_model(crate::model::cumulative_ptx()), ..opts.clone() };
    let p = build_encoded(ast, &other)?;
    let (p, outcome) = decide(p, &other, crate::budget::deadline())?;
    let verdict = outcome.summary(&p).verdict;
    Ok((verdict != summary.verdict).then_some(OtherReading {
        decided_under: "writer-side",
        reading: "cumulative",
        verdict,
    }))
}

/// The program of a parsed test as the commands that decide it under `model`
/// build it: failed spin iterations left out while exploring (D113) when the
/// model is a built-in one (D66's argument reads its rows) and the reads they
/// drop race with nothing (D66's condition, `sat::spin`), with their silent
/// read-modify-writes where no other thread reads those (D116), without them
/// where one does; every iteration kept otherwise.
pub fn build(ast: &crate::ast::Litmus, opts: &crate::program::BuildOptions, model: &Model) -> Result<Program> {
    let p = if !spins_may_be_left_out(model) {
        build_program(ast, opts)?
    } else {
        leaving_out_spins_exactly(opts, |o| crate::program::build_leaving_out_spins(ast, o), |p| Some(p))?
    };
    async_in_model(&p, model)?;
    Ok(p)
}

/// Whether failed spin iterations may be left out under `model` (D113): its
/// exactness (`sat::spin::left_out_is_exact`) is argued for the built-in
/// models, and holds for the cumulative reading of `fence.proxy.async` too,
/// whose causality order only adds pairs to ptx's (a write the check finds
/// ordered before a read stays ordered; D299).
fn spins_may_be_left_out(model: &Model) -> bool {
    model.is_builtin() || std::ptr::eq(model, Arc::as_ptr(&crate::model::cumulative_ptx()))
}

/// D257: a model that never reads `async-order` (ptx-alloy, a model written
/// before issue 41) does not say how asynchronous operations are ordered: a
/// test with one is refused under it rather than decided with its copies
/// ordered by nothing.
fn async_in_model(p: &Program, model: &Model) -> Result<()> {
    if p.has_async() && !model.reads("async-order") {
        return Err(Error::input_nospan(format!(
            "model {} does not order asynchronous operations (no row reads `async-order`): use the ptx model",
            model.name
        )));
    }
    // D316: likewise a `.sync_restrict` fence under a model that does not
    // restrict it would be decided as a full fence.
    let restricted =
        p.events.iter().any(|e| matches!(e.kind, crate::program::EventKind::Fence { shared_only: true, .. }));
    if restricted && !(model.reads("RelShared") && model.reads("AcqShared")) {
        return Err(Error::input_nospan(format!(
            "model {} does not restrict fences to shared memory (no rows read `RelShared` and `AcqShared`), so a `.sync_restrict` fence would order as much as a full fence: use the ptx model",
            model.name
        )));
    }
    Ok(())
}

/// The symbolic builder's program under `model`, as [`build`] has the path
/// builder's: failed spin iterations left out of the walk (D189) under the
/// models [`build`] leaves them out under (`spins_may_be_left_out`: the
/// exactness argument is the same, D299) where that is exact, every
/// iteration kept otherwise.
fn build_symbolic_exactly(
    ast: &crate::ast::Litmus,
    opts: &crate::program::BuildOptions,
    model: &Model,
) -> Result<crate::program::SymbolicBuild> {
    use crate::program::build::{build_symbolic, build_symbolic_leaving_out_spins, SymbolicBuild};
    if !spins_may_be_left_out(model) {
        return build_symbolic(ast, opts);
    }
    let program: fn(&SymbolicBuild) -> Option<&Program> = |b| match b {
        SymbolicBuild::Built(p) => Some(p),
        SymbolicBuild::Outside(_) => None,
    };
    leaving_out_spins_exactly(opts, |o| build_symbolic_leaving_out_spins(ast, o), program)
}

/// Build with `opts` (failed spin iterations left out, D113/D189) and keep
/// the result where what it left out is exact (`sat::spin::left_out_is_exact`;
/// a build with no program, `program` giving `None`, is kept as it is); else
/// again without silent read-modify-writes left out (D116), else with every
/// iteration kept.
fn leaving_out_spins_exactly<T>(
    opts: &crate::program::BuildOptions,
    build: impl Fn(&crate::program::BuildOptions) -> Result<(T, Option<Vec<crate::program::LeftOutEvent>>)>,
    program: fn(&T) -> Option<&Program>,
) -> Result<T> {
    let exact = |b: &T, l: &Option<Vec<_>>| {
        program(b).is_none_or(|p| l.as_ref().is_some_and(|l| crate::sat::spin::left_out_is_exact(p, l)))
    };
    let (b, left_out) = build(opts)?;
    if exact(&b, &left_out) {
        return Ok(b);
    }
    let silent_rmws = left_out.iter().flatten().any(|l| l.event.access().is_some_and(|a| a.writes));
    if opts.prune_silent_rmws && silent_rmws {
        let reads_only = crate::program::BuildOptions { prune_silent_rmws: false, ..opts.clone() };
        drop(b);
        let (b, left_out) = build(&reads_only)?;
        if exact(&b, &left_out) {
            return Ok(b);
        }
    }
    if crate::out::tracing() {
        eprintln!("build: leaving out failed spin iterations is not exact here: built again with every iteration kept");
    }
    Ok(build(&crate::program::BuildOptions { prune_spins: false, ..opts.clone() })?.0)
}

/// The program `check` decides (D188): the path builder's (`build`), the
/// symbolic builder's, or with `Auto` the path builder's unless it stops at
/// its limit of paths per thread, then the symbolic builder's; where that
/// one does not cover the test, the path builder's limit stands, with why.
pub fn build_encoded(ast: &crate::ast::Litmus, opts: &CheckOptions) -> Result<Program> {
    use crate::program::build::{is_path_limit, SymbolicBuild};
    let symbolic = || build_symbolic_exactly(ast, &opts.build, &opts.ctx.model);
    match opts.encoding {
        ThreadEncoding::Paths => build(ast, &opts.build, &opts.ctx.model),
        ThreadEncoding::Symbolic => match symbolic()? {
            SymbolicBuild::Built(p) => Ok(p),
            SymbolicBuild::Outside(why) => {
                Err(Error::limit(format!("the symbolic encoding does not cover this test: {}", why)))
            }
        },
        ThreadEncoding::Auto => match build(ast, &opts.build, &opts.ctx.model) {
            Err(e) if is_path_limit(&e) => match symbolic() {
                Ok(SymbolicBuild::Built(p)) => Ok(p),
                Ok(SymbolicBuild::Outside(why)) => Err(Error {
                    message: format!("{} (the symbolic encoding does not cover this test: {})", e.message, why),
                    ..e
                }),
                // A limit of the symbolic builder too: the path builder's stands, with both reasons.
                Err(s) if s.kind == ErrorKind::Limit => Err(Error {
                    message: format!("{} (the symbolic encoding stopped too: {})", e.message, s.message),
                    ..e
                }),
                Err(s) => Err(s),
            },
            other => other,
        },
    }
}

/// The model a test is decided under (D102): a C test under rc11 unless a C
/// model is asked for; a PTX test under `opts.ctx.model`. A PTX model for a C
/// test, or a C model for a PTX test, is an input error.
/// D235: a C test naming scopes narrower than the system, decided under the
/// default rc11 (herd7's model, which has no scopes), gets a warning once per
/// run: scoped-rc11 reads the scopes, and `map` decides its sources under it.
fn rc11_ignores_scopes(ast: &crate::ast::Litmus, opts: &CheckOptions) {
    use crate::ast::{InstrKind, Scope};
    if ast.c11.is_none() || opts.ctx.model_explicit || opts.ctx.model.c_tests {
        return;
    }
    let narrow = ast.code.iter().flatten().any(|i| match &i.kind {
        InstrKind::Load { scope, .. } | InstrKind::Store { scope, .. } | InstrKind::Atomic { scope, .. } => {
            scope.is_some_and(|s| s != Scope::Sys)
        }
        InstrKind::Fence { scope, .. } => *scope != Scope::Sys,
        _ => false,
    });
    static SHOWN: std::sync::Once = std::sync::Once::new();
    if narrow {
        SHOWN.call_once(|| {
            crate::out::warn("warning: C tests are decided under rc11 (herd7's model), which ignores the scopes this test names: `--model scoped-rc11` reads them, as `map` does by default")
        });
    }
}

pub(crate) fn model_for(is_c: bool, opts: &CheckOptions) -> Result<Arc<Model>> {
    let ctx = &opts.ctx;
    match (is_c, ctx.model.c_tests) {
        (true, true) | (false, false) => Ok(ctx.model.clone()),
        (true, false) if !ctx.model_explicit => Ok(ModelKind::Rc11.shared()),
        (true, false) => Err(Error::input_nospan(format!(
            "a C test is decided under a C model (rc11, scoped-rc11, or a file with `option c11`), not `{}`",
            ctx.model.name
        ))),
        (false, true) => Err(Error::input_nospan(format!(
            "the model `{}` decides C tests; this is a PTX test (use ptx, ptx-alloy or a PTX model file)",
            ctx.model.name
        ))),
    }
}

/// ISA 8.2.6: a byte of a variable without an initial value (`.shared`,
/// `.extern` memory, `.local`) holds "an unknown but constant value"; the
/// verdict stands only if it is the same for every such value (D311). Where
/// the values are only moved (`program::unknown`), the few values that stand
/// for all decide it, each checked; otherwise two fills (every byte 0, every
/// byte 0xa5) can show that it depends, and nothing shows that it does not.
fn same_for_every_unknown_value(
    ast: &crate::ast::Litmus,
    p: &Program,
    o: &Outcome,
    var: &crate::ast::VarDecl,
    opts: &CheckOptions,
) -> Result<UnknownInitial> {
    let verdict = o.summary(p).verdict;
    let name = var.name.split('#').next().unwrap_or(&var.name);
    let cells = match unknown_cells(ast, opts) {
        Ok(cells) => cells,
        Err(why) => return two_fills(ast, (p, o), (var, name), opts, why),
    };
    let combinations = value_combinations(&cells);
    if combinations.len() > MAX_UNKNOWN_CHECKS {
        let msg = format!(
            "deciding the test for every initial value of `{}` (8.2.6: unknown) takes {} checks, more than {}; {}",
            name,
            combinations.len(),
            MAX_UNKNOWN_CHECKS,
            how_to_give(var)
        );
        return Err(limit_at(var, msg));
    }
    for values in combinations.iter().filter(|c| c.values().any(|&v| v != 0)) {
        let other = verdict_with(
            ast,
            opts,
            crate::program::BuildOptions { unknown_values: values.clone(), ..opts.build.clone() },
        )?;
        if other != verdict {
            let shown: Vec<String> = values.iter().map(|(c, v)| format!("{} = {}", c, v)).collect();
            let witnesses = format!(
                "with every unknown byte 0 the verdict is {:?}, with {} it is {:?}",
                verdict,
                shown.join(", "),
                other
            );
            return Err(depends_on(var, name, &witnesses));
        }
    }
    let cells = cells.into_iter().map(|c| c.name).collect();
    Ok(UnknownInitial { variable: name.to_string(), cells, values_checked: combinations.len(), not_shown: None })
}

/// Where the uses of the unknown values cannot be followed (`why`): the
/// program again with every unknown byte 0xa5. A different verdict proves
/// the dependence (a refusal); a different listing shows the value reaches
/// the states (a limit); the same listing and verdict are given, with a
/// note that says they were not shown for every value (D311).
fn two_fills(
    ast: &crate::ast::Litmus,
    (p, o): (&Program, &Outcome),
    (var, name): (&crate::ast::VarDecl, &str),
    opts: &CheckOptions,
    why: String,
) -> Result<UnknownInitial> {
    let verdict = o.summary(p).verdict;
    let filled = crate::program::BuildOptions { unknown_fill: 0xa5, ..opts.build.clone() };
    let (other, o2) = decided_with(ast, opts, filled)?;
    let other_verdict = o2.summary(&other).verdict;
    if other_verdict != verdict {
        let witnesses =
            format!("with every byte of it 0 the verdict is {:?}, with every byte 0xa5 {:?}", verdict, other_verdict);
        return Err(depends_on(var, name, &witnesses));
    }
    let states = |o: &Outcome| o.states.keys().cloned().collect::<std::collections::BTreeSet<_>>();
    if states(o) != states(&o2) {
        let msg = format!(
            "ptx-litmus cannot show that the verdict is the same for every initial value of `{}`, which the ISA leaves unknown (8.2.6: no initializer gives it one): {}; {}",
            name, why, how_to_give(var)
        );
        return Err(limit_at(var, msg));
    }
    Ok(UnknownInitial { variable: name.to_string(), cells: Vec::new(), values_checked: 2, not_shown: Some(why) })
}

/// Most checks [`same_for_every_unknown_value`] runs for one test.
const MAX_UNKNOWN_CHECKS: usize = 64;

/// The unknown cells the verdict may depend on, from the symbolic walk that
/// follows their values (`program::unknown`), or why they cannot be followed.
fn unknown_cells(
    ast: &crate::ast::Litmus,
    opts: &CheckOptions,
) -> std::result::Result<Vec<crate::program::unknown::UnknownCell>, String> {
    use crate::program::build::SymbolicBuild;
    let probe = crate::program::BuildOptions { probe_unknown: true, ..opts.build.clone() };
    match build_symbolic_exactly(ast, &probe, &opts.ctx.model) {
        Ok(SymbolicBuild::Built(p)) => crate::program::unknown::independence(&p).map(|i| i.cells),
        Ok(SymbolicBuild::Outside(why)) => {
            Err(format!("the symbolic encoding, which follows them, does not cover this test ({})", why))
        }
        Err(e) => Err(format!("the symbolic encoding, which follows them, stopped ({})", e.message)),
    }
}

/// Every combination of the cells' standing-for values.
fn value_combinations(cells: &[crate::program::unknown::UnknownCell]) -> Vec<BTreeMap<String, i64>> {
    let mut out = vec![BTreeMap::new()];
    for c in cells {
        out = out
            .iter()
            .flat_map(|m| {
                c.values.iter().map(move |&v| {
                    let mut m = m.clone();
                    m.insert(c.name.clone(), v);
                    m
                })
            })
            .take(MAX_UNKNOWN_CHECKS + 1)
            .collect();
    }
    out
}

/// The verdict of the test built with `build`.
fn verdict_with(
    ast: &crate::ast::Litmus,
    opts: &CheckOptions,
    build: crate::program::BuildOptions,
) -> Result<crate::outcome::Verdict> {
    let (p, o) = decided_with(ast, opts, build)?;
    Ok(o.summary(&p).verdict)
}

/// The test built with `build` and decided.
fn decided_with(
    ast: &crate::ast::Litmus,
    opts: &CheckOptions,
    build: crate::program::BuildOptions,
) -> Result<(Program, Outcome)> {
    let program = build_encoded(ast, &CheckOptions { build, ..opts.clone() })?;
    decide(program, opts, crate::budget::deadline())
}

/// A limit reported at the declaration of `var` (in its module, if any).
fn limit_at(var: &crate::ast::VarDecl, msg: String) -> Error {
    Error { span: Some(var.span), ..Error::limit(msg) }.in_origin(&var.origin)
}

fn depends_on(var: &crate::ast::VarDecl, name: &str, witnesses: &str) -> Error {
    let msg = format!(
        "the outcome depends on the initial value of `{}`, which the ISA leaves unknown (8.2.6: no initializer gives it one): {}; {}",
        name, witnesses, how_to_give(var)
    );
    Error::input(msg, var.span).in_origin(&var.origin)
}

/// How a test gives a variable a value before any thread reads it.
fn how_to_give(var: &crate::ast::VarDecl) -> &'static str {
    // A parameter's bytes no argument gave: a struct argument's other words (D301).
    match var.space {
        crate::ast::VarSpace::Param => "pass a struct argument as its 8-byte words, `{a, 0}`",
        _ => "store to it before any thread reads it",
    }
}

/// Decide a built program: an ordinary one by the chosen engine; a symbolic
/// one (issue 27) by the SAT engine, which returns the ordinary program its
/// executions belong to (`sat::check_symbolic`, D186).
pub fn decide(program: Program, opts: &CheckOptions, deadline: Option<Instant>) -> Result<(Program, Outcome)> {
    if program.symbolic.is_none() {
        let outcome = run_engine(&program, opts, deadline)?;
        return Ok((program, outcome));
    }
    if opts.engine == Engine::Reference {
        return Err(Error::limit(
            "the reference engine enumerates each thread's paths, and this test is decided by the symbolic encoding only (use the SAT engine)",
        ));
    }
    crate::sat::check_symbolic(&program, &solve_options(opts, deadline))
}

fn solve_options(opts: &CheckOptions, deadline: Option<Instant>) -> crate::sat::SolveOptions {
    crate::sat::SolveOptions {
        ctx: opts.ctx.until(deadline),
        max_states: opts.max_states,
        list: opts.list_states,
        self_check: opts.self_check,
        symmetry: opts.symmetry,
        merge_paths: opts.merge_paths,
        drop_spin_paths: opts.drop_spin_paths,
    }
}

fn run_engine(p: &Program, opts: &CheckOptions, deadline: Option<Instant>) -> Result<Outcome> {
    let mut outcome = match opts.engine {
        Engine::Sat => crate::sat::check(p, &solve_options(opts, deadline))?,
        Engine::Reference => crate::reference::check(
            p,
            &crate::reference::ReferenceOptions {
                ctx: opts.ctx.until(deadline),
                max_candidates: opts.reference_max_candidates,
            },
        )?,
    };
    if !p.spinning_forever.is_empty() {
        no_final_state(&mut outcome);
    }
    Ok(outcome)
}

/// A thread that never leaves its spin loop (D299): no execution finishes,
/// so there is no final state, and the result says so with the deadlock
/// flag. The engines decided the executions up to the spin: their data
/// races stay. It is not a limit: the unroll bound cut nothing it needed.
fn no_final_state(o: &mut Outcome) {
    o.states.clear();
    o.reach = Some(crate::outcome::Reach { positive: false, negative: false });
    o.flags.deadlock = true;
    o.any_execution = true;
}

/// When the unroll bound cut paths and no allowed execution is left, every
/// execution ran past the bound: `Ok`/`No` would be vacuous, so it is a limit.
fn vacuous_unroll(p: &Program, o: &Outcome, unroll: u32) -> Result<()> {
    match p.unroll_cuts.values().next() {
        Some((span, what)) if !o.any_execution && p.flags.unroll_bound_hit => Err(Error {
            kind: ErrorKind::Limit,
            message: format!(
                "every execution runs past the unroll bound ({}) in the loop at {}; raise --unroll",
                unroll, what
            ),
            span: Some(*span),
            origin: None,
        }),
        _ => Ok(()),
    }
}

/// Parse a test and inline the calls into its PTX modules (`module::expand`);
/// a module's warnings go to stderr (not with `-q`).
pub fn parse_and_expand(source: &str, base: &Path) -> Result<crate::ast::Litmus> {
    if crate::c11::is_c_source(source) {
        return crate::c11::parse::parse_c_litmus(source);
    }
    let mut ast = crate::parse::parse_litmus(source)?;
    expand_modules(&mut ast, base)?;
    Ok(ast)
}

/// Inline the calls of a parsed test into its PTX modules (paths relative
/// to `base`); a module's warnings go to stderr (not with `-q`).
pub fn expand_modules(ast: &mut crate::ast::Litmus, base: &Path) -> Result<()> {
    // Each kind of warning once per run: a batch of modules that all declare
    // `.version 9.5` says so for the first one only.
    static SHOWN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    for w in crate::module::expand(ast, base)? {
        let mut shown = SHOWN.lock().unwrap_or_else(|p| p.into_inner());
        if !shown.contains(&w.kind) {
            crate::out::warn(&w.text);
            shown.push(w.kind);
        }
    }
    Ok(())
}

/// Read a test (a file, or standard input for `-`) within the size cap.
pub fn read_source(path: &Path, max: usize) -> std::result::Result<String, (String, Error)> {
    let bytes = crate::input::read_capped(path, max).map_err(|m| (String::new(), Error::input_nospan(m)))?;
    if bytes.len() > max {
        let msg = match std::fs::metadata(path).map(|m| m.len()) {
            Ok(size) if size > max as u64 => {
                format!("the file is {} bytes, more than the {} bytes a litmus test may have", size, max)
            }
            _ => format!("the file is longer than the {} bytes a litmus test may have", max),
        };
        return Err((String::new(), Error::input_nospan(msg)));
    }
    String::from_utf8(bytes).map_err(|e| {
        let off = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
        let span = span_at(&text, off);
        (text, Error::input("the file is not UTF-8 text", span))
    })
}

/// Run `f` under the test's budget (`opts.ctx.limits`), turning
/// a limit into a limit error and a panic (a bug) into an internal error. The
/// work runs on the calling thread: nothing is left running after a timeout.
pub fn guarded<T>(opts: &CheckOptions, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::budget::run(opts.ctx.limits, f))) {
        Ok(Ok(r)) => r,
        Ok(Err(crate::budget::Exceeded(m))) => Err(Error::limit(m)),
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error {
                kind: ErrorKind::Internal,
                message: format!("internal error (please report): {}", what),
                span: None,
                origin: None,
            })
        }
    }
}

fn span_at(text: &str, offset: usize) -> crate::ast::Span {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    crate::ast::Span { line, col, start: offset, end: offset }
}

/// All `*.litmus` files under the given paths (directories recursively, sorted
/// by name, symlink loops not followed), each once.
pub fn collect_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    crate::input::collect(paths).files
}
