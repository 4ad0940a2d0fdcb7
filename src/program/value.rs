//! Register values during path exploration: constants, addresses, and the
//! not-yet-known value of a read, each with the reads it depends on.

use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum V {
    Const(i64),
    /// The address of a location name plus a byte offset.
    Addr(String, i64),
    /// The value returned by the read at this index of the path's event list.
    Free(usize),
}

/// A value with the path-local indices of the reads it was computed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Val {
    pub v: V,
    pub deps: BTreeSet<usize>,
}

impl Val {
    pub fn konst(c: i64) -> Self {
        Val { v: V::Const(c), deps: BTreeSet::new() }
    }
    pub fn free(read: usize) -> Self {
        let mut deps = BTreeSet::new();
        deps.insert(read);
        Val { v: V::Free(read), deps }
    }
}

/// Synthetic numeric value of an address, for registers that end holding one.
pub fn address_number(loc_index: usize, offset: i64) -> i64 {
    0x1000_0000i64.wrapping_mul(loc_index as i64 + 1).wrapping_add(offset)
}
