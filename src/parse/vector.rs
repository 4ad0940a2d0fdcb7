//! Vector accesses (`.v2`, `.v4`): one scalar access per element (ISA 8.2.4).

use super::instr::{Names, RawInstr, RawKind, RawOperand};
use super::mem::{load, store};
use crate::ast::{InstrKind, Sem};
use crate::error::{Error, Result};

/// `ld.v2.u32 {a, b}, [x]`, `st.v4.b32 [x], {a, b, c, d}`: "modelled as a set
/// of equivalent memory operations with a scalar data type, executed in an
/// unspecified order on the elements" (8.2.4). For weak accesses the order of
/// elements at distinct addresses changes nothing (no axiom orders weak
/// accesses by program order alone), so they are performed in element order.
/// A strong access's elements can be ordered by their own release or acquire
/// semantics, so every order is a path (D173): `Choose` among the orders,
/// each order's elements, then `Skip` to the end.
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
    let strong = out
        .iter()
        .any(|k| matches!(k, InstrKind::Load { sem, .. } | InstrKind::Store { sem, .. } if *sem != Sem::Weak));
    Ok(if strong { every_order(out) } else { out })
}

/// `Choose` one of the orders of `elems`, each followed by a `Skip` past the
/// orders after it: `[Choose, o1.., Skip, o2.., Skip, ...]`.
fn every_order(elems: Vec<InstrKind>) -> Vec<InstrKind> {
    let orders = permutations(elems.len());
    let block = elems.len() + 1;
    let starts = (0..orders.len()).map(|i| 1 + i * block).collect();
    let mut out = vec![InstrKind::Choose(starts)];
    for (i, order) in orders.iter().enumerate() {
        out.extend(order.iter().map(|&e| elems[e].clone()));
        out.push(InstrKind::Skip((orders.len() - i - 1) * block + 1));
    }
    out
}

/// Every order of `0..n` (n! of them; n is 2 or 4).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out
}

/// The `i`-th element of a vector load or store: the scalar access at
/// `i * size` bytes past the vector's address.
fn load_elem(raw: &RawInstr, names: &Names, i: usize) -> Result<InstrKind> {
    let mut k = load(raw, names)?;
    if let InstrKind::Load { addr, size, .. } = &mut k {
        addr.offset += i as i64 * *size as i64;
    }
    Ok(k)
}

fn store_elem(raw: &RawInstr, names: &Names, i: usize) -> Result<InstrKind> {
    let mut k = store(raw, names)?;
    if let InstrKind::Store { addr, size, .. } = &mut k {
        addr.offset += i as i64 * *size as i64;
    }
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_and_four_elements_have_every_order_once() {
        for n in [2, 4] {
            let mut all = permutations(n);
            let count = all.len();
            all.sort();
            all.dedup();
            assert_eq!((count, all.len()), if n == 2 { (2, 2) } else { (24, 24) });
        }
    }

    #[test]
    fn each_order_skips_to_the_end() {
        let elems = vec![InstrKind::Nop, InstrKind::Label("b".into())];
        let code = every_order(elems);
        // Choose, [a b Skip], [b a Skip]: 7 instructions, ending at 7.
        assert_eq!(code.len(), 7);
        let InstrKind::Choose(starts) = &code[0] else { panic!("no Choose first") };
        for &s in starts {
            let skip_at = s + 2;
            let InstrKind::Skip(n) = code[skip_at] else { panic!("no Skip after an order") };
            assert_eq!(skip_at + n, code.len());
        }
    }
}
