//! Arrays of the init block (`u32 out[4];`, `out[2] = 5;`, litmus-format.md
//! section 5): one variable whose elements sit at `index * size` bytes, so
//! byte address arithmetic in PTX (`[%rd4+8]`) reaches `out[2]`. Each element
//! is a location of its own when accessed by its own size (cells, D18).

use super::*;
use crate::ast::InitItem;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// Declared arrays: element size in bytes, number of elements, element initial values by byte offset.
#[derive(Clone, Debug, Default)]
pub(super) struct Arrays {
    pub decl: BTreeMap<String, (u8, u32)>,
    pub inits: HashMap<(String, i64), i64>,
}

impl Arrays {
    pub(super) fn new(lit: &Litmus) -> Result<Arrays> {
        let mut a = Arrays::default();
        for item in &lit.init {
            if let InitItem::Array { name, ty, len, .. } = item {
                a.decl.insert(name.clone(), ((ty.bits / 8) as u8, *len));
            }
        }
        for item in &lit.init {
            if let InitItem::Element { name, index, value, span } = item {
                let Some(&(size, len)) = a.decl.get(name) else {
                    return Err(Error::input(
                        format!("`{}` is not declared as an array (declare it first, e.g. `u32 {}[4];`)", name, name),
                        *span,
                    ));
                };
                if *index >= len {
                    return Err(Error::input(
                        format!("index {} is out of bounds: `{}` has {} elements", index, name, len),
                        *span,
                    ));
                }
                a.inits.insert((name.clone(), *index as i64 * size as i64), *value);
            }
        }
        Ok(a)
    }

    /// Byte `i` of array `root`'s initial value (elements little-endian, 0
    /// unless given); `None` when `root` is not an array.
    pub(super) fn init_byte(&self, root: &str, i: i64) -> Option<u8> {
        let &(size, _) = self.decl.get(root)?;
        let at = i.rem_euclid(size as i64);
        let v = self.inits.get(&(root.to_string(), i - at)).copied().unwrap_or(0);
        Some(cells::extract(v, at, 1) as u8)
    }

    /// Each element's bytes, as footprints: cells are cut at element
    /// boundaries, so every element is a location of its own (D44).
    pub(super) fn extents(&self) -> Vec<Footprint> {
        let mut out = Vec::new();
        for (name, &(size, len)) in &self.decl {
            out.extend((0..len).map(|i| (name.clone(), None, i as i64 * size as i64, size)));
        }
        out
    }

    /// Every element as a location key and its name `out[i]`.
    pub(super) fn elements(&self) -> Vec<(LocKey, String)> {
        let mut out = Vec::new();
        for (name, &(size, len)) in &self.decl {
            for i in 0..len {
                let key = LocKey { root: name.clone(), offset: i as i64 * size as i64, shared_cluster: None };
                out.push((key, format!("{}[{}]", name, i)));
            }
        }
        out
    }

    /// `out[2]` for a key at an element's first byte.
    pub(super) fn name_of(&self, key: &LocKey) -> Option<String> {
        let &(size, len) = self.decl.get(&key.root)?;
        let i = key.offset / size as i64;
        (key.shared_cluster.is_none() && key.offset % size as i64 == 0 && (0..len as i64).contains(&i))
            .then(|| format!("{}[{}]", key.root, i))
    }
}

impl Ctx<'_> {
    /// The bytes of one element of variable `root` (what an asynchronous
    /// copy moves whole, D261): its array's element size, else its width
    /// where that is 8, else 4.
    pub(super) fn element_size(&self, root: &str) -> i64 {
        match self.arrays.decl.get(root) {
            Some(&(s, _)) => i64::from(s),
            None if self.width(root) == 8 => 8,
            None => 4,
        }
    }
}
