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

use ptx_litmus::c11::map::{map_source, MapSetup, Mapped, Soundness};
use ptx_litmus::c11::mapping::Mapping;
use ptx_litmus::c11::nvcc::Nvcc;
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
            Soundness::Racy { .. } => racy += 1,
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
    assert!(out.contains("atom.acquire.sys.exch.s32 r0, [y], 2"), "{}", out);
    assert!(out.contains("ending in 1:r0=1; 2:r1=3; 2:r2=0;"), "{}", out);
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
    assert!(out.contains("atom.relaxed.sys.cas.s32 %c1, [x], %c0, 2"), "{}", out);
    assert!(out.contains("ending in 1:r0=0; 1:r1=1; 1:r2=0;"), "{}", out);
    let (code, out, err) = map_cmd(&["--emit", d.to_str().expect("utf-8"), test]);
    assert_eq!(code, 0, "{}{}", out, err);
    let emitted = std::fs::read_to_string(d.join("MP+cas-fail-acquire.litmus")).expect("emitted");
    assert!(emitted.contains("atom.acquire.sys.cas.s32 %c1, [x], %c0, 2"), "{}", emitted);
    let _ = std::fs::remove_dir_all(&d);
}

// ---- map --nvcc: the real compiler instead of the table -----------------

/// nvcc for `map --nvcc`: `$PTXL_NVCC`, scripts/install-nvcc.sh's
/// `target/nvcc/bin/nvcc`, the build machine's install, or `nvcc` on PATH.
fn nvcc() -> Option<PathBuf> {
    let installed = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/nvcc/bin/nvcc"),
        PathBuf::from("/work/nvcc-venv/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc"),
    ];
    let on_path: Vec<PathBuf> =
        std::env::var_os("PATH").iter().flat_map(std::env::split_paths).map(|d| d.join("nvcc")).collect();
    std::env::var_os("PTXL_NVCC").map(PathBuf::from).into_iter().chain(installed).chain(on_path).find(|p| p.is_file())
}

fn nvcc_or_skip(test: &str) -> Option<PathBuf> {
    let found = nvcc();
    if found.is_none() {
        eprintln!("SKIP {}: no nvcc (set PTXL_NVCC, put nvcc on PATH, or run scripts/install-nvcc.sh)", test);
    }
    found
}

fn nvcc_setup(nvcc: &Path, mapping: &str) -> MapSetup {
    let table = Mapping::builtin(if mapping == "nvcc" { "figure11" } else { mapping }).expect("built-in");
    let mut s = MapSetup::new(table, ModelKind::ScopedRc11, ModelKind::Ptx);
    s.nvcc = (mapping == "nvcc").then(|| Nvcc { path: Ok(nvcc.to_path_buf()), arch: None });
    s
}

fn map_one(file: &str, s: &MapSetup) -> Mapped {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&f).expect("reads");
    map_source(&text, f.parent().expect("folder"), s).unwrap_or_else(|e| panic!("{}: {}", file, e.message))
}

/// The `Observation NAME KIND` word of a result (Never, Sometimes, Always).
fn observation(r: &ptx_litmus::check::TestResult) -> String {
    let text = ptx_litmus::report::text(r, "");
    let line = text.lines().find(|l| l.starts_with("Observation ")).expect("an observation line").to_string();
    line.split_whitespace().nth(2).expect("its kind").to_string()
}

