//! Events: memory accesses, fences and barrier halves (ISA 8.2, 8.4), with
//! the attributes the model reads; one [`Event`] per operation of a trace.

use super::{arith, EventId, LocId, Program, TraceId};
use crate::ast::{FenceSem, Proxy, Scope};

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
        }
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
    /// The value written after reading `old`.
    pub fn apply(&self, old: i64) -> i64 {
        arith::rmw(self.op, old, &self.operands, self.ty).flatten().unwrap_or(old)
    }
}

/// Identifies the instances of one CTA barrier: the CTA, the barrier (id and the
/// corpus form's second operand) and the generation (the k-th use by a thread).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BarrierKey {
    pub cta: usize,
    pub id: i64,
    pub logical: Option<i64>,
    pub generation: usize,
}

/// How many arrivals a barrier generation needs before waiting threads continue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    Count(usize),
    /// Every thread that arrives at this generation in the execution (corpus form).
    Arrivals,
}

#[derive(Clone, Debug)]
pub enum EventKind {
    /// The hypothetical initial write W0 of a location (8.2.6).
    Init,
    Mem(Access),
    /// `fence.sc`, `fence.acq_rel`, `fence.acquire`, `fence.release` (membar = fence.sc).
    Fence {
        sem: FenceSem,
        scope: Scope,
    },
    /// `fence.proxy.*`; `Generic` stands for `fence.proxy.alias`.
    ProxyFence {
        proxy: Proxy,
    },
    /// The arrive half of a CTA barrier operation.
    BarrierArrive {
        key: BarrierKey,
        expected: Expected,
    },
    /// The wait half of `bar.sync` / `bar.red` (follows its arrive in program order).
    BarrierWait {
        key: BarrierKey,
        expected: Expected,
    },
    /// `barrier.cluster.arrive`: generation k of the thread's cluster.
    ClusterArrive {
        cluster: usize,
        generation: usize,
        relaxed: bool,
    },
    /// `barrier.cluster.wait`.
    ClusterWait {
        cluster: usize,
        generation: usize,
    },
}

#[derive(Clone, Debug)]
pub struct Event {
    pub id: EventId,
    /// `None` for initial writes.
    pub thread: Option<usize>,
    pub trace: Option<TraceId>,
    /// Every trace this event belongs to (paths share their common prefix of
    /// events); empty for initial writes. Sorted.
    pub paths: Vec<TraceId>,
    /// Position in its trace (program order).
    pub po: usize,
    /// The instruction instance of the unrolled program this event performs;
    /// `None` for initial writes.
    pub instance: Option<Instance>,
    /// For `Init`: the location written.
    pub init_loc: Option<LocId>,
    pub kind: EventKind,
    /// The instruction text and source line, for reports.
    pub text: String,
    pub line: usize,
}

impl Event {
    pub fn access(&self) -> Option<&Access> {
        match &self.kind {
            EventKind::Mem(a) => Some(a),
            _ => None,
        }
    }
    /// The location written, for writes and initial writes.
    pub fn write_loc(&self) -> Option<LocId> {
        match &self.kind {
            EventKind::Init => self.init_loc,
            EventKind::Mem(a) if a.writes => Some(a.loc),
            _ => None,
        }
    }
    pub fn read_loc(&self) -> Option<LocId> {
        match &self.kind {
            EventKind::Mem(a) if a.reads => Some(a.loc),
            _ => None,
        }
    }
    /// The value written when it is a constant of the program (initial writes,
    /// stores, exch, a succeeding cas); `None` for reads and for read-modify-writes
    /// whose value depends on what they read (see [`Program::value_written`]).
    pub fn written_value(&self, prog: &Program) -> Option<i64> {
        match &self.kind {
            EventKind::Init => self.init_loc.map(|l| prog.locations[l].init),
            EventKind::Mem(a) if a.writes && a.rmw.is_none() => Some(a.write_value),
            _ => None,
        }
    }
    pub fn is_fence_sc(&self) -> bool {
        matches!(self.kind, EventKind::Fence { sem: FenceSem::Sc, .. })
    }
}

/// An instruction instance of a thread's unrolled program (issue 14, "control
/// flow as guards"): the back edges (jumps to the same or an earlier
/// instruction) taken before it, its instruction index, and which of the
/// instruction's events it is (`bar.sync` is an arrive and a wait; a split
/// access one event per cell). Every step of a path either raises the pc with
/// the same back edges, or takes a back edge, so along any path the key grows
/// strictly in this (lexicographic) order: it is consistent with program order
/// (ISA 8.9.1, "the order in which a sequential processor will execute
/// instructions") on every path at once. Paths that perform the same instance
/// are candidates to share one event (paper-notes/encoding.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instance {
    pub back_edges: u32,
    pub pc: usize,
    pub sub: usize,
}

impl Event {
    /// The event is performed when thread's path `t` is chosen.
    pub fn on_path(&self, t: TraceId) -> bool {
        self.paths.binary_search(&t).is_ok()
    }
}
