//! Speed of the SAT engine: the whole public conformance corpus (sequential and
//! in parallel) and single classic tests. Run with `cargo bench --features bench --bench corpus`.

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

criterion_group!(benches, corpus, classic);
criterion_main!(benches);
