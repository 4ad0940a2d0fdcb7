//! C expressions as parsed: numbers, names, `*e`, `&x`, calls, unary and binary operators (precedence climbing
//! over C11 6.5's binary operators), and namespaced scope names.

use super::stmt::Lower;
use crate::ast::{AluOp, Cmp, Span};
use crate::error::{Error, Result};
use crate::parse::grammar::Rule;
use crate::parse::text::parse_int;
use pest::iterators::Pair;

/// A C expression, as parsed.
#[derive(Clone, Debug)]
pub(super) enum Expr {
    Num(i64),
    Name(String, Span),
    Deref(Box<Expr>, Span),
    AddrOf(String, Span),
    Call(Call),
    Bin(String, Box<Expr>, Box<Expr>, Span),
    Un(char, Box<Expr>, Span),
    /// A namespaced or scope name argument (`cuda::thread_scope_block`).
    Qual(String, Span),
}

/// Dropped without recursion: a long chain `a + b + ... + z` is a tree as deep
/// as it is long, and the default drop would recurse once per operand.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut stack = Vec::new();
        take_children(self, &mut stack);
        while let Some(mut e) = stack.pop() {
            take_children(&mut e, &mut stack);
        }
    }
}

/// Move the children of `e` onto `out`, leaving leaves in their place.
fn take_children(e: &mut Expr, out: &mut Vec<Expr>) {
    let leaf = || Expr::Num(0);
    match e {
        Expr::Bin(_, a, b, _) => {
            out.push(std::mem::replace(a.as_mut(), leaf()));
            out.push(std::mem::replace(b.as_mut(), leaf()));
        }
        Expr::Deref(a, _) | Expr::Un(_, a, _) => out.push(std::mem::replace(a.as_mut(), leaf())),
        Expr::Call(c) => out.append(&mut c.args),
        _ => {}
    }
}

/// Most prefix operators (`-`, `!`, `~`) one operand may have: each is a
/// level of the expression tree, which the lowering recurses on.
const MAX_PREFIX: usize = 64;

#[derive(Clone, Debug)]
pub(super) struct Call {
    pub(super) name: String,
    pub(super) args: Vec<Expr>,
    pub(super) span: Span,
    pub(super) text: String,
}

/// Binding strength of C's binary operators (C11 6.5), weakest first.
fn prec(op: &str) -> u8 {
    match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | "<=" | ">" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        _ => 10,
    }
}

pub(super) fn cmp_of(op: &str) -> Option<Cmp> {
    Some(match op {
        "==" => Cmp::Eq,
        "!=" => Cmp::Ne,
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        ">" => Cmp::Gt,
        ">=" => Cmp::Ge,
        _ => return None,
    })
}

pub(super) fn negate(c: Cmp) -> Cmp {
    match c {
        Cmp::Eq => Cmp::Ne,
        Cmp::Ne => Cmp::Eq,
        Cmp::Lt => Cmp::Ge,
        Cmp::Ge => Cmp::Lt,
        Cmp::Gt => Cmp::Le,
        Cmp::Le => Cmp::Gt,
    }
}

pub(super) fn alu_of(op: &str) -> Option<AluOp> {
    Some(match op {
        "+" => AluOp::Add,
        "-" => AluOp::Sub,
        "*" => AluOp::Mul,
        "/" => AluOp::Div,
        "%" => AluOp::Rem,
        "&" => AluOp::And,
        "|" => AluOp::Or,
        "^" => AluOp::Xor,
        "<<" => AluOp::Shl,
        ">>" => AluOp::Shr,
        _ => return None,
    })
}

