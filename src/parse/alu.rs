//! Register arithmetic (`add`, `mul`, `cvt`, `shl`, ...), `setp` and `selp`,
//! with their types: a type decides the width results wrap at and whether
//! comparisons are signed (ISA 5.2.1, 6.5.1). Floating-point arithmetic is not
//! modelled and is refused; a floating-point `mov`/`selp` copies bits.

use super::instr::{dst, state_space, two_of, Names, Qual, RawInstr};
use crate::ast::{AluOp, Cmp, FloatOp, InstrKind, IntTy};
use crate::error::{Error, Result};

/// Register arithmetic opcodes and their number of source operands.
pub(crate) fn alu_op(opcode: &str) -> Option<(AluOp, usize)> {
    use AluOp::*;
    let r = match opcode {
        "mov" | "cvta" | "cvt" => (Mov, 1),
        "not" => (Not, 1),
        "neg" => (Neg, 1),
        "add" => (Add, 2),
        "sub" => (Sub, 2),
        "mul" => (Mul, 2),
        "div" => (Div, 2),
        "rem" => (Rem, 2),
        "and" => (And, 2),
        "or" => (Or, 2),
        "xor" => (Xor, 2),
        "shl" => (Shl, 2),
        "shr" => (Shr, 2),
        "min" => (Min, 2),
        "max" => (Max, 2),
        _ => return None,
    };
    Some(r)
}

/// A type qualifier: the integer type, and whether it is a floating-point type
/// (then `IntTy` is its bit pattern).
pub(crate) fn type_of(q: &str) -> Option<(IntTy, bool)> {
    let (signed, float, bits) = match q {
        "pred" => return Some((IntTy { bits: 1, signed: false }, false)),
        "bf16" => return Some((IntTy { bits: 16, signed: false }, true)),
        _ => {
            let (kind, bits) = q.split_at(1.min(q.len()));
            let bits: u32 = bits.parse().ok()?;
            match (kind, bits) {
                ("b" | "u", 8 | 16 | 32 | 64) => (false, false, bits),
                ("s", 8 | 16 | 32 | 64) => (true, false, bits),
                ("f", 16 | 32 | 64) => (false, true, bits),
                _ => return None,
            }
        }
    };
    Some((IntTy { bits, signed }, float))
}

/// The operand types of an ALU mnemonic, and `mul`'s half (`.lo`, `.hi`, `.wide`).
struct AluQuals<'q> {
    types: Vec<(IntTy, bool, &'q Qual)>,
    half: Option<&'q Qual>,
}

fn alu_quals<'q>(raw: &'q RawInstr) -> Result<AluQuals<'q>> {
    let mut out = AluQuals { types: Vec::new(), half: None };
    for q in &raw.quals {
        let t = q.text.as_str();
        if let Some((ty, float)) = type_of(t) {
            out.types.push((ty, float, q));
        } else if raw.opcode == "mul" && matches!(t, "lo" | "hi" | "wide") {
            if let Some(prev) = out.half {
                return Err(two_of(raw, "result half", prev, q));
            }
            out.half = Some(q);
        } else if !(raw.opcode == "cvta" && (t == "to" || state_space(t).is_some())) {
            return Err(raw.bad_qual(q));
        }
    }
    let max_types = if raw.opcode == "cvt" { 2 } else { 1 };
    if let Some((_, _, q)) = out.types.get(max_types) {
        return Err(two_of(raw, "type", out.types[max_types - 1].2, q));
    }
    Ok(out)
}

fn float_error(raw: &RawInstr, q: &Qual) -> Error {
    Error::input(
        format!("floating-point `{}.{}` is not supported: only integer arithmetic is modelled", raw.opcode, q.text),
        q.span,
    )
}

/// `(op, ty, src_ty)` of an arithmetic mnemonic: `add.u32`, `mul.wide.s32`,
/// `cvt.u16.u32`, `mov.b64`, `cvta.to.global.u64`; untyped corpus `add`.
fn alu_types(raw: &RawInstr, op: AluOp) -> Result<(AluOp, Option<IntTy>, Option<IntTy>)> {
    let q = alu_quals(raw)?;
    let bit_copy = matches!(raw.opcode.as_str(), "mov" | "cvta");
    if let Some((_, _, fq)) = q.types.iter().find(|(_, f, _)| *f && !bit_copy) {
        return Err(float_error(raw, fq));
    }
    let first = q.types.first().map(|t| t.0);
    if raw.opcode == "cvt" {
        return match q.types.as_slice() {
            [(d, _, _), (s, _, _)] => Ok((op, Some(*d), Some(*s))),
            _ => Err(Error::input(
                "`cvt` requires a destination type and a source type (e.g. cvt.u64.u32)",
                raw.opcode_span,
            )),
        };
    }
    match (q.half.map(|h| h.text.as_str()), first) {
        (Some("hi"), _) => Ok((AluOp::MulHi, first, first)),
        // The product of two N-bit sources, kept whole in 2N bits.
        (Some("wide"), Some(t)) if t.bits <= 32 => Ok((op, Some(IntTy { bits: t.bits * 2, ..t }), Some(t))),
        (Some("wide"), _) => Err(Error::input("`mul.wide` requires a 16- or 32-bit type", raw.opcode_span)),
        _ => Ok((op, first, first)),
    }
}

