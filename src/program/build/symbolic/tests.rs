//! The symbolic builder on small tests, each result argued from the code.

use super::*;
use crate::program::symbolic::SymOp;

fn sym(src: &str, unroll: u32) -> SymbolicBuild {
    let lit = crate::parse::parse_litmus(src).expect("the test parses");
    build_symbolic(&lit, &BuildOptions { unroll, ..BuildOptions::default() }).expect("no error")
}

fn built(src: &str) -> (Program, SymFacts) {
    built_at(src, 2)
}

fn built_at(src: &str, unroll: u32) -> (Program, SymFacts) {
    match sym(src, unroll) {
        SymbolicBuild::Built(mut p) => {
            let facts = *p.symbolic.take().expect("a symbolic program has facts");
            (p, facts)
        }
        SymbolicBuild::Outside(why) => panic!("refused: {}", why),
    }
}

/// The thread's events, in its one trace.
fn events(p: &Program, t: usize) -> Vec<EventId> {
    assert_eq!(p.threads[t].traces.len(), 1, "one trace per thread");
    p.traces[p.threads[t].traces[0]].events.clone()
}

/// The thread's events that perform the instruction of `line`.
fn at_line(p: &Program, t: usize, line: usize) -> Vec<EventId> {
    events(p, t).into_iter().filter(|&e| p.events[e].line == line).collect()
}

const MP: &str = "PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0          ;
 st.relaxed.gpu x, 1    | ld.relaxed.gpu r1, y    ;
 st.relaxed.gpu y, 1    | ld.relaxed.gpu r2, x    ;
exists (P1:r1 == 1 /\\ P1:r2 == 0)
";

#[test]
fn straight_line_code_is_one_trace_performed_unconditionally() {
    let (p, f) = built(MP);
    for t in 0..2 {
        let evs = events(&p, t);
        assert_eq!(evs.len(), 2);
        assert!(evs.iter().all(|&e| f.guard[e] == TRUE), "no branch: every event is performed");
        let keys: Vec<Instance> = evs.iter().map(|&e| p.events[e].instance.unwrap()).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "instance order");
    }
    let r1 = f.regs[1]["r1"];
    assert_eq!(f.terms[r1], Term::Read(events(&p, 1)[0]), "r1 is what the first load reads");
    // y holds its initial 0 or P0's 1 (the path builder's domain).
    assert_eq!(f.values[r1], vec![0, 1]);
    assert!(f.write.is_empty() && f.deps.is_empty() && f.assume.is_empty());
    assert_eq!(f.cut, vec![FALSE, FALSE]);
    assert!(!p.flags.unroll_bound_hit);
    assert!(p.traces.iter().all(|t| t.regs.is_empty() && t.deps.is_empty()), "the facts carry registers");
}

const IF_ELSE: &str = "PTX if-else
{ x = 0; y = 0; }
 P0@cta 0,gpu 0     | P1@cta 1,gpu 0   ;
 ld.relaxed.gpu r1, x | st.relaxed.gpu x, 1 ;
 beq r1, 0, ELSE    |                  ;
 mov r2, 7          |                  ;
 bra END            |                  ;
 ELSE:              |                  ;
 mov r2, 9          |                  ;
 END:               |                  ;
 st.relaxed.gpu y, r2 |                ;
exists (y == 7)
";

#[test]
fn an_if_else_merges_at_the_join() {
    let (p, f) = built(IF_ELSE);
    // Line 11 is the store after END: one instance, performed on both sides.
    let store = at_line(&p, 0, 11);
    assert_eq!(store.len(), 1, "one instance after the join");
    assert_eq!(f.guard[store[0]], TRUE, "the join's guard is the disjunction of both sides: true");
    let w = f.write[&store[0]];
    assert!(matches!(f.terms[w], Term::Op(SymOp::Ite, _)), "r2 is an Ite of the two sides");
    assert_eq!(f.values[w], vec![7, 9]);
    // The store depends on the load through control (8.10.4), on both sides.
    let load = at_line(&p, 0, 4)[0];
    let deps: Vec<_> = f.deps.iter().filter(|d| d.0 == load && d.1 == store[0]).collect();
    assert_eq!(deps.len(), 1);
    assert_eq!(deps[0].2, TRUE, "both sides carry the control dependency");
    assert_eq!(f.terms[f.regs[0]["r2"]], f.terms[w]);
}

