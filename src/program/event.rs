//! Events: memory accesses (`access`), fences, proxy fences and the halves of
//! synchronizing operations (ISA 8.2, 8.4, 8.9.4), and the instruction
//! instance each performs (D64).

use super::{Access, EventId, LocId, Program, TraceId};
use crate::ast::{FenceSem, FenceSpace, Proxy, RedOp, Scope, WarpOp};

/// The kinds of synchronizing operation (8.9.4 rules 2 and 3, and the warp
/// barrier of D92). Every one is a pair of halves, an arrive and a wait, met at
/// one object in one phase: the one event kind [`EventKind::Sync`] that both
/// engines match (`reference::barriers`, `sat::encode::barriers`) and the
/// rows read as the execution relation `bar`. A new synchronizing instruction
/// is a new variant here and the builder step that emits its halves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SyncKind {
    /// `bar{.cta}.sync` / `.arrive`, `barrier{.cta}.*` (8.9.4 rule 2).
    CtaBarrier,
    /// `bar{.cta}.red` with its operator (8.9.4 rule 2), apart from `bar.sync`
    /// / `bar.arrive` and from other operators on the same barrier (D152).
    CtaReduction(RedOp),
    /// `bar.warp.sync membermask` (D92): synchronizes like a CTA barrier.
    WarpBarrier,
    /// A warp collective with its operation (D174): its lanes meet and
    /// exchange values; it orders no memory (its arrive is relaxed).
    WarpCollective(WarpOp),
    /// `barrier.cluster.arrive` / `.wait` (8.9.4 rule 3).
    ClusterBarrier,
}

impl SyncKind {
    /// The words reports use for the operation ("barrier", "cluster barrier").
    pub fn noun(self) -> &'static str {
        match self {
            SyncKind::CtaBarrier | SyncKind::CtaReduction(_) | SyncKind::WarpBarrier => "barrier",
            SyncKind::ClusterBarrier => "cluster barrier",
            SyncKind::WarpCollective(_) => "warp collective",
        }
    }

    /// The rule of 8.9.4 by which its arrive synchronizes with its wait.
    pub fn rule(self) -> &'static str {
        match self {
            SyncKind::CtaBarrier | SyncKind::CtaReduction(_) | SyncKind::WarpBarrier => "same barrier, rule 2",
            SyncKind::ClusterBarrier => "cluster barrier, rule 3",
            SyncKind::WarpCollective(_) => "warp collective, which orders no memory (D174)",
        }
    }
}

/// Where the halves of a synchronizing operation meet: the kind, the unit that
/// owns the object (the CTA of a CTA or warp barrier, the cluster of a cluster
/// barrier), the object within it (barrier id and the corpus form's second
/// operand; the warp and the mask of `bar.warp.sync`) and the phase (the k-th
/// use by a thread).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SyncKey {
    pub kind: SyncKind,
    pub unit: usize,
    pub id: i64,
    pub logical: Option<i64>,
    pub phase: usize,
}

/// Which half of a synchronizing operation an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SyncRole {
    Arrive,
    Wait,
}

/// Which arrivals a wait needs before its thread continues: the one matching
/// rule both engines implement (a wait is matched with arrivals of other
/// threads at the same key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// At least this many threads in all, the waiter included (`bar.sync a, b`).
    Count(usize),
    /// Every thread that arrives at this key in the execution (corpus form).
    Arrivals,
    /// One arrival of each of these threads other than the waiter (the threads
    /// of the cluster; a missing one: the wait never completes).
    Threads(Vec<usize>),
}

/// One half of a synchronizing operation.
#[derive(Clone, Debug)]
pub struct Sync {
    pub key: SyncKey,
    pub role: SyncRole,
    /// Meaningful for waits.
    pub expected: Expected,
    /// Whether the arrive synchronizes with the waits it is matched with (8.9.4:
    /// `barrier.cluster.arrive.relaxed` does not); the matching still decides
    /// progress.
    pub orders_memory: bool,
    /// The value this thread contributes to a reduction (`bar.red`: its
    /// predicate, 0 or 1), on both halves.
    pub value: Option<i64>,
    /// A wait of a reduction: how the values combine and the result this path
    /// assumes (the builder forks over the results; an execution must match it).
    pub result: Option<(RedOp, i64)>,
    /// A wait of a warp collective: the value this path assumes each listed
    /// thread contributed (the lanes its result reads, D174); an execution
    /// must match it with arrivals carrying exactly those values.
    pub assumed: Vec<(usize, i64)>,
}

/// 9.7.13.1 (`bar.red`): "the count of threads for which the predicate is
/// true" (`.popc`), "true if the predicate is true for all threads" (`.and`),
/// "true if the predicate is true for any thread" (`.or`), over the values of
/// every participating thread.
pub fn reduce(op: RedOp, values: impl IntoIterator<Item = i64>) -> i64 {
    let mut values = values.into_iter();
    match op {
        RedOp::Popc => values.filter(|&v| v != 0).count() as i64,
        RedOp::And => values.all(|v| v != 0) as i64,
        RedOp::Or => values.any(|v| v != 0) as i64,
    }
}

