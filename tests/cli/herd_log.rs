//! The text output is herd7's log format. The first tests read our output the
//! way herd's log lexer (herdtools7 `tools/lexLog_tools.mll`) reads a log:
//!
//! ```text
//! Test NAME (Allowed|Forbidden|Required)
//! [Fatal: ...                       a listing cut by --states: herd skips the test]
//! States N
//! N lines of bindings `1:r0=0; x=1;` (thread number without `P`)
//! Ok | No
//! Witnesses
//! Positive: P Negative: N
//! Flag NAME            (zero or more)
//! Condition (exists|~exists|forall) (PROP) [(* as written *)]
//! Observation NAME (Never|Sometimes|Always) P N
//! Time NAME SECONDS
//! Hash=MD5
//! <blank line>
//! ```
//!
//! The `herd_tools_*` tests then give the logs to herd's own `mcompare7` and
//! `msum7` (herdtools7 7.58, `../shared/tools/herdtools7`, or the folder named
//! by `PTX_LITMUS_HERDTOOLS`) and skip, saying why, when they are absent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[derive(Debug)]
struct Block {
    name: String,
    kind: String,
    partial: bool,
    states: Vec<Vec<(String, i64)>>,
    verdict: String,
    counts: (u64, u64),
    flags: Vec<String>,
    condition: String,
    hash: String,
}

fn ptx_litmus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap()
}

