//! `.local` and `.param` memory (ISA 5.1.5: "private memory for each thread";
//! 5.1.6: parameters of a call): no other thread can access it, so it needs
//! no memory-model events. Each path keeps its own bytes, as a thread would
//! (decisions.md D17, D72). A byte remembers the value it is part of, so a
//! value read back whole is the value stored: an address stays an address
//! and a read not yet made concrete stays symbolic; read back in other
//! pieces, the bytes compose little-endian. Values keep the reads they
//! depend on, so a dependency through private memory still counts for
//! No-Thin-Air (8.10.4).

use super::value::{Val, V};
use std::collections::BTreeMap;

/// Byte `at` of a `size`-byte store of `val`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Piece {
    val: Val,
    at: u8,
    size: u8,
}

/// The private bytes one path has written: (variable, byte offset) -> byte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrivateMem {
    bytes: BTreeMap<(String, i64), Piece>,
}

/// What a private load finds.
pub enum Found {
    /// The value one store wrote, read back whole (its own width).
    Whole(Val),
    /// Bytes composed little-endian (unsigned), with the reads they depend on.
    Bytes(i128, std::collections::BTreeSet<usize>),
    /// A byte of this read's value is needed: make the read concrete first.
    Symbolic(usize),
}

impl PrivateMem {
    /// Write `size` bytes of `val` at `root + off`.
    pub fn store(&mut self, root: &str, off: i64, size: u8, val: &Val) {
        for i in 0..size {
            self.bytes.insert((root.to_string(), off + i as i64), Piece { val: val.clone(), at: i, size });
        }
    }

    /// Read `size` bytes at `root + off`. `init(i)` is byte `i` of the
    /// variable's initial value; `number` gives an address's numeric value.
    pub fn load(
        &self,
        root: &str,
        off: i64,
        size: u8,
        init: &dyn Fn(i64) -> u8,
        number: &dyn Fn(&str, i64) -> i64,
    ) -> Found {
        let piece = |i: u8| self.bytes.get(&(root.to_string(), off + i as i64));
        if let Some(first) = piece(0) {
            let whole = first.size == size
                && (0..size).all(|i| piece(i).is_some_and(|p| p.at == i && p.size == size && p.val == first.val));
            if whole {
                return Found::Whole(first.val.clone());
            }
        }
        let mut raw: i128 = 0;
        let mut deps = std::collections::BTreeSet::new();
        for i in 0..size {
            let byte = match piece(i) {
                Some(p) => {
                    deps.extend(p.val.deps.iter().copied());
                    let v = match &p.val.v {
                        V::Const(c) => *c,
                        V::Addr(name, o) => number(name, *o),
                        V::Free(r) => return Found::Symbolic(*r),
                    };
                    byte_of(v, p.at)
                }
                None => init(off + i as i64),
            };
            raw |= (byte as i128) << (8 * i as u32);
        }
        Found::Bytes(raw, deps)
    }

    /// The read `read` is now known to give `value`: every byte that holds it
    /// holds that constant.
    pub fn assume(&mut self, read: usize, value: i64) {
        for p in self.bytes.values_mut() {
            if p.val.v == V::Free(read) {
                p.val.v = V::Const(value);
            }
        }
    }
}

/// Byte `i` (little-endian) of the 64-bit two's complement `v`, sign bytes past the eighth.
pub(crate) fn byte_of(v: i64, i: u8) -> u8 {
    if i < 8 {
        (v >> (8 * i as u32)) as u8
    } else if v < 0 {
        0xff
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(f: Found) -> i128 {
        match f {
            Found::Bytes(v, _) => v,
            Found::Whole(Val { v: V::Const(c), .. }) => c as i128,
            _ => panic!("not bytes"),
        }
    }

    #[test]
    fn bytes_compose_little_endian() {
        let mut m = PrivateMem::default();
        let zero = |_: i64| 0u8;
        let num = |_: &str, _: i64| 0i64;
        m.store("x", 0, 4, &Val::konst(0x0102_0304));
        assert_eq!(bytes(m.load("x", 1, 1, &zero, &num)), 3);
        m.store("y", 0, 4, &Val::konst(2));
        m.store("y", 4, 4, &Val::konst(1));
        assert_eq!(bytes(m.load("y", 0, 8, &zero, &num)), 0x1_0000_0002);
        assert_eq!(bytes(m.load("z", 0, 2, &|i| i as u8 + 1, &num)), 0x0201);
    }

    #[test]
    fn an_address_read_back_whole_stays_an_address() {
        let mut m = PrivateMem::default();
        let a = Val { v: V::Addr("x".into(), 4), deps: Default::default() };
        m.store("p", 0, 8, &a);
        assert!(matches!(m.load("p", 0, 8, &|_| 0, &|_, _| 0), Found::Whole(v) if v == a));
        assert_eq!(bytes(m.load("p", 0, 4, &|_| 0, &|_, o| 0x1000 + o)), 0x1004);
    }
}
