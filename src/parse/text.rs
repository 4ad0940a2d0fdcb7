//! Source text helpers: spans, a lexical pre-scan, integer literals.

use crate::ast::Span;
use crate::error::{Error, Result};

/// Deepest parenthesis nesting accepted (the grammar recurses on parentheses).
pub(crate) const MAX_PAREN_DEPTH: usize = 64;

/// The source text with a line index, to turn byte offsets into spans.
pub(crate) struct Src<'a> {
    pub text: &'a str,
    line_starts: Vec<usize>,
    /// Whether each line is ASCII: there a column is a byte offset, found
    /// without counting the characters before it (a long line has many spans).
    ascii_lines: Vec<bool>,
}

impl<'a> Src<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let ascii_lines = line_starts
            .iter()
            .enumerate()
            .map(|(k, &s)| text.as_bytes()[s..line_starts.get(k + 1).copied().unwrap_or(text.len())].is_ascii())
            .collect();
        Src { text, line_starts, ascii_lines }
    }

    /// 1-based line and column (in characters) of byte range `start..end`.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let start = start.min(self.text.len());
        let end = end.clamp(start, self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= start).max(1);
        let line_start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let col = match self.text.get(line_start..start) {
            Some(s) if !self.ascii_lines.get(line - 1).copied().unwrap_or(false) => s.chars().count() + 1,
            _ => start - line_start + 1,
        };
        Span { line, col, start, end }
    }

    pub(crate) fn pair_span<R: pest::RuleType>(&self, p: &pest::iterators::Pair<'_, R>) -> Span {
        let s = p.as_span();
        self.span(s.start(), s.end())
    }

    /// Span of `len` bytes at `offset` inside the text of `within`.
    pub(crate) fn sub_span(&self, within: Span, offset: usize, len: usize) -> Span {
        self.span(within.start + offset, within.start + offset + len)
    }
}

/// What the pre-scan sees at one place of the text.
enum Lexeme {
    Comment(usize),
    Str(usize),
    Char(char),
}

/// Which comments a text has: `.litmus` files also have herd's `<< ... >>`;
/// in a C test `<<` is the shift operator (C11 6.5.7).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comments {
    Litmus,
    C,
}

/// Classify the text at byte `i`: a comment or string (with its end), or a character.
fn lexeme(text: &str, i: usize) -> std::result::Result<Lexeme, (&'static str, usize)> {
    lexeme_in(text, i, Comments::Litmus)
}

fn lexeme_in(text: &str, i: usize, comments: Comments) -> std::result::Result<Lexeme, (&'static str, usize)> {
    let rest = &text[i..];
    if rest.starts_with("//") {
        return Ok(Lexeme::Comment(rest.find('\n').map_or(text.len(), |n| i + n)));
    }
    if let Some(body) = rest.strip_prefix("(*") {
        return match body.find("*)") {
            Some(n) => Ok(Lexeme::Comment(i + 2 + n + 2)),
            None => Err(("unterminated comment: expected `*)` to close this `(*`", i)),
        };
    }
    if let Some(body) = rest.strip_prefix("<<").filter(|_| comments == Comments::Litmus) {
        return match body.find(">>") {
            Some(n) => Ok(Lexeme::Comment(i + 2 + n + 2)),
            None => Err(("unterminated `<<`: expected `>>` to close it", i)),
        };
    }
    if let Some(body) = rest.strip_prefix('"') {
        return match body.find('"') {
            Some(n) => Ok(Lexeme::Str(i + 1 + n + 1)),
            None => Err(("unterminated string: expected a closing `\"`", i)),
        };
    }
    Ok(Lexeme::Char(rest.chars().next().unwrap_or(' ')))
}

/// Checks pest cannot report well: unterminated comments and strings, control
/// characters, empty input, and parenthesis nesting (bounded so that parsing
/// never recurses deeply).
pub(crate) fn prescan(src: &Src) -> Result<()> {
    prescan_in(src, Comments::Litmus)
}

