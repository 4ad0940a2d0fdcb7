//! Asynchronous copies and their completion mechanisms (ISA 8.9.1.1,
//! 9.7.9.25, 9.7.10.12, 9.7.15.7; issue 41, D257-D262, D293), written once
//! for both builders (issue 40, D308): what each instruction does to memory
//! and to its thread's groups. The events an operation performs are its
//! thread's, marked with [`AsyncRole`]: the model orders them
//! (`prims::async_order`), not program order.

use super::{address, location, Either, Flow, Values};
use crate::ast::{self, AsyncInstr, AtomOp, IntTy, Operand};
use crate::error::Error;
use crate::program::build::{mk_rmw, Access, LocKey, MemSem, Scope};
use crate::program::event::EventKind;
use crate::program::symbolic::SymOp;
use crate::program::{AsyncPart, AsyncRole};

/// A state's asynchronous operations (D260): numbered in issue order; the
/// groups of each kind are per thread (9.7.9.25: "cp.async-groups are per
/// thread"; bulk async-groups likewise). The same on every path of a
/// symbolic state: states whose groups differ do not merge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(in crate::program::build) struct AsyncState {
    next: u32,
    /// Every `cp.async` issued so far (what `cp.async.mbarrier.arrive` tracks).
    cp_all: Vec<u32>,
    /// Operations not yet committed to a group, and the committed groups not
    /// yet waited for, oldest first: `cp.async`'s and bulk copies'.
    cp_open: Vec<u32>,
    cp_groups: Vec<Vec<u32>>,
    bulk_open: Vec<u32>,
    bulk_groups: Vec<Vec<u32>>,
}

impl AsyncState {
    /// The number of the operation issued now.
    fn issue(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }

    /// The open operations and the committed groups of one kind.
    fn groups(&mut self, bulk: bool) -> (&mut Vec<u32>, &mut Vec<Vec<u32>>) {
        if bulk {
            (&mut self.bulk_open, &mut self.bulk_groups)
        } else {
            (&mut self.cp_open, &mut self.cp_groups)
        }
    }
}

/// `cp.async…`, `cp.async.bulk…`, `cp.reduce.async.bulk…`, their groups and
/// waits, `cp.async.mbarrier.arrive`, `st.async` and `red.async` (one
/// [`AsyncInstr`]).
pub(in crate::program::build) fn async_op<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
) -> Result<Flow<B::State>, B::Stop> {
    let ast::InstrKind::Async(a) = &ins.kind else {
        return Err(b.internal("an asynchronous meaning on another instruction"));
    };
    match a {
        AsyncInstr::Copy { .. } => copy(b, st, ins, a),
        AsyncInstr::Commit { bulk } => {
            let (open, groups) = B::asyncs(st).groups(*bulk);
            // An empty group is a group (9.7.9.25: "an empty cp.async-group").
            groups.push(std::mem::take(open));
            Ok(Flow::Next)
        }
        AsyncInstr::Wait { bulk, pending, read } => {
            wait(b, st, ins, *bulk, pending, *read)?;
            Ok(Flow::Next)
        }
        AsyncInstr::MbarrierArrive { addr, noinc } => {
            arrive(b, st, ins, addr, *noinc)?;
            Ok(Flow::Next)
        }
        AsyncInstr::Store { .. } => {
            store(b, st, ins, a)?;
            Ok(Flow::Next)
        }
    }
}

/// A constant operand (a copy's size): a value read is outside the
/// symbolic builder (the path builder forks on it first).
fn constant<B: Values>(
    b: &mut B,
    st: &B::State,
    (o, what): (&Operand, &str),
    deps: &mut B::Deps,
    ins: &ast::Instr,
) -> Result<i64, B::Stop> {
    let v = b.operand(st, o);
    let n = b.number(st, &v)?;
    b.join(deps, B::deps(&v))?;
    b.constant(n).ok_or_else(|| b.outside(ins, &format!("its {} is computed from a value read", what)))
}

/// One copy's operands: its destinations and the mbarrier of each (one,
/// or one per CTA of a `.multicast::cluster` mask; none for a bulk group).
struct CopyAt {
    dst: Vec<(LocKey, String)>,
    src: (LocKey, String),
    size: i64,
    src_size: i64,
    mbar: Vec<(LocKey, String)>,
}