const SPIN: &str = "PTX spin
{ x = 0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       ;
 LOOP:                | st.relaxed.gpu x, 1  ;
 ld.relaxed.gpu r1, x |                      ;
 beq r1, 0, LOOP      |                      ;
exists (P0:r1 == 1)
";

#[test]
fn a_spin_loop_unrolls_to_the_bound_and_cuts_the_rest() {
    let (p, f) = built_at(SPIN, 2);
    // The loop head runs at most unroll + 1 = 3 times: three loads, the
    // fourth visit is cut, under "all three loads read 0".
    let loads = at_line(&p, 0, 5);
    assert_eq!(loads.len(), 3);
    let back_edges: Vec<u32> = loads.iter().map(|&e| p.events[e].instance.unwrap().back_edges).collect();
    assert_eq!(back_edges, vec![0, 1, 2]);
    assert_eq!(f.guard[loads[0]], TRUE);
    assert_ne!(f.guard[loads[1]], TRUE, "the second load only after the first read 0");
    assert_ne!(f.cut[0], FALSE);
    assert!(p.flags.unroll_bound_hit);
    let reads = |v: i64| {
        let loads = loads.clone();
        move |e: EventId| Some(if loads.contains(&e) { v } else { 0 })
    };
    assert_eq!(evaluate(&f, f.cut[0], &reads(0), &|_| 0), Some(1), "cut when every load reads 0");
    assert_eq!(evaluate(&f, f.cut[0], &reads(1), &|_| 0), Some(0));
    // At the bound 0 the loop body runs once: one load.
    let (p0, _) = built_at(SPIN, 0);
    assert_eq!(at_line(&p0, 0, 5).len(), 1);
}

const CAS: &str = "PTX cas
{ x = 0; }
 P0@cta 0,gpu 0                  | P1@cta 1,gpu 0      ;
 atom.relaxed.gpu.cas r1, x, 0, 5 | st.relaxed.gpu x, 1 ;
exists (P0:r1 == 1)
";

#[test]
fn a_cas_is_two_events_under_a_choice() {
    let (p, f) = built(CAS);
    let evs = events(&p, 0);
    assert_eq!(evs.len(), 2, "success and failure");
    let (ok, fail) = (&p.events[evs[0]], &p.events[evs[1]]);
    assert_eq!(ok.instance.unwrap().sub, 0);
    assert_eq!(fail.instance.unwrap().sub, 1);
    let (a_ok, a_fail) = (ok.access().unwrap(), fail.access().unwrap());
    assert!(a_ok.reads && a_ok.writes && a_ok.write_value == 5);
    assert!(a_fail.reads && !a_fail.writes);
    let (Term::Op(SymOp::And, _) | Term::Choice(_)) = &f.terms[f.guard[evs[0]]] else {
        panic!("a choice guards success")
    };
    assert_eq!(
        f.guard[evs[1]],
        f.terms.iter().position(|t| *t == Term::Op(SymOp::Not, vec![f.guard[evs[0]]])).unwrap()
    );
    // Success assumes it read 0, failure that it did not.
    let assumed = |e: EventId, v: i64| {
        let (_, t) = f.assume.iter().find(|a| a.0 == e).unwrap();
        evaluate(&f, *t, &|_| Some(v), &|_| 0)
    };
    assert_eq!((assumed(evs[0], 0), assumed(evs[0], 1)), (Some(1), Some(0)));
    assert_eq!((assumed(evs[1], 0), assumed(evs[1], 1)), (Some(0), Some(1)));
    let r1 = f.regs[0]["r1"];
    let read = |e: EventId| Some(if e == evs[0] { 0 } else { 1 });
    assert_eq!(evaluate(&f, r1, &read, &|_| 1), Some(0), "choice 1: what the succeeding event read");
    assert_eq!(evaluate(&f, r1, &read, &|_| 0), Some(1), "choice 0: what the failing event read");
}

fn refused(src: &str) -> String {
    match sym(src, 2) {
        SymbolicBuild::Outside(why) => why,
        SymbolicBuild::Built(_) => panic!("built, expected a refusal"),
    }
}

/// A one-thread test whose second line (line 4) is `ins`.
fn one(init: &str, ins: &str) -> String {
    format!("PTX t\n{{ {} }}\n P0@cta 0,gpu 0 ;\n {} ;\nexists (x == 0)\n", init, ins)
}

#[test]
fn each_construct_outside_the_fragment_is_refused_with_its_line() {
    let cases = [
        (
            one("x = 0; M = 0;", "ld.relaxed.gpu r1, x ;\n mbarrier.init.shared.b64 [M], r1"),
            "its count is computed from a value read",
        ),
        (
            one("x = 0;", "ld.relaxed.gpu r1, x ;\n vote.sync.any.pred p1, 1, r1"),
            "member mask computed from a value read",
        ),
        (one("x = 0;", "ld.relaxed.gpu r1, x ;\n bar.sync r1"), "barrier operand is computed from a value read"),
        (one("x = 0; y = 0;", "ld.relaxed.gpu r1, x ;\n ld.relaxed.gpu r2, [r1]"), "address"),
        (one("x = 0;", "st.relaxed.gpu.u8 [x+1], 1 ;\n st.relaxed.gpu.u32 [x], 1"), "mixed-size"),
    ];
    for (src, word) in cases {
        let why = refused(&src);
        assert!(why.starts_with("line 4: ") || why.starts_with("line 5: "), "{}: {}", word, why);
        assert!(why.contains(word), "expected `{}` in: {}", word, why);
    }
}

/// A floating-point operation is a term evaluated by `program::float`
/// (D204): 1.0 (0x3f800000) plus each value x may hold, rounded to f32.
#[test]
fn a_floating_point_add_is_a_term_over_the_read() {
    let src = "PTX fadd
{ x = 0; y = 0; }
 P0@cta 0,gpu 0                      | P1@cta 1,gpu 0                ;
 ld.relaxed.gpu.u32 r0, [x]          | st.relaxed.gpu.u32 [x], 1065353216 ;
 add.f32 r1, r0, 1065353216          |                               ;
 st.relaxed.gpu.u32 [y], r1          |                               ;
exists (y == 0)
";
    let (p, f) = built(src);
    let evs = events(&p, 0);
    let written = f.write[&evs[1]];
    assert!(matches!(&f.terms[written], Term::Op(SymOp::Stored(..), _)), "{:?}", f.terms[written]);
    // x holds 0.0 or 1.0: y gets 1.0 or 2.0 (0x40000000), not the integer sum 0x7f000000.
    assert_eq!(f.values[written], vec![0x3f80_0000, 0x4000_0000]);
}

const PRIVATE: &str = "PTX private
{ buf = 0; x = 0; }
 P0@cta 0,gpu 0                 | P1@cta 1,gpu 0      ;
 ld.relaxed.gpu.u32 %r0, [x]    | st.relaxed.gpu x, 1 ;
 st.local.u32 [buf], %r0        |                     ;
 ld.local.u32 %r1, [buf]        |                     ;
 ld.local.u8 %r2, [buf+4]       |                     ;
 st.relaxed.gpu.u32 [x], %r1    |                     ;
exists (P0:%r1 == 1)
";

#[test]
fn private_memory_gives_back_the_value_stored_whole_and_its_bytes_in_pieces() {
    let (p, f) = built(PRIVATE);
    // Private accesses are no events (5.1.5: no other thread sees them): a
    // load of x and a store of x.
    let evs = events(&p, 0);
    assert_eq!(evs.len(), 2);
    let read = f.regs[0]["%r0"];
    assert_eq!(f.terms[read], Term::Read(evs[0]));
    assert_eq!(f.regs[0]["%r1"], read, "read back whole: the value stored, still the read");
    let stored = Term::Op(SymOp::Stored(Some(crate::ast::IntTy { bits: 32, signed: false }), 4), vec![read]);
    assert_eq!(f.terms[f.write[&evs[1]]], stored, "so the store of x writes the bit pattern of what the load read");
    assert!(f.deps.iter().any(|d| (d.0, d.1) == (evs[0], evs[1])));
    // Bytes no store wrote are the variable's initial bytes (8.2.6).
    assert_eq!(f.terms[f.regs[0]["%r2"]], Term::Const(0));
}

#[test]
fn max_events_counts_instruction_instances() {
    let lit = crate::parse::parse_litmus(SPIN).expect("the test parses");
    // Three loads of P0 and P1's store: four instances.
    let at = |max_events| build_symbolic(&lit, &BuildOptions { max_events, ..BuildOptions::default() });
    assert!(matches!(at(4), Ok(SymbolicBuild::Built(_))));
    let err = at(3).expect_err("past the limit");
    assert_eq!(err.kind, crate::error::ErrorKind::Limit);
    assert!(err.message.contains("more than 3 instruction instances"), "{}", err.message);
}

const BARRIERS: &str = "PTX barriers
{ x = 0; }
 P0@cta 0,gpu 0       | P1@cta 0,gpu 0      ;
 LOOP:                | st.relaxed.gpu x, 1 ;
 ld.relaxed.gpu r1, x | bar.sync 0          ;
 beq r1, 0, LOOP      | bar.sync 0          ;
 bar.sync 0           |                     ;
 bar.sync 0           |                     ;
exists (P0:r1 == 1)
";

/// The (phase, role) of each barrier event of thread `t` at `line`, with its guard.
fn barrier_uses(p: &Program, f: &SymFacts, t: usize, line: usize) -> Vec<(usize, crate::program::SyncRole, TermId)> {
    let sync = |e: EventId| p.events[e].sync().map(|s| (s.key.phase, s.role, f.guard[e]));
    at_line(p, t, line).into_iter().filter_map(sync).collect()
}

#[test]
fn a_barrier_use_is_an_arrive_and_a_wait_at_the_phase_its_paths_reached() {
    use crate::program::SyncRole::{Arrive, Wait};
    let (p, f) = built(BARRIERS);
    // P1 passes each barrier once, unconditionally: phases 0 and 1 (8.9.4: the
    // k-th use of a barrier meets the others' k-th use).
    let firm = |line| barrier_uses(&p, &f, 1, line);
    assert_eq!(firm(5), vec![(0, Arrive, TRUE), (0, Wait, TRUE)]);
    assert_eq!(firm(6), vec![(1, Arrive, TRUE), (1, Wait, TRUE)]);
    // P0 reaches its first barrier after 1, 2 or 3 loads: one instance per
    // number of back edges, each performed only where the spin ended there,
    // and each the barrier's first use.
    for (line, phase) in [(7, 0), (8, 1)] {
        let uses = barrier_uses(&p, &f, 0, line);
        assert_eq!(uses.len(), 6, "line {}: three instances of an arrive and a wait", line);
        assert!(uses.iter().all(|u| u.0 == phase && u.2 != TRUE), "line {}: {:?}", line, uses);
    }
    let waits: Vec<_> = events(&p, 0).into_iter().filter(|&e| p.events[e].is_sync_wait()).collect();
    let expected = |e: EventId| p.events[e].sync().map(|s| s.expected.clone());
    assert!(waits.iter().all(|&w| expected(w) == Some(crate::program::Expected::Count(2))), "the CTA's two threads");
}

#[test]
fn paths_that_used_a_barrier_a_different_number_of_times_are_not_merged() {
    let src =
        one("x = 0;", "ld.relaxed.gpu r1, x ;\n setp.eq.u32 p1, r1, 0 ;\n @p1 bar.sync 0 ;\n st.relaxed.gpu x, 1");
    let why = refused(&src);
    assert!(why.contains("used a barrier a different number of times"), "{}", why);
}

/// Build `src` with failed spin iterations left out (D189).
fn pruned(src: &str) -> (Program, SymFacts, Vec<crate::program::LeftOutEvent>) {
    let lit = crate::parse::parse_litmus(src).expect("the test parses");
    match build_symbolic_leaving_out_spins(&lit, &BuildOptions::default()).expect("no error") {
        (SymbolicBuild::Built(mut p), Some(left_out)) => {
            let facts = *p.symbolic.take().expect("a symbolic program has facts");
            (p, facts, left_out)
        }
        (SymbolicBuild::Built(_), None) => panic!("a program without its left-out reads"),
        (SymbolicBuild::Outside(why), _) => panic!("refused: {}", why),
    }
}

const TICKET_SETP: &str = "PTX ticket
{ t = 0; s = 0; c = 0; }
 P0@cta 0,gpu 0                | P1@cta 1,gpu 0                ;
 atom.relaxed.gpu.add r1, t, 1 | atom.relaxed.gpu.add r1, t, 1 ;
 LOOP:                         | LOOP:                         ;
 ld.acquire.gpu r2, s          | ld.acquire.gpu r2, s          ;
 setp.ne.u32 p1, r2, r1        | setp.ne.u32 p1, r2, r1        ;
 @p1 bra LOOP                  | @p1 bra LOOP                  ;
 ld.weak r3, c                 | ld.weak r3, c                 ;
 add r3, r3, 1                 | add r3, r3, 1                 ;
 st.weak c, r3                 | st.weak c, r3                 ;
 add r4, r1, 1                 | add r4, r1, 1                 ;
 st.release.gpu s, r4          | st.release.gpu s, r4          ;
forall (c == 2)
";

/// D189 on a ticket lock spelled with `setp`: at the loop head only `r1`
/// (the ticket) matters (D115); a failed iteration reads `s` into `r2` and
/// `p1`, which the next iteration writes before reading, and comes back with
/// `r1` the same term. So the second visit of the head is dropped: one poll
/// per thread instead of unroll + 1 = 3, and the rest of the thread runs once
/// (its instances after the first failed poll are gone). The dropped guard
/// (the poll read another ticket) is cut, so the unroll flag stays set; the
/// poll is the read left out.
#[test]
fn a_ticket_lock_keeps_one_poll_per_thread() {
    let (full, full_facts) = built(TICKET_SETP);
    let (p, f, left_out) = pruned(TICKET_SETP);
    for t in 0..2 {
        assert_eq!(at_line(&full, t, 6).len(), 3, "every failed poll kept: unroll + 1 polls");
        assert_eq!(at_line(&p, t, 6).len(), 1, "one poll");
        assert_eq!(at_line(&p, t, 13).len(), 1, "one release store: after the one poll that succeeds");
        assert!(at_line(&full, t, 13).len() == 3);
        assert_ne!(f.cut[t], FALSE);
        assert_ne!(full_facts.cut[t], FALSE);
    }
    // Per thread, two polls and two more runs of the three accesses after the loop are gone.
    assert_eq!(full.events.len() - p.events.len(), 2 * (2 + 2 * 3));
    assert!(p.flags.unroll_bound_hit);
    let polls: Vec<EventId> = (0..2).flat_map(|t| at_line(&p, t, 6)).collect();
    assert_eq!(left_out.len(), 2, "one poll profile per thread");
    assert!(left_out.iter().all(|l| polls.contains(&l.event.id)), "the left-out reads are the polls");
    // The cut is the poll reading another ticket: r2 != r1.
    let poll = at_line(&p, 0, 6)[0];
    let add = at_line(&p, 0, 4)[0];
    let reads = |v: i64| {
        move |e: EventId| {
            Some(if e == poll {
                v
            } else if e == add {
                1
            } else {
                0
            })
        }
    };
    assert_eq!(evaluate(&f, f.cut[0], &reads(0), &|_| 0), Some(1), "s = 0, ticket 1: a failed poll");
    assert_eq!(evaluate(&f, f.cut[0], &reads(1), &|_| 0), Some(0), "s = 1, ticket 1: it enters");
}

const CAS_LOCK: &str = "PTX caslock
{ l = 0; c = 0; }
 P0@cta 0,gpu 0                   | P1@cta 1,gpu 0                   ;
 LOOP:                            | LOOP:                            ;
 atom.acquire.gpu.cas r1, l, 0, 1 | atom.acquire.gpu.cas r1, l, 0, 1 ;
 setp.ne.u32 p1, r1, 0            | setp.ne.u32 p1, r1, 0            ;
 @p1 bra LOOP                     | @p1 bra LOOP                     ;
 ld.weak r3, c                    | ld.weak r3, c                    ;
 add r3, r3, 1                    | add r3, r3, 1                    ;
 st.weak c, r3                    | st.weak c, r3                    ;
 st.release.gpu l, 0              | st.release.gpu l, 0              ;
forall (c == 2)
";

/// D189 through a cas: the state back at the head carries both the cas that
/// succeeded (a write) and the one that failed (a read), merged under a
/// choice. Only the failing one goes on to the back edge: the succeeding one
/// assumes it read 0, and `r1 != 0` then cannot hold. The check finds that
/// no values of the choice and the two reads make "back at the head", "the
/// success was performed" and the assumptions hold together, so the state
/// is dropped: one cas instance (two events) per thread, not three.
#[test]
fn a_cas_lock_keeps_one_attempt_per_thread() {
    let (full, _) = built(CAS_LOCK);
    let (p, _, left_out) = pruned(CAS_LOCK);
    for t in 0..2 {
        assert_eq!(at_line(&full, t, 5).len(), 6, "three attempts of two events");
        assert_eq!(at_line(&p, t, 5).len(), 2, "one attempt");
    }
    assert!(left_out.iter().all(|l| l.event.access().is_some_and(|a| a.reads && !a.writes)), "the failing cas");
    assert_eq!(left_out.len(), 2);
}
