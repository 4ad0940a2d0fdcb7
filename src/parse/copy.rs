//! Asynchronous copies (ISA 8.9.1.1, 9.7.9.25; issue 41): `cp.async`,
//! `cp.async.bulk`, `cp.reduce.async.bulk`, their groups and waits,
//! `cp.async.mbarrier.arrive`; and distributed shared memory: `st.async`,
//! `red.async`, `mapa`. What each does to memory is
//! `program::build::copy`'s (D257-D262, D292, D293).

use super::instr::{Names, Qual, RawInstr, RawKind};
use crate::ast::{AsyncInstr, AtomOp, InstrKind, IntTy, Operand};
use crate::error::{Error, Result};

/// The operands without `.L2::cache_hint`'s cache policy, the last one
/// (9.7.9.25: "a 64-bit cache-policy operand"; a hint, no effect on memory).
fn without_policy(raw: &RawInstr) -> &[super::instr::RawOperand] {
    let ops = raw.operands.as_slice();
    match ops.split_last() {
        Some((_, rest)) if raw.quals.iter().any(|q| q.text == "L2::cache_hint") => rest,
        _ => ops,
    }
}

/// Cache and prefetch hints of the copies: accepted, no effect on memory.
fn is_hint(q: &str) -> bool {
    q.starts_with("L2::") || q.starts_with("L1::") || q == "level::cache_hint"
}

/// `cp.async…` in every form this tool reads.
pub(crate) fn decode(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let quals: Vec<&Qual> = raw.quals.iter().collect();
    let Some(first) = quals.first() else {
        return Err(Error::input("`cp` needs `.async` (cp.async, cp.async.bulk)", raw.opcode_span));
    };
    if first.text == "reduce" {
        return reduce(raw, &quals[1..], names);
    }
    if first.text != "async" {
        let msg = format!(
            "`cp.{}` is not supported: only the asynchronous copies cp.async and cp.async.bulk are",
            first.text
        );
        return Err(Error::input(msg, first.span));
    }
    let rest = &quals[1..];
    match rest.first().map(|q| q.text.as_str()) {
        Some("bulk") => bulk(raw, &rest[1..], names),
        Some("commit_group") => group_op(raw, rest, false, names),
        Some("wait_group") | Some("wait_all") => group_op(raw, rest, false, names),
        Some("mbarrier") => mbarrier_arrive(raw, &rest[1..], names),
        Some("ca") | Some("cg") => non_bulk(raw, rest, names),
        Some(_) => Err(raw.bad_qual(rest[0])),
        None => Err(Error::input(
            "`cp.async` needs `.ca` or `.cg` and its state spaces (`cp.async.ca.shared.global`)",
            raw.opcode_span,
        )),
    }
}

/// `cp.async.{ca,cg}.shared{::cta}.global{.hints} [dst], [src], cp-size{, src-size}`.
fn non_bulk(raw: &RawInstr, quals: &[&Qual], names: &Names) -> Result<InstrKind> {
    let cg = quals[0].text == "cg";
    let spaces: Vec<&&Qual> = quals[1..].iter().filter(|q| !is_hint(&q.text)).collect();
    match spaces.as_slice() {
        [d, s] if matches!(d.text.as_str(), "shared" | "shared::cta") && s.text == "global" => {}
        [q, ..] => {
            return Err(Error::input(
                format!(
                    "`cp.async` copies from .global to .shared::cta: expected `.shared.global`, found `.{}`",
                    q.text
                ),
                q.span,
            ))
        }
        [] => return Err(Error::input("`cp.async` needs its state spaces: `.shared.global`", raw.opcode_span)),
    }
    let (dst, src, size, src_size) = match without_policy(raw) {
        [d, s, n] => (d, s, n, None),
        [d, s, n, k] => (d, s, n, Some(names.value(k)?)),
        _ => return Err(raw.arity("a destination, a source, a copy size and an optional source size")),
    };
    let size_v = names.value(size)?;
    match size_v {
        Operand::Imm(4 | 8) if cg => {
            return Err(Error::input("`cp.async.cg` copies 16 bytes (cp-size 16)", size.span));
        }
        Operand::Imm(4 | 8 | 16) => {}
        _ => return Err(Error::input("the copy size of `cp.async` is 4, 8 or 16 bytes", size.span)),
    }
    Ok(InstrKind::Async(AsyncInstr::Copy {
        bulk: false,
        dst: names.addr(dst)?,
        src: names.addr(src)?,
        size: size_v,
        src_size,
        mbar: None,
        reduce: None,
        shared: (true, false),
        multicast: None,
    }))
}