/// [`prescan`] of a text with these comments.
pub(crate) fn prescan_in(src: &Src, comments: Comments) -> Result<()> {
    let text = src.text;
    let (mut i, mut depth, mut seen_token) = (0usize, 0usize, false);
    while i < text.len() {
        match lexeme_in(text, i, comments).map_err(|(m, at)| Error::input(m, src.span(at, at + 1)))? {
            Lexeme::Comment(end) => i = end,
            Lexeme::Str(end) => {
                seen_token = true;
                i = end;
            }
            Lexeme::Char(c) => {
                if c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{0C}') {
                    let msg = format!("unexpected control character U+{:04X}: a litmus test is plain text", c as u32);
                    return Err(Error::input(msg, src.span(i, i + c.len_utf8())));
                }
                seen_token |= !c.is_whitespace();
                if c == '(' {
                    depth += 1;
                    if depth > MAX_PAREN_DEPTH {
                        let msg = format!("parentheses are nested deeper than {} levels", MAX_PAREN_DEPTH);
                        return Err(Error::input(msg, src.span(i, i + 1)));
                    }
                } else if c == ')' {
                    depth = depth.saturating_sub(1);
                }
                i += c.len_utf8();
            }
        }
    }
    if !seen_token {
        return Err(Error::input("empty input: expected `PTX` followed by a test name", src.span(0, 0)));
    }
    Ok(())
}

/// The characters of `text` outside comments and strings, with their byte offsets
/// (after [`prescan_in`] accepted the text, so every comment and string is closed).
pub(crate) fn code_chars(text: &str, comments: Comments) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < text.len() {
            match lexeme_in(text, i, comments) {
                Ok(Lexeme::Comment(end)) | Ok(Lexeme::Str(end)) => i = end,
                Ok(Lexeme::Char(c)) => {
                    i += c.len_utf8();
                    return Some((i - c.len_utf8(), c));
                }
                Err(_) => i = text.len(),
            }
        }
        None
    })
}

/// Byte offset of the first character at or after `i` that is not whitespace or comment.
pub(crate) fn skip_blank(text: &str, mut i: usize) -> usize {
    while i < text.len() && text.is_char_boundary(i) {
        match lexeme(text, i) {
            Ok(Lexeme::Comment(end)) => i = end,
            Ok(Lexeme::Char(c)) if c.is_whitespace() => i += c.len_utf8(),
            _ => break,
        }
    }
    i
}

/// `text` without comments and with whitespace runs collapsed to one space.
pub(crate) fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < text.len() {
        match lexeme(text, i) {
            Ok(Lexeme::Comment(end)) => {
                out.push(' ');
                i = end;
            }
            Ok(Lexeme::Str(end)) => {
                out.push_str(&text[i..end]);
                i = end;
            }
            Ok(Lexeme::Char(c)) => {
                out.push(c);
                i += c.len_utf8();
            }
            Err(_) => {
                out.push_str(&text[i..]);
                break;
            }
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A decimal or `0x` hexadecimal integer, optionally negative, that must fit in i64.
pub(crate) fn parse_int(token: &str, span: Span) -> Result<i64> {
    let (neg, digits) = match token.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, token),
    };
    let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => u128::from_str_radix(hex, 16),
        None => digits.parse::<u128>(),
    };
    // A literal too large for .s64 is a .u64 (ISA 4.5.1): its 64-bit pattern.
    let value = magnitude.ok().and_then(|m| match (neg, u64::try_from(m)) {
        (false, Ok(u)) => Some(u as i64),
        (true, _) => i128::try_from(m).ok().and_then(|m| i64::try_from(-m).ok()),
        (false, Err(_)) => None,
    });
    value.ok_or_else(|| Error::input(format!("value `{}` does not fit in 64 bits", token), span))
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}
