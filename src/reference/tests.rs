//! The reference engine on small tests whose answers the ISA text fixes.

use super::*;
use crate::outcome::Verdict;
use crate::program::build_program;
use std::collections::BTreeSet;

pub(super) fn run(text: &str) -> (Program, Outcome) {
    let ast = crate::parse::parse_litmus(text).unwrap_or_else(|e| panic!("parse error: {}\n{}", e, text));
    let p = build_program(&ast, &Default::default()).unwrap_or_else(|e| panic!("build error: {}\n{}", e, text));
    let o =
        check(&p, &ReferenceOptions::default()).unwrap_or_else(|e| panic!("reference engine error: {}\n{}", e, text));
    (p, o)
}

pub(super) fn states(o: &Outcome) -> BTreeSet<Vec<i64>> {
    o.states.keys().cloned().collect()
}

pub(super) fn set(v: &[&[i64]]) -> BTreeSet<Vec<i64>> {
    v.iter().map(|s| s.to_vec()).collect()
}

/// Every witness must itself pass the axiom check.
pub(super) fn witnesses_consistent(p: &Program, o: &Outcome) {
    for (s, x) in &o.states {
        assert_eq!(violated_axiom(p, x).unwrap(), None, "witness of {:?} violates an axiom", s);
    }
}

pub(super) const MP_WEAK: &str = r#"
PTX MP-weak
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r1, y  ;
 st.weak y, 1   | ld.weak r2, x  ;
exists (P1:r1 == 1 /\ P1:r2 == 0)
"#;

#[test]
fn mp_weak_allows_everything() {
    let (p, o) = run(MP_WEAK);
    assert_eq!(states(&o), set(&[&[0, 0], &[0, 1], &[1, 0], &[1, 1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
    assert!(o.flags.data_race);
    assert!(!o.flags.deadlock);
    witnesses_consistent(&p, &o);
}

pub(super) const MP_REL_ACQ_GPU: &str = r#"
PTX MP-rel-acq-gpu
{ x=0; y=0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0         ;
 st.weak x, 1         | ld.acquire.gpu r1, y   ;
 st.release.gpu y, 1  | ld.weak r2, x          ;
exists (P1:r1 == 1 /\ P1:r2 == 0)
"#;

#[test]
fn mp_release_acquire_gpu_forbids_stale_data() {
    let (p, o) = run(MP_REL_ACQ_GPU);
    assert_eq!(states(&o), set(&[&[0, 0], &[0, 1], &[1, 1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
    witnesses_consistent(&p, &o);
}

#[test]
fn mp_release_acquire_in_different_gpus_is_not_morally_strong() {
    let (p, o) = run(r#"
PTX MP-rel-acq-gpu-two-gpus
{ x=0; y=0; }
 P0@cta 0,gpu 0       | P1@cta 0,gpu 1         ;
 st.weak x, 1         | ld.acquire.gpu r1, y   ;
 st.release.gpu y, 1  | ld.weak r2, x          ;
exists (P1:r1 == 1 /\ P1:r2 == 0)
"#);
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
}

#[test]
fn mp_fences_sys_as_in_the_isa() {
    // ISA 8.10.6 "Message Passing": fence.sys is fence.acq_rel.sys (via `fence` alias rules).
    let (p, o) = run(r#"
PTX MP-fences
{ data=0; flag=0; }
 P0@cta 0,gpu 0          | P1@cta 1,gpu 0           ;
 st.weak data, 1         | ld.relaxed.sys r0, flag  ;
 fence.acq_rel.sys       | fence.acq_rel.sys        ;
 st.relaxed.sys flag, 1  | ld.weak r1, data         ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
"#);
    assert_eq!(o.summary(&p).verdict, Verdict::No);
    assert_eq!(states(&o), set(&[&[0, 0], &[0, 1], &[1, 1]]));
}

const SB: &str = r#"
PTX SB-FENCE
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | st.weak y, 1   ;
 FENCE          | FENCE          ;
 ld.weak r1, y  | ld.weak r2, x  ;
exists (P0:r1 == 0 /\ P1:r2 == 0)
"#;

#[test]
fn sb_fence_sc_forbids_both_zero() {
    let (p, o) = run(&SB.replace("FENCE", "fence.sc.gpu"));
    assert_eq!(states(&o), set(&[&[0, 1], &[1, 0], &[1, 1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
    witnesses_consistent(&p, &o);
}

#[test]
fn sb_fence_acq_rel_allows_both_zero() {
    let (p, o) = run(&SB.replace("FENCE", "fence.acq_rel.gpu"));
    assert_eq!(states(&o), set(&[&[0, 0], &[0, 1], &[1, 0], &[1, 1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
}

#[test]
fn sb_fence_sc_cta_in_different_ctas_allows_both_zero() {
    let (p, o) = run(&SB.replace("FENCE", "fence.sc.cta"));
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
}

#[test]
fn corr_relaxed_gpu_forbids_new_then_old() {
    let (p, o) = run(r#"
PTX CoRR
{ x=0; }
 P0@cta 0,gpu 0          | P1@cta 1,gpu 0           ;
 st.relaxed.gpu x, 1     | ld.relaxed.gpu r1, x     ;
                         | ld.relaxed.gpu r2, x     ;
exists (P1:r1 == 1 /\ P1:r2 == 0)
"#);
    assert_eq!(states(&o), set(&[&[0, 0], &[0, 1], &[1, 1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
    assert!(!o.flags.data_race);
}

#[test]
fn corr_weak_allows_new_then_old() {
    let (p, o) = run(r#"
PTX CoRR-weak
{ x=0; }
 P0@cta 0,gpu 0   | P1@cta 1,gpu 0   ;
 st.weak x, 1     | ld.weak r1, x    ;
                  | ld.weak r2, x    ;
exists (P1:r1 == 1 /\ P1:r2 == 0)
"#);
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
    assert!(o.flags.data_race);
}

#[test]
fn lb_data_dependencies_only_zeros() {
    let (p, o) = run(r#"
PTX LB-deps
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 ld.weak r1, x  | ld.weak r2, y  ;
 st.weak y, r1  | st.weak x, r2  ;
locations [x; y;]
exists (P0:r1 != 0 \/ P1:r2 != 0)
"#);
    // observables: x, y, P0:r1, P1:r2
    assert_eq!(states(&o), set(&[&[0, 0, 0, 0]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
}

#[test]
fn lb_control_dependencies_no_thin_air() {
    // The value 1 exists (each thread may store it), but only through a cycle of
    // control dependencies and reads-from: forbidden by No-Thin-Air.
    let (p, o) = run(r#"
PTX LB-ctrl
{ x=0; y=0; P0:one=1; P1:one=1; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0        ;
 ld.weak r1, x         | ld.weak r2, y         ;
 bne r1, one, L0       | bne r2, one, L1       ;
 st.weak y, 1          | st.weak x, 1          ;
 L0:                   | L1:                   ;
exists (P0:r1 == 1 /\ P1:r2 == 1)
"#);
    assert_eq!(states(&o), set(&[&[0, 0]]));
    assert_eq!(o.summary(&p).verdict, Verdict::No);
}

#[test]
fn lb_without_dependencies_allows_ones() {
    let (p, o) = run(r#"
PTX LB
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 ld.weak r1, x  | ld.weak r2, y  ;
 st.weak y, 1   | st.weak x, 1   ;
exists (P0:r1 == 1 /\ P1:r2 == 1)
"#);
    assert_eq!(states(&o), set(&[&[0, 0], &[0, 1], &[1, 0], &[1, 1]]));
    assert_eq!(o.summary(&p).verdict, Verdict::Ok);
}