/// `cp.async.bulk.DST.SRC.COMPLETION [dst], [src], size{, [mbar]}`, and
/// `cp.async.bulk.commit_group` / `.wait_group{.read} N`.
fn bulk(raw: &RawInstr, quals: &[&Qual], names: &Names) -> Result<InstrKind> {
    if quals.first().is_some_and(|q| q.text == "commit_group" || q.text == "wait_group") {
        return group_op(raw, quals, true, names);
    }
    let words: Vec<&&Qual> = quals.iter().filter(|q| !is_hint(&q.text)).collect();
    if let Some(q) =
        words.iter().find(|q| q.text == "cp_mask" || q.text.starts_with("multicast") && q.text != "multicast::cluster")
    {
        let msg = format!("`.{}` on cp.async.bulk is not modelled yet (issue 41)", q.text);
        return Err(Error::input(msg, q.span));
    }
    if let Some(q) = words.iter().find(|q| q.text == "tensor") {
        let msg = format!("`.{}`: bulk tensor copies are not modelled", q.text);
        return Err(Error::input(msg, q.span));
    }
    let multicast = words.iter().find(|q| q.text == "multicast::cluster");
    let text: Vec<&str> = words.iter().filter(|q| q.text != "multicast::cluster").map(|q| q.text.as_str()).collect();
    let Some((with_mbar, shared)) = bulk_form(&text) else {
        return Err(Error::input(
            "cp.async.bulk forms read here: `.shared::cta.global.mbarrier::complete_tx::bytes` (or `.shared::cluster.global…`, with `.multicast::cluster`), `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes` and `.global.shared::cta.bulk_group`",
            raw.opcode_span,
        ));
    };
    if let Some(q) = multicast.filter(|_| text.first() != Some(&"shared::cluster") || text.get(1) != Some(&"global")) {
        let msg = "`.multicast::cluster` copies from .global to .shared::cluster (9.7.9.25.4.1)";
        return Err(Error::input(msg, q.span));
    }
    let (ops, mask) = match (multicast, without_policy(raw).split_last()) {
        (Some(_), Some((m, rest))) => (rest, Some(names.value(m)?)),
        (Some(_), None) => return Err(raw.arity("a destination, a source, a size, an mbarrier and a ctaMask")),
        (None, _) => (without_policy(raw), None),
    };
    bulk_copy(raw, (ops, names, with_mbar), shared, None, mask)
}

/// The bulk copy (or reduction) of operands `ops` (see [`bulk_operands`]).
fn bulk_copy(
    raw: &RawInstr,
    (ops, names, with_mbar): (&[super::instr::RawOperand], &Names, bool),
    shared: (bool, bool),
    reduce: Option<(AtomOp, IntTy)>,
    multicast: Option<Operand>,
) -> Result<InstrKind> {
    let (dst, src, size, mbar) = bulk_operands(raw, ops, names, with_mbar)?;
    Ok(InstrKind::Async(AsyncInstr::Copy {
        bulk: true,
        dst,
        src,
        size,
        src_size: None,
        mbar,
        reduce,
        shared,
        multicast,
    }))
}

/// A bulk copy's state spaces and completion mechanism: whether it completes
/// on an mbarrier, and whether (destination, source) are shared memory.
fn bulk_form(words: &[&str]) -> Option<(bool, (bool, bool))> {
    match words {
        ["shared::cta" | "shared::cluster", "global", "mbarrier::complete_tx::bytes"] => Some((true, (true, false))),
        ["shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes"] => Some((true, (true, true))),
        ["global", "shared::cta", "bulk_group"] => Some((false, (false, true))),
        _ => None,
    }
}

