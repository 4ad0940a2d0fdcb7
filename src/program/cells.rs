//! Mixed-size accesses, byte-accurate (ISA 8.2: "the fundamental storage unit
//! ... is a byte"; decisions.md D18). The bytes of a variable are cut into
//! *cells*: maximal runs of bytes that no access starts or ends inside. A cell
//! is one location of the model; an access covering several cells is one
//! event per cell (a store writes each cell its bytes, a load reads each cell
//! and composes the bytes, little-endian). Accesses of one size at one offset
//! are never cut, so tests without mixed sizes keep one location per variable.

use std::collections::{BTreeMap, BTreeSet};

/// A memory footprint: variable, cluster for shared memory, first byte, size.
pub type Footprint = (String, Option<usize>, i64, u8);

/// The cell boundaries of each variable (per cluster for shared memory).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cells {
    bounds: BTreeMap<(String, Option<usize>), BTreeSet<i64>>,
}

impl Cells {
    pub fn new(foot: &BTreeSet<Footprint>) -> Cells {
        let mut bounds: BTreeMap<(String, Option<usize>), BTreeSet<i64>> = BTreeMap::new();
        for (root, cl, off, size) in foot {
            let b = bounds.entry((root.clone(), *cl)).or_default();
            b.insert(*off);
            b.insert(off + *size as i64);
        }
        Cells { bounds }
    }

    /// The cells `[off, off + size)` covers, as (first byte, length).
    pub fn split(&self, root: &str, cl: Option<usize>, off: i64, size: u8) -> Vec<(i64, u8)> {
        let end = off + size as i64;
        let Some(b) = self.bounds.get(&(root.to_string(), cl)) else {
            return vec![(off, size)];
        };
        let mut cuts: Vec<i64> = b.range(off..=end).copied().collect();
        if cuts.first() != Some(&off) {
            cuts.insert(0, off);
        }
        if cuts.last() != Some(&end) {
            cuts.push(end);
        }
        cuts.windows(2).map(|w| (w[0], (w[1] - w[0]) as u8)).collect()
    }
}

/// Bytes `[at, at + len)` of the little-endian 64-bit pattern of `v`, unsigned
/// (bytes past the eighth repeat the sign, as in a sign-extended wider value).
pub fn extract(v: i64, at: i64, len: u8) -> i64 {
    let wide = v as i128;
    let bits = 8 * len as u32;
    let shifted = if at >= 16 { wide >> 127 } else { wide >> (8 * at.max(0)) };
    let mask = if bits >= 64 { -1i128 as u64 as i128 } else { (1i128 << bits) - 1 };
    (shifted & mask) as u64 as i64
}

/// The unsigned little-endian value of parts (value, byte offset, length).
pub fn compose(parts: &[(i64, i64, u8)]) -> i128 {
    parts.iter().fold(0i128, |acc, &(v, at, len)| acc | ((extract(v, 0, len) as u64 as i128) << (8 * at)))
}

/// Bytes `[at, at + len)` of a variable's initial value `init`: the value as
/// given for a cell at offset 0 (so an untyped variable keeps its value), its
/// bytes elsewhere (8.2.6: W0 writes "the corresponding initial value for
/// that byte"); 0 past the 64-bit value.
pub fn init_of(init: i64, at: i64, len: u8) -> i64 {
    match at {
        0 => init,
        1..=7 => extract(init, at, len),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cut_at_every_boundary() {
        let foot = BTreeSet::from([("x".to_string(), None, 0, 4), ("x".to_string(), None, 1, 1)]);
        let c = Cells::new(&foot);
        assert_eq!(c.split("x", None, 0, 4), vec![(0, 1), (1, 1), (2, 2)]);
        assert_eq!(c.split("x", None, 1, 1), vec![(1, 1)]);
        assert_eq!(c.split("y", None, 0, 4), vec![(0, 4)]);
    }

    #[test]
    fn bytes_are_little_endian() {
        assert_eq!(extract(0x0102_0304, 1, 1), 3);
        assert_eq!(extract(-1, 4, 4), 0xffff_ffff);
        assert_eq!(compose(&[(0x04, 0, 1), (0x03, 1, 1), (0x0102, 2, 2)]), 0x0102_0304);
        assert_eq!(init_of(0x0102_0304, 2, 2), 0x0102);
    }
}