/// `.f32` or `.f64` (the floating-point widths modelled, D168).
fn float_width(q: &str) -> Option<u32> {
    match q {
        "f32" => Some(32),
        "f64" => Some(64),
        _ => None,
    }
}

/// `add/sub/mul{.rn}{.ftz}.fN d, a, b`, `cvt.rn.fN.{u,s}M d, a` and
/// `cvt{.rn}.fN.fM d, a` (D168): other rounding modes, `.sat` and float to
/// integer conversions are refused.
fn float_alu(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let mut types: Vec<(IntTy, bool)> = Vec::new();
    let (mut ftz, mut rn) = (false, false);
    for q in &raw.quals {
        match q.text.as_str() {
            "ftz" if raw.opcode != "cvt" => ftz = true,
            "rn" => rn = true,
            t => match (type_of(t), float_width(t)) {
                (Some(_), Some(bits)) => types.push((IntTy { bits, signed: false }, true)),
                (Some((ty, false)), None) if raw.opcode == "cvt" => types.push((ty, false)),
                _ => return Err(raw.bad_qual(q)),
            },
        }
    }
    let (op, ty, src, nsrc) = match (raw.opcode.as_str(), types.as_slice()) {
        ("add", [(t, true)]) => (FloatOp::Add { ftz }, *t, *t, 2),
        ("sub", [(t, true)]) => (FloatOp::Sub { ftz }, *t, *t, 2),
        ("mul", [(t, true)]) => (FloatOp::Mul { ftz }, *t, *t, 2),
        // "cvt.frnd2{.relu}{.satfinite}.f32.{u,s}..." needs its rounding mode.
        ("cvt", [(d, true), (s, false)]) if rn => (FloatOp::FromInt, *d, *s, 1),
        ("cvt", [(d, true), (s, true)]) if rn || d.bits > s.bits => (FloatOp::Resize, *d, *s, 1),
        _ => {
            let msg = format!(
                "`{}` is not supported: the floating-point operations modelled are add, sub and mul (.rn), setp, cvt.rn from integers and cvt between .f32 and .f64",
                raw.mnemonic
            );
            return Err(Error::input(msg, raw.opcode_span));
        }
    };
    match raw.operands.split_first() {
        Some((d, srcs)) if srcs.len() == nsrc => {
            let srcs = srcs.iter().map(|s| names.value(s)).collect::<Result<Vec<_>>>()?;
            Ok(InstrKind::Alu { op: AluOp::Float(op), dst: dst(d)?, srcs, ty: Some(ty), src_ty: Some(src) })
        }
        _ => Err(raw.arity(if nsrc == 1 { "a destination and one source" } else { "a destination and two sources" })),
    }
}

/// `add.u32 d, a, b` and the other arithmetic mnemonics.
pub(crate) fn alu(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let Some((op, nsrc)) = alu_op(&raw.opcode) else {
        return Err(Error::internal("alu called on a non-arithmetic opcode"));
    };
    // A floating-point `mov`/`cvta` copies bits; every other operation on a
    // `.f32`/`.f64` type is floating-point arithmetic.
    let float = raw.quals.iter().any(|q| float_width(&q.text).is_some());
    if float && !matches!(raw.opcode.as_str(), "mov" | "cvta") {
        return float_alu(raw, names);
    }
    let (op, ty, src_ty) = alu_types(raw, op)?;
    let expected = if nsrc == 1 { "a destination and one source" } else { "a destination and two sources" };
    match raw.operands.split_first() {
        Some((d, srcs)) if srcs.len() == nsrc => {
            let srcs = srcs.iter().map(|s| names.value(s)).collect::<Result<Vec<_>>>()?;
            Ok(InstrKind::Alu { op, dst: dst(d)?, srcs, ty, src_ty })
        }
        _ => Err(raw.arity(expected)),
    }
}

