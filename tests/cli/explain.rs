//! Explanations (issue 4): snapshots of the text for the ISA's own examples,
//! the axiom named for each forbidden example, agreement with the reference
//! engine, pictures, and the JSON fields against `schema/result.schema.json`.

use crate::common;
use ptx_litmus::batch::check_file;
use ptx_litmus::check::{check_source, CheckOptions, TestResult};
use ptx_litmus::context::Ctx;
use ptx_litmus::explain::{self, show::ExecKind, ShowOptions, Shown, ShownExec};
use ptx_litmus::report;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn checked(rel: &str) -> TestResult {
    let r = check_file(&root().join(rel), &CheckOptions::default());
    r.result.unwrap_or_else(|e| panic!("{}: {}", rel, e.message))
}

fn shown(r: &TestResult, max: usize) -> Shown {
    explain::show(r, &ShowOptions { witness: true, forbidden: true, max, ..Default::default() }).expect("explains")
}

fn forbidden_execs(s: &Shown) -> Vec<&ShownExec> {
    s.forbidden.iter().flat_map(|f| f.candidates.iter()).collect()
}

/// The files the snapshots cover: the ISA's examples and the seed MP test.
fn isa_files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("litmus/isa"))
        .expect("litmus/isa")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .map(|p| format!("litmus/isa/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    v.sort();
    v.push("litmus/seed/MP.litmus".into());
    v
}

fn snapshot_name(file: &str) -> String {
    Path::new(file).file_stem().unwrap().to_string_lossy().replace(['+', '.'], "_")
}

#[test]
fn snapshots_of_show_for_the_isa_examples() {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for f in isa_files() {
            let r = checked(&f);
            let s = shown(&r, 3);
            let text = explain::show::text(&r.program, &s);
            insta::assert_snapshot!(format!("show_{}", snapshot_name(&f)), text);
        }
    });
}

#[test]
fn snapshots_of_explain_for_the_isa_examples() {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for f in isa_files() {
            let src = std::fs::read_to_string(root().join(&f)).unwrap();
            let text = explain::pairs::explain_source(&src, std::path::Path::new("."), &CheckOptions::default())
                .expect("explains");
            insta::assert_snapshot!(format!("explain_{}", snapshot_name(&f)), text);
        }
    });
}

/// The primary axiom of every shown forbidden candidate of `file`.
fn axioms_named(file: &str) -> Vec<(String, String)> {
    let r = checked(file);
    let s = shown(&r, 3);
    let xs = forbidden_execs(&s);
    assert!(!xs.is_empty(), "{}: a forbidden state with candidates", file);
    xs.iter()
        .map(|x| {
            let v = x.violations.first().unwrap_or_else(|| panic!("{}: a candidate violates an axiom", file));
            (v.axiom.name().to_string(), format!("{} {}", v.text, v.notes.join(" ")))
        })
        .collect()
}

#[test]
fn forbidden_examples_name_the_axiom_the_isa_names() {
    for f in ["litmus/seed/MP.litmus", "litmus/isa/MP-fence.litmus"] {
        for (ax, text) in axioms_named(f) {
            assert_eq!(ax, "Causality", "{}: {}", f, text);
            assert!(text.contains("-sync->") && text.contains("which precedes W1 in coherence"), "{}: {}", f, text);
        }
    }
    for (ax, text) in axioms_named("litmus/isa/CoRR.litmus") {
        assert_eq!(ax, "SC-per-Location", "CoRR: {}", text);
        assert!(text.contains("-fr->") && text.contains("-rf->") && text.contains("-po->"), "{}", text);
    }
    for (ax, text) in axioms_named("litmus/isa/SB-fence-sc.litmus") {
        assert_eq!(ax, "Causality", "SB+fence.sc: {}", text);
        let cycle = text.split(" and ").next().unwrap_or("");
        assert!(
            cycle.contains("-sync->") && cycle.contains("in Fence-SC order"),
            "SB+fence.sc: the cycle text mentions the Fence-SC order: {}",
            text
        );
    }
    for (ax, text) in axioms_named("litmus/isa/Atomicity-1.litmus") {
        assert_eq!(ax, "Atomicity", "Atomicity-1: {}", text);
    }
    // Load buffering with dependencies: the ISA's own test only ever writes 0
    // (values are computed from the program's writes, so no thin-air value can
    // even be a candidate); this variant stores 1 under a control dependency.
    for (ax, text) in axioms_named("litmus/classic/LB+data+ctrl.litmus") {
        assert_eq!(ax, "No-Thin-Air", "LB+data+ctrl: {}", text);
        assert!(text.contains("-dep->") && text.contains("-rf->"), "{}", text);
    }
    // The same cycle through a warp collective (D165): the value read passes
    // to another lane by shfl.sync, whose write depends on it.
    for (ax, text) in axioms_named("litmus/sync/LB+shfl.sync+ctrl.litmus") {
        assert_eq!(ax, "No-Thin-Air", "LB+shfl.sync+ctrl: {}", text);
        assert!(text.contains("-dep->") && text.contains("-exchange->") && text.contains("-rf->"), "{}", text);
    }
    for (ax, text) in axioms_named("litmus/classic/2+2W+fence.sc.litmus") {
        assert_eq!(ax, "Coherence", "2+2W+fence.sc: {}", text);
    }
}

