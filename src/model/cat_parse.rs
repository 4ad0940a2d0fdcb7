//! The one parser of model text (`super::algebra`): a whole `.cat` file
//! (the built-in models in `models/`, or a user's `--model FILE.cat`) or one
//! statement, with cat's precedence (`|` < `;` < `\` < `&` < postfix).
//!
//! A model file (D130) is herd-style: an optional description comment, the
//! title (a quoted name, as herd's cat files open), `option` lines, then the
//! statements. The comment directly before a statement is its row's ISA
//! section (first word) and quoted sentence (the rest); other comments are
//! ignored. Every error carries the line and column it is about.

use super::algebra::{CheckKind, Expr, SetExpr, Stmt};

/// Builds a binary node of an expression tree from its two operands.
type BinaryMaker<E> = fn(Box<E>, Box<E>) -> E;

/// A syntax error in model text: where (1-based line and column) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

/// One statement of a model file, with the comment before it and where it starts.
#[derive(Clone, Debug)]
pub(crate) struct ParsedRow {
    pub section: String,
    pub sentence: String,
    pub stmt: Stmt,
    /// Every name token of the statement with its line and column (for errors
    /// found after parsing, such as a name that denotes nothing).
    pub names: Vec<(String, usize, usize)>,
    pub line: usize,
    pub col: usize,
}

/// A model file, parsed (names not yet resolved: `super::rows::Model::parse`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ParsedModel {
    pub title: Option<String>,
    pub(crate) description: String,
    pub(crate) split_rmw: bool,
    pub(crate) c_tests: bool,
    pub rows: Vec<ParsedRow>,
}

/// What `option NAME` may say (D130).
pub const OPTIONS: [(&str, &str); 2] = [
    ("split-rmw", "read-modify-writes are a read event and a write event linked by `rmw` (D50)"),
    ("c11", "the model decides C tests (litmus C); its rows may read the C orders"),
];

/// Parse a whole model file.
pub(crate) fn parse_model(text: &str) -> Result<ParsedModel, CatError> {
    let all = tokens(text)?;
    // Comments are kept apart: the one just before a statement is its row's.
    let toks: Vec<Located> = all.iter().filter(|t| !matches!(t.tok, Tok::Comment(_))).cloned().collect();
    let comment_before = |at: usize| -> Option<String> {
        let (line, col) = (toks[at].line, toks[at].col);
        let k = all.iter().position(|t| t.line == line && t.col == col)?;
        match k.checked_sub(1).map(|j| &all[j].tok) {
            Some(Tok::Comment(c)) => Some(c.clone()),
            _ => None,
        }
    };
    let mut m = ParsedModel::default();
    let mut p = Parser { toks: &toks, at: 0, end: end_of(text) };
    if let Some(Tok::Str(title)) = p.peek() {
        m.title = Some(title.clone());
        m.description = comment_before(0).unwrap_or_default();
        p.at += 1;
    }
    while matches!(p.peek(), Some(Tok::Word(w)) if w == "option") {
        p.at += 1;
        let (line, col) = p.here();
        match p.word()?.as_str() {
            "split-rmw" => m.split_rmw = true,
            "c11" => m.c_tests = true,
            other => {
                let known: Vec<&str> = OPTIONS.iter().map(|o| o.0).collect();
                let message = format!("unknown option `{}` (known: {})", other, known.join(", "));
                return Err(CatError { line, col, message });
            }
        }
    }
    while p.peek().is_some() {
        let (start, (line, col)) = (p.at, p.here());
        let stmt = p.stmt()?;
        let comment = comment_before(start).unwrap_or_default();
        let comment = comment.trim();
        let (section, sentence) = comment.split_once(char::is_whitespace).unwrap_or((comment, ""));
        let names = toks[start..p.at]
            .iter()
            .filter_map(|t| match &t.tok {
                Tok::Word(w) => Some((w.clone(), t.line, t.col)),
                _ => None,
            })
            .collect();
        m.rows.push(ParsedRow {
            section: section.to_string(),
            sentence: sentence.trim().to_string(),
            stmt,
            names,
            line,
            col,
        });
    }
    Ok(m)
}

/// Just after the last character that is not blank (where a missing token is).
fn end_of(text: &str) -> (usize, usize) {
    let body = text.trim_end();
    let last = body.rsplit('\n').next().unwrap_or("");
    (1 + body.matches('\n').count(), last.chars().count() + 1)
}

