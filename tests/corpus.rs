//! The curated library (`litmus/`) and the public conformance corpus
//! (`tests/conformance/`) against their expected verdicts. Every test must
//! parse and match; a test file without an expectation is a failure too.

use ptx_litmus::check::{check_file, collect_files, CheckOptions, Engine};
use ptx_litmus::report::expect::{compare, load};
use std::path::{Path, PathBuf};

/// Tests whose corpus expectation we argue contradicts the ISA text
/// (`paper-notes/conformance-deviations.csv`, each argued in paper-notes).
fn deviations(csv_dir: &Path) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("paper-notes/conformance-deviations.csv")).unwrap_or_default();
    text.lines().skip(1).filter_map(|l| l.split(',').next()).map(|t| csv_dir.join(t)).collect()
}

fn run_corpus(csv: &Path, dir: &Path, engine: Engine) {
    run_corpus_unroll(csv, dir, engine, CheckOptions::default().build.unroll)
}

fn run_corpus_unroll(csv: &Path, dir: &Path, engine: Engine, unroll: u32) {
    let mut exp = load(csv).expect("expectations load");
    // An argued deviation must still differ: we expect our own verdict there.
    for d in deviations(csv.parent().unwrap_or(Path::new("."))) {
        let key = d.canonicalize().unwrap_or(d.clone());
        if let Some(v) = exp.map.get_mut(&key) {
            *v = match v {
                ptx_litmus::outcome::Verdict::Ok => ptx_litmus::outcome::Verdict::No,
                ptx_litmus::outcome::Verdict::No => ptx_litmus::outcome::Verdict::Ok,
            };
        }
    }
    // `litmus/compiled/` has its own expectations (`compiled_corpus_*` below).
    let compiled = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/compiled");
    let mut files: Vec<PathBuf> = collect_files(&[dir.to_path_buf()])
        .into_iter()
        .filter(|f| dir == compiled.as_path() || !f.starts_with(&compiled))
        .collect();
    assert!(!files.is_empty(), "no litmus files under {}", dir.display());
    if engine == Engine::Reference {
        // `litmus/scale/` holds tests sized past the reference engine's candidate
        // budget (16 threads of atom.add: 16! coherence orders; ticket locks of 3 and 8
        // threads: 48 and 243 paths per thread): SAT engine only.
        files.retain(|f| !f.components().any(|c| c.as_os_str() == "scale"));
    }
    let mut opts = CheckOptions { engine, ..CheckOptions::default() };
    opts.build.unroll = unroll;
    let reports: Vec<_> = files.iter().map(|f| check_file(f, &opts)).collect();
    let (tally, lines) = compare(&exp, &reports);
    for l in &lines {
        eprintln!("{}", l);
    }
    eprintln!("{}", tally);
    assert_eq!(tally.mismatched, 0, "verdict mismatches");
    assert_eq!(tally.errors, 0, "tests that did not run");
    // Files without an expectation are not silently skipped.
    let listed: Vec<PathBuf> = exp.order.iter().map(|p| p.canonicalize().unwrap_or(p.clone())).collect();
    for f in &files {
        let c = f.canonicalize().unwrap_or(f.clone());
        if f.file_name().is_some_and(|n| n == "MICRO24-Fig4b-correct.litmus") {
            continue; // the corpus README: no recorded expectation for this one
        }
        assert!(listed.contains(&c), "{} has no expected verdict", f.display());
    }
    assert_eq!(tally.matched + tally.without, files.len());
}

#[test]
fn curated_library_matches_expectations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    run_corpus(&root.join("litmus/expected.csv"), &root.join("litmus"), Engine::Sat);
}

/// The second, explicit engine must give the same verdicts on the curated
/// library (the ordered proxy chains of `litmus/proxy/` included).
#[test]
fn curated_library_matches_expectations_with_the_reference_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    run_corpus(&root.join("litmus/expected.csv"), &root.join("litmus"), Engine::Reference);
}

#[test]
fn public_conformance_corpus_matches_expectations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    run_corpus(&root.join("expected.csv"), &root.join("litmus"), Engine::Sat);
}

/// The public corpus with the reference engine (about 7 s of CPU in release).
#[test]
fn public_conformance_corpus_matches_expectations_with_the_reference_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    run_corpus(&root.join("expected.csv"), &root.join("litmus"), Engine::Reference);
}

/// Real nvcc output (`litmus/compiled/`, issue 15): every harness parses,
/// inlines its module and matches the verdict argued from the C++ source.
#[test]
fn compiled_corpus_matches_expectations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/compiled");
    run_corpus(&root.join("expected.csv"), &root, Engine::Sat);
}

/// The compiled corpus with the reference engine; the two spin locks need
/// more candidates than the reference engine's default budget allows at
/// the default unroll bound, so this run uses `--unroll 0` for all tests.
#[test]
fn compiled_corpus_matches_expectations_with_the_reference_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/compiled");
    run_corpus_unroll(&root.join("expected.csv"), &root, Engine::Reference, 0);
}
