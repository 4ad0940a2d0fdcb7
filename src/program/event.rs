//! Events: memory accesses (`access`), fences, proxy fences and barrier halves
//! (ISA 8.2, 8.4), and the instruction instance each performs (D64).

use super::{Access, EventId, LocId, Program, TraceId};
use crate::ast::{FenceSem, Proxy, Scope};

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
            EventKind::Mem(a) if a.writes && a.rmw.is_none() && prog.path_writes(self.id).is_none() => {
                Some(a.write_value)
            }
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
