//! `ptx-litmus map` (issue 28): C tests compiled to PTX by a mapping table.
//!
//! Expected results, argued from the paper (Lustig et al., ASPLOS'19):
//! - Figure 11's mapping is proved sound for scoped C++ onto PTX (section 5,
//!   "a machine-checked proof that our mapping ... is sound for programs of
//!   any size"), so every race-free test of the corpus must be sound under
//!   `ptx-alloy`, NVIDIA's formalization the proof is about; the ISA-text
//!   reading `ptx` must not differ on them either (paper-notes/c11.md).
//! - `sc-rmw-acquire` breaks Figure 12's ISA2 variant (section 4.2: "suppose
//!   we compile (c) to the sequence fence.sc.sco; atom.acquire.sco ... leading
//!   to a failure to maintain RC11 requirements").
//! - `sc-load-no-fence` lets SB with seq_cst accesses end with both loads
//!   reading 0: nothing orders a `st.release` before a later `ld.acquire`.
//! - `sc-fence-acq-rel` lets SB with seq_cst fences end with both reads 0:
//!   a `fence.acq_rel` orders no store before a later load (8.9.4 rule 4 needs
//!   an observed write), while rc11's pscf orders the two SC fences.
//!
//! - A compare-exchange compiles by the stronger of its success and failure
//!   orders (D144): `MP+cas-fail-acquire` fails reading with acquire, and
//!   compiled by its success order alone (`atom.relaxed`) the plain read
//!   after it could see 0, which rc11 forbids.
//!
//! The source verdicts of the four hand-written tests are herd7's
//! (`tests/c11/mapping/herd-rc11.log`: all `No`).

use ptx_litmus::c11::map::{map_source, MapSetup, Soundness};
use ptx_litmus::c11::mapping::Mapping;
use ptx_litmus::check::collect_files;
use ptx_litmus::model::ModelKind;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c11").join(sub)
}

/// (sound, unsound test names, racy) of every test under `sub`.
fn map_all(sub: &str, mapping: &str, target: ModelKind) -> (usize, Vec<String>, usize) {
    let setup = MapSetup::new(Mapping::builtin(mapping).expect("built-in"), ModelKind::ScopedRc11, target);
    let (mut sound, mut unsound, mut racy) = (0, Vec::new(), 0);
    for f in collect_files(&[dir(sub)]) {
        let text = std::fs::read_to_string(&f).expect("reads");
        let m = map_source(&text, f.parent().expect("folder"), &setup)
            .unwrap_or_else(|e| panic!("{}: {}", f.display(), e.message));
        match m.soundness {
            Soundness::Sound => sound += 1,
            Soundness::Racy => racy += 1,
            Soundness::Unsound(_) => unsound.push(m.source.program.name.clone()),
        }
    }
    (sound, unsound, racy)
}

#[test]
fn figure_11_is_sound_on_the_whole_corpus_under_both_ptx_models() {
    for target in [ModelKind::PtxAlloy, ModelKind::Ptx] {
        let (sound, unsound, racy) = map_all("corpus", "figure11", target);
        assert!(unsound.is_empty(), "{:?}: unsound {:?}", target, unsound);
        assert!(sound > 200 && racy > 0, "{} sound, {} racy", sound, racy);
        let (sound, unsound, _) = map_all("mapping", "figure11", target);
        assert_eq!((sound, unsound.len()), (4, 0), "{:?}", target);
        let (sound, unsound, racy) = map_all("cas", "figure11", target);
        assert!(unsound.is_empty(), "{:?}: unsound {:?}", target, unsound);
        assert!(sound > 60 && racy > 0, "{} sound, {} racy", sound, racy);
    }
}

#[test]
fn each_broken_mapping_is_caught_by_its_test() {
    for (mapping, test) in
        [("sc-rmw-acquire", "ISA2+rmw-sc+fig12"), ("sc-load-no-fence", "SB+sc"), ("sc-fence-acq-rel", "SB+fence-sc")]
    {
        for target in [ModelKind::PtxAlloy, ModelKind::Ptx] {
            let (_, unsound, _) = map_all("mapping", mapping, target);
            assert_eq!(unsound, vec![test.to_string()], "{} under {:?}", mapping, target);
        }
    }
}

fn map_cmd(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .arg("map")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The counterexample names the PTX execution reaching the forbidden state
/// and the source axiom that forbids it; `--emit` writes tests that `check`
/// reads back with the same final states.
#[test]
fn an_unsound_test_shows_its_execution_and_exits_1() {
    let emit = std::env::temp_dir().join(format!("ptxl-map-emit-{}", std::process::id()));
    let (code, out, err) =
        map_cmd(&["--mapping", "sc-rmw-acquire", "--emit", emit.to_str().expect("utf-8"), "tests/c11/mapping"]);
    assert_eq!(code, 1, "{}{}", out, err);
    assert!(out.contains("ISA2+rmw-sc+fig12 (scoped-rc11 to ptx by sc-rmw-acquire) UNSOUND"), "{}", out);
    assert!(out.contains("atom.acquire.sys.exch r0, [y], 2"), "{}", out);
    assert!(out.contains("ending in P1:r0=1; P2:r1=3; P2:r2=0;"), "{}", out);
    assert!(out.contains("Forbidden by coherence1"), "{}", out);
    // The C side is told in C terms: the model's sw, no Fence-SC line, and
    // coherence1's cycle through the event between (hb then eco back).
    let c_side = out.split("Why scoped-rc11 forbids it").nth(1).expect("the C side");
    assert!(
        c_side.contains("sw        W2 -> A1: W2 release, A1 acquire: A1 reads y=1 from W2")
            && !c_side.contains("Fence-SC"),
        "{}",
        c_side
    );
    assert!(c_side.contains("mo        W0(x) -> W1; W0(y) -> W2; W2 -> A1; A1 -> W3"), "{}", c_side);
    assert!(c_side.contains("W1 -hb-> R2 -eco-> W1: W1 is related to itself by `hb; eco?`"), "{}", c_side);
    let emitted = emit.join("ISA2+rmw-sc+fig12.litmus");
    let check = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(["check", emitted.to_str().expect("utf-8")])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.contains("Observation ISA2+rmw-sc+fig12 Sometimes 1 "), "{}", text);
    let _ = std::fs::remove_dir_all(&emit);
}

