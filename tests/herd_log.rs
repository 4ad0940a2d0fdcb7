//! The text output is herd7's log format. herdtools7 cannot be built here (its
//! sources are not reachable), so this reads our output the way herd's log
//! tools (`mcompare7`, `msum7`) read a log, following herd7's documented format:
//!
//! ```text
//! Test NAME (Allowed|Forbidden|Required)
//! States N
//! N lines of bindings `1:r0=0; x=1;` (thread number without `P`)
//! Ok | No
//! Witnesses
//! Positive: P Negative: N
//! Flag NAME            (zero or more)
//! Condition (exists|~exists|forall) (PROP)
//! Observation NAME (Never|Sometimes|Always) P N
//! Time NAME SECONDS
//! <blank line>
//! ```

use std::process::Command;

#[derive(Debug)]
struct Block {
    name: String,
    kind: String,
    states: Vec<Vec<(String, i64)>>,
    verdict: Option<String>,
    counts: Option<(u64, u64)>,
    flags: Vec<String>,
    condition: Option<String>,
}

fn check(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).arg("check").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn binding(b: &str) -> (String, i64) {
    let b = b.strip_suffix(';').unwrap_or_else(|| panic!("binding without `;`: {:?}", b));
    let (loc, v) = b.rsplit_once('=').unwrap_or_else(|| panic!("binding without `=`: {:?}", b));
    if let Some((t, reg)) = loc.split_once(':') {
        assert!(t.chars().all(|c| c.is_ascii_digit()), "thread `{}` is not a bare number", t);
        assert!(!reg.is_empty());
    }
    (loc.to_string(), v.parse().unwrap_or_else(|_| panic!("value {:?}", v)))
}

/// Parse one block strictly, line by line, as herd's log lexer does.
fn block(text: &str) -> Block {
    let mut lines = text.lines();
    let mut next = || lines.next().unwrap_or_else(|| panic!("block ends early:\n{}", text));
    let head: Vec<&str> = next().split(' ').collect();
    assert!(head.len() == 3 && head[0] == "Test", "{:?}", head);
    assert!(["Allowed", "Forbidden", "Required"].contains(&head[2]), "{:?}", head);
    let n: usize = next().strip_prefix("States ").expect("States").parse().unwrap();
    let states: Vec<Vec<(String, i64)>> = (0..n).map(|_| next().split(' ').map(binding).collect()).collect();
    let mut b = Block { name: head[1].into(), kind: head[2].into(), states, verdict: None, counts: None, flags: vec![], condition: None };
    let mut line = next();
    if line == "Ok" || line == "No" {
        b.verdict = Some(line.into());
        assert_eq!(next(), "Witnesses");
        let w: Vec<&str> = next().split(' ').collect();
        assert!(w.len() == 4 && w[0] == "Positive:" && w[2] == "Negative:", "{:?}", w);
        b.counts = Some((w[1].parse().unwrap(), w[3].parse().unwrap()));
        line = next();
    }
    while let Some(f) = line.strip_prefix("Flag ") {
        b.flags.push(f.into());
        line = next();
    }
    if let Some(c) = line.strip_prefix("Condition ") {
        b.condition = Some(c.into());
        let o: Vec<&str> = next().split(' ').collect();
        let (p, n) = b.counts.expect("Observation without Positive/Negative");
        assert_eq!(o, ["Observation", &b.name, observation(p, n), &p.to_string(), &n.to_string()]);
        line = next();
    }
    let t: Vec<&str> = line.split(' ').collect();
    assert!(t.len() == 3 && t[0] == "Time" && t[1] == b.name, "{:?}", t);
    assert!(t[2].parse::<f64>().is_ok());
    assert!(lines.next().is_none(), "extra lines in:\n{}", text);
    b
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
    log.split("\n\n").filter(|b| !b.trim().is_empty()).map(|b| block(&format!("{}\n", b))).collect()
}

#[test]
fn every_test_of_both_corpora_is_a_herd_log_block() {
    for dir in ["litmus", "tests/conformance/litmus"] {
        let bs = blocks(&check(&[dir]));
        assert!(bs.len() > 90, "{}: {} blocks", dir, bs.len());
        for b in &bs {
            let Some(cond) = &b.condition else {
                assert!(b.verdict.is_none(), "{}", b.name);
                continue;
            };
            // herd's kind comes from the quantifier, whatever the result.
            let want = match cond.split(' ').next() {
                Some("exists") => "Allowed",
                Some("~exists") => "Forbidden",
                Some("forall") => "Required",
                q => panic!("{}: quantifier {:?}", b.name, q),
            };
            assert_eq!(b.kind, want, "{}", b.name);
            assert!(cond.contains(" (") && cond.ends_with(')'), "{}: {}", b.name, cond);
            assert!(!cond.contains("P0:") && !cond.contains("=="), "{}: {}", b.name, cond);
            let (p, n) = b.counts.unwrap();
            assert_eq!((p + n) as usize, b.states.len(), "{}", b.name);
        }
    }
}

#[test]
fn message_passing_exactly() {
    let log = check(&["litmus/seed/MP.litmus"]);
    let time = log.lines().find(|l| l.starts_with("Time ")).unwrap();
    let expected = format!(
        "Test MP Allowed\nStates 3\n1:%r0=0; 1:%r1=0;\n1:%r0=0; 1:%r1=1;\n1:%r0=1; 1:%r1=1;\nNo\nWitnesses\nPositive: 0 Negative: 3\nFlag data-race\nCondition exists (1:%r0=1 /\\ 1:%r1=0)\nObservation MP Never 0 3\n{}\n\n",
        time
    );
    assert_eq!(log, expected);
}

#[test]
fn kinds_follow_the_quantifier_and_states_sort_as_herd_sorts_them() {
    let bs = blocks(&check(&["litmus/dat3m"]));
    let find = |n: &str| bs.iter().find(|b| b.name == n).unwrap_or_else(|| panic!("{}", n));
    // ~exists that holds: Forbidden and Ok; forall: Required.
    let s = find("spellings");
    assert_eq!((s.kind.as_str(), s.verdict.as_deref()), ("Forbidden", Some("Ok")));
    assert_eq!(s.condition.as_deref(), Some("~exists (0:r0<1 /\\ 1:r0<=0 /\\ ~(1:r0>=1))"));
    assert_eq!(find("init-copy").kind, "Required");
    // Registers by thread, then locations; lines in increasing order.
    let nc = find("no-condition");
    assert_eq!((nc.verdict.as_ref(), nc.condition.as_ref()), (None, None));
    let names: Vec<&str> = nc.states[0].iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(names, ["1:r0", "1:r1", "x", "y"]);
    let values: Vec<Vec<i64>> = nc.states.iter().map(|s| s.iter().map(|x| x.1).collect()).collect();
    let mut sorted = values.clone();
    sorted.sort();
    assert_eq!(values, sorted);
    assert_eq!(nc.states.len(), 4);
}
