//! Speed of the SAT engine: the whole public conformance corpus (sequential and
//! in parallel), single classic tests, and the asynchronous-copy family
//! (issue 41: `litmus/async`, `tests/async-pending`, with both thread
//! encodings). Run with `cargo bench --features bench --bench corpus`.

use criterion::{criterion_group, criterion_main, Criterion};
use ptx_litmus::batch::check_file;
use ptx_litmus::check::{check_source, collect_files, CheckOptions};
use rayon::prelude::*;
use std::path::Path;

fn corpus(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/litmus");
    let files = collect_files(&[dir]);
    let opts = CheckOptions::default();
    let mut g = c.benchmark_group("conformance");
    g.sample_size(10);
    g.bench_function("whole_corpus_parallel", |b| {
        b.iter(|| files.par_iter().map(|f| check_file(f, &opts).result.is_ok() as usize).sum::<usize>())
    });
    g.bench_function("whole_corpus_sequential", |b| {
        b.iter(|| files.iter().map(|f| check_file(f, &opts).result.is_ok() as usize).sum::<usize>())
    });
    g.finish();
}

fn classic(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let opts = CheckOptions::default();
    let mut g = c.benchmark_group("classic");
    for name in [
        "Manual/MP-gpu.litmus",
        "Manual/SB+sc-gpu.litmus",
        "Manual/CoRR-weak-weak.litmus",
        "Nvidia/Co-Total-3-threads-scope-diff.litmus",
        "Manual/Ticketlock-same-gpu.litmus",
    ] {
        let path = root.join("tests/conformance/litmus").join(name);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        g.bench_function(name, |b| b.iter(|| check_source(&text, &opts).map(|r| r.summary.positive).unwrap_or(0)));
    }
    g.finish();
}

/// The asynchronous-copy tests (cp.async, bulk copies on mbarrier
/// transaction counts and bulk groups, proxy fences, multicast), each suite
/// as a whole, with the path and the symbolic encoding; a test one encoding
/// does not decide counts as 0.
fn async_family(c: &mut Criterion) {
    use ptx_litmus::check::ThreadEncoding;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut g = c.benchmark_group("async");
    g.sample_size(10);
    // Issue 41 item 6: a 4-stage producer/consumer TMA pipeline, two rounds,
    // one producer and two consumers spinning on try_wait (goal: 1 s, 200 MB).
    for name in ["tma-pipeline-4-stage", "tma-pipeline-4-stage-no-fence"] {
        let text = std::fs::read_to_string(root.join(format!("litmus/scale/{}.litmus", name))).unwrap();
        let opts = CheckOptions::default();
        g.bench_function(name, |b| b.iter(|| check_source(&text, &opts).map(|r| r.summary.positive).unwrap_or(0)));
    }
    for (suite, dir) in [("litmus_async", "litmus/async"), ("async_pending", "tests/async-pending")] {
        let files = collect_files(&[root.join(dir)]);
        for (encoding, name) in [(ThreadEncoding::Paths, "paths"), (ThreadEncoding::Symbolic, "symbolic")] {
            let opts = CheckOptions { encoding, ..CheckOptions::default() };
            g.bench_function(format!("{}_{}", suite, name), |b| {
                b.iter(|| files.iter().map(|f| check_file(f, &opts).result.is_ok() as usize).sum::<usize>())
            });
        }
    }
    g.finish();
}

criterion_group!(benches, corpus, classic, async_family);
criterion_main!(benches);
