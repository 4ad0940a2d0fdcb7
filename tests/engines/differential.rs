//! Property-based tests: the SAT engine and the reference engine agree on random
//! tests, and metamorphic properties of the model hold.
//!
//! Cases per property: `PTX_LITMUS_PROPTEST_CASES` (default 1000). A failure
//! prints the shrunk test in litmus syntax, ready for `litmus/regressions/`.
//!
//! Every generated test observes all registers and locations, so a few random
//! tests have tens of thousands of final states or hundreds of paths (chains of
//! `atom.add`/`red` fork one path per value read). Such a case is *skipped*, not
//! passed: it exceeds a budget below. Each property prints how many cases it
//! compared and skipped, and fails if it skipped more than a fifth of them, so a
//! property can never pass by skipping.

use crate::common;

use common::gen::{test_strategy, Test};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use ptx_litmus::check::{check_source, CheckOptions, Engine, TestResult, ThreadEncoding};
use ptx_litmus::context::Ctx;
use ptx_litmus::error::ErrorKind;
use ptx_litmus::program::BuildOptions;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

fn cases() -> u32 {
    std::env::var("PTX_LITMUS_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000)
}

/// Budgets per generated test; a test over any of them is skipped.
const REFERENCE_CANDIDATES: u64 = 20_000;
const MAX_STATES: usize = 2_000;
const MAX_EVENTS: usize = 250;
/// Work per engine run (D288; about 1.5 s on an idle 2-core machine; only a
/// handful of cases in a thousand reach it).
const WORK: u64 = 1_000_000;

fn run(text: &str, engine: Engine) -> Option<TestResult> {
    run_listing(text, engine, None)
}

/// `list`: how many final states the SAT engine lists (None: all).
fn run_listing(text: &str, engine: Engine, list: Option<usize>) -> Option<TestResult> {
    let opts = CheckOptions {
        engine,
        list_states: list,
        reference_max_candidates: REFERENCE_CANDIDATES,
        max_states: MAX_STATES,
        build: BuildOptions { max_events: MAX_EVENTS, ..Default::default() },
        ctx: common::within_work(Ctx::default(), WORK),
        ..Default::default()
    };
    match check_source(text, &opts) {
        Ok(r) => Some(r),
        Err(e) if e.kind == ErrorKind::Limit => {
            // Why cases are skipped (which budget), when a skip rate nears the
            // vacuity guard of `property`.
            if std::env::var("PTX_LITMUS_PROPTEST_SHOW_LIMITS").is_ok() {
                eprintln!("LIMIT {:?}: {}", engine, e.message.chars().take(90).collect::<String>());
            }
            None
        }
        Err(e) => panic!("generated test failed: {}\n{}", e, text),
    }
}

fn states(r: &TestResult) -> BTreeSet<Vec<i64>> {
    r.outcome.states.keys().cloned().collect()
}

fn sat_states(t: &Test) -> Option<BTreeSet<Vec<i64>>> {
    run(&t.render("T"), Engine::Sat).map(|r| states(&r))
}

/// Run one property over `cases()` generated values. The property returns
/// `Ok(true)` when it compared, `Ok(false)` when a budget made it skip; more
/// than a fifth skipped fails it as vacuous.
fn property<S>(
    name: &str,
    strategy: S,
    render: impl Fn(&S::Value) -> String,
    check: impl Fn(S::Value) -> Result<bool, TestCaseError>,
) where
    S: Strategy,
{
    property_skipping_at_most(name, 20, strategy, render, check)
}

/// [`property`], failing as vacuous past `percent` % of cases skipped.
fn property_skipping_at_most<S>(
    name: &str,
    percent: usize,
    strategy: S,
    render: impl Fn(&S::Value) -> String,
    check: impl Fn(S::Value) -> Result<bool, TestCaseError>,
) where
    S: Strategy,
{
    let n = cases();
    let (compared, skipped) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let config = Config { cases: n, max_shrink_iters: 2000, source_file: Some(file!()), ..Config::default() };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy, |v| {
        let counter = if check(v)? { &compared } else { &skipped };
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, minimal)) => {
            panic!("{name} failed: {why}\nminimal failing test:\n{}", render(&minimal))
        }
        Err(TestError::Abort(why)) => panic!("{name} aborted: {why}"),
    }
    let (c, s) = (compared.into_inner(), skipped.into_inner());
    eprintln!("{name}: {n} cases, {c} compared, {s} skipped over a budget");
    assert!(
        s * 100 <= (c + s) * percent,
        "{name}: {s} of {} cases skipped over a budget, more than {percent} %; the property would be vacuous",
        c + s
    );
}

