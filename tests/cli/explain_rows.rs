//! Explanations read the rows of the model in use (issue 13): a toy check row
//! added to model `ptx` is named, with its cycle, in `--show` text and JSON of a
//! test that violates only it, without any change under `src/explain/`; and
//! `--model ptx-alloy` is explained by its own rows.

use ptx_litmus::batch::check_file;
use ptx_litmus::check::{check_source, CheckOptions, Engine, TestResult};
use ptx_litmus::context::Ctx;
use ptx_litmus::explain::{self, ShowOptions, Shown};
use ptx_litmus::model::{ModelKind, Row};
use ptx_litmus::outcome::Verdict;
use ptx_litmus::reference::ReferenceOptions;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const MP_WEAK: &str =
    "PTX MP-weak\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r1, y ;\n st.weak y, 1 | ld.weak r2, x ;\nexists (P1:r1 == 1 /\\ P1:r2 == 0)\n";

/// Decide `src` on the reference engine under `model` and explain it with the same rows.
fn shown_under(src: &str, model: Arc<ptx_litmus::model::rows::Model>) -> (TestResult, Shown) {
    let p =
        check_source(src, &CheckOptions { engine: Engine::Reference, ..Default::default() }).expect("checks").program;
    let outcome =
        ptx_litmus::reference::check(&p, &ReferenceOptions { ctx: Ctx::new(model.clone()), ..Default::default() })
            .expect("runs");
    let summary = outcome.summary(&p);
    let r = TestResult {
        program: p,
        symbolic: None,
        outcome,
        summary,
        time: Duration::ZERO,
        other_reading: None,
        unknown_initial: None,
        foreign_wait: None,
    };
    let s = explain::show(&r, &ShowOptions { ctx: Ctx::new(model), ..Default::default() }).expect("explains");
    (r, s)
}

#[test]
fn a_toy_check_row_is_named_in_explanations() {
    let row = Row::new("toy", "sequential consistency", "acyclic po | rf | co | fr as Toy-SC").expect("parses");
    let toy = Arc::new(ModelKind::Ptx.model().with_row(row).expect("valid row"));
    let (r, s) = shown_under(MP_WEAK, toy);
    assert_eq!(r.summary.verdict, Verdict::No, "the toy row forbids the weak outcome");
    let xs: Vec<_> = s.forbidden.iter().flat_map(|f| f.candidates.iter()).collect();
    assert!(!xs.is_empty(), "the weak state is explained as forbidden");
    for x in &xs {
        let v = x.violations.first().expect("a candidate violates a row");
        assert_eq!(v.axiom.name(), "Toy-SC", "{}", v.text);
        assert_eq!(v.axiom.section, "toy");
        assert_eq!(
            x.violations.len(),
            1,
            "the ISA's rows hold: {:?}",
            x.violations.iter().map(|v| v.axiom.name()).collect::<Vec<_>>()
        );
        // The cycle: W(x) -po-> W(y) -rf-> R(y) -po-> R(x) -fr-> W(x).
        let kinds: Vec<&str> = v.cycle.iter().map(|st| st.kind.label()).collect();
        assert_eq!(kinds.len(), 4, "{:?}: {}", kinds, v.text);
        assert!(kinds.contains(&"rf") && kinds.contains(&"fr") && kinds.contains(&"po"), "{:?}", kinds);
        assert!(v.text.contains("po | rf | co | fr"), "the row's relation is quoted: {}", v.text);
    }
    let text = explain::show::text(&r.program, &s);
    assert!(text.contains("Forbidden by Toy-SC (toy): "), "{}", text);
    let json = explain::json::fields(&r.program, &s);
    assert_eq!(json["explanation"][0]["axiom"], "Toy-SC");
    assert_eq!(json["explanation"][0]["section"], "toy");
}

#[test]
fn without_the_row_the_same_outcome_is_a_witness() {
    let (r, s) = shown_under(MP_WEAK, ModelKind::Ptx.shared());
    assert_eq!(r.summary.verdict, Verdict::Ok);
    assert!(s.forbidden.is_empty());
    assert!(!s.witnesses.is_empty());
}

/// `check --model ptx-alloy --show`: forbidden states of the public MP test are
/// explained by ptx-alloy's Causality row.
#[test]
fn ptx_alloy_is_explained_by_its_own_rows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let opts = CheckOptions {
        engine: Engine::Reference,
        ctx: Ctx::new(ModelKind::PtxAlloy.shared()),
        show: Some(ShowOptions::default()),
        ..Default::default()
    };
    let fr = check_file(&root.join("litmus/seed/MP.litmus"), &opts);
    let s = fr.shown.expect("asked for").expect("explains");
    let xs: Vec<_> = s.forbidden.iter().flat_map(|f| f.candidates.iter()).collect();
    assert!(!xs.is_empty());
    for x in xs {
        assert_eq!(x.violations.first().map(|v| v.axiom.name()), Some("Causality"));
    }
}
