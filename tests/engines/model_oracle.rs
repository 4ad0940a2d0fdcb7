//! The model's rows, evaluated (`src/model/eval/`), against the frozen
//! hand-written relations and axioms the reference engine used before the
//! rows existed (`tests/engines/oracle/`): on every candidate execution of the curated
//! library, the public corpus and random tests, both name the same first
//! violated axiom (or none) and the same data-race verdict. A wrong row cannot
//! be wrong in both at once.

use crate::common;
#[path = "oracle/axioms.rs"]
#[allow(dead_code)]
mod oracle_axioms;
#[path = "oracle/relations.rs"]
#[allow(dead_code)]
mod oracle_relations;

use common::gen::test_strategy;
use oracle_axioms::{first_violated, Relations};
use oracle_relations as o;
use proptest::test_runner::{Config, TestRunner};
use ptx_litmus::ast::Proxy;
use ptx_litmus::model::eval::{Evaluator, Exec};
use ptx_litmus::model::prims::has_data_race;
use ptx_litmus::model::rel::Rel;
use ptx_litmus::model::view::View;
use ptx_litmus::model::ModelKind;
use ptx_litmus::program::{build_program, EventKind, Program};
use ptx_litmus::reference::enumerate::{
    barrier_matchings, coherence_choices, fence_sc_choices, rf_choices, trace_combinations, Ctx, Matching,
};
use std::path::Path;

/// The oracle's verdict on one candidate: first violated axiom name, data race.
fn oracle(ctx: &Ctx, rf: &Rel, co: &Rel, sc: &Rel, m: &Matching) -> (Option<&'static str>, bool) {
    let (po, ms) = (o::program_order(ctx), o::morally_strong(ctx));
    let dep = o::dependencies(ctx).union(&o::lane_exchanges(ctx, m));
    let (rel, acq) = (o::release_patterns(ctx, &po), o::acquire_patterns(ctx, &po));
    let obs = o::observation(ctx, &ms, rf);
    let sw = o::synchronizes_with(ctx, &ms, &obs, sc, m, &rel, &acq);
    let cb = o::base_causality_restricted(ctx, &po, &sw);
    let cause = o::causality(&obs, &o::proxy_preserved(ctx, &cb));
    let fr = o::from_reads(ctx, rf, co);
    let r = Relations { po: &po, ms: &ms, dep: &dep, rf, co, fr: &fr, sc, cb: &cb, cause: &cause };
    (first_violated(ctx, &r).map(|a| a.name()), o::has_data_race(ctx, &ms, &cause))
}

/// The rows of model ptx on the same candidate.
fn rows(ctx: &Ctx, rf: &Rel, co: &Rel, sc: &Rel, m: &Matching) -> (Option<String>, bool) {
    let view = View::new(ctx.p, &ctx.traces, &ctx.ev, false);
    let mut ev = Evaluator::new(ModelKind::Ptx.model(), &view);
    ev.set(Exec::Rf, rf.clone());
    ev.set(Exec::Co, co.clone());
    ev.set(Exec::Sc, sc.clone());
    ev.set(Exec::Bar, m.pairs.clone());
    let v = ev.first_violated().map(|v| v.axiom);
    let race = has_data_race(&view, &ev.value("ms").expect("ms"), &ev.value("cause").expect("cause"));
    (v, race)
}

/// Compare on at most `cap` candidates of `p`; returns how many were compared.
fn compare_program(p: &Program, cap: usize, what: &str) -> usize {
    let mut seen = 0;
    for traces in trace_combinations(p) {
        let ctx = Ctx::new(p, traces);
        let ms = o::morally_strong(&ctx);
        let mut budget = 100_000u64;
        let (Ok(rfs), Ok(ms_list), Ok(scs), Ok(cos)) = (
            rf_choices(&ctx, 100_000),
            barrier_matchings(&ctx),
            fence_sc_choices(&ctx, &ms, &mut budget),
            coherence_choices(&ctx, &ms, &mut budget),
        ) else {
            continue;
        };
        let matchings = if ms_list.is_empty() { vec![Matching::empty(ctx.n())] } else { ms_list };
        for rf in &rfs {
            for m in &matchings {
                for sc in &scs {
                    for co in &cos {
                        let (want, race_want) = oracle(&ctx, rf, co, sc, m);
                        let (got, race_got) = rows(&ctx, rf, co, sc, m);
                        assert_eq!(got.as_deref(), want, "{}: rf {:?} co {:?} sc {:?}", what, rf, co, sc);
                        if want.is_none() {
                            assert_eq!(race_got, race_want, "{}: data race, rf {:?} co {:?}", what, rf, co);
                        }
                        seen += 1;
                        if seen >= cap {
                            return seen;
                        }
                    }
                }
            }
        }
    }
    seen
}

/// The program of `text`, when the oracle can judge it: the oracle is frozen
/// from before asynchronous operations (issue 41), so a program with one, a
/// wait for one or an async-proxy fence is left to the rows alone (the
/// two engines decide each of those alike in `async_suite`).
fn build(text: &str) -> Option<Program> {
    let ast = ptx_litmus::parse::parse_litmus(text).ok()?;
    let p = build_program(&ast, &Default::default()).ok()?;
    let asynchronous = |e: &ptx_litmus::program::Event| match e.kind {
        EventKind::AsyncWait { .. } => true,
        EventKind::ProxyFence { proxy, .. } => proxy == Proxy::Async,
        _ => e.async_op().is_some(),
    };
    (!p.events.iter().any(asynchronous)).then_some(p)
}

#[test]
fn rows_agree_with_the_oracle_on_the_library_and_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = ptx_litmus::check::collect_files(&[root.join("litmus"), root.join("tests/conformance/litmus")]);
    let (mut programs, mut candidates) = (0, 0);
    // `litmus/scale/` is sized past enumeration (8 ticket-lock threads: 243^8 path combinations).
    for f in files.into_iter().filter(|f| !f.components().any(|c| c.as_os_str() == "scale")) {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let Some(p) = build(&text) else { continue };
        candidates += compare_program(&p, 1500, &f.display().to_string());
        programs += 1;
    }
    eprintln!("{} programs, {} candidate executions agree", programs, candidates);
    assert!(
        programs > 200 && candidates > 8_000,
        "too little compared: {} programs, {} candidates",
        programs,
        candidates
    );
}

#[test]
fn rows_agree_with_the_oracle_on_random_tests() {
    let cases = std::env::var("PTX_LITMUS_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let compared = std::sync::atomic::AtomicUsize::new(0);
    let res = runner.run(&test_strategy(), |t| {
        let text = t.render("Oracle");
        if let Some(p) = build(&text) {
            let n = compare_program(&p, 300, &text);
            compared.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    });
    assert!(res.is_ok(), "{:?}", res.err());
    let n = compared.into_inner();
    eprintln!("{} candidate executions of random tests agree", n);
    assert!(n > 1000, "too few candidates compared: {}", n);
}
