//! The warp collectives (litmus-format.md section 7): `shfl.sync`,
//! `vote.sync`, `match.sync`, `redux.sync`, `elect.sync` and `activemask`, decoded into
//! `InstrKind::Warp` / `InstrKind::ActiveMask` (D174, D175). Each takes the
//! qualifiers and types its ISA syntax lists, in any order.

use super::instr::{dst, Names, RawInstr, RawKind, RawOperand};
use crate::ast::{InstrKind, IntTy, ReduxOp, ShflMode, VoteMode, WarpOp};
use crate::error::{Error, Result};

/// The opcodes decoded here.
pub(crate) fn is_warp_op(opcode: &str) -> bool {
    matches!(opcode, "shfl" | "vote" | "match" | "redux" | "elect" | "activemask")
}

const PRED: IntTy = IntTy { bits: 1, signed: false };
const B32: IntTy = IntTy { bits: 32, signed: false };

pub(crate) fn decode(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    if raw.opcode == "activemask" {
        if let Some(q) = raw.quals.iter().find(|q| q.text != "b32") {
            return Err(raw.bad_qual(q));
        }
        let [d] = raw.operands.as_slice() else { return Err(raw.arity("a destination")) };
        return Ok(InstrKind::ActiveMask { dst: dst(d)? });
    }
    if raw.opcode == "elect" {
        return elect(raw, names);
    }
    let (op, ty) = op_and_type(raw)?;
    let (first, rest) = match raw.operands.split_first() {
        Some(x) => x,
        None => return Err(raw.arity("a destination, the sources and a member mask")),
    };
    let (d, pred) = match &first.kind {
        RawKind::Pair(d, p) if matches!(op, WarpOp::Shfl(_) | WarpOp::Match { .. }) => (d.clone(), Some(p.clone())),
        _ => (dst(first)?, None),
    };
    let wanted = if matches!(op, WarpOp::Shfl(_)) { 4 } else { 2 };
    if rest.len() != wanted {
        let what = if wanted == 4 { "`d, a, b, c, membermask`" } else { "`d, a, membermask`" };
        return Err(raw.arity(what));
    }
    let (srcs, mask) = rest.split_at(wanted - 1);
    let negated = matches!(srcs[0].kind, RawKind::Not(_));
    if negated && !matches!(op, WarpOp::Vote(_)) {
        return Err(Error::input(format!("`{}` takes no negated operand", raw.opcode), srcs[0].span));
    }
    let srcs = srcs.iter().map(|s| source(s, names)).collect::<Result<Vec<_>>>()?;
    Ok(InstrKind::Warp { op, dst: d, pred, srcs, negated, mask: names.value(&mask[0])?, ty })
}

/// `elect.sync d|p, membermask` (ISA 9.7.13 elect.sync, sm_90): "elects one
/// predicated active leader thread from among a set of threads specified by
/// membermask. laneid of the elected thread is returned in the 32-bit
/// destination operand d. The sink symbol '_' can be used for destination
/// operand d. The predicate destination p is set to True for the leader
/// thread, and False for all other threads." No sources: which lane leads
/// depends only on the lanes the mask names (D166).
fn elect(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    if let Some(q) = raw.quals.iter().find(|q| q.text != "sync") {
        return Err(raw.bad_qual(q));
    }
    if raw.quals.is_empty() {
        return Err(Error::input("`elect` needs `.sync`: write `elect.sync`", raw.opcode_span));
    }
    let [first, mask] = raw.operands.as_slice() else { return Err(raw.arity("`d|p, membermask`")) };
    let RawKind::Pair(d, p) = &first.kind else {
        let msg =
            format!("`elect.sync` writes a lane and a predicate, `d|p` (`_|p` to drop d), found `{}`", first.text);
        return Err(Error::input(msg, first.span));
    };
    Ok(InstrKind::Warp {
        op: WarpOp::Elect,
        dst: d.clone(),
        pred: Some(p.clone()),
        srcs: Vec::new(),
        negated: false,
        mask: names.value(mask)?,
        ty: B32,
    })
}

/// A source operand; `!p` is the predicate `p` (the negation is `negated`).
fn source(op: &RawOperand, names: &Names) -> Result<crate::ast::Operand> {
    match &op.kind {
        RawKind::Not(p) => Ok(crate::ast::Operand::Reg(p.clone())),
        _ => names.value(op),
    }
}

