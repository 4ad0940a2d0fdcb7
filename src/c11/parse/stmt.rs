//! The lowering of one thread's statements into PTX AST instructions: blocks, declarations and assignments,
//! stores through a pointer, calls, and `if` as branches (a control dependency).

use super::expr::{cmp_of, negate, Expr};
use super::Orders;
use crate::ast::{BranchCond, Cmp, Instr, InstrKind, Operand, Span};
use crate::c11::Order;
use crate::error::{Error, Result};
use crate::parse::grammar::Rule;
use crate::parse::text::Src;
use pest::iterators::Pair;
use std::collections::BTreeSet;

/// The code of one thread: its instructions, with their C orders recorded.
pub(super) struct Lower<'s, 'a> {
    pub(super) src: &'s Src<'a>,
    pub(super) t: usize,
    pub(super) code: Vec<Instr>,
    pub(super) orders: &'s mut Orders,
    /// Location parameters of the thread function.
    pub(super) locs: BTreeSet<String>,
    pub(super) temps: usize,
    pub(super) labels: usize,
}

impl Lower<'_, '_> {
    pub(super) fn span(&self, p: &Pair<Rule>) -> Span {
        self.src.pair_span(p)
    }

    pub(super) fn block(&mut self, p: Pair<Rule>) -> Result<()> {
        for s in p.into_inner().filter(|s| s.as_rule() == Rule::c_stmt) {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: Pair<Rule>) -> Result<()> {
        let Some(p) = s.into_inner().next() else { return Ok(()) };
        let span = self.span(&p);
        // Only the statements that are no compound ones take their text: a
        // block's or an `if`'s would copy every statement nested in it.
        let text = || p.as_str().trim().to_string();
        match p.as_rule() {
            Rule::c_block => self.block(p),
            Rule::c_if => self.if_stmt(p),
            Rule::c_decl | Rule::c_assign => {
                let text = text();
                let mut dst = None;
                for q in p.into_inner() {
                    match q.as_rule() {
                        Rule::ident => dst = Some(q.as_str().to_string()),
                        Rule::c_expr => {
                            let e = self.expr(q)?;
                            let d = dst.clone().unwrap_or_default();
                            self.locals_guard(&d, span)?;
                            return self.compute_into(&e, &d, span, &text);
                        }
                        _ => {}
                    }
                }
                Ok(()) // `int r0;`: a declaration alone does nothing
            }
            Rule::c_store => {
                let text = text();
                let mut it = p.into_inner().filter(|q| matches!(q.as_rule(), Rule::c_deref | Rule::c_expr));
                let (Some(target), Some(value)) = (it.next(), it.next()) else {
                    return Err(Error::internal("store without its parts"));
                };
                let addr = self.deref_target(target)?;
                let v = self.expr(value)?;
                self.store(&addr, &v, Order::Na, None, span, &text)
            }
            Rule::c_call_stmt => {
                let call = p.into_inner().next().ok_or_else(|| Error::internal("call statement"))?;
                let c = self.call(call)?;
                self.call_into(&c, None)
            }
            _ => Ok(()),
        }
    }

    fn locals_guard(&self, name: &str, span: Span) -> Result<()> {
        if self.locs.contains(name) {
            return Err(Error::input(
                format!("`{}` is a location parameter of this thread: assign through `*{}`", name, name),
                span,
            ));
        }
        Ok(())
    }

    fn if_stmt(&mut self, p: Pair<Rule>) -> Result<()> {
        let span = self.span(&p);
        let text =
            format!("if ({})", p.clone().into_inner().find(|q| q.as_rule() == Rule::c_expr).map_or("", |q| q.as_str()));
        let mut cond = None;
        let mut arms = Vec::new();
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::c_expr => cond = Some(self.expr(q)?),
                Rule::c_stmt => arms.push(q),
                _ => {}
            }
        }
        let cond = cond.ok_or_else(|| Error::internal("if without a condition"))?;
        self.labels += 1;
        let (else_l, end_l) = (format!("Lc{}_else", self.labels), format!("Lc{}_end", self.labels));
        // Jump over the then-arm when the condition is false.
        let branch = match &cond {
            Expr::Bin(op, a, b, _) if cmp_of(op).is_some() => {
                let (a, b) = (self.operand(a, span, &text)?, self.operand(b, span, &text)?);
                BranchCond::Compare { cmp: negate(cmp_of(op).unwrap_or(Cmp::Eq)), a, b }
            }
            e => BranchCond::Compare { cmp: Cmp::Eq, a: self.operand(e, span, &text)?, b: Operand::Imm(0) },
        };
        self.emit(InstrKind::Branch { cond: branch, target: else_l.clone() }, span, &text, None);
        let mut arms = arms.into_iter();
        if let Some(then) = arms.next() {
            self.stmt(then)?;
        }
        if let Some(other) = arms.next() {
            self.emit(InstrKind::Branch { cond: BranchCond::Always, target: end_l.clone() }, span, &text, None);
            self.emit(InstrKind::Label(else_l), span, &text, None);
            self.stmt(other)?;
            self.emit(InstrKind::Label(end_l), span, &text, None);
        } else {
            self.emit(InstrKind::Label(else_l), span, &text, None);
        }
        Ok(())
    }

    pub(super) fn emit(&mut self, kind: InstrKind, span: Span, text: &str, order: Option<Order>) {
        if let Some(o) = order {
            self.orders.by_instr.insert((self.t, self.code.len()), o);
        }
        self.code.push(Instr { kind, span, text: shown_text(text), origin: None });
    }

    pub(super) fn temp(&mut self) -> String {
        self.temps += 1;
        format!("%c{}", self.temps - 1)
    }
}

/// Longest statement text an instruction carries (listings and explanations
/// show it). Every instruction a statement compiles to carries its text, so a
/// statement of n operators would otherwise hold n copies of its n operators.
const MAX_SHOWN_TEXT: usize = 160;

/// The statement's text as an instruction shows it: cut after [`MAX_SHOWN_TEXT`] bytes.
fn shown_text(text: &str) -> String {
    if text.len() <= MAX_SHOWN_TEXT {
        return text.to_string();
    }
    let mut cut = MAX_SHOWN_TEXT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} ...", &text[..cut])
}