fn check(args: &[&str]) -> String {
    let out = ptx_litmus(&[&["check"], args].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn binding(b: &str) -> (String, i64) {
    let b = b.strip_suffix(';').unwrap_or_else(|| panic!("binding without `;`: {:?}", b));
    let (loc, v) = b.rsplit_once('=').unwrap_or_else(|| panic!("binding without `=`: {:?}", b));
    // herd writes a C test's location bracketed (`[x]=1;`); its tools print it bare.
    let loc = loc.strip_prefix('[').and_then(|l| l.strip_suffix(']')).unwrap_or(loc);
    let name = match loc.split_once(':') {
        Some((t, reg)) => {
            assert!(t.chars().all(|c| c.is_ascii_digit()), "thread `{}` is not a bare number", t);
            reg
        }
        None => loc.split('[').next().unwrap(),
    };
    // herd's log lexer: `reg = name = alpha (alpha|digit|'_'|'.')*`.
    let mut cs = name.chars();
    assert!(
        cs.next().is_some_and(|c| c.is_ascii_alphabetic())
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.'),
        "herd's lexer rejects the name {:?}",
        name
    );
    (loc.to_string(), v.parse().unwrap_or_else(|_| panic!("value {:?}", v)))
}

/// Parse one block strictly, line by line, as herd's log lexer does.
fn block(text: &str) -> Block {
    let mut lines = text.lines();
    let mut next = || lines.next().unwrap_or_else(|| panic!("block ends early:\n{}", text));
    let head: Vec<&str> = next().split(' ').collect();
    assert!(head.len() == 3 && head[0] == "Test", "{:?}", head);
    assert!(["Allowed", "Forbidden", "Required"].contains(&head[2]), "{:?}", head);
    let mut line = next();
    let partial = line.starts_with("Fatal: ");
    if partial {
        line = next();
    }
    let n: usize = match line.strip_prefix("States ") {
        Some(n) if !partial => n.parse().unwrap(),
        _ => line
            .strip_prefix("States >= ")
            .and_then(|l| l.strip_suffix(" (more not listed)"))
            .expect("States")
            .parse()
            .unwrap(),
    };
    let states: Vec<Vec<(String, i64)>> =
        (0..n).map(|_| next().split(' ').filter(|b| !b.is_empty()).map(binding).collect()).collect();
    let verdict = next().to_string();
    assert!(verdict == "Ok" || verdict == "No", "{}", verdict);
    assert_eq!(next(), "Witnesses");
    let w: Vec<&str> = next().split(' ').collect();
    assert!(w.len() == 4 && w[0] == "Positive:" && w[2] == "Negative:", "{:?}", w);
    let counts: (u64, u64) = (w[1].parse().unwrap(), w[3].parse().unwrap());
    let mut flags = vec![];
    line = next();
    while let Some(f) = line.strip_prefix("Flag ") {
        flags.push(f.into());
        line = next();
    }
    let condition = line.strip_prefix("Condition ").expect("Condition").to_string();
    let o: Vec<&str> = next().split(' ').collect();
    // herd's Witnesses count the condition as written (for `~exists P`, the
    // states without P); Observation always counts P first.
    let (p, not_p) = if head[2] == "Forbidden" { (counts.1, counts.0) } else { counts };
    assert_eq!(o, ["Observation", head[1], observation(p, not_p), &p.to_string(), &not_p.to_string()]);
    let t: Vec<&str> = next().split(' ').collect();
    assert!(t.len() == 3 && t[0] == "Time" && t[1] == head[1], "{:?}", t);
    assert!(t[2].parse::<f64>().is_ok());
    let hash = next().strip_prefix("Hash=").expect("Hash=").to_string();
    assert!(hash.len() == 32 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{}", hash);
    assert!(lines.next().is_none(), "extra lines in:\n{}", text);
    Block { name: head[1].into(), kind: head[2].into(), partial, states, verdict, counts, flags, condition, hash }
}

fn observation(p: u64, n: u64) -> &'static str {
    match (p, n) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    }
}

fn blocks(log: &str) -> Vec<Block> {
    assert!(log.ends_with("\n\n"), "a log ends each test with a blank line");
    // A block is a `Test` line up to the next one; a test with no observable
    // has one empty state line, as herd writes it, so a blank line does not
    // end a block by itself.
    let mut texts: Vec<String> = Vec::new();
    for line in log.lines() {
        match texts.last_mut() {
            Some(t) if !line.starts_with("Test ") => {
                t.push_str(line);
                t.push('\n');
            }
            _ => texts.push(format!("{}\n", line)),
        }
    }
    texts.iter().filter(|b| !b.trim().is_empty()).map(|b| block(b.trim_end_matches('\n'))).collect()
}

#[test]
fn every_test_of_both_corpora_is_a_herd_log_block() {
    for dir in ["litmus", "tests/conformance/litmus"] {
        let bs = blocks(&check(&[dir]));
        assert!(bs.len() > 90, "{}: {} blocks", dir, bs.len());
        for b in &bs {
            // herd's kind comes from the quantifier, whatever the result.
            let want = match b.condition.split(' ').next() {
                Some("exists") => "Allowed",
                Some("~exists") => "Forbidden",
                Some("forall") => "Required",
                q => panic!("{}: quantifier {:?}", b.name, q),
            };
            assert_eq!(b.kind, want, "{}", b.name);
            assert!(b.condition.contains(" (") && b.condition.ends_with(')'), "{}: {}", b.name, b.condition);
            // herd's condition lexer has `=` but neither `==` nor `<`, `>`.
            let herd_part = b.condition.split(" (* ").next().unwrap();
            for no in ["P0:", "==", "<", ">", "%"] {
                assert!(!herd_part.contains(no), "{}: {}", b.name, b.condition);
            }
            assert!(!b.partial, "{}: the default listing is complete here", b.name);
            for f in &b.flags {
                assert!(
                    ["data-race", "deadlock", "unroll-bound-hit", "mixed-size", "proxy-fence-reading"]
                        .contains(&f.as_str()),
                    "{}: flag {}",
                    b.name,
                    f
                );
            }
            let (p, n) = b.counts;
            assert_eq!((p + n) as usize, b.states.len(), "{}", b.name);
        }
    }
}

#[test]
fn message_passing_exactly() {
    let log = check(&["litmus/seed/MP.litmus"]);
    let time = log.lines().find(|l| l.starts_with("Time ")).unwrap();
    let hash = log.lines().find(|l| l.starts_with("Hash=")).unwrap();
    // `%r0` is written `r0` (D252): herd's lexer takes no `%`, and P1 has no `r0`.
    let expected = format!(
        "Test MP Allowed\nStates 3\n1:r0=0; 1:r1=0;\n1:r0=0; 1:r1=1;\n1:r0=1; 1:r1=1;\nNo\nWitnesses\nPositive: 0 Negative: 3\nFlag data-race\nCondition exists (1:r0=1 /\\ 1:r1=0)\nObservation MP Never 0 3\n{}\n{}\n\n",
        time, hash
    );
    assert_eq!(log, expected);
}

#[test]
fn kinds_follow_the_quantifier_and_states_sort_as_herd_sorts_them() {
    let bs = blocks(&check(&["litmus/dat3m"]));
    let find = |n: &str| bs.iter().find(|b| b.name == n).unwrap_or_else(|| panic!("{}", n));
    // ~exists that holds: Forbidden and Ok; forall: Required. The comparisons
    // herd cannot say are written over the listed states, then as written.
    let s = find("spellings");
    assert_eq!((s.kind.as_str(), s.verdict.as_str()), ("Forbidden", "Ok"));
    assert!(s.condition.ends_with(" (* ~exists (0:r0<1 /\\ 1:r0<=0 /\\ ~(1:r0>=1)) *)"), "{}", s.condition);
    assert_eq!(find("init-copy").kind, "Required");
    // No condition: herd's `forall (true)`, Required, Ok, every state positive.
    let nc = find("no-condition");
    assert_eq!((nc.kind.as_str(), nc.verdict.as_str(), nc.condition.as_str()), ("Required", "Ok", "forall (true)"));
    assert_eq!(nc.counts, (4, 0));
    // Registers by thread, then locations; lines in increasing order.
    let names: Vec<&str> = nc.states[0].iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(names, ["1:r0", "1:r1", "x", "y"]);
    let values: Vec<Vec<i64>> = nc.states.iter().map(|s| s.iter().map(|x| x.1).collect()).collect();
    let mut sorted = values.clone();
    sorted.sort();
    assert_eq!(values, sorted);
    assert_eq!(nc.states.len(), 4);
}

/// A test's text with its name, blank space and line ends changed hashes the
/// same (herd's hash is of the normalised test, without its name); one
/// instruction changed hashes differently.
#[test]
fn hash_is_of_the_normalised_test() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/seed/MP.litmus")).unwrap();
    let variants = [
        ("same.litmus", src.clone()),
        ("renamed.litmus", src.replacen("PTX MP", "PTX MP-renamed", 1)),
        ("spaced.litmus", src.replace('\n', "  \r\n\n\t").replace(", ", ",   ")),
        ("changed.litmus", src.replacen("st.release.gpu", "st.relaxed.gpu", 1)),
    ];
    let mut hashes = BTreeMap::new();
    for (file, text) in &variants {
        assert!(*file == "same.litmus" || text != &src, "{} changes nothing", file);
        let path = dir.path().join(file);
        std::fs::write(&path, text).unwrap();
        let b = blocks(&check(&[path.to_str().unwrap()])).remove(0);
        hashes.insert(*file, b.hash);
    }
    assert_eq!(hashes["same.litmus"], hashes["renamed.litmus"]);
    assert_eq!(hashes["same.litmus"], hashes["spaced.litmus"]);
    assert_ne!(hashes["same.litmus"], hashes["changed.litmus"]);
}

