//! The records of one shard's output, as `merge` reads them: a herd log's
//! `Test` blocks, JSON lines, or `map`'s text blocks, each with the key that
//! must be unique over the sweep, and the trailer line that ends the output.

use crate::ast::Span;
use crate::error::Error;
use crate::shard::Trailer;

/// One test's result as its output wrote it.
#[derive(Clone, Debug)]
pub struct Record {
    /// Unique over a sweep: the test name (herd logs, `map` text) or the file (JSON lines).
    pub key: String,
    pub name: String,
    /// Its text, ending with a newline (a herd block with its blank line).
    pub text: String,
    /// Seconds the test took, where the output says.
    pub seconds: Option<f64>,
}

/// One output read: its records in order and its trailer.
#[derive(Debug)]
pub struct Output {
    pub records: Vec<Record>,
    pub trailer: Trailer,
}

fn at(line: usize, col: usize) -> Span {
    Span { line, col, start: 0, end: 0 }
}

/// Read one shard's output; `Err` is an input error at its line.
pub fn read(text: &str) -> Result<Output, Error> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(last) = lines.iter().rposition(|l| !l.trim().is_empty()) else {
        return Err(Error::input("the file is empty: no shard's output", at(1, 1)));
    };
    let trailer = Trailer::read(lines[last]).ok_or_else(|| {
        Error::input(
            "the last line is not a shard trailer: this is not the complete output of a --shard or --output run",
            at(last + 1, 1),
        )
    })?;
    let body = &lines[..last];
    let records = match (trailer.format.as_str(), trailer.command.as_str()) {
        ("herd", _) => herd(body)?,
        ("json", _) => json(body)?,
        ("text", "map") => map_text(body)?,
        (f, c) => {
            let msg = format!("`{}` output in the {} format cannot be merged: run it with --json", c, f);
            return Err(Error::input(msg, at(last + 1, 1)));
        }
    };
    Ok(Output { records, trailer })
}

/// A herd log: blocks from `Test NAME KIND` to their blank line.
fn herd(lines: &[&str]) -> Result<Vec<Record>, Error> {
    let mut out: Vec<Record> = Vec::new();
    let mut open = false;
    for (i, l) in lines.iter().enumerate() {
        if let Some(head) = l.strip_prefix("Test ") {
            let name = head.split(' ').next().unwrap_or_default().to_string();
            out.push(Record { key: name.clone(), name, text: String::new(), seconds: None });
            open = true;
        } else if l.trim().is_empty() {
            if open {
                out.last_mut().expect("open block").text.push('\n');
            }
            open = false;
            continue;
        } else if !open {
            return Err(Error::input("a line outside any `Test` block of the herd log", at(i + 1, 1)));
        }
        let r = out.last_mut().expect("open block");
        if let Some(rest) = l.strip_prefix("Time ") {
            r.seconds = rest.rsplit(' ').next().and_then(|s| s.parse().ok());
        }
        r.text.push_str(l);
        r.text.push('\n');
    }
    if open {
        out.last_mut().expect("open block").text.push('\n');
    }
    Ok(out)
}

/// JSON lines: one object per test, keyed by its file.
fn json(lines: &[&str]) -> Result<Vec<Record>, Error> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(l)
            .map_err(|e| Error::input(format!("not a JSON object: {}", e), at(i + 1, e.column().max(1))))?;
        let text_of = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let Some(file) = text_of("file") else {
            return Err(Error::input("a JSON line without its test's `file`", at(i + 1, 1)));
        };
        let ms = |x: Option<&serde_json::Value>| x.and_then(|t| t.get("time_ms")).and_then(|t| t.as_f64());
        // `map` gives both sides' times, `check` its own.
        let seconds = ms(Some(&v)).or_else(|| Some(ms(v.get("source"))? + ms(v.get("target"))?)).map(|m| m / 1000.0);
        let name = text_of("name").or_else(|| text_of("test")).unwrap_or_else(|| file.clone());
        out.push(Record { key: file, name, text: format!("{}\n", l), seconds });
    }
    Ok(out)
}

/// Whether `l` is `map`'s summary line (`N tests: sound ...`), which `merge` writes anew.
pub fn is_map_summary(l: &str) -> bool {
    l.split_once(" tests: sound ").is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `map`'s text: blocks from `Map NAME (...)` to the next.
fn map_text(lines: &[&str]) -> Result<Vec<Record>, Error> {
    let mut out: Vec<Record> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if is_map_summary(l) {
            continue;
        }
        if let Some(head) = l.strip_prefix("Map ") {
            let name = head.split(' ').next().unwrap_or_default().to_string();
            out.push(Record { key: name.clone(), name, text: String::new(), seconds: None });
        }
        let Some(r) = out.last_mut() else {
            return Err(Error::input("a line before the first `Map` block", at(i + 1, 1)));
        };
        r.text.push_str(l);
        r.text.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trailer(format: &str, command: &str) -> String {
        Trailer { command: command.into(), format: format.into(), tests: 2, total: 2, ..Default::default() }.line()
    }

    #[test]
    fn herd_blocks_json_lines_and_map_blocks_are_records() {
        let log =
            format!("Test A Allowed\nStates 1\nTime A 0.25\n\nTest B Allowed\nOk\n\n{}", trailer("herd", "check"));
        let o = read(&log).unwrap();
        assert_eq!(o.records.iter().map(|r| r.key.as_str()).collect::<Vec<_>>(), ["A", "B"]);
        assert_eq!(o.records[0].text, "Test A Allowed\nStates 1\nTime A 0.25\n\n");
        assert_eq!(o.records[0].seconds, Some(0.25));
        let lines = format!("{{\"file\":\"a.litmus\",\"name\":\"A\",\"time_ms\":5}}\n{}", trailer("json", "check"));
        let o = read(&lines).unwrap();
        assert_eq!((o.records[0].key.as_str(), o.records[0].seconds), ("a.litmus", Some(0.005)));
        let map = format!("Map A (x) sound: 1\nMap B (x) UNSOUND: 1\n  more\n2 tests: sound 1, unsound 1, racy 0, errors 0, limits 0, wall time 1.00 s\n{}", trailer("text", "map"));
        let o = read(&map).unwrap();
        assert_eq!(o.records[1].text, "Map B (x) UNSOUND: 1\n  more\n");
    }

    #[test]
    fn an_output_cut_short_or_garbled_is_an_input_error_at_its_line() {
        let e = read("Test A Allowed\nStates 1\n").unwrap_err();
        assert_eq!(e.span.map(|s| s.line), Some(2));
        assert!(e.message.contains("not a shard trailer"));
        let e = read(&format!("stray\n{}", trailer("herd", "check"))).unwrap_err();
        assert_eq!(e.span.map(|s| (s.line, s.col)), Some((1, 1)));
        let e = read(&format!("{{\"file\": 1,\n{}", trailer("json", "check"))).unwrap_err();
        assert_eq!(e.span.map(|s| s.line), Some(1));
        assert!(read("").is_err());
        assert!(read(&trailer("text", "run")).unwrap_err().message.contains("--json"));
    }
}
