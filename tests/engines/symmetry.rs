//! Thread symmetry (D70): breaking it in the verdict queries never changes a
//! verdict, an observation or a listed state. Generated tests get copies of one
//! of their threads, so most cases have interchangeable threads; each case is
//! checked with and without symmetry breaking.
//!
//! Symbolic programs (D192): random tests of the symbolic fragment with
//! copies of one thread, and the `litmus/scale/` families of two and three
//! threads, decided by the symbolic encoding with and without symmetry
//! breaking (and by the path encoding) must list the same.
//!
//! Cases: `PTX_LITMUS_PROPTEST_CASES` (default 1000), like `differential.rs`;
//! the symbolic property runs a quarter of them (three runs of up to five
//! threads each).

use crate::common;

use common::gen::test_strategy;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use ptx_litmus::check::{check_source, check_source_at, parse_and_expand, CheckOptions, TestResult, ThreadEncoding};
use ptx_litmus::context::Ctx;
use ptx_litmus::error::ErrorKind;
use ptx_litmus::program::{build_symbolic, BuildOptions, SymbolicBuild};
use ptx_litmus::sat::symmetry::classes;
use std::cell::Cell;
use std::path::Path;

fn cases() -> u32 {
    std::env::var("PTX_LITMUS_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000)
}

/// `list`: how many states to list (None: all); `symmetry`: break it or not.
fn run(text: &str, list: Option<usize>, symmetry: bool) -> Option<TestResult> {
    run_encoded(text, list, symmetry, CheckOptions::default().encoding)
}

/// [`run`] with the threads encoded as `encoding` says.
fn run_encoded(text: &str, list: Option<usize>, symmetry: bool, encoding: ThreadEncoding) -> Option<TestResult> {
    let opts = CheckOptions {
        list_states: list,
        symmetry,
        encoding,
        max_states: 2_000,
        build: BuildOptions { max_events: 250, ..Default::default() },
        // A case over 2 M work units (about 3 s on an idle 2-core machine) is
        // skipped, counted: at most a fifth may be. A 3 s timeout skipped 53
        // of 251 in CI, where the binary's other tests ran beside this one (D288).
        ctx: common::within_work(Ctx::default(), 2_000_000),
        ..Default::default()
    };
    match check_source(text, &opts) {
        Ok(r) => Some(r),
        Err(e) if e.kind == ErrorKind::Limit => None,
        Err(e) => panic!("generated test failed: {}\n{}", e, text),
    }
}

#[test]
fn symmetry_breaking_keeps_verdicts_and_states() {
    let strategy = (test_strategy(), 0..4usize, 1..3usize, 0..4usize);
    let (compared, symmetric, skipped) = (Cell::new(0usize), Cell::new(0usize), Cell::new(0usize));
    let config = Config { cases: cases(), max_shrink_iters: 1000, source_file: Some(file!()), ..Config::default() };
    let result = TestRunner::new(config).run(&strategy, |(t, which, copies, shape)| {
        let (t, same) = t.duplicated(which, copies);
        let text = t.render_symmetric("sym", &same, shape);
        let (Some(on), Some(off), Some(all_on), Some(all_off)) =
            (run(&text, Some(0), true), run(&text, Some(0), false), run(&text, None, true), run(&text, None, false))
        else {
            skipped.set(skipped.get() + 1);
            return Ok(());
        };
        prop_assert_eq!(on.summary.verdict, off.summary.verdict, "symmetry changed the verdict of:\n{}", text);
        prop_assert_eq!(
            on.summary.observation(),
            off.summary.observation(),
            "symmetry changed the observation of:\n{}",
            text
        );
        let (a, b): (Vec<_>, Vec<_>) =
            (all_on.outcome.states.keys().collect(), all_off.outcome.states.keys().collect());
        prop_assert_eq!(a, b, "symmetry changed the listed states of:\n{}", text);
        compared.set(compared.get() + 1);
        if !classes(&on.program).is_empty() {
            symmetric.set(symmetric.get() + 1);
        }
        Ok::<(), TestCaseError>(())
    });
    if let Err(e) = result {
        panic!("{}", e);
    }
    let (c, s, k) = (compared.get(), symmetric.get(), skipped.get());
    eprintln!("symmetry: {} compared ({} with interchangeable threads), {} skipped over a budget", c, s, k);
    assert!(k * 5 <= c + k, "too many cases skipped: the property would be vacuous");
    // Shapes 0-2 keep the copies interchangeable unless their placement or
    // code (barriers across CTAs, shared memory) tells them apart.
    assert!(s * 3 >= c, "only {} of {} cases had interchangeable threads: the property would test little", s, c);
}

/// Three threads incrementing x, placed by `heads`, with condition `cond`.
fn counter(heads: &str, cond: &str) -> Vec<Vec<usize>> {
    let text = format!("PTX c\n{{ x = 0; }}\n {} ;\n atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 ;\n{}\n", heads, cond);
    classes(&check_source(&text, &CheckOptions::default()).expect("checks").program)
}

#[test]
fn classes_need_same_code_same_placement_relations_and_an_invariant_condition() {
    let apart = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0";
    assert_eq!(counter(apart, "forall (x == 3)"), vec![vec![0, 1, 2]]);
    // No swap keeps this condition; swapping P0 and P1 keeps the next one.
    assert_eq!(counter(apart, "exists (P0:r0 == 0 \\/ (P1:r0 == 0 /\\ P2:r0 == 1))"), Vec::<Vec<usize>>::new());
    assert_eq!(counter(apart, "exists ((P1:r0 == 0 \\/ P0:r0 == 0) /\\ P2:r0 == 1)"), vec![vec![0, 1]]);
    // P0 and P1 share a CTA that P2 is not in: only they are interchangeable.
    assert_eq!(counter("P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0", "forall (x == 3)"), vec![vec![0, 1]]);
    // Other code: a different value, or another location.
    let text =
        "PTX d\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu x, 2 | st.relaxed.gpu y, 1 ;\nexists (x == 1)\n";
    assert!(classes(&check_source(text, &CheckOptions::default()).expect("checks").program).is_empty());
}

/// The symmetric thread classes of `text` as the symbolic builder builds it
/// (none when it does not cover the test).
fn symbolic_classes(text: &str) -> Vec<Vec<usize>> {
    let ast = parse_and_expand(text, Path::new(".")).expect("a generated test parses");
    match build_symbolic(&ast, &BuildOptions { max_events: 250, ..Default::default() }) {
        Ok(SymbolicBuild::Built(p)) => classes(&p),
        _ => Vec::new(),
    }
}

/// The verdict, observation, flags and listed states of two results agree.
fn same_results(a: &TestResult, b: &TestResult, what: &str, text: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.summary.verdict, b.summary.verdict, "{}: verdicts differ on:\n{}", what, text);
    prop_assert_eq!(a.summary.observation(), b.summary.observation(), "{}: observations differ on:\n{}", what, text);
    prop_assert_eq!(&a.outcome.flags, &b.outcome.flags, "{}: flags differ on:\n{}", what, text);
    let (x, y): (Vec<_>, Vec<_>) = (a.outcome.states.keys().collect(), b.outcome.states.keys().collect());
    prop_assert_eq!(x, y, "{}: listed states differ on:\n{}", what, text);
    Ok(())
}

