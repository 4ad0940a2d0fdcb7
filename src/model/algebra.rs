//! The relation algebra the model is written in: cat-style expressions over
//! named relations and event sets, and the rows of a model (`let NAME = EXPR`,
//! `acyclic/irreflexive/empty EXPR as AXIOM`).
//!
//! Rows are written as text (see [`super::rows`]) and parsed once; what
//! `ptx-litmus model` prints is the parsed row printed back, so the printed
//! model is the evaluated one. Operator precedence follows herd's cat, lowest
//! first: `|` (union), `;` (sequence), `\` (difference), `&` (intersection),
//! then the postfix `^-1` (inverse), `+` (transitive closure), `*`
//! (reflexive-transitive closure) and `?` (reflexive closure).
//! `[S]` is the identity on the event set S (`W`, `R | W`, `W \ Init`, `~Init`).
//! `f(e)` applies a primitive that takes a relation (`proxy-preserved(cb)`).

pub(crate) use super::cat_parse::parse_stmt;
use std::fmt;

/// An event set, inside `[...]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetExpr {
    Name(String),
    Union(Box<SetExpr>, Box<SetExpr>),
    Inter(Box<SetExpr>, Box<SetExpr>),
    Diff(Box<SetExpr>, Box<SetExpr>),
    Compl(Box<SetExpr>),
}

/// A relation expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Name(String),
    /// `[S]`: the identity on S (restriction to S when sequenced).
    Id(SetExpr),
    Union(Box<Expr>, Box<Expr>),
    Seq(Box<Expr>, Box<Expr>),
    Diff(Box<Expr>, Box<Expr>),
    Inter(Box<Expr>, Box<Expr>),
    Inverse(Box<Expr>),
    Plus(Box<Expr>),
    Star(Box<Expr>),
    Opt(Box<Expr>),
    /// A primitive computed from a relation (`proxy-preserved(cb)`).
    Call(String, Box<Expr>),
}

/// What an axiom row requires of its expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

/// One statement of a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Let { name: String, expr: Expr },
    Check { kind: CheckKind, expr: Expr, name: String },
}

/// Binding strength, for parsing and for printing with the fewest parentheses.
fn level(e: &Expr) -> u8 {
    match e {
        Expr::Union(..) => 0,
        Expr::Seq(..) => 1,
        Expr::Diff(..) => 2,
        Expr::Inter(..) => 3,
        Expr::Inverse(_) | Expr::Plus(_) | Expr::Star(_) | Expr::Opt(_) => 4,
        Expr::Name(_) | Expr::Id(_) | Expr::Call(..) => 5,
    }
}

impl Expr {
    /// Every relation name the expression reads (primitives, execution
    /// relations and earlier rows), with repetitions.
    pub fn names(&self, out: &mut Vec<String>) {
        match self {
            Expr::Name(n) => out.push(n.clone()),
            Expr::Id(_) => {}
            Expr::Union(a, b) | Expr::Seq(a, b) | Expr::Diff(a, b) | Expr::Inter(a, b) => {
                a.names(out);
                b.names(out);
            }
            Expr::Inverse(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) | Expr::Call(_, a) => a.names(out),
        }
    }

    /// Every primitive function applied (`proxy-preserved` in `proxy-preserved(cb)`).
    pub(crate) fn call_names(&self, out: &mut Vec<String>) {
        match self {
            Expr::Name(_) | Expr::Id(_) => {}
            Expr::Union(a, b) | Expr::Seq(a, b) | Expr::Diff(a, b) | Expr::Inter(a, b) => {
                a.call_names(out);
                b.call_names(out);
            }
            Expr::Call(f, a) => {
                out.push(f.clone());
                a.call_names(out);
            }
            Expr::Inverse(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) => a.call_names(out),
        }
    }

    /// Every event-set name used inside `[...]`.
    pub(crate) fn set_names(&self, out: &mut Vec<String>) {
        match self {
            Expr::Name(_) => {}
            Expr::Id(s) => s.names(out),
            Expr::Union(a, b) | Expr::Seq(a, b) | Expr::Diff(a, b) | Expr::Inter(a, b) => {
                a.set_names(out);
                b.set_names(out);
            }
            Expr::Inverse(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) | Expr::Call(_, a) => a.set_names(out),
        }
    }
}

impl SetExpr {
    fn names(&self, out: &mut Vec<String>) {
        match self {
            SetExpr::Name(n) => out.push(n.clone()),
            SetExpr::Union(a, b) | SetExpr::Inter(a, b) | SetExpr::Diff(a, b) => {
                a.names(out);
                b.names(out);
            }
            SetExpr::Compl(a) => a.names(out),
        }
    }

