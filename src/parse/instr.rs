//! Instructions as written (mnemonic, qualifiers, operands) and their decoding
//! into `ast::InstrKind`; both the corpus and the real PTX spellings.
//!
//! Registers versus locations: a name in a value or address position of
//! thread Pn is a register when it starts with `%` or is initialised as a
//! register of Pn (`Pn:name = ...`). Otherwise a name the init block declares
//! as a location or alias is a location. Otherwise it is a register when it
//! matches `r[0-9]+` / `p[0-9]+` or is the destination of one of Pn's
//! instructions, and a location (its address) in every other case.
//! Destination positions always hold registers.

use super::alu::{self, alu_op};
use super::grammar::Rule;
use super::text::{parse_int, Src};
use super::{bits, mem, suggest, sync, vector, warp};
use crate::ast::{Addr, AddrBase, BranchCond, Cmp, InstrKind, Operand, Span};
use crate::error::{Error, Result};
use pest::iterators::Pair;
use std::collections::HashSet;

/// One `.qualifier` of a mnemonic, without the dot.
#[derive(Clone, Debug)]
pub(crate) struct Qual {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(crate) struct Guard {
    pub reg: String,
    pub negated: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum RawKind {
    /// `r1`, `%r1`, `x`, `LC00`.
    Name(String),
    Imm(i64),
    /// `[base]`, `[base+off]`.
    Addr {
        base: String,
        offset: i64,
    },
    /// `!%p` (bar.red predicate).
    Not(String),
    /// `%r1|%p1`: a value and a predicate written by one instruction (PTX modules only).
    Pair(String, String),
    /// `{%r1, %r2}`: the elements of a vector access.
    Vector(Vec<RawOperand>),
    /// `(x, 1)`: the arguments of a call.
    List(Vec<RawOperand>),
}

#[derive(Clone, Debug)]
pub(crate) struct RawOperand {
    pub kind: RawKind,
    pub span: Span,
    pub text: String,
}

#[derive(Clone, Debug)]
pub(crate) struct RawInstr {
    pub(crate) opcode: String,
    pub(crate) opcode_span: Span,
    pub(crate) mnemonic: String,
    pub quals: Vec<Qual>,
    pub guard: Option<Guard>,
    pub operands: Vec<RawOperand>,
    pub span: Span,
    pub text: String,
}

impl RawInstr {
    /// An instruction at `span` whose parts are still to be read from its pair.
    pub fn empty(span: Span, text: String) -> RawInstr {
        RawInstr {
            opcode: String::new(),
            opcode_span: span,
            mnemonic: String::new(),
            quals: Vec::new(),
            guard: None,
            operands: Vec::new(),
            span,
            text,
        }
    }

    /// Build from an `instr` pair (syntax only; literal values are range-checked).
    pub(crate) fn from_pair(pair: Pair<Rule>, src: &Src) -> Result<RawInstr> {
        let span = src.pair_span(&pair);
        let text = pair.as_str().trim().to_string();
        let mut raw = RawInstr::empty(span, text);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::guard => raw.guard = Some(guard(p, src)),
                Rule::mnemonic => raw.set_mnemonic(p.as_str(), src.pair_span(&p), src),
                Rule::operand => raw.operands.push(operand(p, src)?),
                _ => {}
            }
        }
        Ok(raw)
    }

    /// Split a mnemonic `ld.acquire.gpu` into opcode and qualifiers, each with its span.
    pub(crate) fn set_mnemonic(&mut self, m: &str, span: Span, src: &Src) {
        self.mnemonic = m.to_string();
        let mut offset = 0;
        for (i, part) in m.split('.').enumerate() {
            let part_span = src.sub_span(span, offset, part.len());
            if i == 0 {
                self.opcode = part.to_string();
                self.opcode_span = part_span;
            } else {
                self.quals.push(Qual { text: part.to_string(), span: part_span });
            }
            offset += part.len() + 1;
        }
    }

