//! Vector accesses (`.v2`, `.v4`): one scalar access per element (ISA 8.2.4).

use super::instr::{Names, RawInstr, RawKind, RawOperand};
use super::mem::{load, store};
use crate::ast::{InstrKind, Sem};
use crate::error::{Error, Result};

/// `ld.v2.u32 {a, b}, [x]`, `st.v4.b32 [x], {a, b, c, d}`: "modelled as a set
/// of equivalent memory operations with a scalar data type, executed in an
/// unspecified order on the elements" (8.2.4). For weak accesses the order of
/// elements at distinct addresses changes nothing, so they are performed in
/// element order; strong vector accesses, where the order could matter, are
/// refused (D18).
pub(crate) fn vector(raw: &RawInstr, names: &Names) -> Result<Vec<InstrKind>> {
    let (vq, n) = match raw.quals.iter().find_map(|q| match q.text.as_str() {
        "v2" => Some((q, 2)),
        "v4" => Some((q, 4)),
        _ => None,
    }) {
        Some(x) => x,
        None => return Err(Error::input("only .v2 and .v4 vector accesses are supported", raw.opcode_span)),
    };
    let scalar =
        RawInstr { quals: raw.quals.iter().filter(|q| !std::ptr::eq(*q, vq)).cloned().collect(), ..raw.clone() };
    let load = raw.opcode == "ld";
    let vpos = if load { 0 } else { 1 };
    if raw.operands.len() != 2 {
        return Err(raw.arity("an address and a vector such as {%r1, %r2}"));
    }
    let elems = match &raw.operands[vpos].kind {
        RawKind::Vector(e) if e.len() == n => e.clone(),
        _ => {
            let o = &raw.operands[vpos];
            return Err(Error::input(
                format!("`.v{}` needs a vector of {} elements such as {{%r1, %r2}}, found `{}`", n, n, o.text),
                o.span,
            ));
        }
    };
    let mut out = Vec::new();
    for (i, e) in elems.into_iter().enumerate() {
        let mut ops: Vec<RawOperand> = scalar.operands.clone();
        ops[vpos] = e;
        let one = RawInstr { operands: ops, ..scalar.clone() };
        let k = if load { load_elem(&one, names, i)? } else { store_elem(&one, names, i)? };
        out.push(k);
    }
    Ok(out)
}

/// The `i`-th element of a vector load or store: the scalar access at
/// `i * size` bytes past the vector's address.
fn load_elem(raw: &RawInstr, names: &Names, i: usize) -> Result<InstrKind> {
    let mut k = load(raw, names)?;
    if let InstrKind::Load { sem, addr, size, .. } = &mut k {
        strong_vector(raw, *sem)?;
        addr.offset += i as i64 * *size as i64;
    }
    Ok(k)
}

fn store_elem(raw: &RawInstr, names: &Names, i: usize) -> Result<InstrKind> {
    let mut k = store(raw, names)?;
    if let InstrKind::Store { sem, addr, size, .. } = &mut k {
        strong_vector(raw, *sem)?;
        addr.offset += i as i64 * *size as i64;
    }
    Ok(k)
}

fn strong_vector(raw: &RawInstr, sem: Sem) -> Result<()> {
    match sem {
        Sem::Weak => Ok(()),
        _ => Err(Error::input(
            "strong vector accesses are not supported: the ISA leaves the order of their elements unspecified (8.2.4)",
            raw.opcode_span,
        )),
    }
}