// ---- herd's own tools --------------------------------------------------------

/// herdtools7's `bin/` (`mcompare7`, `msum7`, `herd7`), or None with the reason printed.
fn herdtools() -> Option<PathBuf> {
    let root = std::env::var_os("PTX_LITMUS_HERDTOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/herdtools7"));
    let bin = root.join("bin");
    if bin.join("mcompare7").is_file() && bin.join("msum7").is_file() {
        Some(bin)
    } else {
        eprintln!("skipped: herdtools7 not found at {} (set PTX_LITMUS_HERDTOOLS to its folder)", root.display());
        None
    }
}

fn tool(bin: &Path, name: &str, args: &[&str]) -> String {
    let out = Command::new(bin.join(name)).args(args).env("HERDLIB", bin.join("../lib/herd")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // msum7 calls every herd (not hardware) log "not a litmus log" and some
    // builds end with a `total nouts:` count: nothing else may be said.
    let errors: Vec<&str> =
        err.lines().filter(|l| !l.contains("is not a litmus log") && !l.starts_with("total nouts:")).collect();
    assert!(out.status.success() && errors.is_empty(), "{} {:?}: {}", name, args, err);
    String::from_utf8(out.stdout).unwrap()
}

/// One `mcompare7 -show OPT LOG` table: test name -> the cells of its rows.
fn table(bin: &Path, opt: &str, log: &Path) -> BTreeMap<String, Vec<String>> {
    let text = tool(bin, "mcompare7", &["-show", opt, log.to_str().unwrap()]);
    let mut rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // A row with an empty first cell continues the test above it, unless a
    // rule came between: then it is the table's summary row (7.58 prints one
    // under `-show v` and `-show k`), which belongs to no test.
    let mut current: Option<String> = None;
    for line in text.lines().skip(2) {
        if line.starts_with('-') {
            current = None;
            continue;
        }
        if !line.contains('|') {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if !cells[0].is_empty() {
            assert!(!rows.contains_key(cells[0]), "{} listed twice", cells[0]);
            current = Some(cells[0].to_string());
        }
        let (Some(test), cell) = (&current, cells[cells.len() - 1]) else { continue };
        let entry = rows.entry(test.clone()).or_default();
        // An empty cell is a test with nothing to list (no states at all).
        if !cell.is_empty() {
            entry.push(cell.to_string());
        }
    }
    rows
}

/// A state as a set of bindings, herd's `[x]=1` read as our `x=1`.
fn state_of(text: &str) -> BTreeSet<String> {
    let text = text.trim();
    let text = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(text);
    text.split_whitespace()
        .map(|b| match b.strip_prefix('[') {
            Some(rest) => rest.replacen("]=", "=", 1),
            None => b.to_string(),
        })
        .collect()
}

fn ours(b: &Block) -> BTreeSet<BTreeSet<String>> {
    b.states.iter().map(|s| s.iter().map(|(l, v)| format!("{}={};", l, v)).collect()).collect()
}

/// `Ok (Require)` / `No (Require)` as the revalidation table writes them.
fn as_revalidated(k: &str) -> String {
    match (k.strip_prefix("Ok ("), k.strip_prefix("No (")) {
        (Some(x), _) => x.trim_end_matches(')').to_string(),
        (_, Some(x)) => format!("Not {}", x.trim_end_matches(')')),
        _ => k.to_string(),
    }
}

/// `mcompare7` reads every test of `log` with our verdict and every state,
/// and re-evaluating the printed conditions on the states gives the verdict.
fn mcompare_reads_all(bin: &Path, log: &Path, bs: &[Block]) {
    let verdicts = table(bin, "v", log);
    let kinds = table(bin, "k", log);
    let revalidated = table(bin, "r", log);
    let states = table(bin, "s", log);
    let names: BTreeSet<&String> = bs.iter().map(|b| &b.name).collect();
    assert_eq!(verdicts.keys().collect::<BTreeSet<_>>(), names, "{}", log.display());
    for b in bs {
        assert_eq!(verdicts[&b.name], std::slice::from_ref(&b.verdict), "{}", b.name);
        assert_eq!(
            as_revalidated(&kinds[&b.name][0]),
            revalidated[&b.name][0],
            "{}: condition {}",
            b.name,
            b.condition
        );
        let read: BTreeSet<BTreeSet<String>> = states[&b.name].iter().map(|s| state_of(s)).collect();
        assert_eq!(read, ours(b), "{}", b.name);
    }
}

/// `msum7 LOG LOG` adds the log to itself: every test, every state, the
/// verdict, and twice the witnesses.
fn msum_reads_all(bin: &Path, log: &Path, bs: &[Block]) {
    let l = log.to_str().unwrap();
    let sum = tool(bin, "msum7", &[l, l]);
    let mut read: BTreeMap<String, (BTreeSet<BTreeSet<String>>, String, String)> = BTreeMap::new();
    for block in sum.split("\n\n").filter(|b| b.starts_with("Test ")) {
        let mut lines = block.lines();
        let name = lines.next().unwrap().split(' ').nth(1).unwrap().to_string();
        let mut states = BTreeSet::new();
        let (mut verdict, mut witnesses) = (String::new(), String::new());
        for line in lines {
            if let Some((_, st)) = line.split_once(":>") {
                states.insert(state_of(st));
            } else if line == "Ok" || line == "No" {
                verdict = line.to_string();
            } else if line.starts_with("Positive:") {
                witnesses = line.to_string();
            }
        }
        assert!(read.insert(name.clone(), (states, verdict, witnesses)).is_none(), "{} twice", name);
    }
    assert_eq!(read.len(), bs.len(), "{}", log.display());
    for b in bs {
        let (states, verdict, witnesses) = &read[&b.name];
        assert_eq!((states, verdict), (&ours(b), &b.verdict), "{}", b.name);
        assert_eq!(witnesses, &format!("Positive: {} Negative: {}", 2 * b.counts.0, 2 * b.counts.1), "{}", b.name);
    }
}

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            litmus_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}

/// Write the log of `paths`, then check that herd's tools read all of it.
fn herd_tools_read(bin: &Path, dir: &Path, label: &str, paths: &[&str]) -> usize {
    let log = dir.join(format!("{}.log", label));
    let text = check(paths);
    std::fs::write(&log, &text).unwrap();
    let bs = blocks(&text);
    mcompare_reads_all(bin, &log, &bs);
    msum_reads_all(bin, &log, &bs);
    bs.len()
}

#[test]
fn herd_tools_read_every_test_and_state_of_the_library() {
    let Some(bin) = herdtools() else { return };
    let dir = tempfile::tempdir().unwrap();
    assert!(herd_tools_read(&bin, dir.path(), "litmus", &["litmus"]) > 200);
    assert!(herd_tools_read(&bin, dir.path(), "classic", &["litmus/classic"]) > 60);
}

/// The conformance corpus (from Dat3M) has four pairs of files with one test
/// name. The batch says so on stderr, naming both files; herd's tools reject
/// a log with two tests of one name, so the second file of each pair goes
/// into a log of its own.
#[test]
fn herd_tools_read_every_test_and_state_of_the_conformance_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = ptx_litmus(&["check", "tests/conformance/litmus"]);
    let bs = blocks(&String::from_utf8(out.stdout).unwrap());
    let mut seen = BTreeSet::new();
    let twice: BTreeSet<&String> = bs.iter().map(|b| &b.name).filter(|n| !seen.insert(*n)).collect();
    assert_eq!(twice.len(), 4, "{:?}", twice);
    let stderr = String::from_utf8(out.stderr).unwrap();
    let mut seconds = Vec::new();
    for name in &twice {
        let warned: Vec<&str> =
            stderr.lines().filter(|l| l.starts_with(&format!("warning: test name `{}` is used by ", name))).collect();
        assert_eq!(warned.len(), 1, "{}: {}", name, stderr);
        let second = warned[0].split(" and ").nth(1).unwrap().split(':').next().unwrap();
        seconds.push(root.join(second));
    }
    let Some(bin) = herdtools() else { return };
    let mut files = Vec::new();
    litmus_files(&root.join("tests/conformance/litmus"), &mut files);
    files.sort();
    let firsts: Vec<&str> = files.iter().filter(|f| !seconds.contains(f)).map(|f| f.to_str().unwrap()).collect();
    let seconds: Vec<&str> = seconds.iter().map(|f| f.to_str().unwrap()).collect();
    let dir = tempfile::tempdir().unwrap();
    let n = herd_tools_read(&bin, dir.path(), "conformance", &firsts)
        + herd_tools_read(&bin, dir.path(), "conformance-2", &seconds);
    assert_eq!(n, bs.len());
}