/// The copy's addresses and sizes, and what they depend on.
fn copy_operands<B: Values>(
    b: &mut B,
    st: &B::State,
    ins: &ast::Instr,
    a: &AsyncInstr,
) -> Result<(CopyAt, B::Deps), B::Stop> {
    let AsyncInstr::Copy { dst, src, size, src_size, mbar, shared, multicast, .. } = a else {
        return Err(b.internal("copy operands of another instruction"));
    };
    let mut deps = B::Deps::default();
    let size = constant(b, st, (size, "size"), &mut deps, ins)?;
    let src_size = match src_size {
        Some(o) => constant(b, st, (o, "source size"), &mut deps, ins)?,
        None => size,
    };
    let ranks = match multicast {
        Some(m) => Some(cta_mask(constant(b, st, (m, "ctaMask"), &mut deps, ins)?, ins)?),
        None => None,
    };
    // Each destination CTA's copy: the same CTA-relative offset (D312).
    let mut places = |b: &mut B, addr: &ast::Addr, shared: bool| -> Result<Vec<(LocKey, String)>, B::Stop> {
        let (name, off, d) = address(b, st, addr, ins)?;
        b.join(&mut deps, &d)?;
        let Some(ranks) = &ranks else {
            return Ok(vec![b.locate(&name, off, shared, ins)?]);
        };
        let mut out = Vec::new();
        for &r in ranks {
            let mapped = b.mapped_name(&name, r, ins)?;
            let at = b.locate(&mapped, off, shared, ins)?;
            if out.iter().any(|(k, _)| *k == at.0) {
                let msg = format!("`{}` is one location for every CTA of the cluster (a test's `.shared` location, D19), so a multicast copy cannot give each destination CTA its own: declare it in a module", name);
                return Err(Error::input(msg, ins.span).into());
            }
            out.push(at);
        }
        Ok(out)
    };
    let dst = places(b, dst, shared.0)?;
    let src = location(b, st, src, shared.1, ins)?;
    let mbar = match mbar {
        Some(m) => places(b, m, true)?,
        None => Vec::new(),
    };
    b.join(&mut deps, &src.2)?;
    Ok((CopyAt { dst, src: (src.0, src.1), size, src_size, mbar }, deps))
}

/// The cluster ranks of a 16-bit ctaMask (9.7.9.25.4.1: "each bit position
/// in the 16-bit ctaMask operand corresponds to the %cluster_ctarank of the
/// destination CTA", D312).
fn cta_mask(mask: i64, ins: &ast::Instr) -> Result<Vec<i64>, Error> {
    let ranks: Vec<i64> = (0..16).filter(|r| mask >> r & 1 == 1).collect();
    if ranks.is_empty() || mask >> 16 != 0 {
        let msg = format!("ctaMask {:#x} must name one or more CTAs in its 16 bits", mask);
        return Err(Error::input(msg, ins.span));
    }
    Ok(ranks)
}

/// The bytes of one piece of a copy (D261): the destination's element size
/// when it divides the copy (an array of `u64` is copied in 8-byte pieces,
/// any other variable in 4-byte ones), so that a copy of values the program
/// stores whole reads and writes them whole.
fn piece_size<B: Values>(b: &B, key: &LocKey, size: i64) -> i64 {
    let elem = b.element_size(&key.root);
    if elem >= 4 && size % elem == 0 {
        elem
    } else {
        4
    }
}

/// Check the sizes and alignment the ISA requires (9.7.9.25: cp-size 4, 8
/// or 16 and aligned to it; bulk: a multiple of 16, 16-byte aligned;
/// src-size at most cp-size).
fn check_copy(ins: &ast::Instr, bulk: bool, at: &CopyAt) -> Result<(), Error> {
    let align = if bulk { 16 } else { at.size };
    let dsts = at.dst.iter().map(|d| ("destination", &d.0));
    for (what, key) in dsts.chain([("source", &at.src.0)]) {
        if key.offset.rem_euclid(align) != 0 {
            let msg = format!(
                "the {} of this copy is at byte {} of `{}`, not {}-byte aligned",
                what, key.offset, key.root, align
            );
            return Err(Error::input(msg, ins.span));
        }
    }
    if !(0..=at.size).contains(&at.src_size) || at.src_size % 4 != 0 {
        let msg = format!("src-size {} must be a multiple of 4 from 0 to the copy size {}", at.src_size, at.size);
        return Err(Error::input(msg, ins.span));
    }
    if at.size > 256 {
        return Err(Error::limit(format!(
            "a copy of {} bytes: this tool copies at most 256 bytes per instruction",
            at.size
        )));
    }
    Ok(())
}

/// The pieces of one copy and how each is accessed.
struct Copying {
    op: u32,
    bulk: bool,
    proxy: ast::Proxy,
    piece: i64,
    reduce: Option<(AtomOp, IntTy)>,
}

