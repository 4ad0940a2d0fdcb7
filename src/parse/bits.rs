//! The bit operations (ISA 9.7.1 `popc`, `clz`, `brev`, `bfind`, `bfe`,
//! `bfi`, `fns`; 9.7.8 `cnot`, `prmt`, `lop3`, `shf`) decoded into register arithmetic
//! (`AluOp::Bits`, evaluated by `program::bits`). Each takes exactly the
//! types its ISA syntax lists.

use super::instr::{dst, two_of, Names, Qual, RawInstr};
use crate::ast::{AluOp, BitOp, InstrKind, IntTy, PrmtMode};
use crate::error::{Error, Result};

/// The opcodes decoded here.
pub(crate) fn is_bit_op(opcode: &str) -> bool {
    matches!(opcode, "popc" | "clz" | "brev" | "bfind" | "bfe" | "bfi" | "fns" | "cnot" | "prmt" | "lop3" | "shf")
}

const U32: IntTy = IntTy { bits: 32, signed: false };

/// The types each opcode's `.type` may be.
fn allowed_types(opcode: &str) -> &'static [&'static str] {
    match opcode {
        "bfind" | "bfe" => &["u32", "u64", "s32", "s64"],
        "prmt" | "lop3" | "shf" | "fns" => &["b32"],
        "cnot" => &["b16", "b32", "b64"],
        _ => &["b32", "b64"],
    }
}

/// The qualifiers of a bit operation: its type, and the mode words it takes.
struct BitQuals<'q> {
    ty: Option<(IntTy, &'q Qual)>,
    modes: Vec<&'q Qual>,
}

fn quals(raw: &RawInstr) -> Result<BitQuals<'_>> {
    let mut out = BitQuals { ty: None, modes: Vec::new() };
    for q in &raw.quals {
        let t = q.text.as_str();
        if allowed_types(&raw.opcode).contains(&t) {
            if let Some((_, prev)) = out.ty {
                return Err(two_of(raw, "type", prev, q));
            }
            let (ty, _) =
                super::alu::type_of(t).ok_or_else(|| Error::internal("a listed bit-operation type does not parse"))?;
            out.ty = Some((ty, q));
        } else if is_mode(&raw.opcode, t) {
            out.modes.push(q);
        } else {
            return Err(raw.bad_qual(q));
        }
    }
    Ok(out)
}

fn is_mode(opcode: &str, q: &str) -> bool {
    match opcode {
        "bfind" => q == "shiftamt",
        "prmt" => prmt_mode(q).is_some(),
        "shf" => matches!(q, "l" | "r" | "clamp" | "wrap"),
        _ => false,
    }
}

fn prmt_mode(q: &str) -> Option<PrmtMode> {
    Some(match q {
        "f4e" => PrmtMode::F4e,
        "b4e" => PrmtMode::B4e,
        "rc8" => PrmtMode::Rc8,
        "ecl" => PrmtMode::Ecl,
        "ecr" => PrmtMode::Ecr,
        "rc16" => PrmtMode::Rc16,
        _ => return None,
    })
}

/// At most one of the mode words in `group` (None: none written).
fn one_of<'q>(raw: &RawInstr, modes: &[&'q Qual], group: &[&str], what: &str) -> Result<Option<&'q Qual>> {
    let mut found: Option<&Qual> = None;
    for q in modes.iter().filter(|q| group.contains(&q.text.as_str())) {
        if let Some(prev) = found {
            return Err(two_of(raw, what, prev, q));
        }
        found = Some(q);
    }
    Ok(found)
}

/// The operation a mnemonic names, given its mode qualifiers.
fn bit_op(raw: &RawInstr, modes: &[&Qual]) -> Result<BitOp> {
    Ok(match raw.opcode.as_str() {
        "popc" => BitOp::Popc,
        "cnot" => BitOp::Cnot,
        "clz" => BitOp::Clz,
        "brev" => BitOp::Brev,
        "bfind" => BitOp::Bfind { shiftamt: !modes.is_empty() },
        "bfe" => BitOp::Bfe,
        "bfi" => BitOp::Bfi,
        "fns" => BitOp::Fns,
        "lop3" => BitOp::Lop3,
        "prmt" => BitOp::Prmt(
            one_of(raw, modes, &["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"], "mode")?
                .and_then(|q| prmt_mode(&q.text))
                .unwrap_or(PrmtMode::Index),
        ),
        "shf" => {
            let dir = one_of(raw, modes, &["l", "r"], "direction")?;
            let mode = one_of(raw, modes, &["clamp", "wrap"], "mode")?;
            let (Some(dir), Some(mode)) = (dir, mode) else {
                return Err(Error::input(
                    format!("`{}` needs a direction (.l or .r) and a mode (.clamp or .wrap)", raw.mnemonic),
                    raw.opcode_span,
                ));
            };
            BitOp::Shf { left: dir.text == "l", clamp: mode.text == "clamp" }
        }
        _ => return Err(Error::internal("bit_op called on another opcode")),
    })
}

/// Number of source operands.
fn sources(op: BitOp) -> usize {
    match op {
        BitOp::Popc | BitOp::Cnot | BitOp::Clz | BitOp::Brev | BitOp::Bfind { .. } => 1,
        BitOp::Bfe | BitOp::Fns | BitOp::Prmt(_) | BitOp::Shf { .. } => 3,
        BitOp::Bfi | BitOp::Lop3 => 4,
    }
}

/// `popc.b64 %r1, %rd1;`, `bfe.s32 %r2, %r1, %r3, 8;`, `prmt.b32.rc8 ...`.
pub(crate) fn decode(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let q = quals(raw)?;
    let Some((ty, _)) = q.ty else {
        let list = allowed_types(&raw.opcode).iter().map(|t| format!(".{}", t)).collect::<Vec<_>>().join(", ");
        return Err(Error::input(format!("`{}` needs a type ({})", raw.mnemonic, list), raw.opcode_span));
    };
    let op = bit_op(raw, &q.modes)?;
    // Counts and positions are .u32 results; the other results have the instruction's type.
    let result = match op {
        BitOp::Popc | BitOp::Clz | BitOp::Bfind { .. } => U32,
        _ => ty,
    };
    let n = sources(op);
    match raw.operands.split_first() {
        Some((d, srcs)) if srcs.len() == n => {
            let srcs = srcs.iter().map(|s| names.value(s)).collect::<Result<Vec<_>>>()?;
            Ok(InstrKind::Alu { op: AluOp::Bits(op), dst: dst(d)?, srcs, ty: Some(result), src_ty: Some(ty) })
        }
        _ => Err(raw.arity(&format!("a destination and {} source{}", n, if n == 1 { "" } else { "s" }))),
    }
}