fn cmp_of(q: &str) -> Option<Cmp> {
    match q {
        "eq" => Some(Cmp::Eq),
        "ne" => Some(Cmp::Ne),
        "lt" | "lo" => Some(Cmp::Lt),
        "le" | "ls" => Some(Cmp::Le),
        "gt" | "hi" => Some(Cmp::Gt),
        "ge" | "hs" => Some(Cmp::Ge),
        _ => None,
    }
}

/// `setp.CMP{.ftz}.fN p, a, b` (D168): `eq ne lt le gt ge` and their
/// unordered forms `equ neu ltu leu gtu geu` (ISA setp).
fn float_setp(raw: &RawInstr, names: &Names, bits: u32) -> Result<InstrKind> {
    let mut cmp: Option<(Cmp, bool)> = None;
    let mut ftz = false;
    for q in &raw.quals {
        let t = q.text.as_str();
        let unordered = t.len() == 3 && t.ends_with('u');
        match cmp_of(if unordered { &t[..2] } else { t }) {
            Some(c) if cmp.is_none() && !matches!(t, "lo" | "ls" | "hi" | "hs" | "lou" | "lsu" | "hiu" | "hsu") => {
                cmp = Some((c, unordered))
            }
            _ if t == "ftz" => ftz = true,
            _ if float_width(t) == Some(bits) => {}
            _ => return Err(raw.bad_qual(q)),
        }
    }
    let Some((cmp, unordered)) = cmp else {
        return Err(Error::input("`setp` requires a comparison (.eq, .ne, .lt, .le, .gt or .ge)", raw.opcode_span));
    };
    let f = IntTy { bits, signed: false };
    match raw.operands.as_slice() {
        [d, a, b] => Ok(InstrKind::Alu {
            op: AluOp::Float(FloatOp::Setp { cmp, unordered, ftz }),
            dst: dst(d)?,
            srcs: vec![names.value(a)?, names.value(b)?],
            ty: Some(IntTy { bits: 1, signed: false }),
            src_ty: Some(f),
        }),
        _ => Err(raw.arity("a destination predicate and two sources")),
    }
}

/// `setp.eq.u32 %p, a, b` (`lo ls hi hs` are the unsigned spellings).
pub(crate) fn setp(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    if let Some(bits) = raw.quals.iter().find_map(|q| float_width(&q.text)) {
        return float_setp(raw, names, bits);
    }
    let mut cmp: Option<(Cmp, &Qual)> = None;
    let mut ty: Option<(IntTy, &Qual)> = None;
    for q in &raw.quals {
        if let Some(c) = cmp_of(&q.text) {
            if let Some((_, prev)) = cmp {
                return Err(two_of(raw, "comparison", prev, q));
            }
            cmp = Some((c, q));
        } else if let Some((t, float)) = type_of(&q.text) {
            if float {
                return Err(float_error(raw, q));
            }
            if let Some((_, prev)) = ty {
                return Err(two_of(raw, "type", prev, q));
            }
            ty = Some((t, q));
        } else if q.text == "ftz" {
            return Err(Error::input(
                "`.ftz` only applies to floating-point comparisons, which are not supported",
                q.span,
            ));
        } else {
            return Err(raw.bad_qual(q));
        }
    }
    let Some((cmp, _)) = cmp else {
        return Err(Error::input("`setp` requires a comparison (.eq, .ne, .lt, .le, .gt or .ge)", raw.opcode_span));
    };
    match raw.operands.as_slice() {
        [d, a, b] => {
            Ok(InstrKind::Setp { cmp, dst: dst(d)?, a: names.value(a)?, b: names.value(b)?, ty: ty.map(|t| t.0) })
        }
        _ => Err(raw.arity("a destination predicate and two sources")),
    }
}

/// `selp.u32 d, a, b, p`: d = p ? a : b.
pub(crate) fn selp(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let mut ty: Option<(IntTy, &Qual)> = None;
    for q in &raw.quals {
        match type_of(&q.text) {
            Some((t, _)) => {
                if let Some((_, prev)) = ty {
                    return Err(two_of(raw, "type", prev, q));
                }
                ty = Some((t, q));
            }
            None => return Err(raw.bad_qual(q)),
        }
    }
    match raw.operands.as_slice() {
        [d, a, b, p] => Ok(InstrKind::Selp {
            dst: dst(d)?,
            a: names.value(a)?,
            b: names.value(b)?,
            pred: names.value(p)?,
            ty: ty.map(|t| t.0),
        }),
        _ => Err(raw.arity("a destination, two sources and a predicate")),
    }
}
