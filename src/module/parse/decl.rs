//! Declarations in a module: variables (`.global .u32 g[2] = {1, 2};`),
//! registers (`.reg .b32 %r<4>;`), and function parameters, with their sizes.

use super::constant::initializer;
use super::{Decl, ModVar, Param, Reader, Rule};
use crate::ast::VarSpace;
use crate::error::{Error, Result};
use pest::iterators::Pair;

impl Decl {
    /// The variables in memory this declaration defines (none for `.reg` and `.param`).
    pub(super) fn vars(&self) -> Vec<ModVar> {
        let space = match self.space.as_str() {
            "global" => VarSpace::Global,
            "const" => VarSpace::Const,
            "shared" => VarSpace::Shared,
            "local" => VarSpace::Local,
            _ => return Vec::new(),
        };
        let last = self.names.len().saturating_sub(1);
        let mut named = self.names.clone();
        for (base, n) in &self.ranges {
            // Module variables are few: each name is charged as it is made.
            crate::budget::charge(u64::from(*n) * 64);
            named.extend((0..*n).map(|i| (format!("{}{}", base, i), Some(self.elem))));
        }
        named
            .iter()
            .enumerate()
            .map(|(i, (name, size))| {
                let given = if i == last { self.init.clone() } else { None };
                // 5.4.4: "Variables in constant and global state spaces with no
                // explicit initializer are initialized to zero by default."
                let init = match space {
                    VarSpace::Global | VarSpace::Const => Some(given.unwrap_or_default()),
                    _ => given,
                };
                ModVar {
                    name: name.clone(),
                    space,
                    size: size.or_else(|| init.as_ref().map(|b| b.len() as u64)),
                    init,
                    linked: self.linked,
                    external: self.external,
                    span: self.span,
                }
            })
            .collect()
    }
}

impl Reader<'_> {
    pub(super) fn decl(&self, pair: Pair<Rule>) -> Result<Decl> {
        let span = self.src.pair_span(&pair);
        let mut d = Decl {
            space: String::new(),
            linked: false,
            external: false,
            names: Vec::new(),
            ranges: Vec::new(),
            elem: 1,
            init: None,
            span,
        };
        let mut elem: Option<u64> = None;
        let mut float = false;
        let mut lanes = 1u64;
        let mut init = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::linkage => {
                    d.linked = true;
                    d.external |= p.as_str() == ".extern";
                }
                Rule::space_kw => d.space = p.as_str().trim_start_matches('.').to_string(),
                Rule::dir_word => match p.as_str() {
                    ".v2" => lanes = 2,
                    ".v4" => lanes = 4,
                    ".v8" => lanes = 8,
                    w => {
                        if elem.is_none() {
                            float = w.starts_with(".f");
                        }
                        elem = elem.or_else(|| type_bytes(w))
                    }
                },
                Rule::decl_name => match self.decl_name(p) {
                    Ok(n) => d.names.push(n),
                    Err(r) => d.ranges.push(r),
                },
                Rule::init_val => init = Some((p.as_str().trim_start_matches('=').to_string(), self.src.pair_span(&p))),
                _ => {}
            }
        }
        let elem = elem.unwrap_or(1) * lanes;
        d.elem = elem;
        for (_, size) in d.names.iter_mut() {
            *size = size.map(|n| n * elem);
        }
        if let Some((text, at)) = init {
            let bytes = initializer(&text, elem, float, at)?;
            if let Some((name, Some(size))) = d.names.last() {
                if bytes.len() as u64 > *size {
                    return Err(Error::input(
                        format!("the initializer of `{}` has more values than its {} bytes hold", name, size),
                        at,
                    ));
                }
            }
            d.init = Some(bytes);
        }
        Ok(d)
    }

    /// `buf[16]` (16 elements), `g` (one element), `a[]` (unknown size), with
    /// sizes in elements here; `Err`: `%r<10>` (ten registers, a range).
    fn decl_name(&self, p: Pair<Rule>) -> std::result::Result<(String, Option<u64>), (String, u32)> {
        let mut base = String::new();
        let mut count = None;
        let mut elems: Option<u64> = Some(1);
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::reg_token => base = q.as_str().to_string(),
                Rule::range => count = q.into_inner().next().and_then(|n| n.as_str().parse::<u32>().ok()),
                Rule::dims => {
                    // `[]` leaves the size to the initializer; dimensions multiply.
                    let dims: Vec<Option<u64>> = q
                        .as_str()
                        .split('[')
                        .skip(1)
                        .map(|x| x.trim_end().trim_end_matches(']').trim().parse::<u64>().ok())
                        .collect();
                    elems = dims.into_iter().try_fold(1u64, |acc, n| n.and_then(|n| acc.checked_mul(n)));
                }
                _ => {}
            }
        }
        match count {
            // `%r<10>` declares %r0 .. %r9 (ISA 5.3.1.1).
            Some(n) => Err((base, n)),
            None => Ok((base, elems)),
        }
    }
}

/// The size in bytes of a fundamental type (`.u32` is 4, `.b8` 1, `.f64` 8,
/// `.pred` 1); `None` for other directive words (`.align`, `.ptr`).
fn type_bytes(word: &str) -> Option<u64> {
    let w = word.strip_prefix('.')?;
    if w == "pred" {
        return Some(1);
    }
    let (kind, bits) = w.split_at(1);
    let bits: u64 = bits.parse().ok()?;
    (matches!(kind, "b" | "u" | "s" | "f") && matches!(bits, 8 | 16 | 32 | 64 | 128)).then_some(bits / 8)
}

/// `.param .u64 .ptr .global .align 1 name`.
pub(super) fn param(pair: Pair<Rule>) -> Param {
    let mut p = Param { name: String::new(), ty: String::new(), ptr: false, size: 0 };
    let mut elems = 1u64;
    for q in pair.into_inner() {
        match q.as_rule() {
            Rule::dir_word if q.as_str() == ".ptr" => p.ptr = true,
            Rule::dir_word if p.ty.is_empty() && q.as_str() != ".align" => p.ty = q.as_str().to_string(),
            Rule::ident => p.name = q.as_str().to_string(),
            Rule::dims => {
                elems = q
                    .as_str()
                    .split('[')
                    .skip(1)
                    .filter_map(|x| x.trim_end().trim_end_matches(']').trim().parse::<u64>().ok())
                    .product()
            }
            _ => {}
        }
    }
    p.size = type_bytes(&p.ty).unwrap_or(8) * elems.max(1);
    p
}
