//! Speed of the fence advisor (issue 16): classic shapes (repair and weaken),
//! six-thread tests, and the public corpus in parallel (summary mode, as
//! `advise DIR` runs it). Run with `cargo bench --bench advise`.

use criterion::{criterion_group, criterion_main, Criterion};
use ptx_litmus::advise::{advise_source, AdviseOptions};
use ptx_litmus::check::collect_files;
use rayon::prelude::*;
use std::path::Path;

fn classic(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let opts = AdviseOptions::default();
    let mut g = c.benchmark_group("advise");
    g.sample_size(10);
    for name in [
        "classic/MP+weak",
        "classic/LB+relaxed",
        "classic/IRIW+acq",
        "classic/MP+fence.gpu",
        "classic/IRIW+fence.sc",
        "advise/SB6+weak",
    ] {
        let text = std::fs::read_to_string(root.join("litmus").join(format!("{}.litmus", name))).expect("test file");
        g.bench_function(name, |b| b.iter(|| advise_source(&text, &opts).expect("advises")));
    }
    g.finish();
}

fn corpus(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/litmus");
    let files = collect_files(&[dir]);
    if files.is_empty() {
        return;
    }
    let texts: Vec<String> = files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).collect();
    let opts = AdviseOptions { explain: false, ..Default::default() };
    let mut g = c.benchmark_group("advise-corpus");
    g.sample_size(10);
    g.bench_function("whole_corpus_parallel", |b| {
        b.iter(|| texts.par_iter().filter(|t| advise_source(t, &opts).is_ok()).count())
    });
    g.finish();
}

criterion_group!(benches, classic, corpus);
criterion_main!(benches);