/// `[dst], [src], size{, [mbar]}` of a bulk copy (size a positive multiple of 16).
#[allow(clippy::type_complexity)]
fn bulk_operands(
    raw: &RawInstr,
    ops: &[super::instr::RawOperand],
    names: &Names,
    with_mbar: bool,
) -> Result<(crate::ast::Addr, crate::ast::Addr, Operand, Option<crate::ast::Addr>)> {
    let (dst, src, size, mbar) = match (with_mbar, ops) {
        (true, [d, s, n, m]) => (d, s, n, Some(names.addr(m)?)),
        (false, [d, s, n]) => (d, s, n, None),
        (true, _) => return Err(raw.arity("a destination, a source, a size and an mbarrier")),
        (false, _) => return Err(raw.arity("a destination, a source and a size")),
    };
    let size_v = names.value(size)?;
    if let Operand::Imm(n) = size_v {
        if n <= 0 || n % 16 != 0 {
            return Err(Error::input("the size of a bulk copy is a positive multiple of 16 bytes", size.span));
        }
    }
    Ok((names.addr(dst)?, names.addr(src)?, size_v, mbar))
}

/// The integer reduction of `cp.reduce.async.bulk`, `red.async`: its
/// operation and type qualifiers (floating-point reductions are refused, as
/// floating-point atomics are, D19).
fn reduction(raw: &RawInstr, words: &[&&Qual]) -> Result<(AtomOp, IntTy)> {
    let mut op = None;
    let mut ty = None;
    for q in words {
        let o = match q.text.as_str() {
            "add" => AtomOp::Add,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            t => match super::alu::type_of(t) {
                Some((it, false)) if it.bits >= 32 && ty.is_none() => {
                    ty = Some(it);
                    continue;
                }
                Some((_, true)) => {
                    let msg = format!("`.{}`: floating-point reductions are not modelled", t);
                    return Err(Error::input(msg, q.span));
                }
                _ => return Err(raw.bad_qual(q)),
            },
        };
        if op.replace(o).is_some() {
            return Err(raw.bad_qual(q));
        }
    }
    match (op, ty) {
        (Some(o), Some(t)) => Ok((o, t)),
        _ => Err(Error::input("a reduction needs its operation and type (`.add.u32`)", raw.opcode_span)),
    }
}

/// `cp.reduce.async.bulk.DST.SRC.COMPLETION.OP.TYPE [dst], [src], size{, [mbar]}`
/// (9.7.10.28.4.2): `.global.shared::cta.bulk_group` or
/// `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`.
fn reduce(raw: &RawInstr, quals: &[&Qual], names: &Names) -> Result<InstrKind> {
    if quals.first().map(|q| q.text.as_str()) != Some("async") || quals.get(1).map(|q| q.text.as_str()) != Some("bulk")
    {
        return Err(Error::input("expected `cp.reduce.async.bulk`", raw.opcode_span));
    }
    let words: Vec<&&Qual> = quals[2..].iter().filter(|q| !is_hint(&q.text)).collect();
    if let Some(q) = words.iter().find(|q| q.text == "tensor") {
        return Err(Error::input("`.tensor`: bulk tensor reductions are not modelled", q.span));
    }
    let text: Vec<&str> = words.iter().take(3).map(|q| q.text.as_str()).collect();
    let Some((with_mbar, shared)) = bulk_form(&text).filter(|(_, (_, src))| *src) else {
        return Err(Error::input(
            "cp.reduce.async.bulk forms read here: `.global.shared::cta.bulk_group` and `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`, then the operation and type",
            raw.opcode_span,
        ));
    };
    let reduce = Some(reduction(raw, &words[3..])?);
    bulk_copy(raw, (without_policy(raw), names, with_mbar), shared, reduce, None)
}

/// `st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.TYPE [a], b, [mbar]`
/// and `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.OP.TYPE [a], b, [mbar]`
/// (9.7.10.12, 9.7.15.7; D293).
pub(crate) fn store_async(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let red = raw.opcode == "red";
    let mut words = Vec::new();
    let (mut lanes, mut mbar_form) = (1, false);
    for q in raw.quals.iter().skip(1) {
        match q.text.as_str() {
            "shared::cluster" => {}
            "weak" if !red => {}
            "relaxed" | "cluster" if red => {}
            "mbarrier::complete_tx::bytes" => mbar_form = true,
            "v2" if !red => lanes = 2,
            "v4" if !red => lanes = 4,
            t if is_hint(t) => {}
            _ => words.push(q),
        }
    }
    if !mbar_form {
        let msg = format!(
            "`{}` without `.mbarrier::complete_tx::bytes` (the release form of PTX 9.x) is not modelled",
            raw.mnemonic
        );
        return Err(Error::input(msg, raw.opcode_span));
    }
    let (op, ty) = if red {
        let (o, t) = reduction(raw, &words.iter().collect::<Vec<_>>())?;
        (Some(o), t)
    } else {
        match words.as_slice() {
            [q] => match super::alu::type_of(&q.text) {
                Some((t, _)) if t.bits >= 32 => (None, t),
                _ => return Err(raw.bad_qual(q)),
            },
            [] => return Err(Error::input("`st.async` needs its type (`.b32`, `.u64`, ...)", raw.opcode_span)),
            [_, q, ..] => return Err(raw.bad_qual(q)),
        }
    };
    let [a, b, m] = raw.operands.as_slice() else {
        return Err(raw.arity("an address, a value and an mbarrier"));
    };
    let values = match &b.kind {
        RawKind::Vector(e) if e.len() == lanes && lanes > 1 => {
            e.iter().map(|o| names.value(o)).collect::<Result<_>>()?
        }
        _ if lanes == 1 => vec![names.value(b)?],
        _ => return Err(Error::input(format!("expected a vector of {} values", lanes), b.span)),
    };
    Ok(InstrKind::Async(AsyncInstr::Store { dst: names.addr(a)?, values, ty, mbar: names.addr(m)?, red: op }))
}