/// Race-free tests whose compiled PTX must keep the C outcome the condition
/// names as the source model has it (`Never` / `Sometimes`), argued from
/// Figure 11 and the PTX model (ISA 8.9) for what nvcc emits for them
/// (libcu++: SC load `fence.sc; ld.acquire`, SC store `fence.sc;
/// st.relaxed`, release/acquire as the qualifiers, each at the C scope):
/// - MP+rel+acq: the `ld.acquire` reading the `st.release`'s 1 synchronizes
///   with it (8.9.4), so the plain read after it sees 1: Never.
/// - SB+sc, IRIW+sc, SB+cas-sc: the `fence.sc` before every SC load (and
///   before the SC compare-exchange) are ordered by Fence-SC (8.9.1), and the
///   fence after the write sees it: Never.
/// - MP+cas-fail-acquire: a failed compare-exchange with acquire failure
///   order reads with `atom.acquire`: Never (D144).
/// - MP+rel+acq+device-2cta: release/acquire at `.gpu` between two CTAs of one
///   GPU are morally strong (8.7.1), so they synchronize: Never.
/// - MP+rel+acq+block-2cta: at `.cta` across CTAs they are not morally
///   strong, nothing synchronizes: Sometimes in PTX; had the scope been lost
///   on the way to nvcc, the PTX would say Never. In C the two block-scoped
///   accesses of y are not scope-inclusive (scoped-rc11's `incl`), so they
///   race: the test is racy for both compilers (D105).
#[test]
fn nvcc_output_keeps_the_verdict_of_the_table_and_of_figure_11() {
    let Some(nvcc) = nvcc_or_skip("nvcc_output_keeps_the_verdict_of_the_table_and_of_figure_11") else { return };
    let (by_nvcc, by_table) = (nvcc_setup(&nvcc, "nvcc"), nvcc_setup(&nvcc, "figure11"));
    let herd_nvcc = std::fs::read_to_string(dir("nvcc").join("herd-rc11.log")).expect("the herd log is committed");
    assert_eq!(herd_nvcc.matches("\nObservation ").count() + usize::from(herd_nvcc.starts_with("Observation ")), 3);
    for (file, racy, expected) in [
        ("tests/c11/nvcc/MP+rel+acq.litmus", false, "Never"),
        ("tests/c11/mapping/SB+sc.litmus", false, "Never"),
        ("tests/c11/nvcc/IRIW+sc.litmus", false, "Never"),
        ("tests/c11/nvcc/SB+cas-sc.litmus", false, "Never"),
        ("tests/c11/mapping/MP+cas-fail-acquire.litmus", false, "Never"),
        ("tests/c11/nvcc/MP+rel+acq+device-2cta.litmus", false, "Never"),
        ("tests/c11/nvcc/MP+rel+acq+block-2cta.litmus", true, "Sometimes"),
    ] {
        let (m, t) = (map_one(file, &by_nvcc), map_one(file, &by_table));
        let verdict = |m: &Mapped| match m.soundness {
            Soundness::Sound => "sound",
            Soundness::Racy { .. } => "racy",
            Soundness::Unsound(_) => "unsound",
        };
        let want = if racy { "racy" } else { "sound" };
        assert_eq!(verdict(&m), want, "{}: nvcc's PTX:\n{}", file, m.ptx_text);
        assert_eq!(verdict(&t), want, "{}: the table's PTX", file);
        if !racy {
            assert_eq!(observation(&m.source), expected, "{}: the C test", file);
        }
        // herd7 7.58 under rc11.cat agrees on the unscoped C tests (its log is committed).
        let name = &m.source.program.name;
        if let Some(herd) = herd_nvcc.lines().find(|l| l.starts_with(&format!("Observation {} ", name))) {
            assert_eq!(herd.split_whitespace().nth(2), Some(expected), "{}: herd7 says {}", file, herd);
        }
        assert_eq!(observation(&m.target), expected, "{}: nvcc's PTX", file);
        assert_eq!(observation(&t.target), expected, "{}: the table's PTX", file);
        // The same final states, read back in the C test's names.
        let nvcc_states: std::collections::BTreeSet<_> =
            m.target.outcome.states.keys().map(|s| m.in_source(s)).collect();
        let table_states: std::collections::BTreeSet<_> = t.target.outcome.states.keys().cloned().collect();
        assert_eq!(nvcc_states, table_states, "{}", file);
    }
}