    /// "`ld.weak` expects ..., found N operands", at the instruction.
    pub fn arity(&self, expected: &str) -> Error {
        let n = self.operands.len();
        let plural = if n == 1 { "" } else { "s" };
        Error::input(format!("`{}` expects {}, found {} operand{}", self.mnemonic, expected, n, plural), self.span)
    }

    /// An error for a qualifier this instruction does not take.
    pub(crate) fn bad_qual(&self, q: &Qual) -> Error {
        if matches!(q.text.as_str(), "v2" | "v4" | "v8") {
            return Error::input(format!("vector accesses (`.{}`) are not supported", q.text), q.span);
        }
        // Real PTX qualifiers whose meaning the checker does not model: say so.
        let unmodelled = matches!(
            q.text.as_str(),
            "sat"
                | "cc"
                | "ftz"
                | "approx"
                | "full"
                | "rn"
                | "rz"
                | "rm"
                | "rp"
                | "rni"
                | "rzi"
                | "rmi"
                | "rpi"
                | "relu"
                | "satfinite"
        ) || q.text.contains('x') && alu::type_of(q.text.split('x').next().unwrap_or("")).is_some();
        if unmodelled {
            return Error::input(
                format!("`.{}` on `{}` is not supported: its meaning is not modelled", q.text, self.opcode),
                q.span,
            );
        }
        Error::input(
            format!(
                "unknown qualifier `.{}` on `{}`{}",
                q.text,
                self.opcode,
                suggest::hint(&q.text, suggest::QUALIFIERS, ".")
            ),
            q.span,
        )
    }

    pub(crate) fn no_operands(&self) -> Result<()> {
        match self.operands.is_empty() {
            true => Ok(()),
            false => Err(self.arity("no operands")),
        }
    }

    /// The register this instruction writes, if any (used before decoding to
    /// learn which names are registers).
    pub(crate) fn written_name(&self) -> Option<&str> {
        let writes = matches!(
            self.opcode.as_str(),
            "ld" | "tld" | "suld" | "cold" | "ldc" | "atom" | "suatom" | "setp" | "selp"
        ) || alu_op(&self.opcode).is_some()
            || bits::is_bit_op(&self.opcode)
            || super::warp::is_warp_op(&self.opcode)
            || (matches!(self.opcode.as_str(), "bar" | "barrier") && self.quals.iter().any(|q| q.text == "red"))
            || self.opcode == "mbarrier";
        match self.operands.first().map(|o| &o.kind) {
            Some(RawKind::Name(n)) if writes => Some(n),
            _ => None,
        }
    }
}

fn guard(pair: Pair<Rule>, src: &Src) -> Guard {
    let span = src.pair_span(&pair);
    let mut g = Guard { reg: String::new(), negated: false, span };
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::guard_not => g.negated = true,
            Rule::reg_token => g.reg = p.as_str().to_string(),
            _ => {}
        }
    }
    g
}

fn operand(pair: Pair<Rule>, src: &Src) -> Result<RawOperand> {
    let span = src.pair_span(&pair);
    let text = pair.as_str().to_string();
    let Some(p) = pair.into_inner().next() else {
        return Err(Error::internal("empty operand in the parse tree"));
    };
    let kind = match p.as_rule() {
        Rule::number => RawKind::Imm(parse_int(p.as_str(), span)?),
        Rule::address => address(p, src)?,
        Rule::arg_list => {
            let mut args = Vec::new();
            for a in p.into_inner().filter(|a| a.as_rule() == Rule::operand) {
                args.push(operand(a, src)?);
            }
            RawKind::List(args)
        }
        Rule::not_operand => RawKind::Not(p.as_str().trim_start_matches('!').trim().to_string()),
        Rule::vector => {
            let mut elems = Vec::new();
            for e in p.into_inner().filter(|e| e.as_rule() == Rule::vector_elem) {
                let espan = src.pair_span(&e);
                let etext = e.as_str().to_string();
                let kind = match e.into_inner().next() {
                    Some(x) if x.as_rule() == Rule::number => RawKind::Imm(parse_int(x.as_str(), espan)?),
                    Some(x) => RawKind::Name(x.as_str().to_string()),
                    None => return Err(Error::internal("empty vector element in the parse tree")),
                };
                elems.push(RawOperand { kind, span: espan, text: etext });
            }
            RawKind::Vector(elems)
        }
        _ => RawKind::Name(p.as_str().to_string()),
    };
    Ok(RawOperand { kind, span, text })
}