#[test]
fn a_mapping_file_is_a_table_and_its_errors_point_at_the_line() {
    let d = std::env::temp_dir().join(format!("ptxl-map-table-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    let good = d.join("mine.map");
    // Figure 11 with the SC load's fence dropped: the same as sc-load-no-fence.
    let table = ptx_litmus::c11::mapping::FIGURE_11
        .replace("load  seq_cst  * -> fence.sc.<sco>; ld.acquire.<sco>", "load seq_cst * -> ld.acquire.<sco>");
    std::fs::write(&good, table).expect("write");
    let (code, out, _) = map_cmd(&["--mapping", good.to_str().expect("utf-8"), "tests/c11/mapping/SB+sc.litmus"]);
    assert_eq!(code, 1, "{}", out);
    assert!(out.contains("SB+sc (scoped-rc11 to ptx by mine) UNSOUND"), "{}", out);
    let bad = d.join("bad.map");
    std::fs::write(&bad, "load seq_cst * -> fence.sc; ld.acquire\nstore seq_cst * -> fence.sc; ld.acquire\n")
        .expect("write");
    let (code, _, err) = map_cmd(&["--mapping", bad.to_str().expect("utf-8"), "tests/c11/mapping/SB+sc.litmus"]);
    assert_eq!(code, 2, "{}", err);
    assert!(err.contains("bad.map:2:30: error: a store maps to `st`, not `ld`"), "{}", err);
    let _ = std::fs::remove_dir_all(&d);
}

/// `--only PATTERN` maps the tests whose name matches (a glob); the others
/// are counted as skipped, and the exit code is about the mapped ones only:
/// `sc-load-no-fence` breaks `SB+sc` (see the top of this file) but neither
/// `ISA2+rmw-sc+fig12` nor `SB+fence-sc`, which it maps like Figure 11.
#[test]
fn only_maps_the_tests_whose_name_matches() {
    let (code, out, err) = map_cmd(&["--mapping", "sc-load-no-fence", "--only", "SB+sc", "tests/c11/mapping"]);
    assert_eq!(code, 1, "{}{}", out, err);
    assert!(out.contains("1 tests: sound 0, unsound 1, racy 0, errors 0, limits 0, skipped by --only 3"), "{}", out);
    let (code, out, err) =
        map_cmd(&["--mapping", "sc-load-no-fence", "--only", "ISA2*", "--only", "*fence?sc", "tests/c11/mapping"]);
    assert_eq!(code, 0, "{}{}", out, err);
    assert!(out.contains("2 tests: sound 2, unsound 0, racy 0, errors 0, limits 0, skipped by --only 2"), "{}", out);
    assert!(!out.contains("Map SB+sc "), "{}", out);
}

/// A table whose compare-exchange line ignores the acquire the failure order
/// asks for is caught by `MP+cas-fail-acquire` (see the top of this file),
/// and the `cas` line is the one used: Figure 11 without it (the `rmw` lines)
/// is sound.
#[test]
fn a_compare_exchange_maps_by_its_cas_line_and_the_stronger_order() {
    let d = std::env::temp_dir().join(format!("ptxl-map-cas-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    let table = d.join("cas.map");
    let text = format!("{}cas acquire * -> atom.relaxed.<sco>\n", ptx_litmus::c11::mapping::FIGURE_11);
    std::fs::write(&table, text).expect("write");
    let test = "tests/c11/mapping/MP+cas-fail-acquire.litmus";
    let (code, out, err) = map_cmd(&["--mapping", table.to_str().expect("utf-8"), test]);
    assert_eq!(code, 1, "{}{}", out, err);
    assert!(out.contains("atom.relaxed.sys.cas %c1, [x], %c0, 2"), "{}", out);
    assert!(out.contains("ending in P1:r0=0; P1:r1=1; P1:r2=0;"), "{}", out);
    let (code, out, err) = map_cmd(&["--emit", d.to_str().expect("utf-8"), test]);
    assert_eq!(code, 0, "{}{}", out, err);
    let emitted = std::fs::read_to_string(d.join("MP+cas-fail-acquire.litmus")).expect("emitted");
    assert!(emitted.contains("atom.acquire.sys.cas %c1, [x], %c0, 2"), "{}", emitted);
    let _ = std::fs::remove_dir_all(&d);
}
