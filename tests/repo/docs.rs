//! `docs/litmus-format.md` says what a litmus cell reads and what it refuses;
//! the tool is held to it (issue 39: the page called `mbarrier`, the warp
//! collectives and `bar.red` input errors long after they were decided, and
//! named `mad`, which a cell never read). Section 2's table names the
//! instructions read and its `read` block gives one example of each; section
//! 6's `refused` block gives instructions refused, each with its message.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn page() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/litmus-format.md")).unwrap()
}

/// The text of the page's section that starts with `heading`, up to the next `## `.
fn section<'a>(page: &'a str, heading: &str) -> &'a str {
    let start = page.find(heading).unwrap_or_else(|| panic!("no section `{}`", heading));
    let rest = &page[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The lines of the fenced block ```` ```NAME ```` in `text`.
fn block<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("```{}\n", name);
    let start = text.find(&open).unwrap_or_else(|| panic!("no ```{} block", name)) + open.len();
    let body = &text[start..];
    body[..body.find("```").expect("the block ends")].lines().filter(|l| !l.trim().is_empty()).collect()
}

/// An instruction's mnemonic: its first word, without a guard or a final `;`.
fn mnemonic(instr: &str) -> &str {
    let mut words = instr.split_whitespace();
    let mut w = words.next().unwrap_or("");
    if w.starts_with('@') {
        w = words.next().unwrap_or("");
    }
    w.trim_end_matches(';')
}

/// The mnemonics the table of section 2 names (its first two columns), with
/// PTX's `{.a,.b}` alternatives spelled out; labels and `...` are no instruction.
fn table_mnemonics(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let rows = text.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| short") && !l.starts_with("|---"));
    for row in rows {
        let cells: Vec<&str> = row.split(" | ").collect();
        for cell in cells.iter().take(2) {
            for span in cell.split('`').skip(1).step_by(2) {
                let m = mnemonic(span);
                if m.ends_with(':') || !m.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    continue;
                }
                match m.split_once('{') {
                    Some((base, alts)) => {
                        out.extend(alts.trim_end_matches('}').split(',').map(|a| format!("{}{}", base, a)))
                    }
                    None => out.push(m.to_string()),
                }
            }
        }
    }
    out
}

/// The example covers mnemonic `m`: it is `m`, or `m` with more qualifiers.
fn covers(example: &str, m: &str) -> bool {
    example.split(" ; ").map(mnemonic).any(|e| e == m || e.starts_with(&format!("{}.", m)))
}

/// Each of `rows` as the one thread of a test (section 2's wording), checked
/// by one `check --json` run: the file of each row and its JSON record.
fn check_each(rows: &[&str]) -> Vec<(String, Value)> {
    let dir = tempfile::tempdir().unwrap();
    let init = "x = 0; y = 0; s @ surface aliases x; t @ texture aliases x; c @ constant aliases x;";
    for (i, row) in rows.iter().enumerate() {
        let text = format!("PTX doc{}\n{{ {} }}\n P0@cta 0,gpu 0 ;\n {} ;\n L: ;\nexists (x == 0)\n", i, init, row);
        std::fs::write(dir.path().join(format!("t{:03}.litmus", i)), text).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
        .args(["check", "--json", "-q", "-j", "2"])
        .arg(dir.path())
        .output()
        .unwrap();
    let records: BTreeMap<String, Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (Path::new(v["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned(), v))
        .collect();
    assert_eq!(records.len(), rows.len(), "{}", String::from_utf8_lossy(&out.stderr));
    records.into_iter().collect()
}

/// Every instruction section 2 names has an example, and every example is read:
/// its test is decided (exit 0 for its file: a verdict, no error).
#[test]
fn every_instruction_the_page_calls_read_is_read() {
    let page = page();
    let instructions = section(&page, "## 2. Instructions");
    let examples = block(instructions, "read");
    let named = table_mnemonics(instructions);
    assert!(named.len() > 60, "{:?}", named);
    let missing: Vec<&String> = named.iter().filter(|m| !examples.iter().any(|e| covers(e, m))).collect();
    assert!(missing.is_empty(), "named in the table of section 2 with no example in its `read` block: {:?}", missing);
    let refused: Vec<String> = check_each(&examples)
        .into_iter()
        .filter(|(_, v)| v.get("error").is_some())
        .map(|(f, v)| format!("{} ({}): {}", f, examples[f[1..4].parse::<usize>().unwrap()], v["error"]["message"]))
        .collect();
    assert!(refused.is_empty(), "section 2 calls these read:\n{}", refused.join("\n"));
}

/// Every instruction section 6 calls refused is an input error at its row
/// (line 4 of the test) with the message the page gives.
#[test]
fn every_instruction_the_page_calls_refused_is_refused() {
    let page = page();
    let lines = block(section(&page, "## 6. What is not read"), "refused");
    assert!(lines.len() >= 10, "{:?}", lines);
    let (rows, messages): (Vec<&str>, Vec<&str>) =
        lines.iter().map(|l| l.split_once(" => ").expect("INSTRUCTION => MESSAGE")).unzip();
    for (f, v) in check_each(&rows) {
        let i: usize = f[1..4].parse().unwrap();
        let e = &v["error"];
        assert_eq!((e["kind"].as_str(), e["line"].as_u64()), (Some("input"), Some(4)), "{}: {}", rows[i], v);
        let msg = e["message"].as_str().unwrap();
        assert!(msg.contains(messages[i]), "{}: the page says `{}`, the tool `{}`", rows[i], messages[i], msg);
    }
    // The instructions this section used to call refused are read (section 2).
    let read = block(section(&page, "## 2. Instructions"), "read");
    for m in ["mbarrier", "shfl.sync", "vote.sync", "bar.red"] {
        assert!(read.iter().any(|e| covers(e, m)), "{} has no example in section 2", m);
        assert!(!rows.iter().any(|r| covers(r, m)), "{} is read, yet section 6 calls it refused", m);
    }
}
