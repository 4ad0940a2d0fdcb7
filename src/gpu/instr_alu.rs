//! Register arithmetic -> real PTX on 64-bit registers, computing exactly what
//! the model computes (`program::arith`, decision D15): a typed operation reads
//! its sources as `src_ty` (sign- or zero-extended from its width), computes,
//! and keeps the result truncated to `ty` and extended again; untyped corpus
//! arithmetic is 64-bit two's complement.

use super::instr::{reg, Ctx};
use crate::ast::{AluOp, IntTy, Operand};
use crate::program::arith::widen;

/// Sources an operation takes.
fn arity(op: AluOp) -> usize {
    if matches!(op, AluOp::Mov | AluOp::Not | AluOp::Neg) {
        1
    } else {
        2
    }
}

/// `r = r` read as a `bits`-bit value, zero- or sign-extended to 64 bits.
fn extend(r: &str, bits: u32, signed: bool) -> Vec<String> {
    if bits >= 64 {
        return Vec::new();
    }
    let k = 64 - bits;
    vec![
        format!("shl.b64 {}, {}, {};", r, r, k),
        format!("shr.{} {}, {}, {};", if signed { "s64" } else { "u64" }, r, r, k),
    ]
}

impl Ctx<'_> {
    /// `dst = op(srcs)`, typed or untyped.
    pub(super) fn alu(
        &mut self,
        op: AluOp,
        dst: &str,
        srcs: &[Operand],
        ty: Option<IntTy>,
        src_ty: Option<IntTy>,
    ) -> Result<Vec<String>, String> {
        if let AluOp::Bits(b) = op {
            return Err(format!("the bit operation {:?} is not emitted for the GPU runner", b));
        }
        if let AluOp::Float(f) = op {
            return Err(format!("the floating-point operation {:?} is not emitted for the GPU runner", f));
        }
        if srcs.len() != arity(op) {
            return Err(format!("{:?} with {} operands", op, srcs.len()));
        }
        match ty {
            None => self.alu_untyped(op, dst, srcs),
            Some(ty) if ty.bits == 1 => self.alu_pred(op, dst, srcs),
            Some(ty) => self.alu_typed(op, dst, srcs, ty, src_ty.unwrap_or(ty)),
        }
    }

    /// `.pred` logic on predicate registers (the model keeps one bit, D15); an
    /// integer constant is a predicate, non-zero meaning true (ISA 4.5.3).
    fn alu_pred(&mut self, op: AluOp, dst: &str, srcs: &[Operand]) -> Result<Vec<String>, String> {
        let name = match op {
            AluOp::Mov => "mov",
            AluOp::Not => "not",
            AluOp::And => "and",
            AluOp::Or => "or",
            AluOp::Xor => "xor",
            _ => return Err(format!("{:?} on predicates", op).to_lowercase()),
        };
        let mut args = Vec::new();
        for o in srcs {
            args.push(match o {
                Operand::Imm(v) => u8::from(*v != 0).to_string(),
                Operand::Reg(r) => reg(self.thread, r),
                Operand::Sym(s) => return Err(format!("the address of `{}` as a predicate", s)),
            });
        }
        Ok(vec![format!("{}.pred {}, {};", name, reg(self.thread, dst), args.join(", "))])
    }

    /// Untyped corpus arithmetic (`arith::untyped`): signed 64-bit, wrapping;
    /// a shift is `shl.b64` / `shr.s64` with its .u32 amount clamped to 64 (D15).
    fn alu_untyped(&mut self, op: AluOp, dst: &str, srcs: &[Operand]) -> Result<Vec<String>, String> {
        let d = reg(self.thread, dst);
        let s: Vec<String> = srcs.iter().map(|o| self.opnd(o)).collect();
        let name = match op {
            AluOp::Mov => "mov.b64",
            AluOp::Not => "not.b64",
            AluOp::Neg => "neg.s64",
            AluOp::Add => "add.s64",
            AluOp::Sub => "sub.s64",
            AluOp::Mul => "mul.lo.s64",
            AluOp::MulHi => "mul.hi.s64",
            AluOp::Div => "div.s64",
            AluOp::Rem => "rem.s64",
            AluOp::And => "and.b64",
            AluOp::Or => "or.b64",
            AluOp::Xor => "xor.b64",
            AluOp::Min => "min.s64",
            AluOp::Max => "max.s64",
            AluOp::Bits(_) | AluOp::Float(_) => return Err("bit and floating-point operations are not emitted".into()),
            AluOp::Shl | AluOp::Shr => {
                let name = if op == AluOp::Shl { "shl.b64" } else { "shr.s64" };
                let mut lines = Vec::new();
                let amount = self.shift_amount(&srcs[1], 64, &mut lines);
                lines.push(format!("{} {}, {}, {};", name, d, s[0], amount));
                return Ok(lines);
            }
        };
        Ok(vec![format!("{} {}, {};", name, d, s.join(", "))])
    }

    /// A typed operation: sources widened from `src` (scratch registers
    /// `%s64_i` when narrower than 64 bits), the operation on the widened
    /// values, the result cut to `ty`. Widened values of at most 32 bits make
    /// every 64-bit result exact, as the model's 128-bit arithmetic is.
    fn alu_typed(
        &mut self,
        op: AluOp,
        dst: &str,
        srcs: &[Operand],
        ty: IntTy,
        src: IntTy,
    ) -> Result<Vec<String>, String> {
        if !matches!(ty.bits, 8 | 16 | 32 | 64) || !matches!(src.bits, 8 | 16 | 32 | 64) {
            return Err(format!(
                "{}-bit arithmetic (predicates and wider types are not emitted)",
                if ty.bits == 1 || src.bits == 1 { 1 } else { ty.bits.max(src.bits) }
            ));
        }
        if matches!(op, AluOp::Shl | AluOp::Shr) && ty != src {
            return Err("a shift whose result and source types differ".into());
        }
        let mut lines = Vec::new();
        let mut args = Vec::new();
        for (i, o) in srcs.iter().enumerate() {
            args.push(self.widened(o, src, i, &mut lines)?);
        }
        // Only full 64-bit unsigned sources need unsigned instructions: narrower
        // values are extended, so signed 64-bit instructions order them right.
        let unsigned64 = src.bits == 64 && !src.signed;
        let k = if unsigned64 { "u64" } else { "s64" };
        let d = reg(self.thread, dst);
        let a = &args[0];
        let line = match op {
            AluOp::Mov => format!("mov.b64 {}, {};", d, a),
            AluOp::Not => format!("not.b64 {}, {};", d, a),
            AluOp::Neg => format!("neg.s64 {}, {};", d, a),
            AluOp::Add => format!("add.s64 {}, {}, {};", d, a, args[1]),
            AluOp::Sub => format!("sub.s64 {}, {}, {};", d, a, args[1]),
            AluOp::Mul => format!("mul.lo.s64 {}, {}, {};", d, a, args[1]),
            AluOp::MulHi if src.bits == 64 => format!("mul.hi.{} {}, {}, {};", k, d, a, args[1]),
            // The whole product fits in 64 bits; its high half is a shift
            // (logical for unsigned sources, whose product may exceed 2^63).
            AluOp::MulHi => {
                lines.push(format!("mul.lo.s64 {}, {}, {};", d, a, args[1]));
                format!("shr.{} {}, {}, {};", if src.signed { "s64" } else { "u64" }, d, d, src.bits)
            }
            AluOp::Div => format!("div.{} {}, {}, {};", k, d, a, args[1]),
            AluOp::Rem => format!("rem.{} {}, {}, {};", k, d, a, args[1]),
            AluOp::And => format!("and.b64 {}, {}, {};", d, a, args[1]),
            AluOp::Or => format!("or.b64 {}, {}, {};", d, a, args[1]),
            AluOp::Xor => format!("xor.b64 {}, {}, {};", d, a, args[1]),
            AluOp::Min => format!("min.{} {}, {}, {};", k, d, a, args[1]),
            AluOp::Max => format!("max.{} {}, {}, {};", k, d, a, args[1]),
            AluOp::Bits(_) | AluOp::Float(_) => return Err("bit and floating-point operations are not emitted".into()),
            AluOp::Shl | AluOp::Shr => {
                // The amount is a .u32, clamped to the width (ISA shl, shr); the
                // model shifts the widened value, so a right shift of a signed
                // value fills with its sign, of an unsigned one with zeros.
                let amount = self.shift_amount(&srcs[1], src.bits, &mut lines);
                let name = if op == AluOp::Shl {
                    "shl.b64"
                } else if src.signed || src.bits < 64 {
                    "shr.s64"
                } else {
                    "shr.u64"
                };
                format!("{} {}, {}, {};", name, d, a, amount)
            }
        };
        lines.push(line);
        lines.extend(extend(&d, ty.bits, ty.signed));
        Ok(lines)
    }

    /// A source operand read as `src`: an immediate is widened here, a
    /// narrower register is copied into `%s64_i` and extended there.
    fn widened(&self, o: &Operand, src: IntTy, i: usize, lines: &mut Vec<String>) -> Result<String, String> {
        match o {
            Operand::Imm(v) => Ok((widen(src, *v) as i64).to_string()),
            Operand::Sym(s) if src.bits < 64 => Err(format!("the address of `{}` in {}-bit arithmetic", s, src.bits)),
            _ if src.bits == 64 => Ok(self.opnd(o)),
            _ => {
                let r = format!("%s64_{}", i);
                lines.push(format!("mov.b64 {}, {};", r, self.opnd(o)));
                lines.extend(extend(&r, src.bits, src.signed));
                Ok(r)
            }
        }
    }

    /// The shift amount: the low 32 bits of the operand (a .u32), at most `bits`.
    fn shift_amount(&self, o: &Operand, bits: u32, lines: &mut Vec<String>) -> String {
        if let Operand::Imm(i) = o {
            return (*i as u32).min(bits).to_string();
        }
        lines.push(format!("cvt.u32.u64 %s32_0, {};", self.opnd(o)));
        lines.push(format!("min.u32 %s32_0, %s32_0, {};", bits));
        "%s32_0".into()
    }

    /// `selp`: the chosen operand, cut to the type as the model converts it.
    pub(super) fn selp(
        &mut self,
        dst: &str,
        a: &Operand,
        b: &Operand,
        pred: &Operand,
        ty: Option<IntTy>,
    ) -> Result<Vec<String>, String> {
        let d = reg(self.thread, dst);
        let mut lines = vec![format!("selp.b64 {}, {}, {}, {};", d, self.opnd(a), self.opnd(b), self.opnd(pred))];
        if let Some(t) = ty {
            if !matches!(t.bits, 8 | 16 | 32 | 64) {
                return Err(format!("selp of a {}-bit type", t.bits));
            }
            lines.extend(extend(&d, t.bits, t.signed));
        }
        Ok(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::extend;

    #[test]
    fn extension_is_a_shift_pair() {
        assert!(extend("%r", 64, true).is_empty());
        assert_eq!(extend("%r", 32, true), vec!["shl.b64 %r, %r, 32;", "shr.s64 %r, %r, 32;"]);
        assert_eq!(extend("%r", 8, false)[1], "shr.u64 %r, %r, 56;");
    }
}