#[test]
fn lb_with_dependencies_has_no_thin_air_candidate() {
    let r = checked("litmus/isa/LB-deps.litmus");
    let s = shown(&r, 3);
    assert!(s.forbidden.is_empty(), "only the value 0 can ever be written");
    assert!(explain::show::text(&r.program, &s).contains("no candidate execution reaches a forbidden final state"));
}

#[test]
fn no_thin_air_on_a_dedicated_test() {
    // Each thread stores 1 only if it read 1: the outcome r0 = r1 = 1 needs a
    // self-justifying cycle of reads-from and control dependencies.
    let src = "PTX LB-ctrl-small\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.weak r0, x | ld.weak r1, y ;\n bne r0, 1, L0 | bne r1, 1, L1 ;\n st.weak y, 1 | st.weak x, 1 ;\n L0: | L1: ;\nexists (P0:r0 == 1 /\\ P1:r1 == 1)\n";
    let r = check_source(src, &CheckOptions::default()).expect("checks");
    let s = shown(&r, 2);
    let xs = forbidden_execs(&s);
    assert!(!xs.is_empty());
    for x in xs {
        let v = &x.violations[0];
        assert_eq!(v.axiom.name(), "No-Thin-Air", "{}", v.text);
        assert_eq!(v.cycle.len(), 4, "R -dep-> W -rf-> R -dep-> W -rf->: {}", v.text);
    }
}

/// Every shown execution agrees with the reference engine: witnesses violate
/// nothing, forbidden candidates violate first the axiom we name.
#[test]
fn explanations_agree_with_the_reference_engine() {
    let mut files = isa_files();
    for f in [
        "MP+rel+acq",
        "2+2W+fence.sc",
        "IRIW+fence.sc",
        "LB+data+ctrl",
        "MP+bar.sync",
        "MP+rmw-chain",
        "Proxy-texture-fence",
        "WRC+rel+acq",
    ] {
        files.push(format!("litmus/classic/{}.litmus", f));
    }
    for f in files {
        let r = checked(&f);
        let s = shown(&r, 2);
        for x in s.executions() {
            let got = ptx_litmus::reference::violated_axiom(&r.program, &x.execution).expect("fits the program");
            match x.kind {
                ExecKind::Witness => {
                    assert!(got.is_none(), "{}: witness violates {:?}", f, got);
                    assert!(x.violations.is_empty());
                }
                ExecKind::Forbidden => {
                    let ours = x.violations.first().map(|v| v.axiom.name());
                    assert_eq!(
                        got.as_ref().map(|a| a.name()),
                        ours,
                        "{}: candidate {} of state {:?}",
                        f,
                        x.candidate,
                        x.state
                    );
                }
            }
        }
    }
}

#[test]
fn pictures_have_nested_boxes_and_a_red_cycle() {
    let r = checked("litmus/isa/MP-fence.litmus");
    let s = shown(&r, 1);
    let x = forbidden_execs(&s)[0];
    let dot = explain::dot::render(&r.program, x);
    for want in [
        "subgraph cluster_gpu0",
        "subgraph cluster_cl0",
        "subgraph cluster_cta1",
        "subgraph cluster_t0",
        "penwidth=3",
        "label=\"sync\"",
        "label=\"fr\"",
    ] {
        assert!(dot.contains(want), "DOT has {}:\n{}", want, dot);
    }
    let gpu = dot.find("cluster_gpu0").unwrap();
    let cl = dot.find("cluster_cl0").unwrap();
    let cta = dot.find("cluster_cta0").unwrap();
    let t = dot.find("cluster_t0").unwrap();
    assert!(gpu < cl && cl < cta && cta < t, "GPU > cluster > CTA > thread");
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
    let svg = explain::svg::render(&r.program, x);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for want in ["GPU 0", "cluster of CTA 1", "CTA 1", ">P1<", "#d50000", "fence.sys", "Causality (8.10.6)"] {
        assert!(svg.contains(want), "SVG has {}", want);
    }
    assert_eq!(x.stem(&r.program.name), "MP-fence-forbidden-1-1");
}