/// The two engines' states, verdict and flags agree.
fn same_answers(s: &TestResult, r: &TestResult, text: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(states(s), states(r), "engines disagree on:\n{}", text);
    prop_assert_eq!(s.summary.verdict, r.summary.verdict, "verdicts differ on:\n{}", text);
    prop_assert_eq!(s.outcome.flags.deadlock, r.outcome.flags.deadlock, "deadlock flag differs on:\n{}", text);
    prop_assert_eq!(s.outcome.flags.data_race, r.outcome.flags.data_race, "data-race flag differs on:\n{}", text);
    Ok(())
}

#[test]
fn engines_agree() {
    property(
        "engines_agree",
        test_strategy(),
        |t| t.render("random"),
        |t| {
            let text = t.render("random");
            let (Some(s), Some(r)) = (run(&text, Engine::Sat), run(&text, Engine::Reference)) else { return Ok(false) };
            same_answers(&s, &r, &text)?;
            // Verdict first: with no state listed, the two verdict queries alone must
            // give the reference engine's verdict and observation.
            let Some(q) = run_listing(&text, Engine::Sat, Some(0)) else { return Ok(false) };
            prop_assert_eq!(q.summary.verdict, r.summary.verdict, "verdict queries disagree on:\n{}", text);
            prop_assert_eq!(
                q.summary.observation(),
                r.summary.observation(),
                "observation queries disagree on:\n{}",
                text
            );
            prop_assert_eq!(
                q.summary.complete,
                r.outcome.states.is_empty(),
                "listing none is complete only without states:\n{}",
                text
            );
            Ok(true)
        },
    );
}

/// Spin loops (D65, D66: the SAT engine merges paths and drops the ones that
/// only add failed iterations; the reference engine enumerates every path the
/// builder keeps): same states, verdict and flags, the same with `--no-merge`,
/// and the same as the reference engine on a build that keeps every failed
/// iteration (D113).
#[test]
fn engines_agree_on_spin_loops() {
    property(
        "engines_agree_on_spin_loops",
        common::spin::spin_strategy(),
        |t| t.render("spin"),
        |t| {
            let text = t.render("spin");
            let (Some(s), Some(r)) = (run(&text, Engine::Sat), run(&text, Engine::Reference)) else { return Ok(false) };
            same_answers(&s, &r, &text)?;
            let opts = CheckOptions {
                merge_paths: false,
                list_states: None,
                max_states: MAX_STATES,
                ctx: common::within_work(Ctx::default(), WORK),
                ..Default::default()
            };
            let Ok(u) = check_source(&text, &opts) else { return Ok(false) };
            prop_assert_eq!(states(&u), states(&s), "--no-merge disagrees on:\n{}", text);
            // The reference engine on every path the builder can explore, failed
            // spin iterations included (D113 leaves them out while exploring).
            let every_path = CheckOptions {
                engine: Engine::Reference,
                list_states: None,
                reference_max_candidates: REFERENCE_CANDIDATES,
                max_states: MAX_STATES,
                build: BuildOptions { max_events: MAX_EVENTS, prune_spins: false, ..Default::default() },
                ctx: common::within_work(Ctx::default(), WORK),
                ..Default::default()
            };
            let Ok(k) = check_source(&text, &every_path) else { return Ok(false) };
            same_answers(&s, &k, &text)?;
            let cut = |r: &TestResult| r.outcome.flags.unroll_bound_hit;
            prop_assert_eq!(cut(&s), cut(&k), "the unroll flag differs (D113) on:\n{}", text);
            Ok(true)
        },
    );
}

/// The SAT engine on paths, the reference engine and the symbolic encoding
/// give `text` one listing (states, verdict, flags); false when a run is
/// skipped (a limit).
fn paths_reference_and_symbolic_agree(text: &str) -> Result<bool, TestCaseError> {
    let (Some(s), Some(r)) = (run(text, Engine::Sat), run(text, Engine::Reference)) else { return Ok(false) };
    same_answers(&s, &r, text)?;
    prop_assert_eq!(&s.outcome.flags, &r.outcome.flags, "flags differ on:\n{}", text);
    let Some(y) = run_symbolic(text) else { return Ok(false) };
    same_answers(&s, &y, text)?;
    prop_assert_eq!(&s.outcome.flags, &y.outcome.flags, "symbolic flags differ on:\n{}", text);
    Ok(true)
}

