//! `--expect FILE.csv`: compare verdicts with a CSV of expectations
//! (header `test,expected`; paths relative to the CSV's folder; `Ok` or `No`).

use crate::check::FileReport;
use crate::error::{Error, Result};
use crate::outcome::Verdict;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct Expectations {
    /// Canonical test path -> expected verdict.
    pub map: BTreeMap<PathBuf, Verdict>,
    /// In file order, for running the CSV's own tests.
    pub order: Vec<PathBuf>,
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

pub fn load(csv: &Path) -> Result<Expectations> {
    let text = std::fs::read_to_string(csv).map_err(|e| Error::input_nospan(format!("cannot read {}: {}", csv.display(), e)))?;
    let dir = csv.parent().unwrap_or(Path::new("."));
    let mut map = BTreeMap::new();
    let mut order = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || (i == 0 && line.starts_with("test,")) {
            continue;
        }
        let span = crate::ast::Span { line: i + 1, col: 1, start: 0, end: 0 };
        let (test, exp) = line.split_once(',').ok_or_else(|| Error::input("expected a line `test,expected`", span))?;
        let verdict = match exp.trim() {
            "Ok" => Verdict::Ok,
            "No" => Verdict::No,
            other => return Err(Error::input(format!("expected `Ok` or `No`, found `{}`", other), span)),
        };
        let path = dir.join(test.trim());
        order.push(path.clone());
        map.insert(canonical(&path), verdict);
    }
    Ok(Expectations { map, order })
}

#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub matched: usize,
    pub mismatched: usize,
    pub errors: usize,
    pub without: usize,
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "expectations: {} matched, {} mismatched, {} errors, {} without expectation",
            self.matched, self.mismatched, self.errors, self.without
        )
    }
}

/// Compare; returns the tally and one line per mismatch or error.
pub fn compare(exp: &Expectations, reports: &[FileReport]) -> (Tally, Vec<String>) {
    let mut t = Tally::default();
    let mut lines = Vec::new();
    for r in reports {
        let want = exp.map.get(&canonical(&r.path));
        match (&r.result, want) {
            (Err(e), _) => {
                t.errors += 1;
                lines.push(format!("error: {}: {}", r.path.display(), e.message));
            }
            (Ok(_), None) => t.without += 1,
            (Ok(res), Some(&w)) => {
                if res.summary.verdict == w {
                    t.matched += 1;
                } else {
                    t.mismatched += 1;
                    lines.push(format!("mismatch: {}: expected {:?}, got {:?}", r.path.display(), w, res.summary.verdict));
                }
            }
        }
    }
    (t, lines)
}
