//! How the SAT engine scales: generated MP chains, IRIW, SB rings and a
//! reads-from fan (8 writers x 8 loads = 9^8 > 10^7 reads-from combinations),
//! atomic counters (1 or 2 `atom.add` per thread).
//! Run with `cargo bench --features bench --bench scale` (about a minute and a half).
//! Larger N (up to 16 threads) and the encode/solve split: `cargo run --release
//! --features plot --example scale_plot` (see paper-notes/performance.md).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ptx_litmus::check::{check_source, CheckOptions};
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

/// `n` threads in `n` CTAs each increment x `k` times with `atom.add` (a
/// counter), `forall (x == n*k)`: read-modify-write values are symbolic, one
/// event per atom; decided by the counting facts (D60).
fn counter(n: usize, k: usize) -> String {
    let heads: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let row = |r: usize| vec![format!("atom.relaxed.gpu.add r{}, x, 1", r); n].join(" | ");
    let rows: Vec<String> = (0..k).map(|r| format!("{} ;\n", row(r))).collect();
    format!("PTX counter-{}x{}\n{{\nx = 0;\n}}\n{} ;\n{}forall (x == {})\n", n, k, heads.join(" | "), rows.concat(), n * k)
}

fn scale(c: &mut Criterion) {
    let opts = CheckOptions::default();
    let relacq = Variant { sem: SemOpt::RelAcq, ..Variant::default() };
    let sbfence = Variant { sem: SemOpt::Relaxed, fence: FenceOpt::Sc, ..Variant::default() };
    let mut g = c.benchmark_group("scale");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let bench = |g: &mut criterion::BenchmarkGroup<_>, family: &str, threads: usize, src: String| {
        assert!(check_source(&src, &opts).is_ok(), "{} does not check", family);
        g.bench_with_input(BenchmarkId::new(family, threads), &src, |b, s| b.iter(|| check_source(s, &opts).map(|r| r.outcome.states.len()).unwrap_or(0)));
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
    g.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