/// A listing stopped by `--states` starts with herd's `Fatal:` line: the
/// tools skip that test and read the next one whole, instead of taking the
/// cut listing for all states (or the next test's states for this one's).
#[test]
fn herd_tools_skip_a_cut_listing() {
    let text = check(&["--states", "3", "litmus/classic/2+2W+relaxed.litmus", "litmus/seed/MP.litmus"]);
    let bs = blocks(&text);
    // 2+2W+relaxed ends in x and y each 1 or 2: four states, three listed.
    assert!(bs[0].partial && bs[0].states.len() == 3);
    assert!(!bs[1].partial && bs[1].states.len() == 3);
    let Some(bin) = herdtools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cut.log");
    std::fs::write(&log, &text).unwrap();
    mcompare_reads_all(&bin, &log, &bs[1..]);
    msum_reads_all(&bin, &log, &bs[1..]);
}

/// herd7 itself, RC11 (`rc11.cat`), on the C11 form of MP+rel+acq (release
/// store, acquire load, relaxed data), and ptx-litmus on the PTX test of that
/// name: `mcompare7` reads both logs side by side (`-nohash`: two texts, two
/// hashes) and finds the same three final states. Under both models the
/// release/acquire pair forbids r0=1, r1=0 (C11 7.17.3 sw/hb; PTX 8.10.6).
#[test]
fn herd_tools_compare_a_herd7_log_with_ours() {
    let Some(bin) = herdtools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("MP+rel+acq.litmus");
    std::fs::write(
        &c,
        "C MP+rel+acq\n{ }\nP0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_release);\n}\n\
         P1 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_acquire);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\nexists (1:r0=1 /\\ 1:r1=0)\n",
    )
    .unwrap();
    let herd = dir.path().join("herd7.log");
    std::fs::write(&herd, tool(&bin, "herd7", &["-model", "rc11.cat", c.to_str().unwrap()])).unwrap();
    let ours = dir.path().join("ptx-litmus.log");
    std::fs::write(&ours, check(&["litmus/classic/MP+rel+acq.litmus"])).unwrap();
    let both = [herd.to_str().unwrap(), ours.to_str().unwrap()];
    let diff = tool(&bin, "mcompare7", &[&["-nohash"], &both[..]].concat());
    let row = diff.lines().find(|l| l.starts_with("MP+rel+acq")).unwrap_or_else(|| panic!("{}", diff));
    assert!(row.ends_with("==") || row.trim_end().ends_with("=="), "the logs differ:\n{}", diff);
    let states = tool(&bin, "mcompare7", &[&["-nohash", "-show", "s"], &both[..]].concat());
    let first = states.lines().find(|l| l.starts_with("MP+rel+acq")).unwrap();
    assert!(first.contains("[1:r0=0; 1:r1=0;] [1:r0=0; 1:r1=0;]"), "{}", states);
}

