//! The spin reductions change no answer (issue 39 item 7). On random tests
//! with loops in two or three threads, read-modify-write loops among them
//! (`common::loops`), the SAT engine's answer with every reduction on is its
//! answer with each off: paths that only add failed iterations dropped (D66),
//! failed iterations left out while exploring (D113, D179), silent
//! read-modify-writes left out (D116), and failed iterations left out of the
//! symbolic walk (D189). The answer is the verdict, every final state and
//! every flag, or the claim that every execution runs past the unroll bound:
//! a reduction that drops a path it must keep turns a decided test into that
//! claim (the CADP test `litmus/regressions/cadp-11-simple.litmus`).
//!
//! Cases: `PTX_LITMUS_PROPTEST_CASES` (default 200 here: each case is decided
//! five times). A case a budget stops (a limit other than the unroll claim)
//! is skipped, and the property fails if more than a fifth are.

use crate::common;
use crate::common::loops::{loop_strategy, LoopTest};
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use ptx_litmus::check::{check_source, CheckOptions, TestResult, ThreadEncoding};
use ptx_litmus::context::Ctx;
use ptx_litmus::error::ErrorKind;
use ptx_litmus::outcome::Flags;
use ptx_litmus::program::BuildOptions;
use std::collections::BTreeSet;

fn cases() -> u32 {
    std::env::var("PTX_LITMUS_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

const MAX_STATES: usize = 2_000;
const MAX_EVENTS: usize = 400;
/// Work per run (D288; about 10 s on an idle 2-core machine): a budget a
/// loaded machine does not turn into skips.
const WORK: u64 = 7_000_000;

/// What a run answers, in the terms the comparison uses.
#[derive(Debug, PartialEq)]
enum Answer {
    Decided {
        verdict: String,
        states: BTreeSet<Vec<i64>>,
        flags: Flags,
    },
    /// "every execution runs past the unroll bound": an answer too, the one a
    /// wrong reduction gives.
    PastTheBound,
    /// A thread proven never to leave its spin loop (D299): no final state.
    /// Only D113 can prove it (without it the bound cuts the spin), so it
    /// agrees with `PastTheBound` from a run without the reductions.
    SpinsForever,
}

/// Whether two runs' answers agree: equal, or one proves the spin that the
/// other could only cut at the bound.
fn agree(a: &Answer, b: &Answer) -> bool {
    a == b
        || matches!((a, b), (Answer::SpinsForever, Answer::PastTheBound) | (Answer::PastTheBound, Answer::SpinsForever))
}

/// The reductions one run makes.
#[derive(Clone, Copy, Debug)]
struct Reductions {
    /// D113, D116, D179 in the path builder; D189 in the symbolic walk.
    prune: bool,
    /// D65's merged events and, with them, D66's dropped paths.
    merge: bool,
    drop_paths: bool,
    symbolic: bool,
}

const ALL: Reductions = Reductions { prune: true, merge: true, drop_paths: true, symbolic: false };
const NO_D66: Reductions = Reductions { drop_paths: false, ..ALL };
const NONE: Reductions = Reductions { prune: false, merge: false, drop_paths: false, symbolic: false };
const SYMBOLIC: Reductions = Reductions { symbolic: true, ..ALL };
const SYMBOLIC_NONE: Reductions = Reductions { symbolic: true, prune: false, ..ALL };

/// `None`: a budget stopped the run (or the symbolic builder does not cover the test).
fn answer(text: &str, r: Reductions) -> Option<(Answer, usize)> {
    let opts = CheckOptions {
        list_states: None,
        max_states: MAX_STATES,
        merge_paths: r.merge,
        drop_spin_paths: r.drop_paths,
        encoding: if r.symbolic { ThreadEncoding::Symbolic } else { ThreadEncoding::Paths },
        build: BuildOptions {
            max_events: MAX_EVENTS,
            prune_spins: r.prune,
            prune_silent_rmws: r.prune,
            ..Default::default()
        },
        ctx: common::within_work(Ctx::default(), WORK),
        ..Default::default()
    };
    match check_source(text, &opts) {
        Ok(res) => Some((decided(&res), res.program.events.len())),
        Err(e) if e.kind == ErrorKind::Limit && e.message.contains("runs past the unroll bound") => {
            Some((Answer::PastTheBound, 0))
        }
        Err(e) if e.kind == ErrorKind::Limit => None,
        Err(e) => panic!("generated test failed ({:?}): {}\n{}", r, e, text),
    }
}

fn decided(r: &TestResult) -> Answer {
    if !r.program.spinning_forever.is_empty() {
        assert!(r.outcome.states.is_empty() && r.outcome.flags.deadlock, "D299: no final state, the deadlock flag");
        return Answer::SpinsForever;
    }
    Answer::Decided {
        verdict: format!("{:?}", r.summary.verdict),
        states: r.outcome.states.keys().cloned().collect(),
        flags: r.outcome.flags.clone(),
    }
}

/// Counts over the cases, printed at the end so a vacuous run shows.
#[derive(Default)]
struct Tally {
    compared: usize,
    skipped: usize,
    past_the_bound: usize,
    spins_forever: usize,
    fewer_events: usize,
    symbolic: usize,
}

fn compare(t: &LoopTest, tally: &mut Tally) -> Result<(), TestCaseError> {
    let text = t.render("loops");
    let (Some((all, pruned)), Some((none, kept))) = (answer(&text, ALL), answer(&text, NONE)) else {
        tally.skipped += 1;
        return Ok(());
    };
    proptest::prop_assert!(
        agree(&all, &none),
        "every reduction vs none (D66, D113, D116, D179) on:\n{}\n{:?}\n{:?}",
        text,
        all,
        none
    );
    if let Some((no_d66, _)) = answer(&text, NO_D66) {
        proptest::prop_assert!(agree(&no_d66, &none), "D66 off vs every reduction off on:\n{}", text);
    }
    if let (Some((sym, _)), Some((sym_none, _))) = (answer(&text, SYMBOLIC), answer(&text, SYMBOLIC_NONE)) {
        // The walk with and without D189 only: the two encodings' unroll flags
        // may differ (the path builder also counts cut paths whose reads assume
        // a value no write gives); differential.rs compares the encodings.
        proptest::prop_assert_eq!(&sym, &sym_none, "the symbolic walk with and without D189 on:\n{}", text);
        tally.symbolic += 1;
    }
    tally.compared += 1;
    tally.past_the_bound += usize::from(none == Answer::PastTheBound);
    tally.spins_forever += usize::from(all == Answer::SpinsForever);
    tally.fewer_events += usize::from(pruned < kept && all != Answer::PastTheBound && all != Answer::SpinsForever);
    Ok(())
}

#[test]
fn spin_reductions_change_no_answer() {
    let n = cases();
    let tally = std::cell::RefCell::new(Tally::default());
    let config = Config { cases: n, max_shrink_iters: 500, source_file: Some(file!()), ..Config::default() };
    let result = TestRunner::new(config).run(&loop_strategy(), |t| compare(&t, &mut tally.borrow_mut()));
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, minimal)) => panic!("{}\nminimal failing test:\n{}", why, minimal.render("minimal")),
        Err(TestError::Abort(why)) => panic!("aborted: {}", why),
    }
    let t = tally.into_inner();
    eprintln!(
        "spin_reductions_change_no_answer: {} cases, {} compared ({} past the bound without the reductions, {} proven \
         to spin forever with them, {} with fewer events pruned, {} also symbolic), {} skipped over a budget",
        n, t.compared, t.past_the_bound, t.spins_forever, t.fewer_events, t.symbolic, t.skipped
    );
    assert!(t.skipped * 5 <= t.compared + t.skipped, "{} of {} cases skipped: vacuous", t.skipped, n);
    // A property whose builds never left anything out would compare a build with itself.
    assert!(
        t.fewer_events * 10 >= t.compared,
        "only {} of {} compared cases left an iteration out",
        t.fewer_events,
        t.compared
    );
}
