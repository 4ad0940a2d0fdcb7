//! Instructions nvcc emits that are compositions of ones the decoder knows
//! (ISA 9.7.1, 9.7.8.7): `mad` is a multiply then an add, `bfe` with constant
//! position and length a pair of shifts, `prmt` with a constant selector
//! shifts, masks and ors of the selected bytes. They are rewritten before decoding, with a
//! fresh register for the intermediate value.

use crate::error::{Error, Result};
use crate::parse::instr::{Qual, RawInstr, RawKind, RawOperand};

/// The instructions `raw` stands for, or `None` when it is not compound.
/// `tmp` is a register no other instruction uses.
pub fn expand(raw: &RawInstr, tmp: &str) -> Result<Option<Vec<RawInstr>>> {
    match raw.opcode.as_str() {
        "mad" => mad(raw, tmp).map(Some),
        "bfe" => bfe(raw, tmp).map(Some),
        "prmt" => prmt(raw, tmp).map(Some),
        _ => Ok(None),
    }
}

fn with(raw: &RawInstr, opcode: &str, quals: &[&str], operands: Vec<RawOperand>) -> RawInstr {
    let q = |t: &str| Qual { text: t.to_string(), span: raw.opcode_span };
    RawInstr {
        opcode: opcode.to_string(),
        mnemonic: std::iter::once(opcode).chain(quals.iter().copied()).collect::<Vec<_>>().join("."),
        quals: quals.iter().map(|t| q(t)).collect(),
        operands,
        ..raw.clone()
    }
}

fn reg(name: &str, like: &RawOperand) -> RawOperand {
    RawOperand { kind: RawKind::Name(name.to_string()), span: like.span, text: name.to_string() }
}

fn imm(v: i64, like: &RawOperand) -> RawOperand {
    RawOperand { kind: RawKind::Imm(v), span: like.span, text: v.to_string() }
}

/// `mad.{lo,hi,wide}.T d, a, b, c` = `mul.{lo,hi,wide}.T t, a, b; add.T' d, t, c`
/// where T' is T, or twice as wide for `.wide`.
fn mad(raw: &RawInstr, tmp: &str) -> Result<Vec<RawInstr>> {
    let [d, a, b, c] = raw.operands.as_slice() else { return Err(raw.arity("a destination and three sources")) };
    let quals: Vec<&str> = raw.quals.iter().map(|q| q.text.as_str()).collect();
    let (mode, ty) = match quals.as_slice() {
        [m @ ("lo" | "hi" | "wide"), t] => (*m, *t),
        _ => return Err(Error::input(format!("`{}`: expected `mad.lo`, `mad.hi` or `mad.wide` with an integer type", raw.mnemonic), raw.opcode_span)),
    };
    let sum_ty = match (mode, ty) {
        ("wide", "s32") => "s64".to_string(),
        ("wide", "u32") => "u64".to_string(),
        ("wide", "s16") => "s32".to_string(),
        ("wide", "u16") => "u32".to_string(),
        ("wide", _) => return Err(Error::input(format!("`{}`: `.wide` takes a 16- or 32-bit type", raw.mnemonic), raw.opcode_span)),
        _ => ty.to_string(),
    };
    let t = reg(tmp, d);
    Ok(vec![with(raw, "mul", &[mode, ty], vec![t.clone(), a.clone(), b.clone()]), with(raw, "add", &[&sum_ty], vec![d.clone(), t, c.clone()])])
}

/// `bfe.T d, a, pos, len` with constant pos and len (ISA 9.7.1.19): the
/// field shifted to the top, then back down (arithmetic shift for `.s`).
fn bfe(raw: &RawInstr, tmp: &str) -> Result<Vec<RawInstr>> {
    let [d, a, p, l] = raw.operands.as_slice() else { return Err(raw.arity("a destination, a source, a position and a length")) };
    let ty = raw.quals.first().map_or("", |q| q.text.as_str());
    let bits: i64 = match ty {
        "u32" | "s32" => 32,
        "u64" | "s64" => 64,
        _ => return Err(Error::input(format!("`{}`: expected `.u32`, `.s32`, `.u64` or `.s64`", raw.mnemonic), raw.opcode_span)),
    };
    let (RawKind::Imm(pos), RawKind::Imm(len)) = (&p.kind, &l.kind) else {
        return Err(Error::input("`bfe` with a position or length in a register is not supported", raw.span));
    };
    let (pos, len) = ((*pos).clamp(0, bits - 1), (*len).clamp(0, bits));
    if len == 0 {
        return Ok(vec![with(raw, "mov", &[&format!("b{}", bits)], vec![d.clone(), imm(0, d)])]);
    }
    let up = (bits - pos - len).max(0);
    let t = reg(tmp, d);
    let shr_ty = format!("{}{}", if ty.starts_with('s') { "s" } else { "u" }, bits);
    Ok(vec![with(raw, "shl", &[&format!("b{}", bits)], vec![t.clone(), a.clone(), imm(up, d)]), with(raw, "shr", &[&shr_ty], vec![d.clone(), t, imm(bits - len, d)])])
}

/// `prmt.b32 d, a, b, c` (default mode) with a constant selector `c`: byte
/// `i` of d is byte `c[4i+2:4i]` of the 8 bytes {b, a} (a is bytes 0-3), or,
/// when `c[4i+3]` is set, that byte's sign bit replicated (libcu++'s
/// byte-wise local-memory fallbacks assemble words this way).
fn prmt(raw: &RawInstr, tmp: &str) -> Result<Vec<RawInstr>> {
    let [d, a, b, c] = raw.operands.as_slice() else { return Err(raw.arity("a destination, two sources and a selector")) };
    if raw.quals.iter().map(|q| q.text.as_str()).ne(["b32"]) {
        return Err(Error::input(format!("`{}`: only `prmt.b32` in the default mode is supported", raw.mnemonic), raw.opcode_span));
    }
    let RawKind::Imm(sel) = c.kind else {
        return Err(Error::input("`prmt` with a selector in a register is not supported", c.span));
    };
    let mut out = Vec::new();
    let acc = |i: usize| reg(&format!("{}_acc{}", tmp, i), d);
    for i in 0..4 {
        let nib = (sel >> (4 * i)) & 0xf;
        let (src, byte) = if nib & 7 < 4 { (a, nib & 3) } else { (b, nib & 3) };
        let t = reg(&format!("{}_b{}", tmp, i), d);
        let u = reg(&format!("{}_c{}", tmp, i), d);
        if nib & 8 == 0 {
            // ((src >> 8*byte) & 0xff) << 8*i
            out.push(with(raw, "shr", &["u32"], vec![t.clone(), src.clone(), imm(8 * byte, d)]));
            out.push(with(raw, "and", &["b32"], vec![u.clone(), t.clone(), imm(0xff, d)]));
        } else {
            // the sign bit of that byte, replicated over 8 bits
            out.push(with(raw, "shl", &["b32"], vec![t.clone(), src.clone(), imm(24 - 8 * byte, d)]));
            out.push(with(raw, "shr", &["s32"], vec![t.clone(), t.clone(), imm(31, d)]));
            out.push(with(raw, "and", &["b32"], vec![u.clone(), t.clone(), imm(0xff, d)]));
        }
        out.push(with(raw, "shl", &["b32"], vec![u.clone(), u.clone(), imm(8 * i as i64, d)]));
        let merged = if i == 3 { d.clone() } else { acc(i) };
        match i {
            0 => out.push(with(raw, "mov", &["b32"], vec![merged, u])),
            _ => out.push(with(raw, "or", &["b32"], vec![merged, acc(i - 1), u])),
        }
    }
    Ok(out)
}
