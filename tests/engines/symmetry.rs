//! Thread symmetry (D70): breaking it in the verdict queries never changes a
//! verdict, an observation or a listed state. Generated tests get copies of one
//! of their threads, so most cases have interchangeable threads; each case is
//! checked with and without symmetry breaking.
//!
//! Cases: `PTX_LITMUS_PROPTEST_CASES` (default 1000), like `differential.rs`.

use crate::common;

use common::gen::test_strategy;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use ptx_litmus::check::{check_source, CheckOptions, TestResult};
use ptx_litmus::context::Ctx;
use ptx_litmus::error::ErrorKind;
use ptx_litmus::program::BuildOptions;
use ptx_litmus::sat::symmetry::classes;
use std::cell::Cell;

fn cases() -> u32 {
    std::env::var("PTX_LITMUS_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000)
}

/// `list`: how many states to list (None: all); `symmetry`: break it or not.
fn run(text: &str, list: Option<usize>, symmetry: bool) -> Option<TestResult> {
    let opts = CheckOptions {
        list_states: list,
        symmetry,
        max_states: 2_000,
        build: BuildOptions { max_events: 250, ..Default::default() },
        ctx: Ctx::default().with_timeout(Some(std::time::Duration::from_millis(1500))),
        ..Default::default()
    };
    match check_source(text, &opts) {
        Ok(r) => Some(r),
        Err(e) if e.kind == ErrorKind::Limit => None,
        Err(e) => panic!("generated test failed: {}\n{}", e, text),
    }
}

#[test]
fn symmetry_breaking_keeps_verdicts_and_states() {
    let strategy = (test_strategy(), 0..4usize, 1..3usize, 0..4usize);
    let (compared, symmetric, skipped) = (Cell::new(0usize), Cell::new(0usize), Cell::new(0usize));
    let config = Config { cases: cases(), max_shrink_iters: 1000, source_file: Some(file!()), ..Config::default() };
    let result = TestRunner::new(config).run(&strategy, |(t, which, copies, shape)| {
        let (t, same) = t.duplicated(which, copies);
        let text = t.render_symmetric("sym", &same, shape);
        let (Some(on), Some(off), Some(all_on), Some(all_off)) =
            (run(&text, Some(0), true), run(&text, Some(0), false), run(&text, None, true), run(&text, None, false))
        else {
            skipped.set(skipped.get() + 1);
            return Ok(());
        };
        prop_assert_eq!(on.summary.verdict, off.summary.verdict, "symmetry changed the verdict of:\n{}", text);
        prop_assert_eq!(
            on.summary.observation(),
            off.summary.observation(),
            "symmetry changed the observation of:\n{}",
            text
        );
        let (a, b): (Vec<_>, Vec<_>) =
            (all_on.outcome.states.keys().collect(), all_off.outcome.states.keys().collect());
        prop_assert_eq!(a, b, "symmetry changed the listed states of:\n{}", text);
        compared.set(compared.get() + 1);
        if !classes(&on.program).is_empty() {
            symmetric.set(symmetric.get() + 1);
        }
        Ok::<(), TestCaseError>(())
    });
    if let Err(e) = result {
        panic!("{}", e);
    }
    let (c, s, k) = (compared.get(), symmetric.get(), skipped.get());
    eprintln!("symmetry: {} compared ({} with interchangeable threads), {} skipped over a budget", c, s, k);
    assert!(k * 5 <= c + k, "too many cases skipped: the property would be vacuous");
    // Shapes 0-2 keep the copies interchangeable unless their placement or
    // code (barriers across CTAs, shared memory) tells them apart.
    assert!(s * 3 >= c, "only {} of {} cases had interchangeable threads: the property would test little", s, c);
}

/// Three threads incrementing x, placed by `heads`, with condition `cond`.
fn counter(heads: &str, cond: &str) -> Vec<Vec<usize>> {
    let text = format!("PTX c\n{{ x = 0; }}\n {} ;\n atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 ;\n{}\n", heads, cond);
    classes(&check_source(&text, &CheckOptions::default()).expect("checks").program)
}

#[test]
fn classes_need_same_code_same_placement_relations_and_an_invariant_condition() {
    let apart = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0";
    assert_eq!(counter(apart, "forall (x == 3)"), vec![vec![0, 1, 2]]);
    // No swap keeps this condition; swapping P0 and P1 keeps the next one.
    assert_eq!(counter(apart, "exists (P0:r0 == 0 \\/ (P1:r0 == 0 /\\ P2:r0 == 1))"), Vec::<Vec<usize>>::new());
    assert_eq!(counter(apart, "exists ((P1:r0 == 0 \\/ P0:r0 == 0) /\\ P2:r0 == 1)"), vec![vec![0, 1]]);
    // P0 and P1 share a CTA that P2 is not in: only they are interchangeable.
    assert_eq!(counter("P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0", "forall (x == 3)"), vec![vec![0, 1]]);
    // Other code: a different value, or another location.
    let text =
        "PTX d\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu x, 2 | st.relaxed.gpu y, 1 ;\nexists (x == 1)\n";
    assert!(classes(&check_source(text, &CheckOptions::default()).expect("checks").program).is_empty());
}