/// Parse one statement (`let NAME = EXPR` or `acyclic|irreflexive|empty EXPR as NAME`).
pub(crate) fn parse_stmt(text: &str) -> Result<Stmt, String> {
    let toks: Vec<Located> = tokens(text)
        .map_err(|e| format!("`{}`: {}", text, e.message))?
        .into_iter()
        .filter(|t| !t.is_comment())
        .collect();
    let mut p = Parser { toks: &toks, at: 0, end: (1, text.len() + 1) };
    let stmt = p.stmt().map_err(|e| format!("`{}`: {}", text, e.message))?;
    match p.peek() {
        None => Ok(stmt),
        Some(t) => Err(format!("`{}`: unexpected {} at the end", text, t)),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
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
struct Located {
    tok: Tok,
    line: usize,
    col: usize,
}

impl Located {
    fn is_comment(&self) -> bool {
        matches!(self.tok, Tok::Comment(_))
    }
}

const SYMS: [&str; 14] = ["^-1", "(", ")", "[", "]", "|", "&", "\\", ";", "+", "*", "?", "~", "="];

/// The text's tokens, each with its line and column.
fn tokens(text: &str) -> Result<Vec<Located>, CatError> {
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

struct Parser<'t> {
    toks: &'t [Located],
    at: usize,
    /// Where the text ends (errors about a missing token point there).
    end: (usize, usize),
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.tok)
    }

    /// The line and column of the next token (or of the end of the text).
    fn here(&self) -> (usize, usize) {
        self.toks.get(self.at).map_or(self.end, |t| (t.line, t.col))
    }

    fn error(&self, message: String) -> CatError {
        let (line, col) = self.here();
        CatError { line, col, message }
    }

    /// What the next token is, for an error message.
    fn found(&self) -> String {
        self.peek().map_or_else(|| "the end of the text".to_string(), |t| t.to_string())
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.peek().cloned();
        self.at += 1;
        t
    }

    fn expect(&mut self, sym: &'static str) -> Result<(), CatError> {
        if self.peek() == Some(&Tok::Sym(sym)) {
            self.at += 1;
            return Ok(());
        }
        Err(self.error(format!("expected `{}`, found {}", sym, self.found())))
    }

    fn word(&mut self) -> Result<String, CatError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.at += 1;
                Ok(w)
            }
            _ => Err(self.error(format!("expected a name, found {}", self.found()))),
        }
    }

    /// One statement: `let NAME = EXPR` or `acyclic|irreflexive|empty EXPR as NAME`.
    fn stmt(&mut self) -> Result<Stmt, CatError> {
        let kind = match self.peek() {
            Some(Tok::Word(w)) if w == "let" => None,
            Some(Tok::Word(w)) if w == "acyclic" => Some(CheckKind::Acyclic),
            Some(Tok::Word(w)) if w == "irreflexive" => Some(CheckKind::Irreflexive),
            Some(Tok::Word(w)) if w == "empty" => Some(CheckKind::Empty),
            _ => {
                let msg = format!(
                    "expected a statement (`let`, `acyclic`, `irreflexive` or `empty`), found {}",
                    self.found()
                );
                return Err(self.error(msg));
            }
        };
        self.at += 1;
        let Some(kind) = kind else {
            let name = self.word()?;
            self.expect("=")?;
            return Ok(Stmt::Let { name, expr: self.expr(0)? });
        };
        let expr = self.expr(0)?;
        match self.peek() {
            Some(Tok::Word(a)) if a == "as" => self.at += 1,
            _ => return Err(self.error(format!("a check ends with `as NAME`, found {}", self.found()))),
        }
        Ok(Stmt::Check { kind, expr, name: self.word()? })
    }

    /// Binary operators of level >= `min`, left-associative.
    fn expr(&mut self, min: u8) -> Result<Expr, CatError> {
        let mut left = self.postfix()?;
        loop {
            let (l, make): (u8, BinaryMaker<Expr>) = match self.peek() {
                Some(Tok::Sym("|")) => (0, Expr::Union),
                Some(Tok::Sym(";")) => (1, Expr::Seq),
                Some(Tok::Sym("\\")) => (2, Expr::Diff),
                Some(Tok::Sym("&")) => (3, Expr::Inter),
                _ => return Ok(left),
            };
            if l < min {
                return Ok(left);
            }
            self.at += 1;
            let right = self.expr(l + 1)?;
            left = make(Box::new(left), Box::new(right));
        }
    }

    fn postfix(&mut self) -> Result<Expr, CatError> {
        let mut e = self.atom()?;
        loop {
            let make: fn(Box<Expr>) -> Expr = match self.peek() {
                Some(Tok::Sym("^-1")) => Expr::Inverse,
                Some(Tok::Sym("+")) => Expr::Plus,
                Some(Tok::Sym("*")) => Expr::Star,
                Some(Tok::Sym("?")) => Expr::Opt,
                _ => return Ok(e),
            };
            self.at += 1;
            e = make(Box::new(e));
        }
    }

    fn atom(&mut self) -> Result<Expr, CatError> {
        let err = self.error(format!("expected a relation, found {}", self.found()));
        match self.next() {
            Some(Tok::Sym("(")) => {
                let e = self.expr(0)?;
                self.expect(")")?;
                Ok(e)
            }
            Some(Tok::Sym("[")) => {
                let s = self.set(0)?;
                self.expect("]")?;
                Ok(Expr::Id(s))
            }
            Some(Tok::Word(w)) if self.peek() == Some(&Tok::Sym("(")) => {
                self.at += 1;
                let e = self.expr(0)?;
                self.expect(")")?;
                Ok(Expr::Call(w, Box::new(e)))
            }
            Some(Tok::Word(w)) if !is_keyword(&w) => Ok(Expr::Name(w)),
            _ => Err(err),
        }
    }

    fn set(&mut self, min: u8) -> Result<SetExpr, CatError> {
        let err = self.error(format!("expected an event set, found {}", self.found()));
        let mut left = match self.next() {
            Some(Tok::Sym("~")) => SetExpr::Compl(Box::new(self.set(3)?)),
            Some(Tok::Sym("(")) => {
                let s = self.set(0)?;
                self.expect(")")?;
                s
            }
            Some(Tok::Word(w)) if !is_keyword(&w) => SetExpr::Name(w),
            _ => return Err(err),
        };
        loop {
            let (l, make): (u8, BinaryMaker<SetExpr>) = match self.peek() {
                Some(Tok::Sym("|")) => (0, SetExpr::Union),
                Some(Tok::Sym("\\")) => (1, SetExpr::Diff),
                Some(Tok::Sym("&")) => (2, SetExpr::Inter),
                _ => return Ok(left),
            };
            if l < min {
                return Ok(left);
            }
            self.at += 1;
            let right = self.set(l + 1)?;
            left = make(Box::new(left), Box::new(right));
        }
    }
}