fn assert_valid(v: &Value) {
    let errs = common::schema::errors("result.schema.json", v);
    assert!(errs.is_empty(), "{}\n{}", errs.join("\n"), v);
}

#[test]
fn json_outputs_follow_the_schema() {
    let mut files = isa_files();
    files.push("litmus/classic/MP+bar.sync.litmus".into());
    files.push("tests/bad-input/blank.litmus".into());
    let mut with_explanation = 0;
    for f in files {
        let fr = check_file(&root().join(&f), &CheckOptions::default());
        let plain = report::json(&fr);
        assert_valid(&plain);
        if let Ok(r) = &fr.result {
            let mut v = plain.clone();
            let s = shown(r, 2);
            explain::json::extend(&mut v, &r.program, &s);
            assert_valid(&v);
            let ex = v["explanation"].as_array().unwrap();
            with_explanation += ex.len();
            for e in ex {
                let i = e["execution"].as_u64().unwrap() as usize;
                assert_eq!(v["executions"][i]["kind"], "forbidden");
                assert!(!e["cycle"].as_array().unwrap().is_empty());
            }
        }
    }
    assert!(with_explanation > 0);
    // The validator does reject what the schema excludes.
    let mut bad = report::json(&check_file(&root().join("litmus/seed/MP.litmus"), &CheckOptions::default()));
    bad["verdict"] = Value::String("Maybe".into());
    assert!(!common::schema::errors("result.schema.json", &bad).is_empty());
}

/// The same agreement over the whole curated library and the public corpus
/// (slow in debug builds: `cargo test --release --test cli explain:: -- --ignored`).
#[test]
#[ignore]
fn all_explanations_agree_with_the_reference_engine() {
    let dirs = [root().join("litmus"), root().join("tests/conformance/litmus")];
    let files = ptx_litmus::check::collect_files(&dirs.iter().filter(|d| d.is_dir()).cloned().collect::<Vec<_>>());
    let mut checked_execs = 0;
    for f in files {
        let fr = check_file(
            &f,
            &CheckOptions {
                ctx: Ctx::default().with_timeout(Some(std::time::Duration::from_secs(60))),
                ..Default::default()
            },
        );
        let Ok(r) = fr.result else { continue };
        let s = shown(&r, 2);
        for x in s.executions() {
            let got = ptx_litmus::reference::violated_axiom(&r.program, &x.execution).expect("fits the program");
            let ours = x.violations.first().map(|v| v.axiom.name());
            assert_eq!(
                got.as_ref().map(|a| a.name()),
                ours,
                "{}: {:?} candidate {}",
                f.display(),
                x.state,
                x.candidate
            );
            checked_execs += 1;
        }
    }
    eprintln!("{} executions agree", checked_execs);
}

/// Two `atom.or` of the same bit reading each other would be a consistent
/// cycle of values out of thin air, and the only way for both to read 1.
/// Candidates give every read a value along a chain back to a plain write
/// (D13), so that state is not even a candidate: nothing to show.
#[test]
fn candidates_never_contain_a_cycle_of_read_modify_writes() {
    let src = "PTX or-cycle\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n atom.relaxed.gpu.or.b32 r0, x, 1 | atom.relaxed.gpu.or.b32 r0, x, 1 ;\nexists (P0:r0 == 1 /\\ P1:r0 == 1)\n";
    let r = check_source(src, &CheckOptions::default()).expect("checks");
    assert_eq!(r.summary.verdict, ptx_litmus::outcome::Verdict::No, "one of the two atoms reads 0");
    let s = explain::show(&r, &ShowOptions { witness: true, forbidden: true, max: 10, ..Default::default() })
        .expect("explains");
    for x in s.executions() {
        let rf = &x.execution.rf;
        assert!(!rf.iter().any(|(&r, &w)| rf.get(&w) == Some(&r)), "atoms reading each other: {:?}", rf);
    }
    assert!(
        s.forbidden.is_empty(),
        "forbidden states shown: {:?}",
        s.forbidden.iter().map(|f| &f.state).collect::<Vec<_>>()
    );
}

// ---- C tests (issue 28) -----------------------------------------------------

