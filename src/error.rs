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

#[derive(Clone, Debug)]
pub struct Error {
    pub kind: ErrorKind,
    /// One sentence saying what is wrong and what was expected.
    pub message: String,
    /// Where, when the error is about a place in the file.
    pub span: Option<Span>,
}

impl Error {
    pub fn input(message: impl Into<String>, span: Span) -> Self {
        Error { kind: ErrorKind::Input, message: message.into(), span: Some(span) }
    }
    pub fn input_nospan(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Input, message: message.into(), span: None }
    }
    pub fn limit(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Limit, message: message.into(), span: None }
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Internal, message: message.into(), span: None }
    }
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::Input => EXIT_INPUT,
            ErrorKind::Limit | ErrorKind::Internal => EXIT_INTERNAL,
        }
    }

    /// `file:line:col: error: message` followed by the source line and a caret.
    pub fn render(&self, file: &str, source: &str) -> String {
        let label = match self.kind {
            ErrorKind::Input => "error",
            ErrorKind::Limit => "limit",
            ErrorKind::Internal => "internal error",
        };
        match self.span {
            Some(sp) => {
                let line_text = source.lines().nth(sp.line.saturating_sub(1)).unwrap_or("");
                let shown: String = line_text.chars().take(200).collect();
                let caret_pad: String = shown
                    .chars()
                    .take(sp.col.saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                format!(
                    "{}:{}:{}: {}: {}\n{:>5} | {}\n      | {}^",
                    file, sp.line, sp.col, label, self.message, sp.line, shown, caret_pad
                )
            }
            None => format!("{}: {}: {}", file, label, self.message),
        }
    }
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

pub type Result<T> = std::result::Result<T, Error>;