/// `getctarank{.shared::cluster}.{u32,u64} d, a` (9.7.10.27, D298).
pub(crate) fn getctarank(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    for q in &raw.quals {
        if !matches!(q.text.as_str(), "shared::cluster" | "u32" | "u64" | "b32" | "b64") {
            return Err(raw.bad_qual(q));
        }
    }
    match raw.operands.as_slice() {
        [d, a] => Ok(InstrKind::CtaRank { dst: super::instr::dst(d)?, src: names.value(a)? }),
        _ => Err(raw.arity("a destination and an address")),
    }
}

/// `mapa{.shared::cluster}.{u32,u64} d, a, rank` (9.7.10.26, D292).
pub(crate) fn mapa(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    for q in &raw.quals {
        if !matches!(q.text.as_str(), "shared::cluster" | "u32" | "u64" | "b32" | "b64") {
            return Err(raw.bad_qual(q));
        }
    }
    match raw.operands.as_slice() {
        [d, a, r] => Ok(InstrKind::Mapa { dst: super::instr::dst(d)?, src: names.value(a)?, rank: names.value(r)? }),
        _ => Err(raw.arity("a destination, an address and a CTA rank")),
    }
}

/// `cp.async{.bulk}.commit_group`, `.wait_group{.read} N`, `cp.async.wait_all`.
fn group_op(raw: &RawInstr, quals: &[&Qual], bulk: bool, names: &Names) -> Result<InstrKind> {
    let op = quals[0].text.as_str();
    let read = match &quals[1..] {
        [] => false,
        [q] if q.text == "read" && bulk && op == "wait_group" => true,
        [q, ..] => return Err(raw.bad_qual(q)),
    };
    match (op, raw.operands.as_slice()) {
        ("commit_group", []) => Ok(InstrKind::Async(AsyncInstr::Commit { bulk })),
        ("wait_all", []) => Ok(InstrKind::Async(AsyncInstr::Wait { bulk, pending: Operand::Imm(-1), read })),
        ("wait_group", [n]) => match names.value(n)? {
            Operand::Imm(k) if (0..=64).contains(&k) => {
                Ok(InstrKind::Async(AsyncInstr::Wait { bulk, pending: Operand::Imm(k), read }))
            }
            _ => Err(Error::input("the operand of wait_group is an integer constant (0 to 64)", n.span)),
        },
        ("wait_group", _) => Err(raw.arity("a number of groups")),
        _ => Err(raw.arity("no operands")),
    }
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`.
fn mbarrier_arrive(raw: &RawInstr, quals: &[&Qual], names: &Names) -> Result<InstrKind> {
    let mut noinc = false;
    let mut arrive = false;
    for q in quals {
        match q.text.as_str() {
            "arrive" => arrive = true,
            "noinc" => noinc = true,
            "shared" | "shared::cta" | "b64" => {}
            _ => return Err(raw.bad_qual(q)),
        }
    }
    if !arrive {
        return Err(Error::input("expected `cp.async.mbarrier.arrive`", raw.opcode_span));
    }
    match raw.operands.as_slice() {
        [a] => Ok(InstrKind::Async(AsyncInstr::MbarrierArrive { addr: names.addr(a)?, noinc })),
        _ => Err(raw.arity("an mbarrier address")),
    }
}
