//! Memory accesses of events (ISA 8.2, 8.4): strength, scope, proxy, values.

use super::arith;
use super::LocId;
use crate::ast::{Proxy, Scope};

/// Strength of a memory operation after normalisation: `.volatile` and `.mmio`
/// are relaxed at `.sys` scope (8.4.1, 8.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemSem {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

impl Access {
    /// An access of `vaddr` that neither reads nor writes yet: callers set
    /// `reads`, `writes` and the values.
    pub fn new(vaddr: String, proxy: Proxy, size: u8, sem: MemSem, scope: Scope) -> Self {
        Access {
            loc: 0,
            vaddr,
            proxy,
            size,
            sem,
            scope,
            reads: false,
            writes: false,
            atomic: false,
            is_red: false,
            read_value: None,
            read_not: Vec::new(),
            write_value: 0,
            rmw: None,
            conv: None,
            start: 0,
            asynch: None,
            mbarrier: None,
        }
    }

    /// An operation of an mbarrier object other than its init and inval
    /// (weak stores of the word): an arrive, a transaction count, a wait
    /// (D294).
    pub fn is_mbarrier_operation(&self) -> bool {
        self.mbarrier == Some(MbarrierUse::Wait) || self.rmw.as_ref().is_some_and(|r| r.op.is_mbarrier())
    }

    /// The register value of a read that returns the stored value `raw`
    /// (`ld.s8` of 255 is -1; untyped: unchanged).
    pub fn loaded(&self, raw: i64) -> i64 {
        arith::convert(self.conv, raw)
    }

    /// The trace's assumptions allow this read to return `v`.
    pub fn allows(&self, v: i64) -> bool {
        self.read_value.is_none_or(|x| x == v) && !self.read_not.contains(&v)
    }
}

impl MemSem {
    pub fn is_strong(self) -> bool {
        self != MemSem::Weak
    }
    pub fn is_release(self) -> bool {
        matches!(self, MemSem::Release | MemSem::AcqRel)
    }
    pub fn is_acquire(self) -> bool {
        matches!(self, MemSem::Acquire | MemSem::AcqRel)
    }
}

/// One memory access of an event (ISA 8.2, 8.4).
#[derive(Clone, Debug)]
pub struct Access {
    pub loc: LocId,
    /// The virtual address used: two accesses to one location through different
    /// virtual addresses are aliases (8.2.2).
    pub vaddr: String,
    pub proxy: Proxy,
    pub size: u8,
    pub sem: MemSem,
    /// Meaningful only for strong operations.
    pub scope: Scope,
    /// Performs a read (ld, atom, red).
    pub reads: bool,
    /// Performs a write (st, atom/red that write; a failing cas does not).
    pub writes: bool,
    /// `atom` or `red` (8.4: atomic operation).
    pub atomic: bool,
    /// `red`: its read never forms an acquire pattern (8.11.1).
    pub is_red: bool,
    /// The value this trace assumes the read returns; `None` when any value will do.
    pub read_value: Option<i64>,
    /// Values this trace assumes the read does not return (a branch not taken).
    pub read_not: Vec<i64>,
    /// The value written, when `writes` and `rmw` is `None`.
    pub write_value: i64,
    /// An atomic read-modify-write whose written value is computed from the value
    /// it reads (`atom.add`, `red.or`, ...): the read stays symbolic instead of
    /// forking one path per value.
    pub rmw: Option<Rmw>,
    /// The type of a load or atom: how the value read becomes the register
    /// value (see [`Access::loaded`]); `None` for the untyped corpus spelling.
    pub conv: Option<crate::ast::IntTy>,
    /// Where the access's first byte lies relative to its location's first
    /// byte: 0, or negative for the later cells of an access that covers
    /// several (D18). Two accesses overlap completely only with equal `start`
    /// and `size` (8.2.1).
    pub start: i64,
    /// An access of an asynchronous operation (ISA 8.9.1.1, D257); `None`
    /// for every access in its thread's program order.
    pub asynch: Option<Box<AsyncRole>>,
    /// The non-atomic accesses of an `mbarrier` object: its init and its
    /// waits (its updates are the read-modify-writes `Rmw::op` names).
    pub mbarrier: Option<MbarrierUse>,
}

/// Which `mbarrier` instruction a non-atomic access of the object performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarrierUse {
    /// `mbarrier.init` (D153), which `fence.mbarrier_init` orders (D291).
    Init,
    /// `mbarrier.test_wait` / `try_wait`.
    Wait,
}

/// How an access takes part in asynchronous operations (ISA 8.9.1.1, D257).
/// An asynchronous operation is an agent of its own beside its thread: its
/// accesses are events of the issuing thread, after the thread's earlier
/// instructions, but not in program order with anything else; only its
/// completion mechanism orders them (`prims::async_order`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsyncRole {
    /// The thread's asynchronous operation (numbered along the path).
    pub op: u32,
    /// A bulk copy (`cp.async.bulk`): through the async proxy, and its
    /// completion is followed by an implicit generic-async proxy fence.
    pub bulk: bool,
    pub part: AsyncPart,
    /// For the arrive of `cp.async.mbarrier.arrive`: the thread's earlier
    /// `cp.async` operations it is ordered after.
    pub tracks: Vec<u32>,
}

/// Which access of an asynchronous operation an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsyncPart {
    Read,
    Write,
    /// The implicit mbarrier complete-tx of a bulk copy: "ordered only with
    /// respect to the memory operations performed by the same asynchronous
    /// instruction" (8.9.1.1).
    CompleteTx,
    /// The asynchronous arrive-on of `cp.async.mbarrier.arrive`: "ordered
    /// with respect to the memory operations performed by all prior
    /// cp.async operations initiated by the same thread, but not to those of
    /// any other instruction issued by the thread" (8.9.1.1).
    Arrive,
}

impl Access {
    /// The asynchronous operation this access belongs to (its number along
    /// the path, whether it is a bulk copy, and its part).
    pub fn async_op(&self) -> Option<(u32, bool, AsyncPart)> {
        self.asynch.as_deref().map(|r| (r.op, r.bulk, r.part))
    }
}

/// The operation of an atomic read-modify-write (9.7.13.5 `atom`, `red`).
#[derive(Clone, Debug, PartialEq)]
pub struct Rmw {
    pub op: crate::ast::AtomOp,
    pub operands: Vec<i64>,
    /// The operation's type: it wraps and compares at this width.
    pub ty: Option<crate::ast::IntTy>,
}

impl Rmw {
    /// The value written after reading `old`: a typed operation's bit pattern (D74).
    pub fn apply(&self, old: i64) -> i64 {
        let new = arith::rmw(self.op, old, &self.operands, self.ty).flatten().unwrap_or(old);
        stored(self.ty, self.ty.map_or(8, |t| (t.bits / 8).max(1) as u8), new)
    }
}

/// What a write of `v` by an access of type `ty` and `size` bytes leaves in
/// memory (ISA 8.2: memory is bytes): a typed access its bit pattern, read
/// as an unsigned number, so one pattern is one value whatever type wrote
/// it (`st.s32` of -1 and `st.u32` of 0xffffffff leave the same 0xffffffff,
/// D74); the untyped corpus spelling its value unchanged (D15).
pub fn stored(ty: Option<crate::ast::IntTy>, size: u8, v: i64) -> i64 {
    match ty {
        Some(_) => super::cells::extract(v, 0, size),
        None => v,
    }
}