/// `[base]`, `[base + n]`, `[base - n]`.
fn address(pair: Pair<Rule>, src: &Src) -> Result<RawKind> {
    let (mut base, mut negative, mut offset) = (String::new(), false, 0i64);
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::reg_token => base = p.as_str().to_string(),
            Rule::offset_sign => negative = p.as_str() == "-",
            Rule::number => {
                let span = src.pair_span(&p);
                let n = parse_int(p.as_str(), span)?;
                offset = if negative { n.checked_neg() } else { Some(n) }
                    .ok_or_else(|| Error::input(format!("offset `{}` does not fit in 64 bits", p.as_str()), span))?;
            }
            _ => {}
        }
    }
    Ok(RawKind::Addr { base, offset })
}

/// Which names of one thread are registers (see the module comment).
pub(crate) struct Names<'a> {
    pub regs: &'a HashSet<String>,
    pub locs: &'a HashSet<String>,
    /// Registers the init block gives an address (`P0:r5 = &x;`).
    pub(crate) addr_regs: &'a HashSet<String>,
}

/// `r12` or `p3`: the corpus register names.
fn looks_like_register(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('r' | 'p')) && name.len() > 1 && chars.all(|c| c.is_ascii_digit())
}

impl Names<'_> {
    pub(crate) fn is_reg(&self, name: &str) -> bool {
        name.starts_with('%') || self.regs.contains(name) || (!self.locs.contains(name) && looks_like_register(name))
    }

    /// The second operand of Dat3M's `ld r0, 1` / `ld r0, r1`: an immediate,
    /// or an unbracketed register that does not hold an address from the init
    /// block (`ld r1, r5` after `P0:r5 = &x;` reads x).
    pub(crate) fn is_assignment_source(&self, op: &RawOperand) -> bool {
        match &op.kind {
            RawKind::Imm(_) => true,
            RawKind::Name(n) => self.is_reg(n) && !self.addr_regs.contains(n),
            _ => false,
        }
    }

    /// A value operand: immediate, register, or the address of a location.
    pub fn value(&self, op: &RawOperand) -> Result<Operand> {
        match &op.kind {
            RawKind::Imm(v) => Ok(Operand::Imm(*v)),
            RawKind::Name(n) if self.is_reg(n) => Ok(Operand::Reg(n.clone())),
            RawKind::Name(n) => Ok(Operand::Sym(n.clone())),
            RawKind::Addr { .. } | RawKind::Not(_) | RawKind::Pair(..) | RawKind::Vector(_) | RawKind::List(_) => {
                Err(Error::input(format!("expected a register or a number, found `{}`", op.text), op.span))
            }
        }
    }

    /// An address operand: `x`, `[x]`, `[x+4]`, `[%rd1]`, `[%rd1+8]`.
    pub fn addr(&self, op: &RawOperand) -> Result<Addr> {
        let (name, offset) = match &op.kind {
            RawKind::Name(n) => (n, 0),
            RawKind::Addr { base, offset } => (base, *offset),
            RawKind::Imm(_) | RawKind::Not(_) | RawKind::Pair(..) | RawKind::Vector(_) | RawKind::List(_) => {
                return Err(Error::input(
                    format!("expected an address such as `x` or `[x]`, found `{}`", op.text),
                    op.span,
                ))
            }
        };
        let base = if self.is_reg(name) { AddrBase::Reg(name.clone()) } else { AddrBase::Sym(name.clone()) };
        Ok(Addr { base, offset })
    }
}

/// A destination: always a register, whatever its name.
pub(crate) fn dst(op: &RawOperand) -> Result<String> {
    match &op.kind {
        RawKind::Name(n) => Ok(n.clone()),
        _ => Err(Error::input(format!("expected a destination register, found `{}`", op.text), op.span)),
    }
}

