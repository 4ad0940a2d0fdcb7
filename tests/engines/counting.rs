//! Counting facts (D60) must not change any final state: random small chains of
//! read-modify-writes on one location (same or different operations, scopes
//! and CTAs, sometimes a plain store or load mixed in), every register and the
//! location observed, both engines compared state by state.
//!
//! Cases: `PTX_LITMUS_PROPTEST_CASES` (default 1000; this file uses a fifth).

use crate::common;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use ptx_litmus::check::{check_source, CheckOptions, Engine, TestResult};
use ptx_litmus::context::Ctx;
use ptx_litmus::error::ErrorKind;
use std::collections::BTreeSet;

/// One thread: its CTA and its operations on x.
type Thread = (usize, Vec<usize>);

/// The operations a cell can hold. Most are the same `atom.add`, so that the
/// chain condition of D60 often holds; the others break it in each way.
const OPS: [&str; 8] = [
    "atom.relaxed.gpu.add r{}, x, 1",
    "atom.relaxed.gpu.add r{}, x, 1",
    "atom.acq_rel.gpu.add r{}, x, 1",
    "atom.relaxed.cta.add r{}, x, 1",
    "atom.relaxed.gpu.add r{}, x, 2",
    "atom.sys.inc r{}, x, 2",
    "st.relaxed.gpu x, 5",
    "ld.relaxed.gpu r{}, x",
];

fn strategy() -> impl Strategy<Value = Vec<Thread>> {
    let op = prop_oneof![8 => 0..2usize, 1 => 2..OPS.len()];
    prop::collection::vec((0..2usize, prop::collection::vec(op, 1..=2)), 2..=3)
}

fn render(threads: &[Thread]) -> String {
    let heads: Vec<String> = threads.iter().enumerate().map(|(i, t)| format!("P{}@cta {},gpu 0", i, t.0)).collect();
    let mut s = format!("PTX chain\n{{\nx = 0;\n}}\n{} ;\n", heads.join(" | "));
    let rows = threads.iter().map(|t| t.1.len()).max().unwrap_or(0);
    let mut locs = vec!["x".to_string()];
    for r in 0..rows {
        let cells: Vec<String> = threads
            .iter()
            .map(|t| t.1.get(r).map(|&o| OPS[o].replace("{}", &r.to_string())).unwrap_or_default())
            .collect();
        s += &format!("{} ;\n", cells.join(" | "));
        for (i, t) in threads.iter().enumerate() {
            if t.1.get(r).is_some_and(|&o| o != 6) {
                locs.push(format!("P{}:r{}", i, r));
            }
        }
    }
    s + &format!("locations [{};]\n", locs.join("; "))
}

fn run(text: &str, engine: Engine) -> Option<TestResult> {
    let opts = CheckOptions {
        engine,
        reference_max_candidates: 2_000_000,
        // Every state listed: the default listing stops at 256 states, and a
        // cut listing compared with a whole one would be a false alarm.
        max_states: 1_000_000,
        ctx: common::within_work(Ctx::default(), 3_500_000),
        ..Default::default()
    };
    match check_source(text, &opts) {
        // A listing cut by a limit cannot be compared state for state.
        Ok(r) if !r.outcome.complete => None,
        Ok(r) => Some(r),
        Err(e) if e.kind == ErrorKind::Limit => None,
        Err(e) => panic!("generated test failed: {}\n{}", e, text),
    }
}

#[test]
fn counting_facts_keep_every_final_state() {
    let cases = std::env::var("PTX_LITMUS_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000u32) / 5;
    let mut runner = TestRunner::new(Config { cases: cases.max(10), source_file: Some(file!()), ..Config::default() });
    let (compared, skipped) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let r = runner.run(&strategy(), |t| {
        let text = render(&t);
        let (Some(s), Some(r)) = (run(&text, Engine::Sat), run(&text, Engine::Reference)) else {
            skipped.set(skipped.get() + 1);
            return Ok(());
        };
        let states = |x: &TestResult| x.outcome.states.keys().cloned().collect::<BTreeSet<_>>();
        prop_assert_eq!(states(&s), states(&r), "engines disagree on:\n{}", text);
        compared.set(compared.get() + 1);
        Ok(())
    });
    if let Err(e) = r {
        panic!("{}", e);
    }
    let (c, s) = (compared.get(), skipped.get());
    eprintln!("counting: {} compared, {} skipped over a budget", c, s);
    assert!(s * 5 <= c + s, "{} of {} cases skipped: the property would be vacuous", s, c + s);
}
