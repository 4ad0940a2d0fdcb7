//! Spellings of other tools' corpora (Dat3M, herd7) that need more than the
//! grammar: `x = y;` in the init block, and the final states shown by a test
//! without a condition. See litmus-format.md section 6 and the README.

use crate::ast::{AddrBase, InitItem, Instr, InstrKind, Observable, Span};
use crate::error::{Error, Result};
use std::collections::BTreeSet;

/// Dat3M's `x = y;`: x starts with y's initial value (a chain `x = y; y = z;`
/// follows to z; an undeclared y starts at 0, as every undeclared location).
/// `copies` lists (index of x's item, y and its span).
pub(super) fn resolve_copies(items: &mut [InitItem], copies: &[(usize, (String, Span))]) -> Result<()> {
    for (i, (source, span)) in copies {
        let value = initial_value(items, copies, source, *span, 0)?;
        if let Some(InitItem::Location { value: v, .. }) = items.get_mut(*i) {
            *v = value;
        }
    }
    Ok(())
}

fn initial_value(
    items: &[InitItem],
    copies: &[(usize, (String, Span))],
    name: &str,
    span: Span,
    depth: usize,
) -> Result<i64> {
    if depth > items.len() {
        let msg = format!("the initial value of `{}` is defined in a cycle of `x = y;` items", name);
        return Err(Error::input(msg, span));
    }
    let found = items.iter().enumerate().find(|(_, it)| match it {
        InitItem::Location { name: n, .. }
        | InitItem::LocationAddress { name: n, .. }
        | InitItem::Alias { name: n, .. } => n == name,
        _ => false,
    });
    match found {
        None => Ok(0),
        Some((j, InitItem::Location { value, .. })) => match copies.iter().find(|(k, _)| *k == j) {
            Some((_, (next, _))) => initial_value(items, copies, next, span, depth + 1),
            None => Ok(*value),
        },
        Some(_) => {
            let msg = format!("`{}` is an alias or holds an address, so it has no initial value to copy (write `&{}` for its address)", name, name);
            Err(Error::input(msg, span))
        }
    }
}

/// The observables of a test without a condition: every location (declared or
/// accessed by name, aliases excepted) and every register each thread
/// initialises or writes, in that order; `extra` (a `locations` list) first.
pub(super) fn all_observables(init: &[InitItem], code: &[Vec<Instr>], extra: &[Observable]) -> Vec<Observable> {
    let mut out: Vec<Observable> = extra.to_vec();
    let aliases: BTreeSet<&str> = init
        .iter()
        .filter_map(|i| match i {
            InitItem::Alias { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    let mut locs: BTreeSet<String> = BTreeSet::new();
    for i in init {
        match i {
            InitItem::Location { name, .. } | InitItem::LocationAddress { name, .. } => {
                locs.insert(name.clone());
            }
            InitItem::Alias { target, .. } => {
                locs.insert(target.clone());
            }
            _ => {}
        }
    }
    let mut regs: Vec<BTreeSet<String>> = vec![BTreeSet::new(); code.len()];
    for i in init {
        if let InitItem::Register { thread, reg, .. } | InitItem::RegisterAddress { thread, reg, .. } = i {
            if let Some(set) = regs.get_mut(*thread) {
                set.insert(reg.clone());
            }
        }
    }
    for (t, instrs) in code.iter().enumerate() {
        for ins in instrs {
            let (dst, addr) = written_and_named(&ins.kind);
            if let Some(d) = dst {
                regs[t].insert(d.to_string());
            }
            if let Some(a) = addr.filter(|a| !aliases.contains(a)) {
                locs.insert(a.to_string());
            }
        }
    }
    let all = locs.into_iter().map(Observable::Loc).chain(
        regs.into_iter()
            .enumerate()
            .flat_map(|(t, rs)| rs.into_iter().map(move |reg| Observable::Reg { thread: t, reg })),
    );
    for o in all {
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

/// The register an instruction writes and the location it names directly.
fn written_and_named(k: &InstrKind) -> (Option<&str>, Option<&str>) {
    fn sym(a: &crate::ast::Addr) -> Option<&str> {
        match &a.base {
            AddrBase::Sym(s) => Some(s.as_str()),
            AddrBase::Reg(_) => None,
        }
    }
    match k {
        InstrKind::Load { dst, addr, .. } => (Some(dst), sym(addr)),
        InstrKind::Store { addr, .. } => (None, sym(addr)),
        InstrKind::Atomic { dst, addr, .. } => (dst.as_deref(), sym(addr)),
        InstrKind::Alu { dst, .. } | InstrKind::Setp { dst, .. } | InstrKind::Selp { dst, .. } => (Some(dst), None),
        InstrKind::Mbarrier { dst, addr, .. } => (dst.as_deref(), addr.as_ref().and_then(sym)),
        InstrKind::Warp { dst, .. } | InstrKind::ActiveMask { dst } => (Some(dst), None),
        _ => (None, None),
    }
}
