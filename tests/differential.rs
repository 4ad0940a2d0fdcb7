//! Property-based tests: the SAT engine and the reference engine agree on random
//! tests, and metamorphic properties of the model hold. Cases per property:
//! `PTX_LITMUS_PROPTEST_CASES` (default 1000). A failure prints the shrunk test
//! in litmus syntax, ready for `litmus/regressions/`.

mod common;

use common::gen::{test_strategy, Test};
use proptest::prelude::*;
use ptx_litmus::check::{check_source, CheckOptions, Engine, TestResult};
use ptx_litmus::error::ErrorKind;
use std::collections::BTreeSet;

fn cases() -> u32 {
    std::env::var("PTX_LITMUS_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000)
}

/// Candidate executions the reference engine may enumerate per generated test;
/// bigger tests are skipped for the agreement property (not a disagreement).
const REFERENCE_BUDGET: u64 = 20_000;

fn run(text: &str, engine: Engine) -> Option<TestResult> {
    let opts = CheckOptions { engine, reference_max_candidates: REFERENCE_BUDGET, ..Default::default() };
    match check_source(text, &opts) {
        Ok(r) => Some(r),
        // Too big for the reference engine: not a disagreement.
        Err(e) if e.kind == ErrorKind::Limit => None,
        Err(e) => panic!("generated test failed: {}\n{}", e, text),
    }
}

fn states(r: &TestResult) -> BTreeSet<Vec<i64>> {
    r.outcome.states.keys().cloned().collect()
}

fn sat_states(t: &Test) -> Option<BTreeSet<Vec<i64>>> {
    run(&t.render("T"), Engine::Sat).map(|r| states(&r))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn engines_agree(t in test_strategy()) {
        let text = t.render("random");
        let sat = run(&text, Engine::Sat);
        let reference = run(&text, Engine::Reference);
        if let (Some(s), Some(r)) = (sat, reference) {
            prop_assert_eq!(states(&s), states(&r), "engines disagree on:\n{}", text);
            prop_assert_eq!(s.summary.verdict, r.summary.verdict, "verdicts differ on:\n{}", text);
            prop_assert_eq!(s.outcome.flags.deadlock, r.outcome.flags.deadlock, "deadlock flag differs on:\n{}", text);
            prop_assert_eq!(s.outcome.flags.data_race, r.outcome.flags.data_race, "data-race flag differs on:\n{}", text);
        }
    }

    #[test]
    fn strengthening_never_adds_states(t in test_strategy(), which in 0..12usize) {
        let s = t.strengthened(which);
        if let (Some(a), Some(b)) = (sat_states(&t), sat_states(&s)) {
            prop_assert!(b.is_subset(&a), "strengthening added states:\n{}\n--- stronger:\n{}", t.render("weaker"), s.render("stronger"));
        }
    }

    #[test]
    fn widening_a_scope_never_adds_states(t in test_strategy(), which in 0..12usize) {
        let s = t.widened(which);
        if let (Some(a), Some(b)) = (sat_states(&t), sat_states(&s)) {
            prop_assert!(b.is_subset(&a), "widening added states:\n{}\n--- wider:\n{}", t.render("narrow"), s.render("wide"));
        }
    }

    #[test]
    fn adding_fence_sc_never_adds_states(t in test_strategy(), th in 0..4usize, at in 0..6usize) {
        let s = t.with_fence_sc(th, at);
        if let (Some(a), Some(b)) = (sat_states(&t), sat_states(&s)) {
            prop_assert!(b.is_subset(&a), "a fence.sc added states:\n{}\n--- fenced:\n{}", t.render("plain"), s.render("fenced"));
        }
    }

    #[test]
    fn one_cta_never_adds_states(t in test_strategy()) {
        let s = t.one_cta();
        if let (Some(a), Some(b)) = (sat_states(&t), sat_states(&s)) {
            prop_assert!(b.is_subset(&a), "one CTA added states:\n{}\n--- one CTA:\n{}", t.render("spread"), s.render("one_cta"));
        }
    }

    #[test]
    fn renaming_and_permuting_keep_the_verdict(t in test_strategy(), rot in 0..4usize) {
        let n = t.threads.len();
        let perm: Vec<usize> = (0..n).map(|i| (i + rot) % n).collect();
        let base = run(&t.render("base"), Engine::Sat);
        let renamed = run(&t.render_with("renamed", ["loc_b", "loc_a"], 0), Engine::Sat);
        let permuted = run(&t.permuted(&perm).render_with("permuted", ["x", "y"], perm[0]), Engine::Sat);
        if let (Some(b), Some(r), Some(p)) = (base, renamed, permuted) {
            prop_assert_eq!(b.summary.verdict, r.summary.verdict, "renaming changed the verdict:\n{}", t.render("base"));
            prop_assert_eq!(b.outcome.states.len(), r.outcome.states.len());
            prop_assert_eq!(b.summary.verdict, p.summary.verdict, "permuting changed the verdict:\n{}", t.render("base"));
            prop_assert_eq!(b.outcome.states.len(), p.outcome.states.len());
        }
    }
}
