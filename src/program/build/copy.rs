//! Asynchronous copies and their completion mechanisms (ISA 8.9.1.1,
//! 9.7.9.25; issue 41, D257-D262): what each instruction does to memory and
//! to its thread's groups, in one place. The events an operation performs
//! are its thread's, marked with [`AsyncRole`]: the model orders them
//! (`prims::async_order`), not program order.
//!
//! The symbolic builder refuses these instructions (`symbolic/refuse.rs`);
//! when the two builders become one interpreter, this module is the step
//! both run.

use super::*;
use crate::ast::{self, AsyncInstr, AtomOp, Operand};
use crate::error::{Error, Result};
use crate::program::arith;
use crate::program::{AsyncPart, AsyncRole, Rmw};
use std::collections::BTreeSet;

/// A path's asynchronous operations (D260): numbered in issue order; the
/// groups of each kind are per thread (9.7.9.25: "cp.async-groups are per
/// thread"; bulk async-groups likewise).
#[derive(Clone, Debug, Default)]
pub(super) struct AsyncState {
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

/// One copy's operands, made concrete.
struct CopyAt {
    dst: (LocKey, String),
    src: (LocKey, String),
    size: i64,
    src_size: i64,
    mbar: Option<(LocKey, String)>,
    deps: BTreeSet<usize>,
}

impl Ctx<'_> {
    /// `cp.async…` and `cp.async.bulk…` (one [`AsyncInstr`]).
    pub(super) fn step_async(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Async(a) = &ins.kind else {
            return Err(Error::internal("step_async on another instruction"));
        };
        match a {
            AsyncInstr::Copy { .. } => {
                let at = match self.copy_operands(t, st, ins, a)? {
                    Ok(at) => at,
                    Err(fork) => return Ok(fork),
                };
                self.copy(st, ins, a, at)
            }
            AsyncInstr::Commit { bulk } => {
                let s = &mut st.asyncs;
                let (open, groups) =
                    if *bulk { (&mut s.bulk_open, &mut s.bulk_groups) } else { (&mut s.cp_open, &mut s.cp_groups) };
                // An empty group is a group (9.7.9.25: "an empty cp.async-group").
                groups.push(std::mem::take(open));
                Ok(Step::Next)
            }
            AsyncInstr::Wait { bulk, pending, read } => self.async_wait(st, ins, *bulk, pending, *read),
            AsyncInstr::MbarrierArrive { addr, noinc } => self.async_arrive(t, st, ins, addr, *noinc),
            AsyncInstr::Store { .. } => self.async_store(t, st, ins, a),
        }
    }

    /// The copy's addresses and sizes; `Err`: the fork on a read an operand waits for.
    fn copy_operands(
        &mut self,
        t: usize,
        st: &PathState,
        ins: &ast::Instr,
        a: &AsyncInstr,
    ) -> Result<std::result::Result<CopyAt, Step>> {
        let AsyncInstr::Copy { dst, src, size, src_size, mbar, shared, .. } = a else {
            return Err(Error::internal("copy_operands on another instruction"));
        };
        let mut deps = BTreeSet::new();
        let value = |me: &mut Self, o: &Operand, deps: &mut BTreeSet<usize>| match me.concrete(st, o, ins.span)? {
            Ok((v, d)) => {
                deps.extend(d);
                Ok(Ok(v))
            }
            Err(i) => Ok(Err(me.fork_read(st, i))),
        };
        let size = match value(self, size, &mut deps)? {
            Ok(v) => v,
            Err(f) => return Ok(Err(f)),
        };
        let src_size = match src_size {
            Some(o) => match value(self, o, &mut deps)? {
                Ok(v) => v,
                Err(f) => return Ok(Err(f)),
            },
            None => size,
        };
        let mut place = |me: &mut Self, addr: &ast::Addr, shared: bool| -> Result<std::result::Result<_, Step>> {
            match me.address(st, t, addr, shared, ins)? {
                Ok((key, vaddr, d)) => {
                    deps.extend(d);
                    Ok(Ok((key, vaddr)))
                }
                Err(i) => Ok(Err(me.fork_read(st, i))),
            }
        };
        let dst = match place(self, dst, shared.0)? {
            Ok(x) => x,
            Err(f) => return Ok(Err(f)),
        };
        let src = match place(self, src, shared.1)? {
            Ok(x) => x,
            Err(f) => return Ok(Err(f)),
        };
        let mbar = match mbar {
            Some(m) => match place(self, m, true)? {
                Ok(x) => Some(x),
                Err(f) => return Ok(Err(f)),
            },
            None => None,
        };
        Ok(Ok(CopyAt { dst, src, size, src_size, mbar, deps }))
    }