/// libcu++ (CCCL with nvcc 13.5) compiles a seq_cst RMW as `fence.sc;
/// atom.acquire` (its memory-order switch lets seq_cst fall through to
/// acquire): the paper's Figure 12 variant, which it shows breaks RC11's
/// release sequences (section 4.2). So nvcc's PTX for Figure 12's ISA2 is
/// unsound, with the very state the `sc-rmw-acquire` table gives, while
/// Figure 11 (`atom.acq_rel`) is sound (paper-notes/c11.md, D147).
#[test]
fn nvcc_compiles_a_seq_cst_rmw_like_the_broken_sc_rmw_acquire() {
    let Some(nvcc) = nvcc_or_skip("nvcc_compiles_a_seq_cst_rmw_like_the_broken_sc_rmw_acquire") else { return };
    let file = "tests/c11/mapping/ISA2+rmw-sc+fig12.litmus";
    let m = map_one(file, &nvcc_setup(&nvcc, "nvcc"));
    let broken = map_one(file, &nvcc_setup(&nvcc, "sc-rmw-acquire"));
    assert!(matches!(map_one(file, &nvcc_setup(&nvcc, "figure11")).soundness, Soundness::Sound));
    let (Soundness::Unsound(ours), Soundness::Unsound(theirs)) = (&m.soundness, &broken.soundness) else {
        panic!("both unsound expected:\n{}", m.ptx_text)
    };
    let ours: Vec<_> = ours.iter().map(|s| m.in_source(s)).collect();
    assert_eq!(&ours, theirs);
    let module = &m.nvcc.as_ref().expect("nvcc output").module;
    let rmw = module.find("atom.exch.acquire.sys").expect("the exchange is atom.acquire");
    assert!(module[..rmw].contains("fence.sc.sys"), "{}", module);
}

/// `--emit DIR` writes the CUDA, nvcc's PTX and the harness, which `check`
/// reads back; `--arch` reaches nvcc; `--json` carries both texts.
#[test]
fn map_nvcc_emits_cuda_ptx_and_a_harness_that_check_reads() {
    let Some(nvcc) = nvcc_or_skip("map_nvcc_emits_cuda_ptx_and_a_harness_that_check_reads") else { return };
    let d = std::env::temp_dir().join(format!("ptxl-map-nvcc-{}", std::process::id()));
    let nvcc_arg = format!("--nvcc={}", nvcc.display());
    let args = [
        &nvcc_arg,
        "--arch",
        "sm_90",
        "--json",
        "--emit",
        d.to_str().expect("utf-8"),
        "tests/c11/nvcc/MP+rel+acq.litmus",
    ];
    let (code, out, err) = map_cmd(&args);
    assert_eq!(code, 0, "{}{}", out, err);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!((v["verdict"].as_str(), v["mapping"].as_str()), (Some("sound"), Some("nvcc -arch=sm_90")), "{}", out);
    assert!(v["nvcc"]["module"].as_str().expect("module").contains(".target sm_90"), "{}", out);
    let cu = std::fs::read_to_string(d.join("MP+rel+acq.cu")).expect("the .cu");
    assert!(
        cu.contains("cuda::atomic_ref<int, cuda::thread_scope_system>(*y).store(1, cuda::memory_order_release);"),
        "{}",
        cu
    );
    assert!(cu.contains("r1 = *x;"), "plain accesses through the plain pointer: {}", cu);
    assert!(d.join("MP+rel+acq.ptx").is_file());
    let check = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(["check", "-q", d.join("MP+rel+acq.harness").to_str().expect("utf-8")])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.contains("Observation MP+rel+acq Never 0 2"), "{}", text);
    let _ = std::fs::remove_dir_all(&d);
}

/// Without nvcc nothing is faked: each test is a limit (exit 3) saying so.
#[test]
fn map_nvcc_without_nvcc_is_exit_3_for_each_test() {
    let (code, out, err) =
        map_cmd(&["--nvcc=/nonexistent/nvcc", "tests/c11/mapping/SB+sc.litmus", "tests/c11/nvcc/IRIW+sc.litmus"]);
    assert_eq!(code, 3, "{}{}", out, err);
    assert_eq!(err.matches("nvcc not found: `/nonexistent/nvcc` is not a file").count(), 2, "{}", err);
    assert!(out.contains("2 tests: sound 0, unsound 0, racy 0, errors 0, limits 2"), "{}", out);
    let run = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(["map", "--nvcc", "tests/c11/mapping/SB+sc.litmus"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("PTXL_NVCC")
        .env("PATH", "")
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&run.stderr).contains("nvcc not found on PATH"), "{:?}", run);
}