/// The words naming each collective's operation, as its ISA syntax lists them.
const SHFL_MODES: [&str; 4] = ["up", "down", "bfly", "idx"];
const VOTE_MODES: [&str; 4] = ["all", "any", "uni", "ballot"];
const MATCH_MODES: [&str; 2] = ["any", "all"];
const REDUX_OPS: [&str; 6] = ["add", "min", "max", "and", "or", "xor"];

/// The operation its qualifiers name and its type; `.sync` is required.
fn op_and_type(raw: &RawInstr) -> Result<(WarpOp, IntTy)> {
    if !raw.quals.iter().any(|q| q.text == "sync") {
        return Err(Error::input(
            format!(
                "`{}` without `.sync` is not supported (deprecated before sm_70): write `{}.sync`",
                raw.mnemonic, raw.opcode
            ),
            raw.opcode_span,
        ));
    }
    let (op, types) = named_op(raw);
    let Some(op) = op else {
        return Err(Error::input(format!("`{}`: the operation is missing", raw.mnemonic), raw.opcode_span));
    };
    let word = type_word(raw, mode_words(op), types)?;
    // ISA redux.sync: `.and`/`.or`/`.xor` take `.b32`, `.add`/`.min`/`.max` `.u32`/`.s32`.
    let bitwise = matches!(op, WarpOp::Redux(ReduxOp::And | ReduxOp::Or | ReduxOp::Xor));
    if matches!(op, WarpOp::Redux(_)) && bitwise != (word == "b32") {
        let want = if bitwise { ".b32" } else { ".u32 or .s32" };
        return Err(Error::input(format!("`{}`: this operation takes {}", raw.mnemonic, want), raw.opcode_span));
    }
    let ty = if word == "pred" { PRED } else { super::alu::type_of(word).map_or(B32, |x| x.0) };
    Ok((op, ty))
}

/// The operation the first of its opcode's mode words among `raw`'s
/// qualifiers names (`None`: none is written), and the types it takes.
fn named_op(raw: &RawInstr) -> (Option<WarpOp>, &'static [&'static str]) {
    let pick = |options: &[&'static str]| options.iter().copied().find(|o| raw.quals.iter().any(|q| q.text == *o));
    match raw.opcode.as_str() {
        "shfl" => (
            pick(&SHFL_MODES).map(|m| {
                WarpOp::Shfl(match m {
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    _ => ShflMode::Idx,
                })
            }),
            &["b32"],
        ),
        "vote" => {
            let mode = pick(&VOTE_MODES);
            let op = mode.map(|m| {
                WarpOp::Vote(match m {
                    "all" => VoteMode::All,
                    "any" => VoteMode::Any,
                    "uni" => VoteMode::Uni,
                    _ => VoteMode::Ballot,
                })
            });
            (op, if mode == Some("ballot") { &["b32"] } else { &["pred"] })
        }
        "match" => (pick(&MATCH_MODES).map(|m| WarpOp::Match { all: m == "all" }), &["b32", "b64"]),
        _ => (
            pick(&REDUX_OPS).map(|m| {
                WarpOp::Redux(match m {
                    "add" => ReduxOp::Add,
                    "min" => ReduxOp::Min,
                    "max" => ReduxOp::Max,
                    "and" => ReduxOp::And,
                    "or" => ReduxOp::Or,
                    _ => ReduxOp::Xor,
                })
            }),
            &["u32", "s32", "b32"],
        ),
    }
}

/// The words that may name `op`'s operation.
fn mode_words(op: WarpOp) -> &'static [&'static str] {
    match op {
        WarpOp::Shfl(_) => &SHFL_MODES,
        WarpOp::Vote(_) => &VOTE_MODES,
        WarpOp::Match { .. } => &MATCH_MODES,
        WarpOp::Redux(_) => &REDUX_OPS,
        WarpOp::Elect => &[],
    }
}

/// The type `raw` is written with, one of `types`: besides `.sync` and one
/// mode word, its qualifiers hold that type once and nothing else.
fn type_word<'r>(raw: &'r RawInstr, mode_words: &[&str], types: &[&str]) -> Result<&'r str> {
    let mut ty: Option<&str> = None;
    let mut modes = 0;
    for q in &raw.quals {
        let t = q.text.as_str();
        if t == "sync" {
            continue;
        }
        if mode_words.contains(&t) && modes == 0 {
            modes += 1;
        } else if types.contains(&t) && ty.is_none() {
            ty = Some(t);
        } else {
            return Err(raw.bad_qual(q));
        }
    }
    ty.ok_or_else(|| {
        Error::input(
            format!("`{}`: the type is missing (one of .{})", raw.mnemonic, types.join(", .")),
            raw.opcode_span,
        )
    })
}