    /// The bytes of one piece of a copy (D261): the destination's element
    /// size when it divides the copy (an array of `u64` is copied in 8-byte
    /// pieces, any other variable in 4-byte ones), so that a copy of values
    /// the program stores whole reads and writes them whole.
    fn piece_size(&self, key: &LocKey, size: i64) -> i64 {
        let elem = match self.arrays.decl.get(&key.root) {
            Some(&(s, _)) => i64::from(s),
            None if self.width(&key.root) == 8 => 8,
            None => 4,
        };
        if elem >= 4 && size % elem == 0 {
            elem
        } else {
            4
        }
    }

    /// Check the sizes and alignment the ISA requires (9.7.9.25: cp-size 4,
    /// 8 or 16 and aligned to it; bulk: a multiple of 16, 16-byte aligned;
    /// src-size at most cp-size).
    fn check_copy(&self, ins: &ast::Instr, bulk: bool, at: &CopyAt) -> Result<()> {
        let align = if bulk { 16 } else { at.size };
        for (what, key) in [("destination", &at.dst.0), ("source", &at.src.0)] {
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

    /// One asynchronous copy (D261): for each piece, a weak read of the
    /// source and a weak write of the destination with the value read (past
    /// src-size: a write of zero, "the remaining bytes are zero-filled"),
    /// through the generic proxy (`cp.async`) or the async proxy (bulk, 8.6);
    /// a bulk copy with an mbarrier then performs its complete-tx of `size`
    /// bytes, a release at cluster scope (D259). One path per value each
    /// read may return.
    fn copy(&mut self, st: &mut PathState, ins: &ast::Instr, a: &AsyncInstr, at: CopyAt) -> Result<Step> {
        let AsyncInstr::Copy { bulk, reduce, .. } = a else {
            return Err(Error::internal("copy of another instruction"));
        };
        let bulk = *bulk;
        self.check_copy(ins, bulk, &at)?;
        let op = st.asyncs.next;
        st.asyncs.next += 1;
        if bulk {
            st.asyncs.bulk_open.push(op);
        } else {
            st.asyncs.cp_open.push(op);
            st.asyncs.cp_all.push(op);
        }
        let proxy = if bulk { Proxy::Async } else { Proxy::Generic };
        let role = |part| Some(Box::new(AsyncRole { op, bulk, part, tracks: Vec::new() }));
        // A reduction combines elements of its type (9.7.10.28.4.2: "element-wise").
        let piece = match reduce {
            Some((_, ty)) => i64::from(ty.bits / 8),
            None => self.piece_size(&at.dst.0, at.size).min(self.piece_size(&at.src.0, at.size)),
        };
        let mut states = vec![st.clone()];
        for k in 0..at.size / piece {
            let off = k * piece;
            let skey = LocKey { offset: at.src.0.offset + off, ..at.src.0.clone() };
            let dkey = LocKey { offset: at.dst.0.offset + off, ..at.dst.0.clone() };
            let (svaddr, dvaddr) = (offset_vaddr(&at.src.1, off), offset_vaddr(&at.dst.1, off));
            for key in [&skey, &dkey] {
                if self.mem_cells(key, piece as u8, ins).len() > 1 {
                    let msg = "this copy covers bytes that differently-sized accesses also touch (mixed-size), which copies do not support";
                    return Err(Error::input(msg, ins.span));
                }
            }
            let write = |v: i64| match reduce {
                // "element-wise atomic at the specified scope ... defaults to .relaxed.sys".
                Some((op, ty)) => {
                    let mut a = mk_rmw(dvaddr.clone(), proxy, piece as u8, MemSem::Relaxed, Scope::Sys, true, Some(0));
                    a.rmw = Some(Rmw { op: *op, operands: vec![v], ty: Some(*ty) });
                    a.asynch = role(AsyncPart::Write);
                    a
                }
                None => Access {
                    writes: true,
                    write_value: v,
                    asynch: role(AsyncPart::Write),
                    ..Access::new(dvaddr.clone(), proxy, piece as u8, MemSem::Weak, Scope::Sys)
                },
            };
            let mut next = Vec::new();
            for s in states {
                if off >= at.src_size {
                    let mut c = s.clone();
                    self.push_mem(&mut c, dkey.clone(), write(0), at.deps.clone(), ins);
                    next.push(c);
                    continue;
                }
                for v in self.domain(&skey) {
                    let mut c = s.clone();
                    let read = Access {
                        reads: true,
                        read_value: Some(v),
                        asynch: role(AsyncPart::Read),
                        ..Access::new(svaddr.clone(), proxy, piece as u8, MemSem::Weak, Scope::Sys)
                    };
                    let r = self.push_mem(&mut c, skey.clone(), read, at.deps.clone(), ins);
                    let mut deps = at.deps.clone();
                    deps.insert(r);
                    self.push_mem(&mut c, dkey.clone(), write(v), deps, ins);
                    next.push(c);
                }
            }
            states = next;
        }
        if let Some(mbar) = &at.mbar {
            for c in &mut states {
                self.complete_tx(c, ins, mbar, (op, bulk, at.size), at.deps.clone());
            }
        }
        for c in &mut states {
            c.pc += 1;
        }
        Ok(Step::Continue(states))
    }

    /// The implicit complete-tx of `bytes` on the mbarrier at `mbar` that ends
    /// asynchronous operation `op` (D259): "the complete-tx operation on the
    /// mbarrier has .release semantics at .cluster scope", ordered after the
    /// operation's own accesses only (8.9.1.1).
    fn complete_tx(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        (mkey, mvaddr): &(LocKey, String),
        (op, bulk, bytes): (u32, bool, i64),
        deps: BTreeSet<usize>,
    ) {
        self.mem_cells(mkey, 8, ins);
        let mut access = mk_rmw(mvaddr.clone(), Proxy::Generic, 8, MemSem::Release, Scope::Cluster, true, Some(0));
        access.rmw = Some(Rmw { op: AtomOp::MbarrierCompleteTx, operands: vec![bytes], ty: None });
        access.asynch = Some(Box::new(AsyncRole { op, bulk, part: AsyncPart::CompleteTx, tracks: Vec::new() }));
        self.push_mem(st, mkey.clone(), access, deps, ins);
    }

    /// `st.async` / `red.async` (9.7.10.12, 9.7.15.7; D293): an asynchronous
    /// operation of its own, as a bulk copy is, in the generic proxy: a weak
    /// store (`red.async`: a relaxed `.cluster` read-modify-write) of each
    /// element, then the complete-tx of their bytes on the mbarrier.
    fn async_store(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr, a: &AsyncInstr) -> Result<Step> {
        let AsyncInstr::Store { dst, values, ty, mbar, red } = a else {
            return Err(Error::internal("async_store on another instruction"));
        };
        let mut deps = BTreeSet::new();
        let mut vals = Vec::new();
        for v in values {
            match self.concrete(st, v, ins.span)? {
                Ok((c, d)) => {
                    vals.push(arith::convert(Some(*ty), c));
                    deps.extend(d);
                }
                Err(i) => return Ok(self.fork_read(st, i)),
            }
        }
        let mut places = Vec::new();
        for addr in [dst, mbar] {
            match self.address(st, t, addr, true, ins)? {
                Ok((key, vaddr, d)) => {
                    deps.extend(d);
                    self.space_of(&key.root, false, ins)?;
                    places.push((key, vaddr));
                }
                Err(i) => return Ok(self.fork_read(st, i)),
            }
        }
        let elem = i64::from(ty.bits / 8);
        let total = elem * vals.len() as i64;
        let (dkey, dvaddr) = &places[0];
        if dkey.offset.rem_euclid(total) != 0 {
            let msg = format!("the destination of this store is at byte {} of `{}`, not {}-byte aligned (the size of the whole vector)", dkey.offset, dkey.root, total);
            return Err(Error::input(msg, ins.span));
        }
        let op = st.asyncs.next;
        st.asyncs.next += 1;
        let role = Some(Box::new(AsyncRole { op, bulk: false, part: AsyncPart::Write, tracks: Vec::new() }));
        for (k, &v) in vals.iter().enumerate() {
            let off = k as i64 * elem;
            let key = LocKey { offset: dkey.offset + off, ..dkey.clone() };
            if self.mem_cells(&key, elem as u8, ins).len() > 1 {
                let msg = "this store covers bytes that differently-sized accesses also touch (mixed-size), which st.async does not support";
                return Err(Error::input(msg, ins.span));
            }
            let vaddr = offset_vaddr(dvaddr, off);
            let mut access = match red {
                None => Access {
                    writes: true,
                    write_value: v,
                    ..Access::new(vaddr, Proxy::Generic, elem as u8, MemSem::Weak, Scope::Sys)
                },
                Some(rop) => {
                    let mut a =
                        mk_rmw(vaddr, Proxy::Generic, elem as u8, MemSem::Relaxed, Scope::Cluster, true, Some(0));
                    a.rmw = Some(Rmw { op: *rop, operands: vec![v], ty: Some(*ty) });
                    a
                }
            };
            access.asynch = role.clone();
            self.push_mem(st, key, access, deps.clone(), ins);
        }
        self.complete_tx(st, ins, &places[1], (op, false, total), deps);
        Ok(Step::Next)
    }

    /// `cp.async.wait_group N` / `wait_all` / `cp.async.bulk.wait_group{.read} N`
    /// (D260): every group but the `N` most recent is complete (`wait_all`
    /// commits the open operations first: "equivalent to commit_group;
    /// wait_group 0"). Operations never committed are waited for by no
    /// `wait_group`. `.read` waits only for the groups' source reads.
    fn async_wait(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        bulk: bool,
        pending: &Operand,
        read: bool,
    ) -> Result<Step> {
        let n = match pending {
            Operand::Imm(n) => *n,
            _ => return Err(Error::internal("wait_group without a constant")),
        };
        let s = &mut st.asyncs;
        let (open, groups) =
            if bulk { (&mut s.bulk_open, &mut s.bulk_groups) } else { (&mut s.cp_open, &mut s.cp_groups) };
        let n = if n < 0 {
            groups.push(std::mem::take(open));
            0
        } else {
            n as usize
        };
        let complete = groups.len().saturating_sub(n);
        let done: Vec<(u32, bool)> = groups[..complete].iter().flatten().map(|&op| (op, read)).collect();
        if !read {
            groups.drain(..complete);
        }
        if !done.is_empty() {
            self.push_other(st, EventKind::AsyncWait { done }, ins);
        }
        Ok(Step::Next)
    }

    /// `cp.async.mbarrier.arrive{.noinc} [addr]` (D262): an asynchronous
    /// arrive-on of the object, an operation of its own (8.9.1.1: ordered
    /// after "the memory operations performed by all prior cp.async
    /// operations initiated by the same thread, but not to those of any
    /// other instruction"): a release arrive at CTA scope. Without `.noinc`
    /// the instruction first increments the pending count (a relaxed
    /// read-modify-write in program order: "incremented by 1 prior to the
    /// asynchronous arrive-on"), so the pair counts no arrival of the phase.
    fn async_arrive(
        &mut self,
        t: usize,
        st: &mut PathState,
        ins: &ast::Instr,
        addr: &ast::Addr,
        noinc: bool,
    ) -> Result<Step> {
        let (key, vaddr, deps) = match self.address(st, t, addr, true, ins)? {
            Ok(x) => x,
            Err(i) => return Ok(self.fork_read(st, i)),
        };
        self.mem_cells(&key, 8, ins);
        if !noinc {
            // The increment is the instruction's own, in program order: the
            // phase cannot complete before the asynchronous arrive-on.
            let mut inc = mk_rmw(vaddr.clone(), Proxy::Generic, 8, MemSem::Relaxed, Scope::Cta, true, Some(0));
            inc.rmw = Some(Rmw { op: AtomOp::MbarrierArrive, operands: vec![-1], ty: None });
            self.push_mem(st, key.clone(), inc, deps.clone(), ins);
        }
        let mut access = mk_rmw(vaddr, Proxy::Generic, 8, MemSem::Release, Scope::Cta, true, Some(0));
        access.rmw = Some(Rmw { op: AtomOp::MbarrierArrive, operands: vec![1], ty: None });
        let op = st.asyncs.next;
        st.asyncs.next += 1;
        let tracks = st.asyncs.cp_all.clone();
        access.asynch = Some(Box::new(AsyncRole { op, bulk: false, part: AsyncPart::Arrive, tracks }));
        self.push_mem(st, key, access, deps, ins);
        Ok(Step::Next)
    }
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