/// Random tests of the symbolic fragment (`common::fragment`) with one or two
/// copies of one thread: the symbolic encoding decides them the same with
/// symmetry breaking and without it, and as the path encoding does (every
/// listed state, the verdict, the observation, the flags). Each execution
/// listed, the renamed ones included, is re-checked by the self-check.
#[test]
fn symbolic_symmetry_keeps_verdicts_and_states() {
    let strategy = (common::fragment::fragment_strategy(3), 0..3usize, 1..3usize, any::<bool>());
    let (compared, symmetric, skipped) = (Cell::new(0usize), Cell::new(0usize), Cell::new(0usize));
    let cases = cases().div_ceil(4);
    let config = Config { cases, max_shrink_iters: 500, source_file: Some(file!()), ..Config::default() };
    let result = TestRunner::new(config).run(&strategy, |(t, which, copies, apart)| {
        let text = t.render_with_copies("symfrag", which, copies, apart);
        let symbolic = |symmetry| run_encoded(&text, None, symmetry, ThreadEncoding::Symbolic);
        let (Some(on), Some(off), Some(paths)) =
            (symbolic(true), symbolic(false), run_encoded(&text, None, true, ThreadEncoding::Paths))
        else {
            skipped.set(skipped.get() + 1);
            return Ok(());
        };
        same_results(&on, &off, "symbolic with and without symmetry", &text)?;
        same_results(&on, &paths, "symbolic with symmetry and paths", &text)?;
        compared.set(compared.get() + 1);
        if !symbolic_classes(&text).is_empty() {
            symmetric.set(symmetric.get() + 1);
        }
        Ok::<(), TestCaseError>(())
    });
    if let Err(e) = result {
        panic!("{}", e);
    }
    let (c, s, k) = (compared.get(), symmetric.get(), skipped.get());
    eprintln!("symbolic symmetry: {} compared ({} with interchangeable threads), {} skipped over a budget", c, s, k);
    assert!(k * 5 <= c + k, "too many cases skipped: the property would be vacuous");
    assert!(s * 2 >= c, "only {} of {} cases had interchangeable threads: the property would test little", s, c);
}

