//! Expressions lowered into registers: an operand holding a value, an expression computed into a register
//! (`%c0`, `%c1`, ...: names no C identifier has), and the address an expression denotes (`*(x + e)`: an address
//! dependency).

use super::expr::{alu_of, cmp_of, expr_span, Expr};
use super::stmt::Lower;
use crate::ast::{Addr, AddrBase, AluOp, Cmp, InstrKind, Operand, Span};
use crate::c11::Order;
use crate::error::{Error, Result};

impl Lower<'_, '_> {
    /// The address an expression denotes: a location, or a location plus an
    /// offset computed from registers (an address dependency).
    pub(super) fn address(&mut self, a: &Expr, span: Span, text: &str) -> Result<Addr> {
        match a {
            Expr::Name(n, _) if !n.starts_with('%') && self.locs.contains(n) => {
                Ok(Addr { base: AddrBase::Sym(n.clone()), offset: 0 })
            }
            Expr::Name(n, _) => Ok(Addr { base: AddrBase::Reg(n.clone()), offset: 0 }),
            Expr::AddrOf(n, _) => Ok(Addr { base: AddrBase::Sym(n.clone()), offset: 0 }),
            Expr::Bin(op, x, y, s) if op == "+" => {
                let (base, off) = match (&**x, &**y) {
                    (Expr::Name(n, _), e) | (e, Expr::Name(n, _)) if self.locs.contains(n) => (n.clone(), e),
                    _ => return Err(Error::input("expected a location plus an offset (`x + (r0 & 128)`)", *s)),
                };
                let off = self.operand(off, span, text)?;
                let t = self.temp();
                self.emit(
                    InstrKind::Alu {
                        op: AluOp::Mov,
                        dst: t.clone(),
                        srcs: vec![Operand::Sym(base)],
                        ty: None,
                        src_ty: None,
                    },
                    span,
                    text,
                    None,
                );
                self.emit(
                    InstrKind::Alu {
                        op: AluOp::Add,
                        dst: t.clone(),
                        srcs: vec![Operand::Reg(t.clone()), off],
                        ty: None,
                        src_ty: None,
                    },
                    span,
                    text,
                    None,
                );
                Ok(Addr { base: AddrBase::Reg(t), offset: 0 })
            }
            _ => Err(Error::input(
                "expected a location (a parameter of the thread function)",
                expr_span(a).unwrap_or(span),
            )),
        }
    }

    /// An operand holding the expression's value (computing it into a fresh register if needed).
    pub(super) fn operand(&mut self, e: &Expr, span: Span, text: &str) -> Result<Operand> {
        Ok(match e {
            Expr::Num(k) => Operand::Imm(*k),
            Expr::Name(n, s) => {
                if self.locs.contains(n) {
                    return Err(Error::input(
                        format!("`{}` is a location: read it with `*{}` or atomic_load_explicit", n, n),
                        *s,
                    ));
                }
                Operand::Reg(n.clone())
            }
            Expr::AddrOf(n, _) => Operand::Sym(n.clone()),
            Expr::Qual(n, s) => return Err(Error::input(format!("`{}` is no value", n), *s)),
            _ => {
                let t = self.temp();
                self.compute_into(e, &t, span, text)?;
                Operand::Reg(t)
            }
        })
    }

    /// Compute `e` into register `dst`.
    pub(super) fn compute_into(&mut self, e: &Expr, dst: &str, span: Span, text: &str) -> Result<()> {
        match e {
            Expr::Call(c) => self.call_into(c, Some(dst)),
            Expr::Deref(a, s) => self.load(a, Order::Na, None, dst, *s, text),
            Expr::Bin(..) => self.chain_into(e, dst, span, text),
            Expr::Un(c, a, s) => {
                let x = self.operand(a, span, text)?;
                let kind = match c {
                    '!' => InstrKind::Setp { cmp: Cmp::Eq, dst: dst.to_string(), a: x, b: Operand::Imm(0), ty: None },
                    '~' => {
                        InstrKind::Alu { op: AluOp::Not, dst: dst.to_string(), srcs: vec![x], ty: None, src_ty: None }
                    }
                    _ => InstrKind::Alu { op: AluOp::Neg, dst: dst.to_string(), srcs: vec![x], ty: None, src_ty: None },
                };
                self.emit(kind, *s, text, None);
                Ok(())
            }
            _ => {
                let x = self.operand(e, span, text)?;
                self.emit(
                    InstrKind::Alu { op: AluOp::Mov, dst: dst.to_string(), srcs: vec![x], ty: None, src_ty: None },
                    span,
                    text,
                    None,
                );
                Ok(())
            }
        }
    }

    /// Compute a binary expression into `dst` along its left spine, without
    /// recursing on it: `a + b + ... + z` nests to the left as deep as it is
    /// long. Registers are numbered as a recursive lowering would (the outer
    /// operations' first), so short expressions lower as they always did.
    fn chain_into(&mut self, e: &Expr, dst: &str, span: Span, text: &str) -> Result<()> {
        let mut spine = Vec::new();
        let mut first = e;
        while let Expr::Bin(op, a, b, s) = first {
            spine.push((op.as_str(), b.as_ref(), *s));
            first = a;
        }
        let dsts: Vec<String> = std::iter::once(dst.to_string()).chain((1..spine.len()).map(|_| self.temp())).collect();
        let mut acc = self.operand(first, span, text)?;
        for (k, &(op, b, s)) in spine.iter().enumerate().rev() {
            let y = self.operand(b, span, text)?;
            self.binary_into(op, acc, y, &dsts[k], s, text);
            acc = Operand::Reg(dsts[k].clone());
        }
        Ok(())
    }

    /// `dst = x op y`: a comparison, an arithmetic operation, or `&&`/`||` on truth values.
    fn binary_into(&mut self, op: &str, x: Operand, y: Operand, dst: &str, s: Span, text: &str) {
        let kind = if let Some(cmp) = cmp_of(op) {
            InstrKind::Setp { cmp, dst: dst.to_string(), a: x, b: y, ty: None }
        } else if let Some(aop) = alu_of(op) {
            InstrKind::Alu { op: aop, dst: dst.to_string(), srcs: vec![x, y], ty: None, src_ty: None }
        } else {
            // `&&`, `||`: both sides as truth values, combined.
            let (tx, ty_) = (self.temp(), self.temp());
            self.emit(
                InstrKind::Setp { cmp: Cmp::Ne, dst: tx.clone(), a: x, b: Operand::Imm(0), ty: None },
                s,
                text,
                None,
            );
            self.emit(
                InstrKind::Setp { cmp: Cmp::Ne, dst: ty_.clone(), a: y, b: Operand::Imm(0), ty: None },
                s,
                text,
                None,
            );
            let aop = if op == "&&" { AluOp::And } else { AluOp::Or };
            let srcs = vec![Operand::Reg(tx), Operand::Reg(ty_)];
            InstrKind::Alu { op: aop, dst: dst.to_string(), srcs, ty: None, src_ty: None }
        };
        self.emit(kind, s, text, None);
    }
}
