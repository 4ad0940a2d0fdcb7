//! The reference engine on small tests whose answers the ISA text fixes:
//! atomicity, barriers and proxies (helpers and shared test texts in `tests.rs`).

use super::tests::{run, set, states, witnesses_consistent, MP_REL_ACQ_GPU, MP_WEAK};
use super::*;
use crate::outcome::Verdict;
use crate::program::build_program;

const ATOM: &str = r#"
PTX Atom-OP
{ x=0; }
 P0@cta 0,gpu 0  | P1@cta 1,gpu 0  ;
 A0              | A1              ;
forall (x == 2)
"#;

fn atom_test(a0: &str, a1: &str) -> (Program, Outcome) {
    run(&ATOM.replace("A0", a0).replace("A1", a1))
}

#[test]
fn atomicity_gpu_scope_both_increments_land() {
    let (p, o) = atom_test("atom.relaxed.gpu.inc r0, x, 2", "atom.relaxed.gpu.inc r0, x, 2");
    assert_eq!(states(&o), set(&[&[2]]));
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
    witnesses_consistent(&p, &o);
}

#[test]
fn atomicity_cta_scope_in_different_ctas_may_lose_one() {
    let (p, o) = atom_test("atom.relaxed.cta.inc r0, x, 2", "atom.relaxed.cta.inc r0, x, 2");
    assert_eq!(states(&o), set(&[&[1], &[2]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
}

#[test]
fn isa_atomicity_litmus_2_cta_and_gpu_may_lose_one() {
    // ISA 8.10.3 Litmus Test 2: atom.cta.inc and atom.gpu.inc in different CTAs.
    let (_, o) = atom_test("atom.cta.inc r0, x, 2", "atom.gpu.inc r0, x, 2");
    assert_eq!(states(&o), set(&[&[1], &[2]]));
}

#[test]
fn atomicity_cta_scope_in_one_cta_both_increments_land() {
    let (_, o) = run(&ATOM
        .replace("cta 1", "cta 0")
        .replace("A0", "atom.relaxed.cta.inc r0, x, 2")
        .replace("A1", "atom.relaxed.cta.inc r0, x, 2"));
    assert_eq!(states(&o), set(&[&[2]]));
}

#[test]
fn atomicity_gpu_add_both_increments_land() {
    let (_, o) = atom_test("atom.relaxed.gpu.add r0, x, 1", "atom.relaxed.gpu.add r0, x, 1");
    assert_eq!(states(&o), set(&[&[2]]));
}

#[test]
fn atomicity_cta_add_in_different_ctas_may_lose_one() {
    let (_, o) = atom_test("atom.relaxed.cta.add r0, x, 1", "atom.relaxed.cta.add r0, x, 1");
    assert_eq!(states(&o), set(&[&[1], &[2]]));
}

#[test]
fn cta_barrier_orders_store_before_load() {
    let (p, o) = run(r#"
PTX bar-MP
{ x=0; }
 P0@cta 0,gpu 0             | P1@cta 0,gpu 0              ;
 st.global.u32 [x], 1       | bar.sync 0                  ;
 bar.sync 0                 | ld.global.u32 %r1, [x]      ;
exists (P1:%r1 == 0)
"#);
    assert_eq!(states(&o), set(&[&[1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
    assert!(!o.flags.deadlock);
    assert!(!o.flags.data_race);
    witnesses_consistent(&p, &o);
    let x = o.states.values().next().unwrap();
    assert_eq!(x.barrier_sync.len(), 2);
}

#[test]
fn barrier_that_never_completes_deadlocks() {
    // Three threads, quorum of four: the barrier never completes.
    let (p, o) = run(r#"
PTX quorum-hang
{ x=0; }
 P0@cta 0,gpu 0       | P1@cta 0,gpu 0       | P2@cta 0,gpu 0       ;
 st.weak x, 1         | bar.cta.sync 1, 1, 4 | bar.cta.sync 1, 1, 4 ;
 bar.cta.sync 1, 1, 4 | ld.weak r0, x        |                      ;
exists (P1:r0 == 0)
"#);
    assert!(o.states.is_empty());
    assert!(o.flags.deadlock);
    assert_eq!(o.summary(&p).verdict, Verdict::No);
}

#[test]
fn barriers_in_opposite_orders_deadlock() {
    let (_, o) = run(r#"
PTX bar-cycle
{ x=0; }
 P0@cta 0,gpu 0   | P1@cta 0,gpu 0   ;
 bar.sync 0       | bar.sync 1       ;
 bar.sync 1       | bar.sync 0       ;
 st.weak x, 1     |                  ;
exists (x == 1)
"#);
    assert!(o.states.is_empty());
    assert!(o.flags.deadlock);
}

const COWR_ALIAS: &str = r#"
PTX CoWR-alias
{ d1 = 0; d2 @ generic aliases d1; }
 P0@cta 0,gpu 0    ;
 st.weak d1, 1     ;
 FENCE             ;
 ld.weak r1, d2    ;
exists (P0:r1 == 0)
"#;

#[test]
fn proxy_cowr_alias_with_alias_fence_reads_new_value() {
    let (p, o) = run(&COWR_ALIAS.replace("FENCE", "fence.proxy.alias"));
    assert_eq!(states(&o), set(&[&[1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
}

#[test]
fn proxy_cowr_alias_without_fence_may_read_old_value() {
    let (p, o) = run(&COWR_ALIAS.replace("FENCE", ""));
    assert_eq!(states(&o), set(&[&[0], &[1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
}

#[test]
fn coww_final_value_is_the_last_store() {
    let (_, o) = run(r#"
PTX CoWW
{ x=0; }
 P0@cta 0,gpu 0 ;
 st.weak x, 1   ;
 st.weak x, 2   ;
exists (x == 1)
"#);
    assert_eq!(states(&o), set(&[&[2]]));
}

#[test]
fn racing_weak_stores_may_end_with_either_value() {
    let (_, o) = run(r#"
PTX WW-race
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | st.weak x, 2   ;
exists (x == 1)
"#);
    assert_eq!(states(&o), set(&[&[1], &[2]]));
    assert!(o.flags.data_race);
}

#[test]
fn the_candidate_limit_is_a_limit_error() {
    let ast = crate::parse::parse_litmus(MP_WEAK).unwrap();
    let p = build_program(&ast, &Default::default()).unwrap();
    let e = check(&p, &ReferenceOptions { max_candidates: 2, ..Default::default() }).unwrap_err();
    assert_eq!(e.kind, crate::error::ErrorKind::Limit);
}

/// Corpus tests whose expected verdict (from herd's PTX model, where an atomic
/// is split into a read event and a write event) differs from the project's
/// single-event reading of 8.10.6. LB+RMW-a: the atom's *write* is observed by
/// P2 and so precedes P0's store in causality order; as one event the atom then
/// "reads from a write it precedes in causality order" (Causality, clause 1),
/// which herd does not see because its read half has no observation edges.
const KNOWN_MISMATCHES: &[&str] = &["litmus/Manual/LB+RMW-a.litmus"];

/// The public conformance corpus, with the verdicts it expects. Tests the
/// reference engine cannot finish within its budget are skipped (and listed).
#[test]
fn conformance_corpus_verdicts() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let Ok(csv) = std::fs::read_to_string(root.join("expected.csv")) else { return };
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for line in csv.lines().skip(1) {
        let Some((file, want)) = line.split_once(',') else { continue };
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let Ok(ast) = crate::parse::parse_litmus(&text) else {
            skipped.push(format!("{} (parse)", file));
            continue;
        };
        let Ok(p) = build_program(&ast, &Default::default()) else {
            skipped.push(format!("{} (build)", file));
            continue;
        };
        let start = std::time::Instant::now();
        let result = check(&p, &ReferenceOptions { max_candidates: 2_000_000, ..Default::default() });
        if start.elapsed().as_secs_f64() > 1.0 {
            eprintln!("slow: {} {:.1}s", file, start.elapsed().as_secs_f64());
        }
        match result {
            Ok(o) => {
                let got = match o.summary(&p).verdict {
                    Verdict::Ok => "Ok",
                    Verdict::No => "No",
                };
                if got != want.trim() && !KNOWN_MISMATCHES.contains(&file) {
                    failures.push(format!("{}: expected {}, got {}", file, want.trim(), got));
                }
            }
            Err(e) => skipped.push(format!("{} ({})", file, e)),
        }
    }
    if !skipped.is_empty() {
        eprintln!("skipped:\n  {}", skipped.join("\n  "));
    }
    assert!(failures.is_empty(), "verdict mismatches:\n  {}", failures.join("\n  "));
}

#[test]
fn a_stale_read_after_synchronization_violates_causality() {
    let (p, o) = run(MP_REL_ACQ_GPU);
    // Take the witness of r1 = 1, r2 = 1 and make the data read the initial value.
    let mut x = o.states[&vec![1, 1]].clone();
    let ld_x =
        p.events.iter().find(|e| e.thread == Some(1) && e.read_loc() == p.loc_names.get("x").copied()).unwrap().id;
    let init_x = p.init_events[p.loc_names["x"]];
    x.rf.insert(ld_x, init_x);
    assert_eq!(violated_axiom(&p, &x).unwrap().map(|v| v.axiom), Some("Causality".to_string()));
    // And without the acquire the same execution would be fine.
    assert_eq!(o.states.len(), 3);
}
