//! Asynchronous copies (ISA 8.9.1.1, 9.7.9.25; issue 41): `cp.async`,
//! `cp.async.bulk`, their groups and waits, `cp.async.mbarrier.arrive`.
//! What each does to memory is `program::build::copy`'s (D257-D262).

use super::instr::{Names, Qual, RawInstr};
use crate::ast::{AsyncInstr, InstrKind, Operand};
use crate::error::{Error, Result};

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
    let (dst, src, size, src_size) = match raw.operands.as_slice() {
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
    }))
}

/// `cp.async.bulk.DST.SRC.COMPLETION [dst], [src], size{, [mbar]}`, and
/// `cp.async.bulk.commit_group` / `.wait_group{.read} N`.
fn bulk(raw: &RawInstr, quals: &[&Qual], names: &Names) -> Result<InstrKind> {
    if quals.first().is_some_and(|q| q.text == "commit_group" || q.text == "wait_group") {
        return group_op(raw, quals, true, names);
    }
    let words: Vec<&&Qual> = quals.iter().filter(|q| !is_hint(&q.text)).collect();
    let text: Vec<&str> = words.iter().map(|q| q.text.as_str()).collect();
    if let Some(q) = words.iter().find(|q| q.text.starts_with("multicast") || q.text == "cp_mask") {
        let msg = format!("`.{}` on cp.async.bulk is not modelled yet (issue 41)", q.text);
        return Err(Error::input(msg, q.span));
    }
    if let Some(q) = words.iter().find(|q| q.text == "tensor") {
        let msg = format!("`.{}`: bulk tensor copies are not modelled", q.text);
        return Err(Error::input(msg, q.span));
    }
    let with_mbar = match text.as_slice() {
        ["shared::cta" | "shared::cluster", "global", "mbarrier::complete_tx::bytes"] => true,
        ["global", "shared::cta", "bulk_group"] => false,
        ["shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes"] => {
            let msg = "cp.async.bulk from .shared::cta to another CTA's .shared::cluster is not modelled yet (issue 41)";
            return Err(Error::input(msg, raw.opcode_span));
        }
        _ => {
            return Err(Error::input(
                "cp.async.bulk forms read here: `.shared::cta.global.mbarrier::complete_tx::bytes` (or `.shared::cluster.global…`) and `.global.shared::cta.bulk_group`",
                raw.opcode_span,
            ))
        }
    };
    let ops = raw.operands.as_slice();
    let (dst, src, size, mbar) = match (with_mbar, ops) {
        (true, [d, s, n, m]) => (d, s, n, Some(names.addr(m)?)),
        (false, [d, s, n]) => (d, s, n, None),
        (true, _) => return Err(raw.arity("a destination, a source, a size and an mbarrier")),
        (false, _) => return Err(raw.arity("a destination, a source and a size")),
    };
    let size_v = names.value(size)?;
    if let Operand::Imm(n) = size_v {
        if n <= 0 || n % 16 != 0 {
            return Err(Error::input("the size of cp.async.bulk is a positive multiple of 16 bytes", size.span));
        }
    }
    Ok(InstrKind::Async(AsyncInstr::Copy {
        bulk: true,
        dst: names.addr(dst)?,
        src: names.addr(src)?,
        size: size_v,
        src_size: None,
        mbar,
    }))
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