/// Random tests inside the symbolic encoding's fragment (issue 27: `setp`,
/// `selp`, `@p` guards, forward branches and their joins, `cas`/`exch`, one
/// bounded loop; `common::fragment`): the SAT engine's listing (every final
/// state, the verdict and every flag) is the reference engine's.
#[test]
fn engines_agree_on_the_symbolic_fragment() {
    property(
        "engines_agree_on_the_symbolic_fragment",
        common::fragment::fragment_strategy(3),
        |t| t.render("fragment"),
        |t| paths_reference_and_symbolic_agree(&t.render("fragment")),
    );
}

/// Fragment tests where every thread performs a warp collective over its
/// CTA's lanes, `bar.warp.sync` or `bar.red` (D210, D211: the symbolic
/// builder's waits per assumed combination): the SAT engine on paths, the
/// reference engine and the symbolic encoding give one listing.
#[test]
fn engines_agree_on_fragment_tests_with_collectives() {
    // Every test here has a synchronization point, so more of them pass the
    // reference engine's candidate budget than in the other properties: 17
    // to 19 % of 1,000 cases were skipped (seeds 1-3, 2026-12-03; every one
    // over that budget, `PTX_LITMUS_PROPTEST_SHOW_LIMITS=1`), too near the
    // fifth `property` allows for a random seed; a quarter keeps three
    // quarters compared on all three builders and engines.
    property_skipping_at_most(
        "engines_agree_on_fragment_tests_with_collectives",
        25,
        common::fragment::collective_strategy(3),
        |t| t.render("fragment"),
        |t| paths_reference_and_symbolic_agree(&t.render("fragment")),
    );
}

/// Larger tests of the same fragment (up to 7 instructions per thread, past
/// what the reference engine enumerates within its budget): the symbolic
/// encoding's listing and flags are the path encoding's.
#[test]
fn encodings_agree_on_larger_fragment_tests() {
    property(
        "encodings_agree_on_larger_fragment_tests",
        common::fragment::fragment_strategy(6),
        |t| t.render("fragment"),
        |t| {
            let text = t.render("fragment");
            let (Some(s), Some(y)) = (run(&text, Engine::Sat), run_symbolic(&text)) else { return Ok(false) };
            same_answers(&s, &y, &text)?;
            prop_assert_eq!(&s.outcome.flags, &y.outcome.flags, "symbolic flags differ on:\n{}", text);
            Ok(true)
        },
    );
}

/// D189: fragment tests with a loop (a spin loop or a `cas` loop) decided by
/// the symbolic encoding with failed iterations left out of the walk and with
/// every iteration kept: the same listing (states, verdict, every flag, the
/// unroll flag included: a dropped state is cut as the bound would cut it).
/// The two properties above compare the pruned walk (`run_symbolic`) with
/// the path encoding and the reference engine.
#[test]
fn leaving_out_failed_iterations_of_the_symbolic_walk_changes_no_listing() {
    let looped = common::fragment::fragment_strategy(4).prop_filter("a loop", |t| t.back_edge.is_some());
    let fewer = AtomicUsize::new(0);
    property(
        "leaving_out_failed_iterations_of_the_symbolic_walk_changes_no_listing",
        looped,
        |t| t.render("fragment"),
        |t| {
            let text = t.render("fragment");
            let (Some(y), Some(k)) = (run_symbolic_pruned(&text, true), run_symbolic_pruned(&text, false)) else {
                return Ok(false);
            };
            same_answers(&y, &k, &text)?;
            prop_assert_eq!(&y.outcome.flags, &k.outcome.flags, "flags differ (D189) on:\n{}", text);
            fewer.fetch_add(usize::from(y.program.events.len() < k.program.events.len()), Ordering::Relaxed);
            Ok(true)
        },
    );
    // A property whose walks never left anything out would compare a build with itself.
    let fewer = fewer.into_inner();
    eprintln!("{} cases with fewer events", fewer);
    assert!(fewer * 10 >= cases() as usize, "only {} of {} cases left a failed iteration out", fewer, cases());
}

/// `text` decided by the symbolic encoding (issue 27, `--encoding symbolic`),
/// every state listed: `None` when the symbolic builder leaves the test
/// outside its fragment or a budget stops it (both are limits).
fn run_symbolic(text: &str) -> Option<TestResult> {
    run_symbolic_pruned(text, true)
}