impl Lower<'_, '_> {
    pub(super) fn expr(&mut self, p: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&p);
        let mut operands = Vec::new();
        let mut ops = Vec::new();
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::c_unary => operands.push(self.unary(q)?),
                Rule::c_binop => ops.push(q.as_str().to_string()),
                _ => {}
            }
        }
        Ok(climb(&mut operands.into_iter(), &mut ops.into_iter().peekable(), 0, span))
    }

    fn unary(&mut self, p: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&p);
        let mut negs = Vec::new();
        let mut e = None;
        for q in p.into_inner() {
            e = Some(match q.as_rule() {
                Rule::c_neg => {
                    negs.push(q.as_str().chars().next().unwrap_or('-'));
                    continue;
                }
                Rule::c_call => Expr::Call(self.call(q)?),
                Rule::c_deref => self.unary_deref(q)?,
                Rule::c_addr_of => Expr::AddrOf(q.as_str().trim_start_matches('&').trim().to_string(), self.span(&q)),
                Rule::number => Expr::Num(parse_int(q.as_str(), self.span(&q))?),
                Rule::ident => Expr::Name(q.as_str().to_string(), self.span(&q)),
                Rule::c_paren => {
                    let inner = q
                        .into_inner()
                        .find(|x| x.as_rule() == Rule::c_expr)
                        .ok_or_else(|| Error::internal("empty parentheses"))?;
                    self.expr(inner)?
                }
                _ => continue,
            });
        }
        let mut e = e.ok_or_else(|| Error::internal("empty operand"))?;
        if negs.len() > MAX_PREFIX {
            let msg = format!("more than {} prefix operators (`-`, `!`, `~`) on one operand", MAX_PREFIX);
            return Err(Error::input(msg, span));
        }
        for n in negs.into_iter().rev() {
            e = match (n, e) {
                // `-1` is a constant, not an instruction.
                ('-', Expr::Num(k)) => Expr::Num(k.wrapping_neg()),
                (n, e) => Expr::Un(n, Box::new(e), span),
            };
        }
        Ok(e)
    }

    pub(super) fn unary_deref(&mut self, p: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&p);
        Ok(Expr::Deref(Box::new(self.deref_target(p)?), span))
    }

    /// The address expression of `*e`.
    pub(super) fn deref_target(&mut self, p: Pair<Rule>) -> Result<Expr> {
        let inner = p.into_inner().next().ok_or_else(|| Error::internal("empty dereference"))?;
        let e = match inner.as_rule() {
            Rule::ident => Expr::Name(inner.as_str().to_string(), self.span(&inner)),
            _ => {
                let x = inner
                    .into_inner()
                    .find(|x| x.as_rule() == Rule::c_expr)
                    .ok_or_else(|| Error::internal("empty parentheses"))?;
                self.expr(x)?
            }
        };
        Ok(e)
    }

    pub(super) fn call(&mut self, p: Pair<Rule>) -> Result<Call> {
        let span = self.span(&p);
        let text = p.as_str().to_string();
        let mut name = String::new();
        let mut args = Vec::new();
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::ident => name = q.as_str().to_string(),
                Rule::c_arg => {
                    let a = q.into_inner().next().ok_or_else(|| Error::internal("empty argument"))?;
                    args.push(match a.as_rule() {
                        Rule::c_scope_name => Expr::Qual(a.as_str().to_string(), self.span(&a)),
                        _ => self.expr(a)?,
                    });
                }
                _ => {}
            }
        }
        Ok(Call { name, args, span, text })
    }
}

/// Precedence climbing over a flat `a op b op c` list.
fn climb(
    operands: &mut impl Iterator<Item = Expr>,
    ops: &mut std::iter::Peekable<impl Iterator<Item = String>>,
    min: u8,
    span: Span,
) -> Expr {
    let mut left = operands.next().unwrap_or(Expr::Num(0));
    while let Some(op) = ops.peek().cloned() {
        let p = prec(&op);
        if p < min {
            break;
        }
        ops.next();
        let right = climb(operands, ops, p + 1, span);
        left = Expr::Bin(op, Box::new(left), Box::new(right), span);
    }
    left
}

pub(super) fn expr_span(e: &Expr) -> Option<Span> {
    match e {
        Expr::Name(_, s)
        | Expr::Deref(_, s)
        | Expr::AddrOf(_, s)
        | Expr::Bin(_, _, _, s)
        | Expr::Un(_, _, s)
        | Expr::Qual(_, s) => Some(*s),
        Expr::Call(c) => Some(c.span),
        Expr::Num(_) => None,
    }
}
