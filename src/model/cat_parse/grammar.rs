//! Statements and expressions of model text, with cat's precedence (`|` < `;` < `\` < `&` < postfix):
//! `let NAME = EXPR` and `acyclic|irreflexive|empty EXPR as NAME`.

use super::lex::{Located, Tok};
use super::CatError;
use crate::model::algebra::{CheckKind, Expr, SetExpr, Stmt};

/// Builds a binary node of an expression tree from its two operands.
type BinaryMaker<E> = fn(Box<E>, Box<E>) -> E;

/// Deepest nesting of parentheses, brackets, calls and `~` accepted: the
/// parser recurses on them, so the bound keeps any input off the stack's end
/// (as `.litmus` files bound parentheses, `crate::parse::text`).
pub(super) const MAX_NESTING: usize = 64;

/// Deepest expression tree accepted (a postfix operator or a non-associative
/// `\` adds a level each). Every later reading of a row (printing, evaluating,
/// compiling to clauses) recurses on the tree, so it is bounded here.
pub(super) const MAX_TREE_DEPTH: usize = 256;

/// A run of one associative operator longer than this is grouped as a
/// balanced tree (depth log2 of its length): the same relation, and no
/// reader recurses once per operand. Shorter runs keep the left-nested shape
/// they are printed and explained in.
const BALANCE_PAST: usize = 64;

/// Reads tokens from `at` on.
pub(super) struct Parser<'t> {
    pub(super) toks: &'t [Located],
    pub(super) at: usize,
    /// Where the text ends (errors about a missing token point there).
    pub(super) end: (usize, usize),
    /// Parentheses, brackets, calls and `~` open around the next token.
    pub(super) nesting: usize,
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

    /// Binary operators of level >= `min`, left-associative; the expression and its tree depth.
    fn expr(&mut self, min: u8) -> Result<Expr, CatError> {
        self.expr_depth(min).map(|(e, _)| e)
    }

    fn expr_depth(&mut self, min: u8) -> Result<(Expr, usize), CatError> {
        let mut left = self.postfix()?;
        loop {
            let (l, make, associative): (u8, BinaryMaker<Expr>, bool) = match self.peek() {
                Some(Tok::Sym("|")) => (0, Expr::Union, true),
                Some(Tok::Sym(";")) => (1, Expr::Seq, true),
                Some(Tok::Sym("\\")) => (2, Expr::Diff, false),
                Some(Tok::Sym("&")) => (3, Expr::Inter, true),
                _ => return Ok(left),
            };
            if l < min {
                return Ok(left);
            }
            // The whole run of this operator, then one tree over it.
            let op = self.peek().cloned();
            let mut run = vec![left];
            while self.peek() == op.as_ref() {
                self.at += 1;
                run.push(self.expr_depth(l + 1)?);
            }
            left = if associative && run.len() > BALANCE_PAST { balanced(run, make) } else { nested(run, make) };
            self.deep_enough(left.1)?;
        }
    }

    /// An error when a tree of depth `depth` is past [`MAX_TREE_DEPTH`].
    fn deep_enough(&self, depth: usize) -> Result<(), CatError> {
        if depth > MAX_TREE_DEPTH {
            let msg = format!(
                "this expression nests more than {} operators deep (each postfix operator and each `\\` of a chain adds one): split it into `let` rows",
                MAX_TREE_DEPTH
            );
            return Err(self.error(msg));
        }
        Ok(())
    }

    /// One level more of parentheses, brackets, calls or `~`, refused past [`MAX_NESTING`].
    fn open(&mut self) -> Result<(), CatError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(self.error(format!("parentheses are nested deeper than {} levels", MAX_NESTING)));
        }
        Ok(())
    }

    fn postfix(&mut self) -> Result<(Expr, usize), CatError> {
        let (mut e, mut depth) = self.atom()?;
        loop {
            let make: fn(Box<Expr>) -> Expr = match self.peek() {
                Some(Tok::Sym("^-1")) => Expr::Inverse,
                Some(Tok::Sym("+")) => Expr::Plus,
                Some(Tok::Sym("*")) => Expr::Star,
                Some(Tok::Sym("?")) => Expr::Opt,
                _ => return Ok((e, depth)),
            };
            depth += 1;
            self.deep_enough(depth)?;
            self.at += 1;
            e = make(Box::new(e));
        }
    }

    fn atom(&mut self) -> Result<(Expr, usize), CatError> {
        let err = self.error(format!("expected a relation, found {}", self.found()));
        let at = self.at;
        let e = match self.next() {
            Some(Tok::Sym("(")) => {
                self.at = at;
                self.open()?;
                self.at += 1;
                let e = self.expr_depth(0)?;
                self.expect(")")?;
                e
            }
            Some(Tok::Sym("[")) => {
                self.at = at;
                self.open()?;
                self.at += 1;
                let (s, d) = self.set(0)?;
                self.expect("]")?;
                (Expr::Id(s), d + 1)
            }
            Some(Tok::Word(w)) if self.peek() == Some(&Tok::Sym("(")) => {
                self.open()?;
                self.at += 1;
                let (e, d) = self.expr_depth(0)?;
                self.expect(")")?;
                (Expr::Call(w, Box::new(e)), d + 1)
            }
            Some(Tok::Word(w)) if !is_keyword(&w) => return Ok((Expr::Name(w), 1)),
            _ => return Err(err),
        };
        self.nesting -= 1;
        Ok(e)
    }

    fn set(&mut self, min: u8) -> Result<(SetExpr, usize), CatError> {
        let err = self.error(format!("expected an event set, found {}", self.found()));
        let at = self.at;
        let mut left = match self.next() {
            Some(t @ Tok::Sym("~" | "(")) => {
                self.at = at;
                self.open()?;
                self.at += 1;
                let inner = if t == Tok::Sym("~") {
                    let (s, d) = self.set(3)?;
                    (SetExpr::Compl(Box::new(s)), d + 1)
                } else {
                    let s = self.set(0)?;
                    self.expect(")")?;
                    s
                };
                self.nesting -= 1;
                inner
            }
            Some(Tok::Word(w)) if !is_keyword(&w) => (SetExpr::Name(w), 1),
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
            let op = self.peek().cloned();
            let mut run = vec![left];
            while self.peek() == op.as_ref() {
                self.at += 1;
                run.push(self.set(l + 1)?);
            }
            left = if l != 1 && run.len() > BALANCE_PAST { balanced(run, make) } else { nested(run, make) };
            self.deep_enough(left.1)?;
        }
    }
}

/// `a op b op c ...` nested to the left, as cat reads it; with its depth.
fn nested<E>(run: Vec<(E, usize)>, make: BinaryMaker<E>) -> (E, usize) {
    let mut it = run.into_iter();
    let first = it.next().expect("a run has an operand");
    it.fold(first, |(a, da), (b, db)| (make(Box::new(a), Box::new(b)), da.max(db) + 1))
}

/// The same run of an associative operator as a balanced tree; with its depth.
fn balanced<E>(mut run: Vec<(E, usize)>, make: BinaryMaker<E>) -> (E, usize) {
    if run.len() == 1 {
        return run.pop().expect("one operand");
    }
    let right = run.split_off(run.len() / 2);
    let ((a, da), (b, db)) = (balanced(run, make), balanced(right, make));
    (make(Box::new(a), Box::new(b)), da.max(db) + 1)
}

/// Words that start or end a statement, never names of relations.
fn is_keyword(w: &str) -> bool {
    matches!(w, "let" | "acyclic" | "irreflexive" | "empty" | "as" | "option")
}
