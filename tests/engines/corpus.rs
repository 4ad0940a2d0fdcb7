//! The curated library (`litmus/`) and the public conformance corpus
//! (`tests/conformance/`) against their expected verdicts. Every test must
//! parse and match; a test file without an expectation is a failure too.

use ptx_litmus::batch::check_file;
use ptx_litmus::check::{collect_files, CheckOptions, Engine, ThreadEncoding};
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
    run_corpus_with(csv, dir, engine, unroll, &Overrides::default())
}

/// What `litmus/compiled/` says about some of its harnesses beside `expected.csv`.
#[derive(Default)]
struct Overrides {
    /// `refused.csv`: harnesses over instructions the model does not cover yet,
    /// each with its argued verdict and the words the refusal must contain.
    refused: Vec<(PathBuf, String, String)>,
    /// `unroll.csv`: harnesses checked at a lower unroll bound than the run's.
    unroll: Vec<(PathBuf, u32)>,
    /// `unroll.csv` rows marked `sat`: past the reference engine's candidate budget.
    sat_only: Vec<PathBuf>,
}

/// Rows of a CSV under `dir` (header skipped; `#` lines are comments), each
/// with its test path made absolute.
fn csv_rows(dir: &Path, name: &str) -> Vec<(PathBuf, Vec<String>)> {
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{}: {}", name, e));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut cells = l.splitn(3, ',').map(|c| c.trim().to_string());
            let test = dir.join(cells.next().unwrap_or_default());
            assert!(test.is_file(), "{} lists {}, which does not exist", name, test.display());
            (test, cells.collect())
        })
        .collect()
}

/// A row of `litmus/symbolic/past-path-limit.csv`: a test whose threads have
/// more paths than the path builder enumerates (issue 27), the verdict its
/// doc string argues from chapter 8, its smaller twin of the same shape (which
/// both engines decide) and the refusal the path builder gives.
struct PastPathLimit {
    test: PathBuf,
    expected: String,
    twin: PathBuf,
    refusal: String,
}

fn past_path_limit() -> Vec<PastPathLimit> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/symbolic");
    csv_rows(&dir, "past-path-limit.csv")
        .into_iter()
        .map(|(test, c)| {
            let (twin, refusal) = c.get(1).and_then(|r| r.split_once(',')).expect("test,expected,twin,refusal");
            PastPathLimit {
                expected: c.first().cloned().unwrap_or_default(),
                twin: dir.join(twin),
                refusal: refusal.to_string(),
                test,
            }
        })
        .collect()
}

fn compiled_overrides(root: &Path) -> Overrides {
    let refused = csv_rows(root, "refused.csv")
        .into_iter()
        .map(|(t, c)| (t, c.first().cloned().unwrap_or_default(), c.get(1).cloned().unwrap_or_default()))
        .collect();
    let rows = csv_rows(root, "unroll.csv");
    let unroll = rows
        .iter()
        .map(|(t, c)| (t.clone(), c.first().and_then(|u| u.parse().ok()).expect("unroll.csv: test,unroll,engines,why")))
        .collect();
    let sat_only =
        rows.iter().filter(|(_, c)| c.get(1).is_some_and(|e| e.starts_with("sat,"))).map(|(t, _)| t.clone()).collect();
    Overrides { refused, unroll, sat_only }
}

fn run_corpus_with(csv: &Path, dir: &Path, engine: Engine, unroll: u32, over: &Overrides) {
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
    // `.harness` files (refused, or checked at a lower bound) are not `*.litmus`:
    // the walks over the whole library skip them; they come from the CSVs.
    files.extend(
        over.unroll.iter().map(|(f, _)| f.clone()).filter(|f| engine == Engine::Sat || !over.sat_only.contains(f)),
    );
    // The other harnesses `expected.csv` lists are decided at the run's bound.
    if dir == compiled.as_path() {
        let harnesses: Vec<PathBuf> =
            exp.order.iter().filter(|f| f.extension().is_some_and(|x| x == "harness")).cloned().collect();
        let known: Vec<PathBuf> = files.iter().map(|f| f.canonicalize().unwrap_or(f.clone())).collect();
        let sat_only: Vec<PathBuf> = over.sat_only.iter().map(|f| f.canonicalize().unwrap_or(f.clone())).collect();
        for h in harnesses {
            let c = h.canonicalize().unwrap_or(h.clone());
            if !known.contains(&c) && (engine == Engine::Sat || !sat_only.contains(&c)) {
                files.push(h);
            }
        }
    }
    // Tests past the path builder's limit have their own test (`tests_past_the_path_limit_*` below).
    let past_limit: Vec<PathBuf> = past_path_limit().into_iter().map(|r| r.test).collect();
    files.retain(|f| !past_limit.contains(f));
    assert!(!files.is_empty(), "no litmus files under {}", dir.display());
    if engine == Engine::Reference {
        // `litmus/scale/` holds tests sized past the reference engine's candidate
        // budget (16 threads of atom.add: 16! coherence orders; ticket locks of 3 and 8
        // threads: 48 and 243 paths per thread): SAT engine only.
        files.retain(|f| !f.components().any(|c| c.as_os_str() == "scale"));
    }
    let mut opts = CheckOptions { engine, ..CheckOptions::default() };
    opts.build.unroll = unroll;
    let reports: Vec<_> = files
        .iter()
        .map(|f| match over.unroll.iter().find(|(u, _)| u == f) {
            Some(&(_, lower)) => {
                let mut o = opts.clone();
                o.build.unroll = lower.min(unroll);
                check_file(f, &o)
            }
            None => check_file(f, &opts),
        })
        .collect();
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
    let unroll = CheckOptions::default().build.unroll;
    run_corpus_with(&root.join("expected.csv"), &root, Engine::Sat, unroll, &compiled_overrides(&root));
}