/// PTX register names herd's lexer cannot read get one spelling each (D110):
/// `%r0` of a thread that also has `r0` is `r0.pct` (D252), and a name with `$`, a leading `_` or one of herd's
/// words (`and`) is `x.` and the hexadecimal of its bytes; `r0` stays `r0`.
/// The condition uses the same spellings, and `mcompare7` reads the state.
#[test]
fn register_names_herd_cannot_read_get_distinct_spellings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.litmus");
    let test = "PTX names\n{ x = 1; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n ld.weak %r0, x ;\n ld.weak $y, x ;\n ld.weak _b, x ;\n ld.weak and, x ;\n\
                exists (0:r0=1 /\\ 0:%r0=1 /\\ 0:$y=1 /\\ 0:_b=1 /\\ 0:and=1)\n";
    std::fs::write(&path, test).unwrap();
    let text = check(&[path.to_str().unwrap()]);
    let bs = blocks(&text);
    let want: BTreeSet<BTreeSet<String>> = [["0:r0=1;", "0:r0.pct=1;", "0:x.2479=1;", "0:x.5f62=1;", "0:x.616e64=1;"]
        .iter()
        .map(|s| s.to_string())
        .collect()]
    .into();
    assert_eq!(ours(&bs[0]), want);
    assert_eq!(bs[0].condition, "exists (0:r0=1 /\\ 0:r0.pct=1 /\\ 0:x.2479=1 /\\ 0:x.5f62=1 /\\ 0:x.616e64=1)");
    let Some(bin) = herdtools() else { return };
    let log = dir.path().join("names.log");
    std::fs::write(&log, &text).unwrap();
    mcompare_reads_all(&bin, &log, &bs);
}

