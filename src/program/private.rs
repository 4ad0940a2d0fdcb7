//! `.local` and `.param` memory (ISA 5.1.5: "private memory for each thread";
//! 5.1.6: parameters of a call): no other thread can access it, so it needs
//! no memory-model events. Each path keeps its own bytes, as a thread would
//! (decisions.md D17). Values are bytes with the reads they depend on, so a
//! dependency through private memory still counts for No-Thin-Air (8.10.4).

use super::arith;
use crate::ast::IntTy;
use std::collections::{BTreeMap, BTreeSet};

/// The private bytes one path has written: (variable, byte offset) -> byte.
#[derive(Clone, Debug, Default)]
pub struct PrivateMem {
    bytes: BTreeMap<(String, i64), (u8, BTreeSet<usize>)>,
}

/// Byte `i` (little-endian) of the initial value of a variable: the init
/// block's 64-bit value, 0 beyond it (8.2.6).
fn init_byte(init: i64, i: i64) -> u8 {
    if (0..8).contains(&i) {
        (init >> (8 * i)) as u8
    } else {
        0
    }
}

impl PrivateMem {
    /// Write `size` bytes of `value` at `root + off`.
    pub fn store(&mut self, root: &str, off: i64, size: u8, value: i64, deps: &BTreeSet<usize>) {
        for i in 0..size as i64 {
            let byte = (value >> (8 * i.min(7))) as u8;
            let byte = if i < 8 {
                byte
            } else if value < 0 {
                0xff
            } else {
                0
            };
            self.bytes.insert((root.to_string(), off + i), (byte, deps.clone()));
        }
    }

    /// Read `size` bytes at `root + off` (unwritten bytes come from `init`)
    /// and extend them by `ty`; untyped accesses (4 bytes) read a signed
    /// 32-bit value, so a value stored untyped reads back unchanged when it fits.
    pub fn load(&self, root: &str, off: i64, size: u8, init: i64, ty: Option<IntTy>) -> (i64, BTreeSet<usize>) {
        let mut raw: i128 = 0;
        let mut deps = BTreeSet::new();
        for i in 0..size as i64 {
            let byte = match self.bytes.get(&(root.to_string(), off + i)) {
                Some((b, d)) => {
                    deps.extend(d.iter().copied());
                    *b
                }
                None => init_byte(init, off + i),
            };
            raw |= (byte as i128) << (8 * i);
        }
        let read = IntTy { bits: 8 * size as u32, signed: ty.is_none_or(|t| t.signed) };
        let v = arith::norm(read, raw);
        (arith::convert(ty, v), deps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_compose_little_endian() {
        let mut m = PrivateMem::default();
        let none = BTreeSet::new();
        m.store("x", 0, 4, 0x0102_0304, &none);
        let u8t = Some(IntTy { bits: 8, signed: false });
        assert_eq!(m.load("x", 1, 1, 0, u8t).0, 3);
        m.store("y", 0, 1, 300, &none);
        assert_eq!(m.load("y", 0, 1, 0, u8t).0, 44);
        assert_eq!(m.load("z", 0, 4, -5, None).0, -5);
    }
}
