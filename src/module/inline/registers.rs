//! The registers an instruction reads: each is declared in scope or special
//! (undeclared ones are refused, issue 23); `%envreg1/2` and the timers are
//! read by their own instructions (D177, D81).

use super::Frame;
use super::Inliner;
use crate::ast::{AluOp, InstrKind, IntTy, Operand, Span};
use crate::error::{Error, Result};
use crate::module::special;
use crate::parse::instr::{RawInstr, RawKind, RawOperand};

impl Inliner<'_> {
    /// Every `%name` an instruction uses is declared in scope or is a special
    /// register: an undeclared one would silently read 0 (issue 23).
    pub(super) fn check_names(&self, fr: &Frame, raw: &RawInstr) -> Result<()> {
        let mut names: Vec<(&str, Span)> = raw.guard.iter().map(|g| (g.reg.as_str(), g.span)).collect();
        fn collect<'o>(o: &'o RawOperand, out: &mut Vec<(&'o str, Span)>) {
            match &o.kind {
                RawKind::Name(n) | RawKind::Not(n) | RawKind::Addr { base: n, .. } => out.push((n.as_str(), o.span)),
                RawKind::Pair(a, b) => out.extend([(a.as_str(), o.span), (b.as_str(), o.span)]),
                RawKind::Vector(v) | RawKind::List(v) => v.iter().for_each(|e| collect(e, out)),
                RawKind::Imm(_) => {}
            }
        }
        raw.operands.iter().for_each(|o| collect(o, &mut names));
        let timer_mov = raw.opcode == "mov" && raw.operands.len() == 2;
        for (i, (name, span)) in names.into_iter().enumerate() {
            if !name.starts_with('%') || fr.lookup(name).is_some() || self.specials.contains_key(name) {
                continue;
            }
            let why = if special::timer(name).is_some() {
                if timer_mov && i == raw.guard.iter().count() + 1 {
                    continue;
                }
                format!("read the timer `{}` with `mov` into a register first", name)
            } else if name.starts_with("%ctaid") {
                format!(
                    "`{}` has no value: the header uses this thread's `cta` number in two clusters of its GPU, but a CTA id is unique in the grid (number the CTAs apart)",
                    name
                )
            } else if name == "%envreg1" || name == "%envreg2" {
                format!(
                    "`{}` holds half of the address of the cooperative-groups grid workspace: read it with `mov` into a register first (D177, D251)",
                    name
                )
            } else if let Some(what) = special::unsupported(name) {
                format!(
                    "special register `{}` is not supported: it holds {}, which a litmus test does not determine",
                    name, what
                )
            } else {
                format!(
                    "`{}` is not declared in function `{}` (a `.reg` declaration is missing)",
                    name,
                    self.stack.last().map_or("?", |s| s.as_str())
                )
            };
            return Err(Error::input(why, span));
        }
        Ok(())
    }

    /// `mov.u32 d, %envreg1` / `%envreg2`: the high / low 32 bits of the
    /// 64-bit address of the location the harness names with `envreg = &ws;`
    /// (the cooperative-groups grid workspace, as nvcc reads it: `bfi.b64`
    /// of `%envreg1` into bits 32-63 above `%envreg2`; D177).
    pub(super) fn envreg_read(&mut self, fr: &Frame, raw: &RawInstr) -> Option<InstrKind> {
        let [d, RawOperand { kind: RawKind::Name(r), .. }] = raw.operands.as_slice() else { return None };
        let (RawKind::Name(dst), Some(ws)) = (&d.kind, self.envreg) else { return None };
        let high = match r.as_str() {
            "%envreg1" => true,
            "%envreg2" => false,
            _ => return None,
        };
        if raw.opcode != "mov" || fr.lookup(r).is_some() {
            return None;
        }
        self.envreg_seen = true;
        let (op, by) = if high { (AluOp::Shr, 32) } else { (AluOp::And, 0xffff_ffff) };
        let u = |bits| Some(IntTy { bits, signed: false });
        let srcs = vec![Operand::Sym(ws.to_string()), Operand::Imm(by)];
        Some(InstrKind::Alu { op, dst: self.rename(fr, dst), srcs, ty: u(32), src_ty: u(64) })
    }

    /// `mov d, %globaltimer` (or another timer): a timer read (D81).
    pub(super) fn timer_read(&self, fr: &Frame, raw: &RawInstr) -> Option<InstrKind> {
        let [d, RawOperand { kind: RawKind::Name(t), .. }] = raw.operands.as_slice() else { return None };
        let (timer, shift, bits) = special::timer(t).filter(|_| raw.opcode == "mov" && fr.lookup(t).is_none())?;
        let RawKind::Name(dst) = &d.kind else { return None };
        Some(InstrKind::Timer { dst: self.rename(fr, dst), timer: timer.to_string(), shift, bits })
    }
}