/// Two threads with the same instructions, adding their `r1` to the value
/// they read and storing the sum: with different initial `r1` their symbolic
/// facts differ (the value written is another term; the built events are
/// alike), so renaming them is no symmetry; with equal ones it is (D192).
#[test]
fn symbolic_classes_compare_the_facts_not_only_the_events() {
    let test = |r1: i64| {
        let code = ["ld.relaxed.gpu.u32 r0, [x]", "add.u32 r2, r0, r1", "st.relaxed.gpu.u32 [y], r2"];
        let rows: Vec<String> = code.iter().map(|c| format!(" {} | {} ;\n", c, c)).collect();
        format!(
            "PTX s\n{{ x = 0; y = 0; P0:r1 = 1; P1:r1 = {}; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n{}exists (y == 1)\n",
            r1,
            rows.concat()
        )
    };
    let program = |text: &str| {
        let ast = parse_and_expand(text, Path::new(".")).expect("parses");
        match build_symbolic(&ast, &BuildOptions::default()).expect("builds") {
            SymbolicBuild::Built(p) => p,
            SymbolicBuild::Outside(why) => panic!("the symbolic builder covers this test: {}", why),
        }
    };
    let (differ, equal) = (program(&test(2)), program(&test(1)));
    let kinds = |p: &ptx_litmus::program::Program, t: usize| -> Vec<String> {
        p.events.iter().filter(|e| e.thread == Some(t)).map(|e| format!("{:?}", e.kind)).collect()
    };
    assert_eq!(kinds(&differ, 0), kinds(&differ, 1), "the two threads' events are alike");
    assert!(differ.symbolic.is_some() && equal.symbolic.is_some());
    assert_eq!(classes(&differ), Vec::<Vec<usize>>::new());
    assert_eq!(classes(&equal), vec![vec![0, 1]]);
}

/// The `litmus/scale/` tests of two and three threads decided by the
/// symbolic encoding list the same with symmetry breaking and without it:
/// every state, the verdict and the flags; a test the symbolic builder does
/// not cover is refused both ways. Their symbolic programs have the classes
/// the path builder's programs have (D70's signature, which knows no terms):
/// one code and a symmetric condition, unless the threads store to
/// locations of their own (the backoff and reread tests).
#[test]
fn scale_families_list_the_same_symbolically_with_and_without_symmetry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/scale");
    let small = |f: &Path| {
        let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        stem.split('-').any(|part| part == "2" || part == "3")
    };
    let files: Vec<_> =
        ptx_litmus::check::collect_files(std::slice::from_ref(&root)).into_iter().filter(|f| small(f)).collect();
    let (mut compared, mut symmetric) = (0, 0);
    for file in &files {
        let src = std::fs::read_to_string(file).expect("reads");
        let listing = |symmetry: bool| {
            let opts = CheckOptions {
                list_states: None,
                symmetry,
                encoding: ThreadEncoding::Symbolic,
                ctx: common::unmetered(Ctx::default()),
                ..CheckOptions::default()
            };
            match check_source_at(&src, &root, &opts) {
                Ok(r) => Ok(ptx_litmus::report::text(&r, &src)
                    .lines()
                    .filter(|l| !l.starts_with("Time"))
                    .collect::<Vec<_>>()
                    .join("\n")),
                Err(e) => Err(e.message),
            }
        };
        let (on, off) = (listing(true), listing(false));
        assert_eq!(on, off, "{}: the listings differ with and without symmetry", file.display());
        if on.is_ok() {
            compared += 1;
            let ctx = common::unmetered(Ctx::default());
            let opts =
                CheckOptions { list_states: Some(0), encoding: ThreadEncoding::Paths, ctx, ..CheckOptions::default() };
            let paths = check_source_at(&src, &root, &opts).expect("the path encoding decides it");
            let expected = classes(&paths.program);
            assert_eq!(symbolic_classes(&src), expected, "{}: the classes", file.display());
            symmetric += usize::from(!expected.is_empty());
        }
    }
    eprintln!(
        "scale: {} of {} small tests compared, {} with interchangeable threads",
        compared,
        files.len(),
        symmetric
    );
    assert!(compared >= 15 && symmetric >= 15, "the families are there and symmetric");
}