impl Copying {
    fn role(&self, part: AsyncPart) -> Option<Box<AsyncRole>> {
        Some(Box::new(AsyncRole { op: self.op, bulk: self.bulk, part, tracks: Vec::new() }))
    }
}

/// One asynchronous copy (D261): for each piece, a weak read of the source
/// and a weak write of the destination with the value read (past
/// src-size: a write of zero, "the remaining bytes are zero-filled"),
/// through the generic proxy (`cp.async`) or the async proxy (bulk, 8.6); a
/// bulk copy with an mbarrier then performs its complete-tx of `size`
/// bytes, a release at cluster scope (D259). The path builder splits the
/// path on each value a read may return; the symbolic one writes the term.
fn copy<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr, a: &AsyncInstr) -> Result<Flow<B::State>, B::Stop> {
    let AsyncInstr::Copy { bulk, reduce, .. } = a else {
        return Err(b.internal("copy of another instruction"));
    };
    let (at, deps) = copy_operands(b, st, ins, a)?;
    check_copy(ins, *bulk, &at)?;
    // A reduction combines elements of its type (9.7.10.28.4.2: "element-wise").
    let piece = match reduce {
        Some((_, ty)) => i64::from(ty.bits / 8),
        None => at.dst.iter().map(|d| piece_size(b, &d.0, at.size)).fold(piece_size(b, &at.src.0, at.size), i64::min),
    };
    for k in 0..at.size / piece {
        for key in at.dst.iter().map(|d| &d.0).chain([&at.src.0]) {
            let key = LocKey { offset: key.offset + k * piece, ..key.clone() };
            if b.cells(&key, piece as u8, ins).len() > 1 {
                let msg = "this copy covers bytes that differently-sized accesses also touch (mixed-size), which copies do not support";
                return Err(Error::input(msg, ins.span).into());
            }
        }
    }
    let asyncs = B::asyncs(st);
    let op = asyncs.issue();
    if *bulk {
        asyncs.bulk_open.push(op);
    } else {
        asyncs.cp_open.push(op);
        asyncs.cp_all.push(op);
    }
    let proxy = if *bulk { ast::Proxy::Async } else { ast::Proxy::Generic };
    let how = Copying { op, bulk: *bulk, proxy, piece, reduce: *reduce };
    let flow = copy_pieces(b, st, ins, (&at, &deps), &how, 0)?;
    let tx = (op, *bulk, at.size);
    let signal = |b: &mut B, s: &mut B::State| -> Result<(), B::Stop> {
        for mbar in &at.mbar {
            complete_tx(b, s, ins, mbar, tx, deps.clone())?;
        }
        Ok(())
    };
    match flow {
        Flow::Next => signal(b, st).map(|()| Flow::Next),
        Flow::Split(mut parts) => {
            for s in &mut parts {
                signal(b, s)?;
            }
            Ok(Flow::Split(parts))
        }
    }
}

/// Pieces `k..` of a copy on `st`; a read whose value the path builder
/// enumerates splits the state, and each part copies the rest.
fn copy_pieces<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
    (at, deps): (&CopyAt, &B::Deps),
    how: &Copying,
    k: i64,
) -> Result<Flow<B::State>, B::Stop> {
    for k in k..at.size / how.piece {
        let off = k * how.piece;
        let place = |(key, vaddr): &(LocKey, String)| {
            (LocKey { offset: key.offset + off, ..key.clone() }, offset_vaddr(vaddr, off))
        };
        let dsts: Vec<_> = at.dst.iter().map(place).collect();
        if off >= at.src_size {
            for dst in dsts {
                let zero = b.konst(0);
                write_piece(b, st, ins, how, dst, (zero, deps.clone()))?;
            }
            continue;
        }
        let (skey, svaddr) = place(&at.src);
        let read = Access {
            reads: true,
            asynch: how.role(AsyncPart::Read),
            ..Access::new(svaddr, how.proxy, how.piece as u8, MemSem::Weak, Scope::Sys)
        };
        let cells = vec![(skey.clone(), 0, how.piece as u8)];
        let super::Read::One(v) = b.read(st, skey, cells, read, deps.clone(), ins)? else {
            return Err(b.internal("a copy's piece read over several cells"));
        };
        let mut wdeps = deps.clone();
        b.join(&mut wdeps, B::deps(&v))?;
        match b.settle(st, &v)? {
            Either::One(n) => {
                for dst in dsts {
                    write_piece(b, st, ins, how, dst, (n, wdeps.clone()))?;
                }
            }
            Either::Split(parts) => {
                let mut out = Vec::new();
                for (mut s, n) in parts {
                    for dst in &dsts {
                        write_piece(b, &mut s, ins, how, dst.clone(), (n, wdeps.clone()))?;
                    }
                    match copy_pieces(b, &mut s, ins, (at, deps), how, k + 1)? {
                        Flow::Next => out.push(s),
                        Flow::Split(more) => out.extend(more),
                    }
                }
                return Ok(Flow::Split(out));
            }
        }
    }
    Ok(Flow::Next)
}

