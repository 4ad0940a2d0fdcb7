//! The self-check (issue "answers that check themselves"): every execution the
//! SAT engine reports is re-checked with the reference engine's relations and
//! axioms. These tests take a real witness and break it in the ways a wrong
//! encoding would, and expect the check to say so.

use ptx_litmus::check::{check_source, CheckOptions};
use ptx_litmus::outcome::Execution;
use ptx_litmus::program::{EventKind, Program};
use ptx_litmus::reference::verify::verify_execution;

const MP: &str = r#"PTX MP
{ x = 0; f = 0; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0        ;
 st.weak x, 1          | ld.acquire.gpu r0, f  ;
 st.release.gpu f, 1   | ld.weak r1, x         ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
"#;

/// The program and the witness of its state `r0 = 1, r1 = 1`.
fn witness() -> (Program, Execution) {
    let r = check_source(MP, &CheckOptions::default()).expect("MP checks");
    let x = r
        .outcome
        .states
        .iter()
        .find(|(s, _)| s.as_slice() == [1, 1])
        .map(|(_, x)| x.clone())
        .expect("state r0=1 r1=1 is allowed");
    (r.program, x)
}

/// The event reading (or writing, `init`) location `name` in thread `t`.
fn event_on(p: &Program, t: Option<usize>, name: &str, init: bool) -> usize {
    p.events
        .iter()
        .find(|e| {
            e.thread == t
                && match &e.kind {
                    EventKind::Init => init && p.locations[e.init_loc.unwrap()].name == name,
                    EventKind::Mem(a) => !init && p.locations[a.loc].name == name,
                    _ => false,
                }
        })
        .map(|e| e.id)
        .expect("event exists")
}

#[test]
fn a_real_witness_passes() {
    let (p, x) = witness();
    assert!(verify_execution(&p, &x).is_ok());
}

#[test]
fn reading_the_stale_value_after_synchronizing_is_caught_as_causality() {
    let (p, mut x) = witness();
    let read_x = event_on(&p, Some(1), "x", false);
    x.rf.insert(read_x, event_on(&p, None, "x", true));
    let err = verify_execution(&p, &x).expect_err("the stale read violates Causality");
    assert!(err.message.contains("Causality"), "{}", err.message);
    assert_eq!(err.exit_code(), 3);
}

#[test]
fn reads_from_another_location_is_caught() {
    let (p, mut x) = witness();
    let read_x = event_on(&p, Some(1), "x", false);
    x.rf.insert(read_x, event_on(&p, None, "f", true));
    let err = verify_execution(&p, &x).expect_err("rf across locations");
    assert!(err.message.contains("reads-from"), "{}", err.message);
}

#[test]
fn a_coherence_cycle_is_caught() {
    let (p, mut x) = witness();
    let (init, w) = (event_on(&p, None, "x", true), event_on(&p, Some(0), "x", false));
    x.co.insert((init, w));
    x.co.insert((w, init));
    let err = verify_execution(&p, &x).expect_err("co cycle");
    assert!(err.message.contains("coherence"), "{}", err.message);
}

#[test]
fn a_final_write_that_is_not_coherence_maximal_is_caught() {
    let (p, mut x) = witness();
    let (init, w) = (event_on(&p, None, "x", true), event_on(&p, Some(0), "x", false));
    x.co.insert((init, w));
    x.finals.insert(p.loc_names["x"], init);
    let err = verify_execution(&p, &x).expect_err("stale final value");
    assert!(err.message.contains("coherence-maximal"), "{}", err.message);
}

/// One verifier for many executions (the listing's): what it keeps per
/// combination of traces must not carry one execution's verdict to the next.
/// Good, bad, good again, under both models, each answer as a fresh check gives.
#[test]
fn a_reused_verifier_answers_each_execution_as_a_fresh_one() {
    let (p, good) = witness();
    let mut stale = good.clone();
    stale.rf.insert(event_on(&p, Some(1), "x", false), event_on(&p, None, "x", true));
    for kind in ptx_litmus::model::ModelKind::ALL {
        let model = kind.model();
        let mut v = ptx_litmus::reference::verify::Verifier::new(&p, model);
        for (x, ok) in [(&good, true), (&stale, false), (&good, true), (&stale, false)] {
            let fresh = ptx_litmus::reference::verify::verify_execution_in(&p, x, model);
            assert_eq!(fresh.is_ok(), ok, "{:?}", kind);
            let reused = v.verify(x);
            assert_eq!(
                reused.as_ref().map_err(|e| e.message.clone()),
                fresh.as_ref().map_err(|e| e.message.clone()),
                "{:?}",
                kind
            );
        }
    }
}
