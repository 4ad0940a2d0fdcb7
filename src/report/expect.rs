//! `--expect FILE.csv`: compare verdicts with a CSV of expectations.
//!
//! Header `test,expected` or `test,expected,note` (optional; a UTF-8 BOM is
//! fine; fields may be quoted). Test paths are relative to the CSV's folder and
//! must stay inside it. `expected` is `Ok` or `No`. A non-empty `note` records
//! a documented deviation: a differing verdict then counts as matched and is
//! listed with its note.

use crate::batch::FileReport;
use crate::error::{Error, Result};
use crate::outcome::Verdict;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Largest CSV accepted, in bytes.
pub const MAX_CSV_BYTES: usize = 16 << 20;

#[derive(Default)]
pub struct Expectations {
    /// Canonical test path -> expected verdict.
    pub map: BTreeMap<PathBuf, Verdict>,
    /// Canonical test path -> the note of a documented deviation.
    pub notes: BTreeMap<PathBuf, String>,
    /// In file order, for running the CSV's own tests.
    pub order: Vec<PathBuf>,
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Read and check the CSV; errors carry the line (rendered against the CSV's text).
pub fn load(csv: &Path) -> Result<Expectations> {
    let text = crate::input::read_text_capped(csv, MAX_CSV_BYTES).map_err(Error::input_nospan)?;
    parse(&text, csv.parent().unwrap_or(Path::new(".")))
}

/// Parse CSV text whose test paths are relative to `dir`.
pub fn parse(text: &str, dir: &Path) -> Result<Expectations> {
    let mut rd =
        csv::ReaderBuilder::new().has_headers(false).flexible(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let mut exp = Expectations::default();
    let mut first_line: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for (i, rec) in rd.records().enumerate() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(1, |p| p.line() as usize);
            Error::input(format!("this line is not valid CSV: {}", e), at(line))
        })?;
        let line = rec.position().map_or(i + 1, |p| p.line() as usize);
        if rec.iter().all(str::is_empty) || rec.get(0).is_some_and(|f| f.starts_with('#')) {
            continue;
        }
        if i == 0 && rec.get(0) == Some("test") {
            continue;
        }
        if !(2..=3).contains(&rec.len()) {
            return Err(Error::input(
                format!("expected `test,expected` or `test,expected,note`, found {} fields", rec.len()),
                at(line),
            ));
        }
        let verdict = match &rec[1] {
            "Ok" => Verdict::Ok,
            "No" => Verdict::No,
            other => return Err(Error::input(format!("expected `Ok` or `No`, found `{}`", other), at(line))),
        };
        let rel = Path::new(&rec[0]);
        if rel.as_os_str().is_empty()
            || rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(Error::input(
                format!("the test path `{}` must be relative and stay inside the CSV's folder (no `..`)", &rec[0]),
                at(line),
            ));
        }
        let path = dir.join(rel);
        let key = canonical(&path);
        if let Some(first) = first_line.insert(key.clone(), line) {
            return Err(Error::input(format!("`{}` is listed twice (first on line {})", &rec[0], first), at(line)));
        }
        exp.order.push(path);
        exp.map.insert(key.clone(), verdict);
        if let Some(note) = rec.get(2).filter(|n| !n.is_empty()) {
            exp.notes.insert(key, note.to_string());
        }
    }
    Ok(exp)
}

fn at(line: usize) -> crate::ast::Span {
    crate::ast::Span { line, col: 1, start: 0, end: 0 }
}

#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub matched: usize,
    pub mismatched: usize,
    pub errors: usize,
    pub without: usize,
    /// Counted in `matched`: differing verdicts with a documented note.
    pub deviations: usize,
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "expectations: {} matched ({} documented deviations), {} mismatched, {} errors, {} without expectation",
            self.matched, self.deviations, self.mismatched, self.errors, self.without
        )
    }
}

/// How one report compares with its expectation.
pub struct Judgement {
    pub expected: Option<Verdict>,
    /// None when there is no verdict or no expectation.
    pub matched: Option<bool>,
    /// A line for the listing (mismatch, deviation, error), if any.
    pub line: Option<String>,
}

impl Expectations {
    /// Judge one report and count it in `t`.
    pub fn judge(&self, r: &FileReport, t: &mut Tally) -> Judgement {
        let key = canonical(&r.path);
        let expected = self.map.get(&key).copied();
        let mut j = Judgement { expected, matched: None, line: None };
        match (&r.result, expected) {
            (Err(e), _) => {
                t.errors += 1;
                j.line = Some(format!("error: {}: {}", r.path.display(), e.message));
            }
            (Ok(_), None) => t.without += 1,
            (Ok(res), Some(w)) => {
                let got = res.summary.verdict;
                let note = self.notes.get(&key);
                if got == w {
                    t.matched += 1;
                    j.matched = Some(true);
                } else if let Some(note) = note {
                    t.matched += 1;
                    t.deviations += 1;
                    j.matched = Some(true);
                    j.line = Some(format!(
                        "deviation: {}: expected {:?}, got {:?} (documented: {})",
                        r.path.display(),
                        w,
                        got,
                        note
                    ));
                } else {
                    t.mismatched += 1;
                    j.matched = Some(false);
                    j.line = Some(format!("mismatch: {}: expected {:?}, got {:?}", r.path.display(), w, got));
                }
            }
        }
        j
    }
}

/// Compare; returns the tally and one line per mismatch, deviation or error.
pub fn compare(exp: &Expectations, reports: &[FileReport]) -> (Tally, Vec<String>) {
    let mut t = Tally::default();
    let lines = reports.iter().filter_map(|r| exp.judge(r, &mut t).line).collect();
    (t, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match parse(text, Path::new("/nonexistent")) {
            Ok(_) => panic!("accepted: {:?}", text),
            Err(e) => format!("{}", e),
        }
    }

    #[test]
    fn bom_quotes_and_notes() {
        let e = parse(
            "\u{feff}test,expected,note\n\"a b.litmus\",Ok\nc.litmus,No,\"argued, see notes\"\n",
            Path::new("/d"),
        )
        .unwrap();
        assert_eq!(e.order, vec![PathBuf::from("/d/a b.litmus"), PathBuf::from("/d/c.litmus")]);
        assert_eq!(e.notes.values().next().map(String::as_str), Some("argued, see notes"));
    }

    #[test]
    fn duplicates_escapes_and_bad_verdicts_are_refused() {
        assert!(err("test,expected\na.litmus,Ok\n./a.litmus,No\n").contains("listed twice (first on line 2)"));
        assert!(err("a.litmus,Ok\n../x.litmus,Ok\n").starts_with("2:1:"));
        assert!(err("/etc/passwd,Ok\n").contains("stay inside"));
        assert!(err("a.litmus,Maybe\n").contains("`Maybe`"));
        assert!(err("a.litmus,Ok,n,extra\n").contains("4 fields"));
    }
}
