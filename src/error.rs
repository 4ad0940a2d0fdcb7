//! Errors: user errors (bad input, exit code 2) are kept apart from limits hit
//! (exit code 3) and internal bugs (exit code 3). Every user error carries a location.

use crate::ast::Span;
use std::fmt;

/// Exit codes documented in `--help`.
pub const EXIT_OK: i32 = 0;
pub const EXIT_MISMATCH: i32 = 1;
pub const EXIT_INPUT: i32 = 2;
pub const EXIT_INTERNAL: i32 = 3;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Malformed or unsupported input: exit code 2.
    Input,
    /// A limit (events, unroll, time, size) was hit: exit code 3.
    Limit,
    /// A bug in ptx-litmus: exit code 3.
    Internal,
}

/// The file an error's span points into when it is not the litmus file (a
/// PTX module), and the function and thread that ran the instruction.
#[derive(Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    pub source: std::sync::Arc<str>,
    /// `in FUNC, called from P1`.
    pub context: String,
}

impl Origin {
    /// The function an inlined instruction comes from: `FUNC` of the
    /// context `in FUNC, called from P1` (none for a whole module's origin).
    pub fn function(&self) -> Option<&str> {
        self.context.strip_prefix("in ")?.split(", called from ").next()
    }
}

#[derive(Clone, Debug)]
pub struct Error {
    pub kind: ErrorKind,
    /// One sentence saying what is wrong and what was expected.
    pub message: String,
    /// Where, when the error is about a place in the file.
    pub span: Option<Span>,
    /// A span into another file (a PTX module) than the one being checked.
    pub(crate) origin: Option<std::sync::Arc<Origin>>,
}

impl Error {
    pub fn input(message: impl Into<String>, span: Span) -> Self {
        Error { kind: ErrorKind::Input, message: message.into(), span: Some(span), origin: None }
    }
    pub(crate) fn input_nospan(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Input, message: message.into(), span: None, origin: None }
    }
    pub fn limit(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Limit, message: message.into(), span: None, origin: None }
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Internal, message: message.into(), span: None, origin: None }
    }
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::Input => EXIT_INPUT,
            ErrorKind::Limit | ErrorKind::Internal => EXIT_INTERNAL,
        }
    }

    /// `file:line:col: error: message` followed by the source line and a caret.
    pub fn render(&self, file: &str, source: &str) -> String {
        if let Some(o) = &self.origin {
            let message =
                if o.context.is_empty() { self.message.clone() } else { format!("{} ({})", self.message, o.context) };
            let inner = Error { origin: None, message, ..self.clone() };
            return inner.render(&o.file, &o.source);
        }
        let label = match self.kind {
            ErrorKind::Input => "error",
            ErrorKind::Limit => "limit",
            ErrorKind::Internal => "internal error",
        };
        match self.span {
            Some(sp) => {
                let line_text = source.lines().nth(sp.line.saturating_sub(1)).unwrap_or("");
                let (shown, caret_col) = window(line_text, sp.col);
                let caret_pad: String =
                    shown.chars().take(caret_col).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
                // The gutter grows with the line number so the caret stays under the column.
                let w = sp.line.to_string().len().max(5);
                format!(
                    "{}:{}:{}: {}: {}\n{:>w$} | {}\n{:w$} | {}^",
                    file, sp.line, sp.col, label, self.message, sp.line, shown, "", caret_pad
                )
            }
            None => format!("{}: {}: {}", file, label, self.message),
        }
    }
}

/// Longest source line shown whole; longer ones are cut around the column.
const MAX_SHOWN: usize = 200;

/// The part of `line` to show and the caret's position in it (0-based chars):
/// a long line is cut to `MAX_SHOWN` characters around column `col`, marked
/// with `...` where cut, so the caret always sits under the error.
fn window(line: &str, col: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let at = col.saturating_sub(1);
    if chars.len() <= MAX_SHOWN {
        return (line.to_string(), at);
    }
    let start = at.saturating_sub(MAX_SHOWN / 2).min(chars.len().saturating_sub(MAX_SHOWN));
    let end = (start + MAX_SHOWN).min(chars.len());
    let mut s = String::new();
    if start > 0 {
        s.push_str("...");
    }
    s.extend(&chars[start..end]);
    if end < chars.len() {
        s.push_str("...");
    }
    (s, at - start + if start > 0 { 3 } else { 0 })
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span {
            Some(sp) => write!(f, "{}:{}: {}", sp.line, sp.col, self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Point an error with a span at `origin` (an instruction of a PTX module),
    /// unless it already points somewhere else.
    pub(crate) fn in_origin(mut self, origin: &Option<std::sync::Arc<Origin>>) -> Self {
        if self.origin.is_none() && self.span.is_some() {
            self.origin = origin.clone();
        }
        self
    }
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    fn caret_under(rendered: &str) -> (char, usize) {
        let lines: Vec<&str> = rendered.lines().collect();
        let pos = lines[2].find('^').unwrap();
        (lines[1].chars().nth(pos).unwrap(), pos)
    }

    #[test]
    fn carets_stay_under_the_column_on_long_lines_and_wide_gutters() {
        let line = format!("{}X{}", "a".repeat(500), "b".repeat(500));
        let e = Error::input("bad", Span { line: 1, col: 501, start: 0, end: 0 });
        assert_eq!(caret_under(&e.render("f", &line)).0, 'X');
        let src = format!("{}Y", "\n".repeat(123_456));
        let e = Error::input("bad", Span { line: 123_457, col: 1, start: 0, end: 0 });
        let r = e.render("f", &src);
        assert_eq!(caret_under(&r).0, 'Y', "{}", r);
        // Short lines and small numbers keep the old layout exactly.
        let e = Error::input("bad", Span { line: 6, col: 2, start: 0, end: 0 });
        assert_eq!(e.render("f", "\n\n\n\n\n xyz"), "f:6:2: error: bad\n    6 |  xyz\n      |  ^");
    }
}
