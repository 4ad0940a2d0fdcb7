//! Instructions nvcc emits that are compositions of ones the decoder knows
//! (ISA 9.7.1): `mad` is a multiply then an add. It is rewritten before
//! decoding, with a fresh register for the intermediate value.

use crate::error::{Error, Result};
use crate::parse::instr::{Qual, RawInstr, RawKind, RawOperand};

/// The instructions `raw` stands for, or `None` when it is not compound.
/// `tmp` is a register no other instruction uses.
pub fn expand(raw: &RawInstr, tmp: &str) -> Result<Option<Vec<RawInstr>>> {
    match raw.opcode.as_str() {
        "mad" => mad(raw, tmp).map(Some),
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

/// `mad.{lo,hi,wide}.T d, a, b, c` = `mul.{lo,hi,wide}.T t, a, b; add.T' d, t, c`
/// where T' is T, or twice as wide for `.wide`.
fn mad(raw: &RawInstr, tmp: &str) -> Result<Vec<RawInstr>> {
    let [d, a, b, c] = raw.operands.as_slice() else { return Err(raw.arity("a destination and three sources")) };
    let quals: Vec<&str> = raw.quals.iter().map(|q| q.text.as_str()).collect();
    let (mode, ty) = match quals.as_slice() {
        [m @ ("lo" | "hi" | "wide"), t] => (*m, *t),
        _ => {
            return Err(Error::input(
                format!("`{}`: expected `mad.lo`, `mad.hi` or `mad.wide` with an integer type", raw.mnemonic),
                raw.opcode_span,
            ))
        }
    };
    let sum_ty = match (mode, ty) {
        ("wide", "s32") => "s64".to_string(),
        ("wide", "u32") => "u64".to_string(),
        ("wide", "s16") => "s32".to_string(),
        ("wide", "u16") => "u32".to_string(),
        ("wide", _) => {
            return Err(Error::input(
                format!("`{}`: `.wide` takes a 16- or 32-bit type", raw.mnemonic),
                raw.opcode_span,
            ))
        }
        _ => ty.to_string(),
    };
    let t = reg(tmp, d);
    Ok(vec![
        with(raw, "mul", &[mode, ty], vec![t.clone(), a.clone(), b.clone()]),
        with(raw, "add", &[&sum_ty], vec![d.clone(), t, c.clone()]),
    ])
}
