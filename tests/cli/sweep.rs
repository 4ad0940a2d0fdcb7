//! Sweeps (issue 45): `--shard K/N` of `check`, `map` and `gen`, `--output`,
//! `--resume`, and `ptx-litmus merge`. Every expectation below follows from
//! what a shard is (the sorted inputs whose position modulo N is K: the N
//! shards partition the run) and what merge promises (the whole run's
//! records, summary and exit status), not from a run of the tool.

use proptest::prelude::*;
use ptx_litmus::merge::{merge, read, Output};
use ptx_litmus::shard::Trailer;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn ptxl(args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"));
    cmd.args(args).current_dir(root());
    for v in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "JOB_COMPLETIONS"] {
        cmd.env_remove(v);
    }
    cmd.envs(envs.iter().copied());
    let o = cmd.output().unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Shard values that name no shard are input errors: exit 2 and one sentence, nothing run.
#[test]
fn bad_shards_are_input_errors() {
    for bad in ["4/4", "0/0", "x", "1/", "-1/4", "1/4/2"] {
        let r = ptxl(&["check", "litmus/classic", &format!("--shard={}", bad)], &[]);
        assert_eq!(r.code, 2, "--shard {}: {}", bad, r.stderr);
        assert!(r.stdout.is_empty() && r.stderr.contains("--shard"), "--shard {}: {}", bad, r.stderr);
    }
    let envs: [&[(&str, &str)]; 4] = [
        &[("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_COUNT", "4")],
        &[("SLURM_ARRAY_TASK_ID", "two"), ("SLURM_ARRAY_TASK_COUNT", "4")],
        &[("SLURM_ARRAY_TASK_ID", "1")],
        &[("JOB_COMPLETION_INDEX", "1")],
    ];
    for e in envs {
        for cmd in
            [&["check", "litmus/classic"][..], &["map", "tests/c11"][..], &["gen", "MP", "--out", "/nonexistent/x"][..]]
        {
            let r = ptxl(cmd, e);
            assert_eq!(r.code, 2, "{:?} {:?}: {}", cmd, e, r.stderr);
            assert_eq!(r.stderr.lines().count(), 1, "{:?} {:?}: {}", cmd, e, r.stderr);
            assert!(r.stdout.is_empty(), "{:?}", e);
        }
    }
}

/// The whole run and its shards, as written by `-o`, in `dir`.
fn shards_and_whole(dir: &Path, args: &[&str], n: usize, ext: &str) -> (Vec<PathBuf>, PathBuf, Run) {
    let whole = dir.join(format!("whole.{}", ext));
    let w = ptxl(&[args, &["-o", s(&whole)]].concat(), &[]);
    let mut parts = Vec::new();
    for k in 0..n {
        let p = dir.join(format!("part-{}.{}", k, ext));
        let shard = format!("{}/{}", k, n);
        let r = ptxl(&[args, &["--shard", &shard, "-o", s(&p)]].concat(), &[]);
        assert_eq!(r.code == 0, w.code == 0, "shard {}: {}", shard, r.stderr);
        parts.push(p);
    }
    (parts, whole, w)
}

/// Text without the times two runs of one test differ in (herd `Time` lines, `time_ms`, `wall_s`).
fn timeless(text: &str) -> String {
    text.lines().map(timeless_line).collect::<Vec<_>>().join("\n")
}

fn timeless_line(l: &str) -> String {
    if l.starts_with("Time ") {
        return l.rsplit_once(' ').map_or(l.to_string(), |(h, _)| h.to_string());
    }
    let body = l.strip_prefix(ptx_litmus::shard::HERD_PREFIX).unwrap_or(l);
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(body) else { return l.to_string() };
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("time_ms");
                m.remove("wall_s");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v.to_string()
}