/// [`run_symbolic`], failed spin iterations left out of the walk (D189) or not.
fn run_symbolic_pruned(text: &str, prune_spins: bool) -> Option<TestResult> {
    let opts = CheckOptions {
        encoding: ThreadEncoding::Symbolic,
        list_states: None,
        max_states: MAX_STATES,
        build: BuildOptions { max_events: MAX_EVENTS, prune_spins, ..Default::default() },
        ctx: common::within_work(Ctx::default(), WORK),
        ..Default::default()
    };
    match check_source(text, &opts) {
        Ok(r) => Some(r),
        Err(e) if e.kind == ErrorKind::Limit => None,
        Err(e) => panic!("symbolic encoding failed: {}\n{}", e, text),
    }
}

/// `change` never adds allowed final states.
fn never_adds_states(name: &str, change: impl Fn(&Test, usize, usize) -> Test) {
    never_adds_states_of(name, test_strategy(), change)
}

/// `change` never adds allowed final states of the tests `tests` generates.
fn never_adds_states_of(name: &str, tests: impl Strategy<Value = Test>, change: impl Fn(&Test, usize, usize) -> Test) {
    let strategy = (tests, 0..12usize, 0..6usize);
    property(
        name,
        strategy,
        |(t, _, _)| t.render("T"),
        |(t, i, j)| {
            let s = change(&t, i, j);
            let (Some(a), Some(b)) = (sat_states(&t), sat_states(&s)) else { return Ok(false) };
            prop_assert!(
                b.is_subset(&a),
                "{} added states:\n{}\n--- changed:\n{}",
                name,
                t.render("before"),
                s.render("after")
            );
            Ok(true)
        },
    );
}

#[test]
fn strengthening_never_adds_states() {
    never_adds_states("strengthening", |t, which, _| t.strengthened(which));
}

#[test]
fn widening_a_scope_never_adds_states() {
    never_adds_states("widening a scope", |t, which, _| t.widened(which));
}

#[test]
fn adding_fence_sc_never_adds_states() {
    never_adds_states("adding a fence.sc", |t, th, at| t.with_fence_sc(th, at));
}

#[test]
fn a_fence_restricted_to_shared_memory_orders_no_more_than_the_full_fence() {
    // D316: the restricted fence's orderings are the full fence's with some taken away.
    let tests = (test_strategy(), 0..4usize, 0..4usize, 0..6usize)
        .prop_map(|(t, kind, th, at)| t.with_op(th, at, common::gen::Op::SharedFence { kind }));
    never_adds_states_of("making a restricted fence full", tests, |t, _, _| t.unrestricted());
}

#[test]
fn a_fence_restricted_to_shared_memory_orders_no_less_than_none() {
    never_adds_states("adding a restricted fence", |t, i, at| {
        t.with_op(i / 4, at, common::gen::Op::SharedFence { kind: i % 4 })
    });
}

#[test]
fn one_cta_never_adds_states() {
    // A reduction returns a value that depends on which threads meet
    // (bar.red, D151): joining CTAs changes it, so here reductions are plain barriers.
    // Shared memory is one copy per cluster (D19): joining clusters makes
    // copies one, so there y stays global.
    let tests = test_strategy().prop_map(|t| {
        let one_cluster = t.threads.windows(2).all(|w| (w[0].0.gpu, w[0].0.cluster) == (w[1].0.gpu, w[1].0.cluster));
        Test { shared_y: t.shared_y && one_cluster, ..t.without_reductions() }
    });
    never_adds_states_of("moving all threads into one CTA", tests, |t, _, _| t.one_cta());
}

#[test]
fn renaming_and_permuting_keep_the_verdict() {
    property(
        "renaming and permuting",
        (test_strategy(), 0..4usize),
        |(t, _)| t.render("base"),
        |(t, rot)| {
            let n = t.threads.len();
            let perm: Vec<usize> = (0..n).map(|i| (i + rot) % n).collect();
            let base = run(&t.render("base"), Engine::Sat);
            let renamed = run(&t.render_with("renamed", ["loc_b", "loc_a"], 0), Engine::Sat);
            let permuted = run(&t.permuted(&perm).render_with("permuted", ["x", "y"], perm[0]), Engine::Sat);
            let (Some(b), Some(r), Some(p)) = (base, renamed, permuted) else { return Ok(false) };
            prop_assert_eq!(
                b.summary.verdict,
                r.summary.verdict,
                "renaming changed the verdict:\n{}",
                t.render("base")
            );
            prop_assert_eq!(b.outcome.states.len(), r.outcome.states.len());
            prop_assert_eq!(
                b.summary.verdict,
                p.summary.verdict,
                "permuting changed the verdict:\n{}",
                t.render("base")
            );
            prop_assert_eq!(b.outcome.states.len(), p.outcome.states.len());
            Ok(true)
        },
    );
}