/// `%r0` is written `r0` where its thread has no `r0` (D252), also when
/// another thread has an `r0`; a condition may name it so. x = 1 and no
/// thread writes x, so every load reads 1: one state, the condition holds, Ok.
/// `mcompare7` reads the state.
#[test]
fn percent_registers_are_written_without_the_percent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pct.litmus");
    let test = "PTX pct\n{ x = 1; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.weak %r0, x | ld.weak r0, x ;\n | ld.weak %r1, x ;\n\
                exists (0:r0=1 /\\ 1:r0=1 /\\ 1:r1=1)\n";
    std::fs::write(&path, test).unwrap();
    let text = check(&[path.to_str().unwrap()]);
    let bs = blocks(&text);
    let want: BTreeSet<BTreeSet<String>> =
        [["0:r0=1;", "1:r0=1;", "1:r1=1;"].iter().map(|s| s.to_string()).collect()].into();
    assert_eq!(ours(&bs[0]), want);
    assert_eq!(bs[0].condition, "exists (0:r0=1 /\\ 1:r0=1 /\\ 1:r1=1)");
    assert!(text.contains("\nOk\n"), "{}", text);
    let Some(bin) = herdtools() else { return };
    let log = dir.path().join("pct.log");
    std::fs::write(&log, &text).unwrap();
    mcompare_reads_all(&bin, &log, &bs);
}