/// The write of one piece: a weak write of the value, or for a reduction
/// an element-wise atomic ("defaults to .relaxed.sys").
fn write_piece<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
    how: &Copying,
    (dkey, dvaddr): (LocKey, String),
    (value, deps): (B::Num, B::Deps),
) -> Result<(), B::Stop> {
    let size = how.piece as u8;
    match how.reduce {
        Some((op, ty)) => {
            let base = Access {
                conv: Some(ty),
                asynch: how.role(AsyncPart::Write),
                ..mk_rmw(dvaddr, how.proxy, size, MemSem::Relaxed, Scope::Sys, true, Some(0))
            };
            b.modify(st, dkey, base, (op, vec![value]), deps, &None, ins)
        }
        None => {
            let access = Access {
                writes: true,
                asynch: how.role(AsyncPart::Write),
                ..Access::new(dvaddr, how.proxy, size, MemSem::Weak, Scope::Sys)
            };
            let cells = vec![(dkey.clone(), 0, size)];
            b.write(st, dkey, cells, access, value, deps, ins)
        }
    }
}

/// The implicit complete-tx of `bytes` on the mbarrier at `mbar` that ends
/// asynchronous operation `op` (D259): "the complete-tx operation on the
/// mbarrier has .release semantics at .cluster scope", ordered after the
/// operation's own accesses only (8.9.1.1).
fn complete_tx<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
    (mkey, mvaddr): &(LocKey, String),
    (op, bulk, bytes): (u32, bool, i64),
    deps: B::Deps,
) -> Result<(), B::Stop> {
    b.cells(mkey, 8, ins);
    let access = Access {
        asynch: Some(Box::new(AsyncRole { op, bulk, part: AsyncPart::CompleteTx, tracks: Vec::new() })),
        ..mk_rmw(mvaddr.clone(), ast::Proxy::Generic, 8, MemSem::Release, Scope::Cluster, true, Some(0))
    };
    let bytes = b.konst(bytes);
    b.modify(st, mkey.clone(), access, (AtomOp::MbarrierCompleteTx, vec![bytes]), deps, &None, ins)
}

/// `st.async` / `red.async` (9.7.10.12, 9.7.15.7; D293): an asynchronous
/// operation of its own, as a bulk copy is, in the generic proxy: a weak
/// store (`red.async`: a relaxed `.cluster` read-modify-write) of each
/// element, then the complete-tx of their bytes on the mbarrier.
fn store<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr, a: &AsyncInstr) -> Result<(), B::Stop> {
    let AsyncInstr::Store { dst, values, ty, mbar, red } = a else {
        return Err(b.internal("an asynchronous store of another instruction"));
    };
    let mut deps = B::Deps::default();
    let mut vals = Vec::new();
    for o in values {
        let v = b.operand(st, o);
        let n = b.number(st, &v)?;
        b.join(&mut deps, B::deps(&v))?;
        vals.push(b.apply(SymOp::Convert(Some(*ty)), vec![n], ins)?);
    }
    let mut places = Vec::new();
    for addr in [dst, mbar] {
        let (key, vaddr, d) = location(b, st, addr, true, ins)?;
        b.join(&mut deps, &d)?;
        b.check_space(&key.root, false, ins)?;
        places.push((key, vaddr));
    }
    let elem = i64::from(ty.bits / 8);
    let total = elem * vals.len() as i64;
    let (dkey, dvaddr) = &places[0];
    if dkey.offset.rem_euclid(total) != 0 {
        let msg = format!(
            "the destination of this store is at byte {} of `{}`, not {}-byte aligned (the size of the whole vector)",
            dkey.offset, dkey.root, total
        );
        return Err(Error::input(msg, ins.span).into());
    }
    let op = B::asyncs(st).issue();
    let role = Some(Box::new(AsyncRole { op, bulk: false, part: AsyncPart::Write, tracks: Vec::new() }));
    for (k, &v) in vals.iter().enumerate() {
        let off = k as i64 * elem;
        let key = LocKey { offset: dkey.offset + off, ..dkey.clone() };
        if b.cells(&key, elem as u8, ins).len() > 1 {
            let msg = "this store covers bytes that differently-sized accesses also touch (mixed-size), which st.async does not support";
            return Err(Error::input(msg, ins.span).into());
        }
        let vaddr = offset_vaddr(dvaddr, off);
        match red {
            None => {
                let access = Access {
                    writes: true,
                    asynch: role.clone(),
                    ..Access::new(vaddr, ast::Proxy::Generic, elem as u8, MemSem::Weak, Scope::Sys)
                };
                let cells = vec![(key.clone(), 0, elem as u8)];
                b.write(st, key, cells, access, v, deps.clone(), ins)?;
            }
            Some(rop) => {
                let base = Access {
                    conv: Some(*ty),
                    asynch: role.clone(),
                    ..mk_rmw(vaddr, ast::Proxy::Generic, elem as u8, MemSem::Relaxed, Scope::Cluster, true, Some(0))
                };
                b.modify(st, key, base, (*rop, vec![v]), deps.clone(), &None, ins)?;
            }
        }
    }
    complete_tx(b, st, ins, &places[1], (op, false, total), deps)
}