    fn level(&self) -> u8 {
        match self {
            SetExpr::Union(..) => 0,
            SetExpr::Diff(..) => 1,
            SetExpr::Inter(..) => 2,
            SetExpr::Compl(_) | SetExpr::Name(_) => 3,
        }
    }
}

fn paren<T: fmt::Display>(f: &mut fmt::Formatter<'_>, x: &T, yes: bool) -> fmt::Result {
    if yes {
        write!(f, "({})", x)
    } else {
        write!(f, "{}", x)
    }
}

impl fmt::Display for SetExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (op, a, b, l) = match self {
            SetExpr::Name(n) => return write!(f, "{}", n),
            SetExpr::Compl(a) => {
                write!(f, "~")?;
                return paren(f, a, a.level() < 3);
            }
            SetExpr::Union(a, b) => (" | ", a, b, 0),
            SetExpr::Diff(a, b) => (" \\ ", a, b, 1),
            SetExpr::Inter(a, b) => (" & ", a, b, 2),
        };
        paren(f, a, a.level() < l)?;
        write!(f, "{}", op)?;
        paren(f, b, b.level() <= l)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (op, a, b) = match self {
            Expr::Name(n) => return write!(f, "{}", n),
            Expr::Id(s) => return write!(f, "[{}]", s),
            Expr::Call(n, a) => return write!(f, "{}({})", n, a),
            Expr::Inverse(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) => {
                paren(f, a, level(a) < 5)?;
                let post = match self {
                    Expr::Inverse(_) => "^-1",
                    Expr::Plus(_) => "+",
                    Expr::Star(_) => "*",
                    _ => "?",
                };
                return write!(f, "{}", post);
            }
            Expr::Union(a, b) => (" | ", a, b),
            Expr::Seq(a, b) => ("; ", a, b),
            Expr::Diff(a, b) => (" \\ ", a, b),
            Expr::Inter(a, b) => (" & ", a, b),
        };
        // Mixed binary operators are parenthesized even where cat's
        // precedence would not need it: a reader should not need the table.
        let l = level(self);
        let mixed = |c: &Expr| level(c) < 4 && level(c) != l;
        paren(f, a.as_ref(), level(a) < l || mixed(a))?;
        write!(f, "{}", op)?;
        paren(f, b.as_ref(), level(b) <= l || mixed(b))
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stmt::Let { name, expr } => write!(f, "let {} = {}", name, expr),
            Stmt::Check { kind, expr, name } => {
                let k = match kind {
                    CheckKind::Acyclic => "acyclic",
                    CheckKind::Irreflexive => "irreflexive",
                    CheckKind::Empty => "empty",
                };
                write!(f, "{} {} as {}", k, expr, name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printing a parsed row and parsing it again gives the same row.
    #[test]
    fn rows_print_back_as_they_parse() {
        for text in [
            "let obs = ([~Init]; (ms & rf)); ([A]; [~Init]; (ms & rf))*",
            "let sw = sc | bar | ((relpat; obs; acqpat) & ms & ext)",
            "let cause = obs?; proxy-preserved((po | sw)+)",
            "empty ([W \\ Init]; cause; [W \\ Init]) & loc \\ id \\ co as Coherence",
            "irreflexive (rf | fr); cause as Causality",
            "let fr = [R]; rf^-1; co; [W] \\ id",
            "acyclic a \\ (b \\ c) | [R | W & ~F] as T",
        ] {
            let s = parse_stmt(text).expect(text);
            let printed = s.to_string();
            assert_eq!(parse_stmt(&printed).expect(&printed), s, "{} printed as {}", text, printed);
        }
    }

    #[test]
    fn precedence_follows_cat() {
        let s = parse_stmt("let x = a | b; c \\ d & e").unwrap();
        assert_eq!(s.to_string(), "let x = a | (b; (c \\ (d & e)))");
        let Stmt::Let { expr, .. } = s else { panic!("a let row") };
        assert!(matches!(expr, Expr::Union(..)));
        let t = parse_stmt("let x = (a | b); c").unwrap();
        assert_eq!(t.to_string(), "let x = (a | b); c");
    }

    #[test]
    fn malformed_rows_are_errors() {
        for bad in ["let = a", "acyclic a", "let x = (a", "let x = a $ b", "cyclic a as X"] {
            assert!(parse_stmt(bad).is_err(), "{}", bad);
        }
    }
}