/// Three shards of `check` over the classic corpus with `--expect`, as herd
/// logs and as JSON lines: each merge is the whole run's merge (same records,
/// same trailer but for times), prints the whole run's `expectations:` line
/// and counts, and exits as it does; the order of the shards does not matter.
#[test]
fn check_shards_merge_to_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    for (ext, json) in [("log", &[][..]), ("json", &["--json"][..])] {
        let args = [&["check", "litmus/classic", "--expect", "litmus/expected.csv"][..], json].concat();
        let sub = dir.path().join(ext);
        std::fs::create_dir_all(&sub).unwrap();
        let (mut parts, whole, w) = shards_and_whole(&sub, &args, 3, ext);
        let one = ptxl(&["merge", s(&whole)], &[]);
        parts.reverse();
        let mut merge_args = vec!["merge"];
        merge_args.extend(parts.iter().map(|p| s(p)));
        let m = ptxl(&merge_args, &[]);
        assert_eq!((m.code, one.code), (w.code, w.code), "{}", m.stderr);
        assert_eq!(timeless(&m.stdout), timeless(&one.stdout), "{}", ext);
        let line = |t: &str, start: &str| t.lines().find(|l| l.starts_with(start)).map(str::to_string);
        let expect = line(&w.stderr, "expectations: ");
        assert!(expect.is_some(), "{}", w.stderr);
        assert_eq!(line(&m.stderr, "expectations: "), expect);
        let counts = |t: &str| line(t, "70 tests: ").and_then(|l| l.split(", wall time").next().map(str::to_string));
        assert!(counts(&w.stderr).is_some(), "{}", w.stderr);
        assert_eq!(counts(&m.stderr), counts(&w.stderr));
        assert!(m.stderr.contains("slowest tests: "), "{}", m.stderr);
    }
}

/// herd's `msum7` reads a merged log: every test, no complaint (the trailer is a `#` line it skips).
#[test]
fn msum7_reads_a_merged_log() {
    let tools = root().join("../shared/tools/herdtools7");
    let msum = tools.join("bin/msum7");
    if !msum.is_file() {
        eprintln!("skipped: no herdtools7 at {}", tools.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (parts, _, _) = shards_and_whole(dir.path(), &["check", "litmus/classic"], 2, "log");
    let merged = dir.path().join("merged.log");
    let m = ptxl(&["merge", s(&parts[0]), s(&parts[1]), "-o", s(&merged)], &[]);
    assert_eq!(m.code, 0, "{}", m.stderr);
    let o = Command::new(msum).arg(&merged).env("HERDLIB", tools.join("lib/herd")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let complaints: Vec<&str> =
        err.lines().filter(|l| !l.contains("is not a litmus log") && !l.starts_with("total nouts:")).collect();
    assert!(o.status.success() && complaints.is_empty(), "{}", err);
    assert_eq!(String::from_utf8_lossy(&o.stdout).matches("\nTest ").count() + 1, 70);
}

/// `gen --shard K/N` writes exactly shard K's tests of the whole generation:
/// the three shards' files are the unsharded run's, name for name and byte for byte.
#[test]
fn gen_shards_are_the_whole_generation() {
    let dir = tempfile::tempdir().unwrap();
    let gen = ["gen", "--lang", "c", "--random", "30", "--seed", "5", "-q", "--out"];
    let files = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        v.sort();
        v
    };
    let whole = dir.path().join("whole");
    assert_eq!(ptxl(&[&gen[..], &[s(&whole)]].concat(), &[]).code, 0);
    let mut union = Vec::new();
    for k in 0..3 {
        let d = dir.path().join(format!("k{}", k));
        let id = k.to_string();
        let env = [("SLURM_ARRAY_TASK_ID", id.as_str()), ("SLURM_ARRAY_TASK_COUNT", "3")];
        assert_eq!(ptxl(&[&gen[..], &[s(&d)]].concat(), &env).code, 0);
        let mine = files(&d);
        assert!(mine.len() == 10, "shard {} of 3 holds a third of 30 tests: {}", k, mine.len());
        union.extend(mine);
    }
    union.sort();
    assert_eq!(union, files(&whole));
}

/// A shard with a complete output is skipped by `--resume`; an output cut
/// short, or of other options, is run again.
#[test]
fn resume_skips_only_complete_shards() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s1.log");
    let args = ["check", "litmus/classic", "--shard", "1/4", "-o", s(&out), "--resume"];
    let first = ptxl(&args, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let done = std::fs::read_to_string(&out).unwrap();
    let again = ptxl(&args, &[]);
    assert!(again.stderr.contains("skipped (--resume)"), "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), done, "a skipped shard leaves its output as it was");
    let cut = &done[..done.rfind("# ptx-litmus shard").unwrap()];
    std::fs::write(&out, cut).unwrap();
    let redo = ptxl(&args, &[]);
    assert!(redo.stderr.contains("run again"), "{}", redo.stderr);
    assert!(read(&std::fs::read_to_string(&out).unwrap()).is_ok(), "complete again");
    let other = ptxl(&[&args[..], &["--states", "1"]].concat(), &[]);
    assert!(other.stderr.contains("run again"), "other options: {}", other.stderr);
}

/// Missing, doubled, cut and garbled outputs are input errors (exit 2) naming what is wrong.
#[test]
fn merge_refuses_what_is_not_a_whole_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, whole, _) = shards_and_whole(dir.path(), &["check", "litmus/classic"], 3, "log");
    let cases: [(Vec<&str>, &str); 3] = [
        (vec![s(&parts[0]), s(&parts[2])], "shard 1/3 of the sweep is missing"),
        (vec![s(&parts[0]), s(&parts[1]), s(&parts[1]), s(&parts[2])], "given twice"),
        (vec![s(&whole), s(&parts[0])], "not shards of one sweep"),
    ];
    for (files, says) in cases {
        let r = ptxl(&[&["merge"][..], &files[..]].concat(), &[]);
        assert_eq!(r.code, 2, "{:?}", files);
        assert!(r.stderr.contains(says) && r.stdout.is_empty(), "{:?}: {}", files, r.stderr);
    }
    let text = std::fs::read_to_string(&parts[1]).unwrap();
    let cut = dir.path().join("cut.log");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let r = ptxl(&["merge", s(&parts[0]), s(&cut), s(&parts[2])], &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.starts_with(&format!("{}:", cut.display())) && r.stderr.contains('^'), "{}", r.stderr);
}

/// The records of a real log (the classic corpus, herd log and JSON lines), made once.
fn real_log(json: bool) -> &'static str {
    static LOGS: OnceLock<(String, String)> = OnceLock::new();
    let (herd, lines) = LOGS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (h, j) = (dir.path().join("w.log"), dir.path().join("w.json"));
        let args = ["check", "litmus/classic", "--expect", "litmus/expected.csv"];
        assert_eq!(ptxl(&[&args[..], &["-o", s(&h)]].concat(), &[]).code, 0);
        assert_eq!(ptxl(&[&args[..], &["--json", "-o", s(&j)]].concat(), &[]).code, 0);
        (std::fs::read_to_string(h).unwrap(), std::fs::read_to_string(j).unwrap())
    });
    if json {
        lines
    } else {
        herd
    }
}