/// The harnesses of `litmus/compiled/refused.csv` (issue 26): each is refused
/// with a message that names what is missing, or, once that is modelled,
/// decided with the verdict argued in the file (then move it to expected.csv).
#[test]
fn compiled_corpus_refusals_name_what_is_missing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/compiled");
    let over = compiled_overrides(&root);
    assert!(!over.refused.is_empty() || root.join("refused.csv").is_file());
    let opts = CheckOptions { engine: Engine::Sat, ..CheckOptions::default() };
    for (test, expected, missing) in &over.refused {
        let report = check_file(test, &opts);
        match &report.result {
            Ok(r) => {
                let verdict = format!("{:?}", r.summary.verdict);
                assert_eq!(&verdict, expected, "{} is now decided, against its argued verdict", test.display());
                eprintln!("{} is now decided as argued ({}): move it to expected.csv", test.display(), verdict);
            }
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.contains(missing.as_str()),
                    "{}: refusal `{}` does not name `{}`",
                    test.display(),
                    text,
                    missing
                );
            }
        }
    }
}

/// The compiled corpus with the reference engine; the two spin locks need
/// more candidates than the reference engine's default budget allows at
/// the default unroll bound, so this run uses `--unroll 0` for all tests.
#[test]
fn compiled_corpus_matches_expectations_with_the_reference_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/compiled");
    run_corpus_with(&root.join("expected.csv"), &root, Engine::Reference, 0, &compiled_overrides(&root));
}

/// Every test of `litmus/symbolic/past-path-limit.csv` is past the path
/// builder's limit (`--encoding paths` refuses it as recorded) and
/// `--encoding auto` decides it (the symbolic encoding, D188) with the verdict
/// its doc string argues from chapter 8; its twin, the same shape with fewer
/// reads or threads, gets that verdict from the path encoding and the same
/// final states and flags from both encodings.
#[test]
fn tests_past_the_path_limit_are_decided_by_the_symbolic_encoding() {
    let rows = past_path_limit();
    assert!(rows.len() >= 10, "only {} tests past the path limit", rows.len());
    let paths = CheckOptions { encoding: ThreadEncoding::Paths, ..CheckOptions::default() };
    let auto = CheckOptions { encoding: ThreadEncoding::Auto, ..CheckOptions::default() };
    let symbolic = CheckOptions { encoding: ThreadEncoding::Symbolic, ..CheckOptions::default() };
    for row in &rows {
        let name = row.test.display();
        match &check_file(&row.test, &paths).result {
            Err(e) => assert!(e.to_string().contains(&row.refusal), "{}: `{}` is not `{}`", name, e, row.refusal),
            Ok(_) => panic!("{} is no longer past the path limit", name),
        }
        let r = check_file(&row.test, &auto).result.unwrap_or_else(|e| panic!("{}: not decided: {}", name, e));
        assert_eq!(format!("{:?}", r.summary.verdict), row.expected, "{}: against its argued verdict", name);
        let twin_name = row.twin.display();
        let twin = check_file(&row.twin, &paths).result.unwrap_or_else(|e| panic!("{}: {}", twin_name, e));
        assert_eq!(format!("{:?}", twin.summary.verdict), row.expected, "{}: the twin's verdict", twin_name);
        // Both encodings hold the twin's behaviours (D181): the same final states and flags.
        let sym = check_file(&row.twin, &symbolic).result.unwrap_or_else(|e| panic!("{}: {}", twin_name, e));
        let states = |r: &ptx_litmus::check::TestResult| r.outcome.states.keys().cloned().collect::<Vec<_>>();
        assert_eq!(states(&sym), states(&twin), "{}: final states, symbolic against paths", twin_name);
        assert_eq!(sym.outcome.flags, twin.outcome.flags, "{}: flags, symbolic against paths", twin_name);
    }
}
