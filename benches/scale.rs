//! How the SAT engine scales: generated MP chains, IRIW, SB rings and a
//! reads-from fan (8 writers x 8 loads = 9^8 > 10^7 reads-from combinations),
//! atomic counters, and the targets of issue 14 (`target/...`: each to be
//! decided in under 1 s; verdict only, `--states none`, unless the name says
//! `listing`, the default of at most 256 listed states); issue 27's lock and
//! counter families on both thread encodings (`scale-symbolic/...`).
//! Run with `cargo bench --features bench --bench scale` (about three minutes).
//! The whole curve (2..32 threads) and the encode/solve split: `cargo run --release
//! --features plot --example scale_plot` (see paper-notes/performance.md).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ptx_litmus::check::{check_source, CheckOptions, ThreadEncoding};
use ptx_litmus::gen::{shape_test, FenceOpt, SemOpt, Variant};
use std::time::Duration;

/// `k` writer threads store 1..k to x; one reader loads x `k` times.
fn rf_fan(k: usize) -> String {
    let mut cols: Vec<Vec<String>> = (0..k).map(|i| vec![format!("st.relaxed.gpu x, {}", i + 1)]).collect();
    cols.push((0..k).map(|j| format!("ld.relaxed.gpu r{}, x", j)).collect());
    let heads: Vec<String> = (0..=k).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let mut s = format!("PTX RF-fan-{}\n{{\nx = 0;\n}}\n{} ;\n", k, heads.join(" | "));
    for r in 0..k {
        let row: Vec<&str> = cols.iter().map(|c| c.get(r).map(String::as_str).unwrap_or("")).collect();
        s += &format!("{} ;\n", row.join(" | "));
    }
    s + &format!("exists (P{}:r0 == {} /\\ P{}:r{} == 1)\n", k, k, k, k - 1)
}

/// `k` writer threads store 1..k to x; `k` reader threads load x once each.
fn rf_readers(k: usize) -> String {
    let mut cells: Vec<String> = (0..k).map(|i| format!("st.relaxed.gpu x, {}", i + 1)).collect();
    cells.extend((0..k).map(|_| "ld.relaxed.gpu r0, x".to_string()));
    let heads: Vec<String> = (0..2 * k).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    format!(
        "PTX RF-readers-{}\n{{\nx = 0;\n}}\n{} ;\n{} ;\nexists (P{}:r0 == {} /\\ P{}:r0 == 1)\n",
        k,
        heads.join(" | "),
        cells.join(" | "),
        k,
        k,
        2 * k - 1
    )
}

/// `k` writer threads store 1..k to x; one reader loads x `k` times; the
/// condition: the loads see the writes in increasing order (allowed), or
/// 1, 2, 1, ... (against coherence: forbidden).
fn corr_fan(k: usize, increasing: bool) -> String {
    let src = rf_fan(k);
    let body = &src[..src.rfind("exists").unwrap_or(src.len())];
    let vals: Vec<usize> = (1..=k).map(|j| if !increasing && j == 3 { 1 } else { j }).collect();
    let cond: Vec<String> = vals.iter().enumerate().map(|(j, v)| format!("P{}:r{} == {}", k, j, v)).collect();
    format!("{}exists ({})\n", body, cond.join(" /\\ "))
}

/// `n` threads in `n` CTAs each increment x `k` times with `atom.add` (a
/// counter), `forall (x == n*k)`: read-modify-write values are symbolic, one
/// event per atom; decided by the counting facts (D60).
fn counter(n: usize, k: usize) -> String {
    let heads: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let row = |r: usize| vec![format!("atom.relaxed.gpu.add r{}, x, 1", r); n].join(" | ");
    let rows: Vec<String> = (0..k).map(|r| format!("{} ;\n", row(r))).collect();
    format!(
        "PTX counter-{}x{}\n{{\nx = 0;\n}}\n{} ;\n{}forall (x == {})\n",
        n,
        k,
        heads.join(" | "),
        rows.concat(),
        n * k
    )
}

/// A ticket lock of `n` threads (issue 14): `atom.add` takes a ticket, spin
/// on `ld.acquire [s]` until it equals the ticket, `c = c + 1` with plain
/// accesses, `st.release [s], ticket + 1`; `forall (c == n)` (Always). With
/// `relacq` false every acquire/release is relaxed (Sometimes). The same
/// shape as `litmus/locks/ticketlock-2*.litmus` (which carry the verdicts).
fn ticket_lock(n: usize, relacq: bool) -> String {
    let (acq, rel) = if relacq { ("acquire", "release") } else { ("relaxed", "relaxed") };
    let code = [
        "atom.relaxed.gpu.add r1, t, 1".to_string(),
        "LOOP:".to_string(),
        format!("ld.{}.gpu r2, s", acq),
        "bne r1, r2, LOOP".to_string(),
        "ld.weak r3, c".to_string(),
        "add r3, r3, 1".to_string(),
        "st.weak c, r3".to_string(),
        "add r4, r1, 1".to_string(),
        format!("st.{}.gpu s, r4", rel),
    ];
    let heads: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let rows: Vec<String> = code.iter().map(|c| format!("{} ;\n", vec![c.as_str(); n].join(" | "))).collect();
    format!(
        "PTX ticketlock-{}\n{{\nt = 0; s = 0; c = 0;\n}}\n{} ;\n{}forall (c == {})\n",
        n,
        heads.join(" | "),
        rows.concat(),
        n
    )
}

