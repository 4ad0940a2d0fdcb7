//! Text, JSON and the directory summary of `advise`.

use super::{Advice, Answer, Change};
use crate::ast::Quantifier;

fn quant(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    }
}

/// Where a change is: `P0 line 7` in the test's file, or for an instruction
/// inlined from a PTX module `P0 FUNC (m.ptx) line 64` (D254).
fn place(c: &Change) -> String {
    let after = if c.action == "insert" { "after " } else { "" };
    match &c.module {
        Some(m) => format!("P{} {} ({}) {}line {}", c.thread, m.function, m.file, after, c.line),
        None => format!("P{} {}line {}", c.thread, after, c.line),
    }
}

fn change_line(c: &Change, width: usize) -> String {
    let place = place(c);
    let before = match c.action {
        "insert" => "(new fence)".to_string(),
        _ => c.before.clone(),
    };
    let after = if c.action == "remove" { "(removed)".to_string() } else { c.after.clone() };
    format!("{:<16} {:<w$}  ->  {}", place, before, after, w = width)
}

fn answer_text(out: &mut String, label: &str, a: &Answer, width: usize) {
    let pad = " ".repeat(label.len());
    for (k, c) in a.changes.iter().enumerate() {
        let head = if k == 0 { label } else { pad.as_str() };
        out.push_str(&format!("  {}{}\n", head, change_line(c, width)));
    }
    out.push_str(&format!("  {}now forbidden by {}\n", pad, a.forbidden_by));
}

fn width(answers: &[&Answer]) -> usize {
    answers
        .iter()
        .flat_map(|a| a.changes.iter())
        .map(|c| if c.action == "insert" { 11 } else { c.before.chars().count() })
        .max()
        .unwrap_or(0)
}

/// The text report of one test.
pub fn text(a: &Advice) -> String {
    let mut out = String::new();
    let v = format!("{}: {:?}", quant(a.quantifier), a.verdict);
    if a.reachable {
        match a.min_cost {
            Some(c) => {
                let n = a.repairs.len();
                let what = if n == 1 { "the cheapest repair".to_string() } else { format!("{} cheapest repairs", n) };
                out.push_str(&format!(
                    "Test {}: the outcome is allowed ({}); to forbid it, {} (cost {}):\n",
                    a.test, v, what, c
                ));
                let all: Vec<&Answer> = a.repairs.iter().collect();
                let w = width(&all);
                for (k, r) in a.repairs.iter().enumerate() {
                    answer_text(&mut out, &format!("{}. ", k + 1), r, w);
                }
            }
            None if a.repairs.is_empty() && a.weakenings.is_empty() && a.queries == 0 => {
                out.push_str(&format!("Test {}: the outcome is allowed ({}); nothing to weaken\n", a.test, v));
            }
            None => out.push_str(&format!(
                "Test {}: the outcome is allowed ({}); no change from the menu forbids it\n",
                a.test, v
            )),
        }
        return out;
    }
    if a.weakenings.is_empty() {
        out.push_str(&format!(
            "Test {}: the outcome is forbidden ({}); nothing can be weakened and keep it forbidden\n",
            a.test, v
        ));
        return out;
    }
    out.push_str(&format!(
        "Test {}: the outcome is forbidden ({}); these can be weakened one at a time and it stays forbidden:\n",
        a.test, v
    ));
    let mut all: Vec<&Answer> = a.weakenings.iter().collect();
    all.extend(a.maximal_weakening.iter());
    let w = width(&all);
    for r in &a.weakenings {
        answer_text(&mut out, "- ", r, w);
    }
    if let Some(m) = &a.maximal_weakening {
        out.push_str("One maximal set of simultaneous weakenings:\n");
        answer_text(&mut out, "* ", m, w);
    }
    out
}

/// One JSON object per test.
pub fn json(a: &Advice, path: &str, written: &[std::path::PathBuf]) -> serde_json::Value {
    let mut v = serde_json::to_value(a).unwrap_or(serde_json::Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.insert("file".into(), path.into());
        let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        o.insert("written".into(), files.into());
    }
    v
}

/// A row of the directory summary.
pub fn summary_row(path: &str, a: &Advice) -> String {
    let cost = a.min_cost.map_or("-".to_string(), |c| c.to_string());
    let repairs = if a.reachable { a.repairs.len().to_string() } else { "-".into() };
    let mut sites: Vec<(usize, usize)> =
        a.weakenings.iter().flat_map(|w| w.changes.iter().map(|c| (c.thread, c.line))).collect();
    sites.sort();
    sites.dedup();
    let weak = if a.reachable { "-".to_string() } else { sites.len().to_string() };
    let outcome = if a.reachable { "allowed" } else { "forbidden" };
    format!(
        "{:<56} {:<3} {:<10} {:>6} {:>8} {:>11} {:>9.1}",
        path,
        format!("{:?}", a.verdict),
        outcome,
        cost,
        repairs,
        weak,
        a.time_ms
    )
}

pub fn summary_header() -> String {
    format!(
        "{:<56} {:<3} {:<10} {:>6} {:>8} {:>11} {:>9}",
        "test", "ver", "outcome", "cost", "repairs", "weakenable", "ms"
    )
}

/// The JSON object of a file that failed.
pub fn failure_json(path: &str, e: &crate::error::Error) -> serde_json::Value {
    let kind = match e.kind {
        crate::error::ErrorKind::Input => "input",
        crate::error::ErrorKind::Limit => "limit",
        crate::error::ErrorKind::Internal => "internal",
    };
    serde_json::json!({ "file": path, "error": { "kind": kind, "message": e.message } })
}