/// `cp.async.wait_group N` / `wait_all` / `cp.async.bulk.wait_group{.read} N`
/// (D260): every group but the `N` most recent is complete (`wait_all`
/// commits the open operations first: "equivalent to commit_group;
/// wait_group 0"). Operations never committed are waited for by no
/// `wait_group`. `.read` waits only for the groups' source reads.
fn wait<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
    bulk: bool,
    pending: &Operand,
    read: bool,
) -> Result<(), B::Stop> {
    let Operand::Imm(n) = pending else {
        return Err(b.internal("wait_group without a constant"));
    };
    let (open, groups) = B::asyncs(st).groups(bulk);
    let n = if *n < 0 {
        groups.push(std::mem::take(open));
        0
    } else {
        *n as usize
    };
    let complete = groups.len().saturating_sub(n);
    let done: Vec<(u32, bool)> = groups[..complete].iter().flatten().map(|&op| (op, read)).collect();
    if !read {
        groups.drain(..complete);
    }
    if done.is_empty() {
        return Ok(());
    }
    b.push_other(st, EventKind::AsyncWait { done }, ins)
}

/// `cp.async.mbarrier.arrive{.noinc} [addr]` (D262): an asynchronous
/// arrive-on of the object, an operation of its own (8.9.1.1: ordered after
/// "the memory operations performed by all prior cp.async operations
/// initiated by the same thread, but not to those of any other
/// instruction"): a release arrive at CTA scope. Without `.noinc` the
/// instruction first increments the pending count (a relaxed
/// read-modify-write in program order: "incremented by 1 prior to the
/// asynchronous arrive-on"), so the pair counts no arrival of the phase.
fn arrive<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
    addr: &ast::Addr,
    noinc: bool,
) -> Result<(), B::Stop> {
    let (key, vaddr, deps) = location(b, st, addr, true, ins)?;
    b.cells(&key, 8, ins);
    if !noinc {
        // The increment is the instruction's own, in program order: the
        // phase cannot complete before the asynchronous arrive-on.
        let inc = mk_rmw(vaddr.clone(), ast::Proxy::Generic, 8, MemSem::Relaxed, Scope::Cta, true, Some(0));
        let minus_one = b.konst(-1);
        b.modify(st, key.clone(), inc, (AtomOp::MbarrierArrive, vec![minus_one]), deps.clone(), &None, ins)?;
    }
    let asyncs = B::asyncs(st);
    let op = asyncs.issue();
    let tracks = asyncs.cp_all.clone();
    let access = Access {
        asynch: Some(Box::new(AsyncRole { op, bulk: false, part: AsyncPart::Arrive, tracks })),
        ..mk_rmw(vaddr, ast::Proxy::Generic, 8, MemSem::Release, Scope::Cta, true, Some(0))
    };
    let one = b.konst(1);
    b.modify(st, key, access, (AtomOp::MbarrierArrive, vec![one]), deps, &None, ins)
}

/// The virtual address `off` bytes into `vaddr` (`s`, `s+16`).
fn offset_vaddr(vaddr: &str, off: i64) -> String {
    let (base, at) = match vaddr.split_once('+') {
        Some((b, o)) => (b, o.parse::<i64>().unwrap_or(0)),
        None => (vaddr, 0),
    };
    if at + off == 0 {
        base.to_string()
    } else {
        format!("{}+{}", base, at + off)
    }
}