/// A branch target label.
fn label(op: &RawOperand) -> Result<String> {
    match &op.kind {
        RawKind::Name(n) if !n.starts_with('%') => Ok(n.clone()),
        _ => Err(Error::input(format!("expected a label, found `{}`", op.text), op.span)),
    }
}

/// Decode one instruction into what it performs: one kind, or one per element
/// of a `.v2`/`.v4` access (8.2.4).
pub(crate) fn decode_all(raw: &RawInstr, names: &Names) -> Result<Vec<InstrKind>> {
    if let Some(g) = raw.guard.as_ref().filter(|_| raw.opcode != "bra") {
        return guarded(raw, names, g);
    }
    if matches!(raw.opcode.as_str(), "st" | "red") && raw.quals.first().is_some_and(|q| q.text == "async") {
        return Ok(vec![super::copy::store_async(raw, names)?]);
    }
    let vector = raw.quals.iter().any(|q| matches!(q.text.as_str(), "v2" | "v4" | "v8"));
    if vector && matches!(raw.opcode.as_str(), "ld" | "st") {
        return vector::vector(raw, names);
    }
    if let (Some(RawKind::Pair(p, q)), "setp") = (raw.operands.first().map(|o| &o.kind), raw.opcode.as_str()) {
        return setp_pair(raw, names, p, q);
    }
    Ok(vec![decode(raw, names)?])
}

/// `@{!}p INS` other than a branch (ISA 4.3.2: "an optional guard predicate
/// which controls conditional execution"): `@{!}!p bra skip; INS; skip:`, as
/// the module inliner does. The label is named by the instruction's place, so
/// no two guards of a thread share it.
fn guarded(raw: &RawInstr, names: &Names, g: &Guard) -> Result<Vec<InstrKind>> {
    let skip = format!("__guard@{}:{}", raw.span.line, raw.span.col);
    let mut inner = raw.clone();
    inner.guard = None;
    let branch =
        InstrKind::Branch { cond: BranchCond::Pred { reg: g.reg.clone(), negated: !g.negated }, target: skip.clone() };
    let mut out = vec![branch];
    out.extend(decode_all(&inner, names)?);
    out.push(InstrKind::Label(skip));
    Ok(out)
}

/// `setp.cmp.type p|q, a, b`: "p = (a cmp b); q = !(a cmp b)" (ISA setp).
fn setp_pair(raw: &RawInstr, names: &Names, p: &str, q: &str) -> Result<Vec<InstrKind>> {
    let mut first = raw.clone();
    first.operands[0].kind = RawKind::Name(p.to_string());
    let set = alu::setp(&first, names)?;
    let pred = crate::ast::IntTy { bits: 1, signed: false };
    let not = InstrKind::Alu {
        op: crate::ast::AluOp::Not,
        dst: q.to_string(),
        srcs: vec![Operand::Reg(p.to_string())],
        ty: Some(pred),
        src_ty: Some(pred),
    };
    Ok(vec![set, not])
}

/// `griddepcontrol.wait` / `.launch_dependents` (9.7.13.x, D300): they wait
/// for the prerequisite grids of a programmatic dependent launch and let the
/// dependent grids start. A test is one grid, with no prerequisite and no
/// dependent grid, so both order nothing in it: a no-op.
fn grid_dependency(raw: &RawInstr) -> Result<InstrKind> {
    match raw.quals.as_slice() {
        [q] if q.text == "wait" || q.text == "launch_dependents" => {
            raw.no_operands()?;
            Ok(InstrKind::Nop)
        }
        [_, extra, ..] => Err(raw.bad_qual(extra)),
        [q] => Err(raw.bad_qual(q)),
        [] => Err(Error::input("`griddepcontrol` needs `.wait` or `.launch_dependents`", raw.span)),
    }
}