impl Sync {
    /// Does this wait's assumed result hold when it is matched with arrivals
    /// contributing `others` (its own value included)? Waits of operations that
    /// reduce nothing always hold.
    pub fn result_holds(&self, others: impl IntoIterator<Item = i64>) -> bool {
        match (self.result, self.value) {
            (Some((op, v)), Some(own)) => reduce(op, std::iter::once(own).chain(others)) == v,
            _ => true,
        }
    }

    /// Does this wait's assumption about `thread`'s contribution hold for an
    /// arrival carrying `value` (D174)?
    pub fn assumption_holds(&self, thread: Option<usize>, value: Option<i64>) -> bool {
        self.assumed.iter().all(|&(t, v)| Some(t) != thread || value == Some(v))
    }
}

#[derive(Clone, Debug)]
pub enum EventKind {
    /// The hypothetical initial write W0 of a location (8.2.6).
    Init,
    Mem(Access),
    /// `fence.sc`, `fence.acq_rel`, `fence.acquire`, `fence.release` (membar = fence.sc).
    /// `shared_only`: a `.sync_restrict` fence (D316), which orders only
    /// operations on shared memory (the sets `RelShared`/`AcqShared` of the
    /// rows); `to_async`: one of its `fence.proxy.async::generic` forms, also
    /// a proxy fence from the generic to the async proxy on shared memory.
    Fence {
        sem: FenceSem,
        scope: Scope,
        shared_only: bool,
        to_async: bool,
    },
    /// `fence.proxy.*`; `Generic` stands for `fence.proxy.alias`; `space`
    /// limits `fence.proxy.async` (D258).
    ProxyFence {
        proxy: Proxy,
        space: FenceSpace,
    },
    /// `fence.mbarrier_init.release.cluster` (D291): it orders only the
    /// thread's earlier `mbarrier.init` operations (`prims::init_release`).
    InitFence,
    /// `cp.async.wait_group` / `wait_all`, `cp.async.bulk.wait_group{.read}`
    /// (D260): the asynchronous operations of its thread it waits for, each
    /// with whether only its source reads are waited for (`.read`). Every
    /// access waited for is ordered before this event and what follows it
    /// in program order (`prims::async_order`).
    AsyncWait {
        done: Vec<(u32, bool)>,
    },
    /// A half of a synchronizing operation (barriers of every kind).
    Sync(Sync),
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
            EventKind::Mem(a)
                if a.writes
                    && a.rmw.is_none()
                    && prog.path_writes(self.id).is_none()
                    && prog.symbolic.as_ref().is_none_or(|s| !s.write.contains_key(&self.id)) =>
            {
                Some(a.write_value)
            }
            _ => None,
        }
    }
    /// The synchronizing half this event is, if any.
    pub fn sync(&self) -> Option<&Sync> {
        match &self.kind {
            EventKind::Sync(s) => Some(s),
            _ => None,
        }
    }
    pub fn is_sync_wait(&self) -> bool {
        self.sync().is_some_and(|s| s.role == SyncRole::Wait)
    }
    pub fn is_sync_arrive(&self) -> bool {
        self.sync().is_some_and(|s| s.role == SyncRole::Arrive)
    }
    pub fn is_fence_sc(&self) -> bool {
        matches!(self.kind, EventKind::Fence { sem: FenceSem::Sc, .. })
    }
    /// The asynchronous operation of its thread this event is an access of
    /// (D257): `None` for every event in the thread's program order.
    pub fn async_op(&self) -> Option<u32> {
        self.access().and_then(|a| a.async_op()).map(|(op, _, _)| op)
    }
    /// An implicit generic-async proxy fence may follow this event (D258):
    /// the complete-tx of a bulk copy, or a wait for asynchronous copies
    /// (`model::proxy` decides which bulk copy's completion it is).
    /// A proxy fence: `fence.proxy.*`, or a `fence.proxy.async::generic`
    /// form (a fence event with `to_async`, D316).
    pub fn is_proxy_fence(&self) -> bool {
        matches!(self.kind, EventKind::ProxyFence { .. } | EventKind::Fence { to_async: true, .. })
    }

    pub fn may_be_implicit_proxy_fence(&self) -> bool {
        match &self.kind {
            EventKind::AsyncWait { .. } => true,
            EventKind::Mem(a) => {
                a.async_op().is_some_and(|(_, bulk, part)| bulk && part == super::AsyncPart::CompleteTx)
            }
            _ => false,
        }
    }
    /// Who performs the event (D257): its thread, and the asynchronous
    /// operation of that thread when it is one's access. Two events of one
    /// agent are related in program order (on a common path); "different
    /// threads" of 8.7 and 8.9.4 means different agents.
    pub fn agent(&self) -> Option<(usize, Option<u32>)> {
        self.thread.map(|t| (t, self.async_op()))
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