fn scale(c: &mut Criterion) {
    let opts = CheckOptions::default();
    let relacq = Variant { sem: SemOpt::RelAcq, ..Variant::default() };
    let sbfence = Variant { sem: SemOpt::Relaxed, fence: FenceOpt::Sc, ..Variant::default() };
    let mut g = c.benchmark_group("scale");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let bench = |g: &mut criterion::BenchmarkGroup<_>, family: &str, threads: usize, src: String| {
        assert!(check_source(&src, &opts).is_ok(), "{} does not check", family);
        g.bench_with_input(BenchmarkId::new(family, threads), &src, |b, s| {
            b.iter(|| check_source(s, &opts).map(|r| r.outcome.states.len()).unwrap_or(0))
        });
    };
    // N = threads.
    for n in [2, 4, 8, 12] {
        bench(&mut g, "MP-chain", n, shape_test(&format!("MP-chain:{}", n), &relacq).unwrap().source);
    }
    for k in [2, 4, 6] {
        bench(&mut g, "IRIW", 2 * k, shape_test(&format!("IRIW:{}", k), &relacq).unwrap().source);
    }
    for n in [2, 4, 8, 12] {
        bench(&mut g, "SB-ring+fence.sc", n, shape_test(&format!("SB-ring:{}", n), &sbfence).unwrap().source);
    }
    // 9^8 = 43 046 721 reads-from combinations each.
    bench(&mut g, "RF-fan-8x8", 9, rf_fan(8));
    bench(&mut g, "RF-readers-8x8", 16, rf_readers(8));
    // n x 2 increments, and the issue-14 targets 16 x 1 and 6 x 2.
    for n in [2, 3, 4, 6] {
        bench(&mut g, "atom-counter", n, counter(n, 2));
    }
    for n in [8, 16] {
        bench(&mut g, "atom-counter-x1", n, counter(n, 1));
    }
    // Issue 14's targets, verdict first.
    let verdict = CheckOptions { list_states: Some(0), ..CheckOptions::default() };
    let target = |g: &mut criterion::BenchmarkGroup<_>, name: &str, src: String, o: &CheckOptions| {
        assert!(check_source(&src, o).is_ok(), "{} does not check", name);
        g.bench_with_input(BenchmarkId::new("target", name), &src, |b, s| {
            b.iter(|| check_source(s, o).map(|r| r.outcome.states.len()).unwrap_or(0))
        });
    };
    let mp20 = shape_test("MP-chain:20", &relacq).unwrap().source;
    // One link's release weakened to relaxed: the chain is broken, allowed.
    let mp20_broken = mp20.replacen("| st.release.gpu d, 1", "| st.relaxed.gpu d, 1", 1);
    assert_ne!(mp20, mp20_broken, "MP-chain:20 has a link to weaken");
    target(&mut g, "MP-chain:20", mp20.clone(), &verdict);
    target(&mut g, "MP-chain:20 one relaxed link", mp20_broken, &verdict);
    target(&mut g, "IRIW:10", shape_test("IRIW:10", &relacq).unwrap().source, &verdict);
    target(&mut g, "SB-ring:20+fence.sc", shape_test("SB-ring:20", &sbfence).unwrap().source, &verdict);
    target(&mut g, "RA-ring:24", shape_test("RA-ring:24", &relacq).unwrap().source, &verdict);
    target(&mut g, "CoRR-fan:8 increasing", corr_fan(8, true), &verdict);
    target(&mut g, "CoRR-fan:8 against coherence", corr_fan(8, false), &verdict);
    target(&mut g, "counter 16x1", counter(16, 1), &verdict);
    target(&mut g, "counter 6x2", counter(6, 2), &verdict);
    // Ticket locks (issue 14's targets: 2, 3 and 8 threads): one event per
    // instruction instance (D65), failed spin iterations dropped (D66).
    for n in [2, 3, 8] {
        target(&mut g, &format!("ticketlock:{}", n), ticket_lock(n, true), &verdict);
        target(&mut g, &format!("ticketlock:{} listing", n), ticket_lock(n, true), &opts);
    }
    target(&mut g, "ticketlock:2 relaxed", ticket_lock(2, false), &verdict);
    target(&mut g, "ticketlock:3 relaxed", ticket_lock(3, false), &verdict);
    target(&mut g, "MP-chain:20 listing", mp20, &opts);
    target(&mut g, "SB-ring:20+fence.sc listing", shape_test("SB-ring:20", &sbfence).unwrap().source, &opts);
    g.finish();
}

/// Issue 27's lock and counter families of `litmus/scale/` (8 and 16
/// threads, the corpus `bne` and the compilers' `setp` + `@p bra` spellings),
/// verdict only, on the path encoding and forced onto the symbolic one
/// (each to be decided in under 1 s). Run alone with
/// `cargo bench --features bench --bench scale -- scale-symbolic`.
fn scale_symbolic(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale-symbolic");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (name, encoding) in [("paths", ThreadEncoding::Paths), ("symbolic", ThreadEncoding::Symbolic)] {
        let o = CheckOptions { list_states: Some(0), encoding, ..CheckOptions::default() };
        for family in ["ticketlock", "caslock", "cascounter"] {
            for n in [8, 16] {
                for spelling in ["bne", "setp"] {
                    let test = format!("{}-{}-{}", family, n, spelling);
                    let path = format!("{}/litmus/scale/{}.litmus", env!("CARGO_MANIFEST_DIR"), test);
                    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {}", path, e));
                    assert!(check_source(&src, &o).is_ok(), "{} does not check on {}", test, name);
                    g.bench_with_input(BenchmarkId::new(name, &test), &src, |b, s| {
                        b.iter(|| check_source(s, &o).map(|r| r.outcome.states.len()).unwrap_or(0))
                    });
                }
            }
        }
    }
    g.finish();
}

criterion_group!(benches, scale, scale_symbolic);
criterion_main!(benches);
