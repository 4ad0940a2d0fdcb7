//! The parser of model rows (`super::algebra`): cat-style text to statements,
//! with cat's precedence (`|` < `;` < `\` < `&` < postfix).

use super::algebra::{CheckKind, Expr, SetExpr, Stmt};

/// Builds a binary node of an expression tree from its two operands.
type BinaryMaker<E> = fn(Box<E>, Box<E>) -> E;

/// Parse one statement (`let NAME = EXPR` or `acyclic|irreflexive|empty EXPR as NAME`).
pub fn parse_stmt(text: &str) -> Result<Stmt, String> {
    let mut p = Parser { toks: tokens(text)?, at: 0 };
    let stmt = match p.next() {
        Some(Tok::Word(w)) if w == "let" => {
            let name = p.word()?;
            p.expect(Tok::Sym("="))?;
            Stmt::Let { name, expr: p.expr(0)? }
        }
        Some(Tok::Word(w)) if matches!(w.as_str(), "acyclic" | "irreflexive" | "empty") => {
            let kind = match w.as_str() {
                "acyclic" => CheckKind::Acyclic,
                "irreflexive" => CheckKind::Irreflexive,
                _ => CheckKind::Empty,
            };
            let expr = p.expr(0)?;
            match p.next() {
                Some(Tok::Word(a)) if a == "as" => {}
                _ => return Err(format!("`{}`: a check ends with `as NAME`", text)),
            }
            Stmt::Check { kind, expr, name: p.word()? }
        }
        _ => return Err(format!("`{}`: a row starts with `let`, `acyclic`, `irreflexive` or `empty`", text)),
    };
    match p.next() {
        None => Ok(stmt),
        Some(t) => Err(format!("`{}`: unexpected {:?} at the end", text, t)),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Sym(&'static str),
}

const SYMS: [&str; 14] = ["^-1", "(", ")", "[", "]", "|", "&", "\\", ";", "+", "*", "?", "~", "="];

fn tokens(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        if let Some(s) = SYMS.iter().find(|s| rest.starts_with(**s)) {
            out.push(Tok::Sym(s));
            rest = &rest[s.len()..];
        } else {
            // Names may contain `-` and `.` (`Fence-SC`, `proxy-preserved`).
            let len =
                rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.')).unwrap_or(rest.len());
            if len == 0 {
                return Err(format!("`{}`: unexpected character `{}`", text, rest.chars().next().unwrap_or(' ')));
            }
            out.push(Tok::Word(rest[..len].to_string()));
            rest = &rest[len..];
        }
        rest = rest.trim_start();
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn expect(&mut self, t: Tok) -> Result<(), String> {
        match self.next() {
            Some(x) if x == t => Ok(()),
            x => Err(format!("expected {:?}, found {:?}", t, x)),
        }
    }

    fn word(&mut self) -> Result<String, String> {
        match self.next() {
            Some(Tok::Word(w)) => Ok(w),
            x => Err(format!("expected a name, found {:?}", x)),
        }
    }

    /// Binary operators of level >= `min`, left-associative.
    fn expr(&mut self, min: u8) -> Result<Expr, String> {
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

    fn postfix(&mut self) -> Result<Expr, String> {
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

    fn atom(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Tok::Sym("(")) => {
                let e = self.expr(0)?;
                self.expect(Tok::Sym(")"))?;
                Ok(e)
            }
            Some(Tok::Sym("[")) => {
                let s = self.set(0)?;
                self.expect(Tok::Sym("]"))?;
                Ok(Expr::Id(s))
            }
            Some(Tok::Word(w)) if self.peek() == Some(&Tok::Sym("(")) => {
                self.at += 1;
                let e = self.expr(0)?;
                self.expect(Tok::Sym(")"))?;
                Ok(Expr::Call(w, Box::new(e)))
            }
            Some(Tok::Word(w)) => Ok(Expr::Name(w)),
            x => Err(format!("expected a relation, found {:?}", x)),
        }
    }

    fn set(&mut self, min: u8) -> Result<SetExpr, String> {
        let mut left = match self.next() {
            Some(Tok::Sym("~")) => SetExpr::Compl(Box::new(self.set(3)?)),
            Some(Tok::Sym("(")) => {
                let s = self.set(0)?;
                self.expect(Tok::Sym(")"))?;
                s
            }
            Some(Tok::Word(w)) => SetExpr::Name(w),
            x => return Err(format!("expected an event set, found {:?}", x)),
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