fn run_cli(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("runs");
    assert!(out.status.code().is_some_and(|c| c <= 1), "{:?}: {}", args, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Store buffering with four seq_cst accesses, explained in C terms: each
/// operation by its memory order, no moral strength or patterns (PTX's 8.7,
/// 8.8), and the pairs rc11's `sw` may relate — a seq_cst store is a release
/// and a seq_cst load an acquire (C11 7.17.3p2), so each store may
/// synchronize with the other thread's load of its location, and does when
/// that load reads 1 (the states `0:r0=1` and `1:r0=1` are allowed).
#[test]
fn explain_tells_a_c_test_in_c_terms() {
    let text = run_cli(&["explain", "tests/c11/mapping/SB+sc.litmus"]);
    assert_eq!(
        text,
        "Test SB+sc
Threads
  P0: CTA 0, GPU 0
  P1: CTA 1, GPU 0
Operations
  W1    P0  line 6   atomic_store_explicit(x, 1, memory_order_seq_cst)  seq_cst write of x
  R1    P0  line 7   atomic_load_explicit(y, memory_order_seq_cst)      seq_cst read of y
  W2    P1  line 11  atomic_store_explicit(y, 1, memory_order_seq_cst)  seq_cst write of y
  R2    P1  line 12  atomic_load_explicit(x, memory_order_seq_cst)      seq_cst read of x
Synchronizes-with (the C model's sw): pairs that may synchronize, and whether some allowed execution has it
  W1 -> R2: yes, in some allowed execution (if R2 reads from the release sequence of W1)
  W2 -> R1: yes, in some allowed execution (if R1 reads from the release sequence of W2)
"
    );
    // Fences: a release fence before the store and an acquire fence after the load.
    let text = run_cli(&["explain", "tests/c11/mapping/SB+fence-sc.litmus"]);
    assert!(text.contains("seq_cst fence"), "{}", text);
}

/// `--show forbidden` of the same test: the candidate where both loads read 0
/// violates RC11's SC axiom, a psc cycle of sb and rb (rc11.cat
/// `scb = sb | ... | rb`) through the four seq_cst accesses, told with
/// RC11's names: sb, rb, mo, sw.
#[test]
fn show_tells_a_c_candidate_with_rc11_names() {
    let text = run_cli(&["check", "tests/c11/mapping/SB+sc.litmus", "--show", "forbidden", "--max-show", "1"]);
    for line in [
        "    rf        W0(x) -> R2 (x=0); W0(y) -> R1 (y=0)",
        "    mo        W0(x) -> W1; W0(y) -> W2",
        "    sw        none",
        "    Forbidden by SC (rc11.cat): W1 -sb-> R1 -rb-> W2 -sb-> R2 -rb-> W1 is a cycle of `psc`, which the model's row SC (rc11.cat) forbids",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{}` in\n{}", line, text);
    }
    // Message passing through release/acquire: the witness's sw edge says why.
    let text =
        run_cli(&["check", "tests/c11/mapping/ISA2+rmw-sc+fig12.litmus", "--show", "forbidden", "--max-show", "1"]);
    assert!(
        text.contains("A1 -> R1: A1 release, R1 acquire: R1 reads y=3 from W3, in the release sequence of A1"),
        "{}",
        text
    );
}

/// Nothing PTX-only is said of a C test, by `explain` or `--show`: no moral
/// strength, release/acquire patterns or 8.9.4 rules, no proxies, no
/// `.weak`/`.sys` words, no Fence-SC line, no PTX edge names in paths.
#[test]
fn c_explanations_say_nothing_ptx_only() {
    let mut files: Vec<String> = ["SB+sc", "SB+fence-sc", "ISA2+rmw-sc+fig12", "MP+cas-fail-acquire"]
        .iter()
        .map(|n| format!("tests/c11/mapping/{}.litmus", n))
        .collect();
    for shape in ["MP", "SB", "LB", "IRIW", "WRC", "ISA2", "2+2W", "R", "S"] {
        files.push(format!("tests/c11/corpus/{}+000.litmus", shape));
        files.push(format!("tests/c11/corpus/{}+003.litmus", shape));
    }
    let ptx_words = [
        "8.7",
        "8.8",
        "8.9",
        "orally strong",
        "pattern",
        "Fence-SC",
        "proxy",
        ".sys",
        ".gpu",
        ".cta",
        "weak",
        "-po->",
        "-co->",
        "-fr->",
        "-sync->",
        "-row->",
        "sync  ",
    ];
    for f in &files {
        for args in [vec!["explain", f.as_str()], vec!["check", f.as_str(), "--show", "witness,forbidden"]] {
            let text = run_cli(&args);
            for w in ptx_words {
                assert!(!text.contains(w), "{:?} says `{}`:\n{}", args, w, text);
            }
        }
    }
}
