//! The tokens of model text (herd's cat syntax, as much as the models use): names (which may contain `-` and
//! `.`), symbols, quoted strings and `(* ... *)` comments, each with its 1-based line and column.

use super::CatError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Word(String),
    Sym(&'static str),
    /// A quoted string (the model's title).
    Str(String),
    /// `(* ... *)`, its text trimmed.
    Comment(String),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "`{}`", w),
            Tok::Sym(s) => write!(f, "`{}`", s),
            Tok::Str(s) => write!(f, "the string \"{}\"", s),
            Tok::Comment(_) => write!(f, "a comment"),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Located {
    pub(super) tok: Tok,
    pub(super) line: usize,
    pub(super) col: usize,
}

impl Located {
    pub(super) fn is_comment(&self) -> bool {
        matches!(self.tok, Tok::Comment(_))
    }
}

const SYMS: [&str; 14] = ["^-1", "(", ")", "[", "]", "|", "&", "\\", ";", "+", "*", "?", "~", "="];

/// The text's tokens, each with its line and column.
pub(super) fn tokens(text: &str) -> Result<Vec<Located>, CatError> {
    let mut out = Vec::new();
    let (mut line, mut col) = (1, 1);
    let mut rest = text;
    // Moves past `len` bytes of `rest`, counting lines and columns.
    let advance = |rest: &mut &str, len: usize, line: &mut usize, col: &mut usize| {
        for c in rest[..len].chars() {
            if c == '\n' {
                (*line, *col) = (*line + 1, 1);
            } else {
                *col += 1;
            }
        }
        *rest = &rest[len..];
    };
    loop {
        let blank = rest.len() - rest.trim_start().len();
        advance(&mut rest, blank, &mut line, &mut col);
        if rest.is_empty() {
            return Ok(out);
        }
        let (tok, len) = token(rest).map_err(|message| CatError { line, col, message })?;
        out.push(Located { tok, line, col });
        advance(&mut rest, len, &mut line, &mut col);
    }
}

/// The token at the start of `rest` and its length in bytes.
fn token(rest: &str) -> Result<(Tok, usize), String> {
    if let Some(body) = rest.strip_prefix("(*") {
        let end = body.find("*)").ok_or("a comment `(*` is never closed by `*)`")?;
        return Ok((Tok::Comment(body[..end].trim().to_string()), end + 4));
    }
    if let Some(body) = rest.strip_prefix('"') {
        let end = body.find(['"', '\n']).filter(|&i| body[i..].starts_with('"'));
        let end = end.ok_or("a string `\"` is not closed on its line")?;
        return Ok((Tok::Str(body[..end].to_string()), end + 2));
    }
    if let Some(s) = SYMS.iter().find(|s| rest.starts_with(**s)) {
        return Ok((Tok::Sym(s), s.len()));
    }
    // Names may contain `-` and `.` (`Fence-SC`, `proxy-preserved`).
    let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.')).unwrap_or(rest.len());
    if len == 0 {
        return Err(format!("unexpected character `{}`", rest.chars().next().unwrap_or(' ')));
    }
    Ok((Tok::Word(rest[..len].to_string()), len))
}
