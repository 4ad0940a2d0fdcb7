//! What a harness for PTX modules adds to a litmus file (litmus-format.md
//! section 5): `ptx "FILE";` lines, arrays and their elements in the init
//! block, and `call NAME, (ARGS);` cells.

use super::alu;
use super::grammar::Rule;
use super::instr::{Names, RawInstr, RawKind};
use super::text::Src;
use crate::ast::{InitItem, InstrKind, Span};
use crate::error::{Error, Result};
use pest::iterators::Pair;

/// `ptx "PATH";`.
pub(super) fn module_ref(pair: Pair<Rule>, src: &Src) -> crate::ast::ModuleRef {
    let span = src.pair_span(&pair);
    let path = pair.into_inner().find(|p| p.as_rule() == Rule::doc).map_or("", |p| p.as_str());
    crate::ast::ModuleRef { path: path.trim_matches('"').to_string(), span }
}

/// `u32 out[4]`: names are [type, name], `value` the length.
pub(super) fn array_decl(names: &[String], len: Option<i64>, span: Span) -> Result<InitItem> {
    let ty = names
        .first()
        .and_then(|t| alu::type_of(t.trim_start_matches('.')))
        .filter(|(t, float)| !float && t.bits >= 8)
        .map(|(t, _)| t);
    let (Some(ty), Some(name)) = (ty, names.get(1)) else {
        let t = names.first().map_or("", |t| t.as_str());
        return Err(Error::input(
            format!("unknown array element type `{}` (expected u8, u16, u32, u64, s32, s64, b32 or b64)", t),
            span,
        ));
    };
    match len {
        Some(n @ 1..=4096) => Ok(InitItem::Array { name: name.clone(), ty, len: n as u32, span }),
        _ => Err(Error::input(format!("array `{}` must have 1 to 4096 elements", name), span)),
    }
}

/// `out[2] = 5`: names are [name, index], `value` the value.
pub(super) fn element_init(names: &[String], value: Option<i64>, span: Span) -> Result<InitItem> {
    let name = names.first().cloned().unwrap_or_default();
    let index = names.get(1).and_then(|i| i.parse::<u32>().ok());
    match (index, value) {
        (Some(index), Some(value)) => Ok(InitItem::Element { name, index, value, span }),
        _ => Err(Error::input(format!("bad element initialisation of `{}`", name), span)),
    }
}

/// A cell's `call NAME, (ARGS);` (litmus-format 5): a location name passes
/// its address, an integer its value, a register its value.
pub(super) fn call(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    if let Some(q) = raw.quals.iter().find(|q| q.text != "uni") {
        return Err(raw.bad_qual(q));
    }
    let (name, list) = match raw.operands.as_slice() {
        [f] => (f, None),
        [f, l] => (f, Some(l)),
        _ => return Err(raw.arity("a function name and an argument list such as `(x, 1)`")),
    };
    let RawKind::Name(fname) = &name.kind else {
        return Err(Error::input(format!("expected a function name, found `{}`", name.text), name.span));
    };
    let mut args = Vec::new();
    match list.map(|l| &l.kind) {
        None => {}
        Some(RawKind::List(items)) => {
            for a in items {
                // `{a, b}`: the 8-byte words of an aggregate parameter (D301).
                let fields = match &a.kind {
                    RawKind::Vector(elems) => elems.iter().map(|e| names.value(e)).collect::<Result<Vec<_>>>()?,
                    _ => vec![names.value(a)?],
                };
                args.push(fields);
            }
        }
        Some(_) => {
            let l = list.map_or(raw.span, |l| l.span);
            return Err(Error::input("expected an argument list such as `(x, 1)`", l));
        }
    }
    Ok(InstrKind::Call { name: fname.clone(), args })
}