/// D136 on the smallest case: P0 writes y=1 then x=1, P1 writes y=2, and the
/// condition names x alone. The one write to x is coherence-last for x in every
/// execution, so one final state is allowed, `[x]=1`, and it satisfies the
/// condition: ours is `States 1`, `Positive: 1 Negative: 0`. herd7 7.58 counts
/// executions (herd/top_herd.ml adds one per consistent execution), and the
/// two coherence orders of y's writes make two: `Positive: 2 Negative: 0`.
#[test]
fn c_counts_are_of_final_states_where_herd7_counts_executions() {
    let dir = tempfile::tempdir().unwrap();
    let test = dir.path().join("two-orders-of-y.litmus");
    std::fs::write(
        &test,
        "C two-orders-of-y\n{}\nP0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n  \
         atomic_store_explicit(x, 1, memory_order_relaxed);\n}\nP1 (atomic_int* y) {\n  \
         atomic_store_explicit(y, 2, memory_order_relaxed);\n}\nexists ([x]=1)\n",
    )
    .unwrap();
    let path = test.to_str().unwrap();
    assert_eq!(states_and_counts(&check(&[path])), (vec!["[x]=1;".to_string()], (1, 0)));
    let Some(bin) = herdtools() else { return };
    let herd = tool(&bin, "herd7", &["-model", "rc11.cat", path]);
    assert_eq!(states_and_counts(&herd), (vec!["[x]=1;".to_string()], (2, 0)), "{}", herd);
}

/// The state lines and the `Positive`/`Negative` counts of a one-test log.
fn states_and_counts(log: &str) -> (Vec<String>, (u64, u64)) {
    let states = log.lines().skip_while(|l| !l.starts_with("States ")).skip(1);
    let states = states.take_while(|l| l.ends_with(';')).map(str::to_string).collect();
    let counts = log.lines().find_map(|l| l.strip_prefix("Positive: ")).unwrap_or_else(|| panic!("{}", log));
    let (p, n) = counts.split_once(" Negative: ").unwrap_or_else(|| panic!("{}", log));
    (states, (p.parse().unwrap(), n.trim().parse().unwrap()))
}