/// Decode one instruction of a thread whose register names are `names`.
pub(crate) fn decode(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    match raw.opcode.as_str() {
        "ld" | "tld" | "suld" | "cold" | "ldc" => mem::load(raw, names),
        "st" | "sust" => mem::store(raw, names),
        "atom" | "red" | "suatom" | "sured" => mem::atomic(raw, names),
        "fence" | "membar" => sync::fence(raw),
        "bar" | "barrier" => sync::barrier(raw, names),
        "mbarrier" => sync::mbarrier(raw, names),
        "cp" => super::copy::decode(raw, names),
        "mapa" => super::copy::mapa(raw, names),
        "getctarank" => super::copy::getctarank(raw, names),
        "setp" => alu::setp(raw, names),
        "selp" => alu::selp(raw, names),
        "beq" | "bne" | "blt" | "bgt" | "ble" | "bge" | "goto" | "bra" => branch(raw, names),
        "call" => super::harness::call(raw, names),
        "nop" => {
            if let Some(q) = raw.quals.first() {
                return Err(raw.bad_qual(q));
            }
            raw.no_operands()?;
            Ok(InstrKind::Nop)
        }
        "griddepcontrol" => grid_dependency(raw),
        op if bits::is_bit_op(op) => bits::decode(raw, names),
        op if warp::is_warp_op(op) => warp::decode(raw, names),
        op => match alu_op(op) {
            Some(_) => alu::alu(raw, names),
            None => Err(Error::input(
                format!("unknown instruction `{}`{}", raw.mnemonic, suggest::hint(&raw.opcode, suggest::OPCODES, "")),
                raw.opcode_span,
            )),
        },
    }
}

/// The state spaces an access may name (ISA 5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    Global,
    /// Shared memory: one copy per cluster (8.3).
    Shared,
    /// `.local` (private to the thread, 5.1.5) and `.param` (private to the
    /// call, 5.1.6): never visible to another thread.
    Private,
    /// `.const`: read-only, read through the constant proxy (5.1.3).
    Const,
}

pub(crate) fn state_space(q: &str) -> Option<Space> {
    match q {
        "shared" | "shared::cta" | "shared::cluster" => Some(Space::Shared),
        "global" => Some(Space::Global),
        "local" | "param" | "param::entry" | "param::func" => Some(Space::Private),
        "const" => Some(Space::Const),
        _ => None,
    }
}

/// Corpus `beq a, b, L` ..., `goto L`; PTX `bra{.uni} L` and `@{!}p bra L`.
fn branch(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    for q in &raw.quals {
        if !(raw.opcode == "bra" && q.text == "uni") {
            return Err(raw.bad_qual(q));
        }
    }
    let cmp = match raw.opcode.as_str() {
        "beq" => Some(Cmp::Eq),
        "bne" => Some(Cmp::Ne),
        "blt" => Some(Cmp::Lt),
        "bgt" => Some(Cmp::Gt),
        "ble" => Some(Cmp::Le),
        "bge" => Some(Cmp::Ge),
        _ => None,
    };
    match (cmp, raw.operands.as_slice()) {
        (Some(cmp), [a, b, l]) => {
            let cond = BranchCond::Compare { cmp, a: names.value(a)?, b: names.value(b)? };
            Ok(InstrKind::Branch { cond, target: label(l)? })
        }
        (Some(_), _) => Err(raw.arity("two values and a label")),
        (None, [l]) => {
            let cond = match &raw.guard {
                Some(g) => BranchCond::Pred { reg: g.reg.clone(), negated: g.negated },
                None => BranchCond::Always,
            };
            Ok(InstrKind::Branch { cond, target: label(l)? })
        }
        (None, _) => Err(raw.arity("a label")),
    }
}

/// "`ld` has two memory semantics qualifiers, `.relaxed` and `.acquire`".
pub(crate) fn two_of(raw: &RawInstr, what: &str, first: &Qual, second: &Qual) -> Error {
    Error::input(
        format!("`{}` has two {} qualifiers, `.{}` and `.{}`", raw.opcode, what, first.text, second.text),
        second.span,
    )
}
