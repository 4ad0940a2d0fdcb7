//! The lowering of one thread's statements into PTX AST instructions: blocks, declarations and assignments,
//! stores through a pointer, calls, and `if` as branches (a control dependency).

use super::expr::{cmp_of, negate, Expr};
use super::types::{declared, Declared};
use super::Orders;
use crate::ast::{AluOp, BranchCond, Cmp, Instr, InstrKind, IntTy, Operand, Span};
use crate::c11::Order;
use crate::error::{Error, Result};
use crate::parse::grammar::Rule;
use crate::parse::text::Src;
use pest::iterators::Pair;
use std::collections::{BTreeMap, BTreeSet};

/// The code of one thread: its instructions, with their C orders recorded.
pub(super) struct Lower<'s, 'a> {
    pub(super) src: &'s Src<'a>,
    pub(super) t: usize,
    pub(super) code: Vec<Instr>,
    pub(super) orders: &'s mut Orders,
    /// Location parameters of the thread function.
    pub(super) locs: BTreeSet<String>,
    /// Each location's declared type (`super::location_types`).
    pub(super) types: &'s BTreeMap<String, Declared>,
    /// Each local's declared integer type (`int r0 = ...;`): its value is converted to it.
    pub(super) locals: BTreeMap<String, IntTy>,
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
                let (mut dst, mut words) = (None, Vec::new());
                for q in p.into_inner() {
                    match q.as_rule() {
                        Rule::c_type => words.push(q.as_str()),
                        Rule::ident => {
                            let d = q.as_str().to_string();
                            if let Some(Declared::Int(t)) = declared(&words, 0, span)? {
                                self.locals.insert(d.clone(), t);
                            }
                            dst = Some(d);
                        }
                        Rule::c_expr => {
                            let e = self.expr(q)?;
                            let d = dst.clone().unwrap_or_default();
                            self.locals_guard(&d, span)?;
                            return self.assign(&e, &d, span, &text);
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

    /// `d = e` for a local `d`: the value converted to `d`'s declared type
    /// (C11 6.5.16.1), that is wrapped at its width as CUDA's compilers and herd7 do.
    fn assign(&mut self, e: &Expr, d: &str, span: Span, text: &str) -> Result<()> {
        let Some(&t) = self.locals.get(d) else { return self.compute_into(e, d, span, text) };
        if let Expr::Num(k) = e {
            return self.compute_into(&Expr::Num(super::types::wrap(t, *k)), d, span, text);
        }
        self.compute_into(e, d, span, text)?;
        if self.value_type(e) != Some(t) && t.bits < 64 {
            let kind = InstrKind::Alu {
                op: AluOp::Mov,
                dst: d.to_string(),
                srcs: vec![Operand::Reg(d.to_string())],
                ty: Some(t),
                src_ty: None,
            };
            self.emit(kind, span, text, None);
        }
        Ok(())
    }

    /// The type of the value `e` has when it is already of a C type: a local
    /// of that type, or what an access reads from a location of that type.
    fn value_type(&self, e: &Expr) -> Option<IntTy> {
        match e {
            Expr::Name(n, _) => self.locals.get(n).copied(),
            Expr::Deref(a, _) => self.access_ty(a),
            Expr::Call(c) if super::atomics::reads_its_object(&c.name) => {
                c.args.first().and_then(|a| self.access_ty(a))
            }
            _ => None,
        }
    }

    /// The declared type of the location an address expression names (`x`, `&x`, `x + e`).
    pub(super) fn access_ty(&self, a: &Expr) -> Option<IntTy> {
        let name = match a {
            Expr::Name(n, _) | Expr::AddrOf(n, _) => n,
            Expr::Bin(op, x, y, _) if op == "+" => match (&**x, &**y) {
                (Expr::Name(n, _), _) | (_, Expr::Name(n, _)) if self.locs.contains(n) => n,
                _ => return None,
            },
            _ => return None,
        };
        match self.types.get(name) {
            Some(Declared::Int(t)) => Some(*t),
            _ => None,
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
