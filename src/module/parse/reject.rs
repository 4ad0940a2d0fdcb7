//! What the module parser refuses, and where: scopes nested too deep (checked
//! before parsing), text the grammar does not match, and a statement it
//! matches only as unread (its error is raised when its function is inlined).

use super::{PtxParser, Reader, Rule, MAX_SCOPE_DEPTH};
use crate::error::{Error, Result};
use crate::parse::text::Src;
use pest::iterators::Pair;
use pest::Parser;

/// `{ }` nesting is bounded before parsing, so the parser never recurses
/// deeply. Braces inside comments and strings are not scopes: they are skipped
/// as the grammar skips them (`//` to the end of the line, `/* ... */`, `"..."`).
pub(super) fn check_depth(src: &Src) -> Result<()> {
    let text = src.text;
    let (mut depth, mut i) = (0usize, 0usize);
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        let skip_to = if rest.starts_with("//") {
            Some(rest.find('\n').map_or(text.len(), |n| i + n))
        } else if let Some(body) = rest.strip_prefix("/*") {
            Some(body.find("*/").map_or(text.len(), |n| i + 2 + n + 2))
        } else if c == '"' {
            Some(rest[1..].find('"').map_or(text.len(), |n| i + 1 + n + 1))
        } else {
            None
        };
        if let Some(end) = skip_to {
            i = end;
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_SCOPE_DEPTH {
            return Err(Error::input(
                format!("scopes are nested deeper than {} levels", MAX_SCOPE_DEPTH),
                src.span(i, i + 1),
            ));
        }
        i += c.len_utf8();
    }
    Ok(())
}

/// A pest error as one sentence at its place.
pub(super) fn syntax(e: pest::error::Error<Rule>, src: &Src) -> Error {
    let at = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let at = crate::parse::text::skip_blank(src.text, at);
    let found: String = src.text[at..].chars().take_while(|c| !c.is_whitespace()).take(20).collect();
    let what = if found.is_empty() { "the end of the module".to_string() } else { format!("`{}`", found) };
    Error::input(
        format!("unexpected {} in this PTX module: expected a directive, a declaration or an instruction", what),
        src.span(at, at + 1),
    )
}

impl Reader<'_> {
    /// Why a statement is not read, at the place in it where reading stops.
    pub(super) fn unread(&self, pair: Pair<Rule>) -> Error {
        let start = pair.as_span().start();
        let stmt = pair.as_str();
        let at = match PtxParser::parse(Rule::lone_instr, stmt) {
            Err(e) => match e.location {
                pest::error::InputLocation::Pos(p) => p,
                pest::error::InputLocation::Span((s, _)) => s,
            },
            Ok(_) => 0,
        };
        let at = crate::parse::text::skip_blank(self.src.text, start + at);
        let found: String = self.src.text[at..].chars().take_while(|c| !c.is_whitespace()).take(20).collect();
        Error::input(
            format!("cannot read `{}` in this statement: it is not an instruction form this checker knows", found),
            self.src.span(at, at + 1),
        )
    }
}
