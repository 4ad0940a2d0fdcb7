//! The one parser of model text (`super::algebra`): a whole `.cat` file
//! (the built-in models in `models/`, or a user's `--model FILE.cat`) or one
//! statement, with cat's precedence (`|` < `;` < `\` < `&` < postfix).
//!
//! A model file (D130) is herd-style: an optional description comment, the
//! title (a quoted name, as herd's cat files open), `option` lines, then the
//! statements. The comment directly before a statement is its row's ISA
//! section (first word) and quoted sentence (the rest); other comments are
//! ignored. Every error carries the line and column it is about.//!
//! The parts: `lex` cuts the text into tokens with their line and column,
//! `grammar` reads statements and expressions from them; this file reads a
//! file's title, options and rows (each with the comment before it).

mod grammar;
mod lex;

use super::algebra::Stmt;
use grammar::Parser;
use lex::{tokens, Located, Tok};

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
    let mut p = Parser { toks: &toks, at: 0, end: end_of(text), nesting: 0 };
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
    let mut p = Parser { toks: &toks, at: 0, end: (1, text.len() + 1), nesting: 0 };
    let stmt = p.stmt().map_err(|e| format!("`{}`: {}", text, e.message))?;
    match p.peek() {
        None => Ok(stmt),
        Some(t) => Err(format!("`{}`: unexpected {} at the end", text, t)),
    }
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