/// Split a whole run's output into `parts` shards by `owner` (the shard of each
/// record): each its records and a trailer, the counts (which merge adds up)
/// all on shard 0, as the inputs' fingerprint (which merge XORs).
fn split(whole: &Output, owner: &[usize], parts: usize) -> Vec<(String, Output)> {
    let t = &whole.trailer;
    (0..parts)
        .map(|k| {
            let records: Vec<_> =
                whole.records.iter().zip(owner).filter(|(_, o)| **o == k).map(|(r, _)| r.clone()).collect();
            let first = k == 0;
            let trailer = Trailer {
                index: k,
                count: parts,
                tests: records.len() + if first { t.failures.len() } else { 0 },
                inputs: if first { t.inputs.clone() } else { "00".repeat(16) },
                wall_s: if first { t.wall_s } else { 0.0 },
                exit: if first { t.exit } else { 0 },
                counts: if first { t.counts.clone() } else { Default::default() },
                failures: if first { t.failures.clone() } else { Vec::new() },
                listing: if first { t.listing.clone() } else { Vec::new() },
                ..t.clone()
            };
            (format!("part{}", k), Output { records, trailer })
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random splits of a real log, merged in a random order, give the whole
    /// log back byte for byte (its records sorted, its trailer), with its exit status.
    #[test]
    fn random_splits_of_a_real_log_merge_to_the_original(
        json in any::<bool>(),
        parts in 1usize..6,
        seed in prop::collection::vec(any::<u32>(), 70),
        rotate in 0usize..6,
    ) {
        let whole = read(real_log(json)).unwrap();
        prop_assert_eq!(whole.records.len(), 70);
        let original = merge(&[("whole".into(), read(real_log(json)).unwrap())]).unwrap();
        let owner: Vec<usize> = seed.iter().map(|x| *x as usize % parts).collect();
        let mut shards = split(&whole, &owner, parts);
        shards.rotate_left(rotate % parts);
        let m = merge(&shards).unwrap();
        prop_assert_eq!(&m.text, &original.text);
        prop_assert_eq!(m.exit, original.exit);
        let again = merge(&[("merged".into(), read(&m.text).unwrap())]).unwrap();
        prop_assert_eq!(again.text, m.text);
    }
}
