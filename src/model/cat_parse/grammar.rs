//! Statements and expressions of model text, with cat's precedence (`|` < `;` < `\` < `&` < postfix):
//! `let NAME = EXPR` and `acyclic|irreflexive|empty EXPR as NAME`.

use super::lex::{Located, Tok};
use super::CatError;
use crate::model::algebra::{CheckKind, Expr, SetExpr, Stmt};

/// Builds a binary node of an expression tree from its two operands.
type BinaryMaker<E> = fn(Box<E>, Box<E>) -> E;

/// Reads tokens from `at` on.
pub(super) struct Parser<'t> {
    pub(super) toks: &'t [Located],
    pub(super) at: usize,
    /// Where the text ends (errors about a missing token point there).
    pub(super) end: (usize, usize),
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.tok)
    }

    /// The line and column of the next token (or of the end of the text).
    pub(super) fn here(&self) -> (usize, usize) {
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

    pub(super) fn word(&mut self) -> Result<String, CatError> {
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
    pub(super) fn stmt(&mut self) -> Result<Stmt, CatError> {
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