/// Words that start or end a statement, never names of relations.
fn is_keyword(w: &str) -> bool {
    matches!(w, "let" | "acyclic" | "irreflexive" | "empty" | "as" | "option")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_gives_title_options_rows_and_their_comments() {
        let text = "(* about *)\n\"toy\"\noption split-rmw\n\n(* 8.9.7 \"a sentence\" *)\nlet fr = rf^-1;\n  co\n\
                    (* loose *)\n\nacyclic po | fr as X\n";
        let m = parse_model(text).expect("parses");
        assert_eq!(
            (m.title.as_deref(), m.description.as_str(), m.split_rmw, m.c_tests),
            (Some("toy"), "about", true, false)
        );
        assert_eq!(m.rows.len(), 2);
        assert_eq!((m.rows[0].section.as_str(), m.rows[0].sentence.as_str()), ("8.9.7", "\"a sentence\""));
        assert_eq!(m.rows[0].stmt.to_string(), "let fr = rf^-1; co");
        // A comment separated from the statement by a blank line still directly precedes it.
        assert_eq!((m.rows[1].section.as_str(), m.rows[1].line, m.rows[1].col), ("loose", 10, 1));
        assert!(m.rows[1].names.contains(&("fr".to_string(), 10, 14)));
    }

    #[test]
    fn errors_say_where() {
        let cases = [
            ("\"m\"\nlet x = po |\n", (2, 13), "expected a relation, found the end"),
            ("\"m\"\noption fast\n", (2, 8), "unknown option `fast`"),
            ("let x = po\nacyclic x\n", (2, 10), "a check ends with `as NAME`"),
            ("let x = po $ rf", (1, 12), "unexpected character `$`"),
            ("(* open\nlet x = po", (1, 1), "never closed"),
            ("let x = po\nx as Y", (2, 1), "expected a statement"),
        ];
        for (text, at, what) in cases {
            let e = parse_model(text).expect_err(text);
            assert_eq!((e.line, e.col), at, "{}: {}", text, e.message);
            assert!(e.message.contains(what), "{}: {}", text, e.message);
        }
    }
}
