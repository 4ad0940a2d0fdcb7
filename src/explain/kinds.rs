//! The edges explanations, pictures and JSON talk about, and the reasons
//! behind synchronization edges (presentation types: the relations themselves
//! come from the model's rows, see [`super::view`]).

/// The kinds of edges explanations, pictures and JSON talk about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Program order (8.9.1); drawn between consecutive events of a thread.
    Po,
    /// Reads-from (8.9.7).
    Rf,
    /// Coherence order (8.9.6).
    Co,
    /// From-reads: a read before a write in communication order (8.9.7).
    Fr,
    /// Fence-SC order (8.9.3).
    Sc,
    /// Synchronizes-with (8.9.4).
    Sync,
    /// Observation order (8.9.2).
    Obs,
    /// Causality order (8.9.5), cross-thread edges only in pictures.
    Cause,
    /// Data, address or control dependency (8.10.4).
    Dep,
    /// A value passed to another thread by a warp collective or `bar.red` (8.10.4, D165).
    Exchange,
    /// Issue or completion order of an asynchronous operation (8.9.1.1,
    /// D257): a thread's operation before a later copy's accesses, or a
    /// copy's access before what its completion mechanism orders.
    Async,
    /// An edge of a model row no kind above names (a new row's relation).
    Row,
}

impl EdgeKind {
    pub fn label(self) -> &'static str {
        match self {
            EdgeKind::Po => "po",
            EdgeKind::Rf => "rf",
            EdgeKind::Co => "co",
            EdgeKind::Fr => "fr",
            EdgeKind::Sc => "sc",
            EdgeKind::Sync => "sync",
            EdgeKind::Obs => "obs",
            EdgeKind::Cause => "cause",
            EdgeKind::Dep => "dep",
            EdgeKind::Exchange => "exchange",
            EdgeKind::Async => "async",
            EdgeKind::Row => "row",
        }
    }

    /// The label in a C test: RC11's names (Lahav et al., PLDI'17, and herd's
    /// rc11.cat) for program order `sb`, coherence `mo`, from-reads `rb` and
    /// synchronizes-with `sw`.
    pub fn c_label(self) -> &'static str {
        match self {
            EdgeKind::Po => "sb",
            EdgeKind::Co => "mo",
            EdgeKind::Fr => "rb",
            EdgeKind::Sync => "sw",
            k => k.label(),
        }
    }
}

/// One edge of a path, in local numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Step {
    pub from: usize,
    pub kind: EdgeKind,
    pub to: usize,
}

/// Why one operation synchronizes with another (8.9.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncWhy {
    /// Rule 1: fence.sc X precedes fence.sc Y in Fence-SC order.
    FenceSc,
    /// Rule 2: CTA barrier arrive -> wait.
    Barrier,
    /// Rule 3: barrier.cluster.arrive -> barrier.cluster.wait.
    ClusterBarrier,
    /// Rule 4: release pattern (bound, write) -> acquire pattern (read, bound), the
    /// write preceding the read in observation order.
    Patterns { rel: LPattern, acq: LPattern },
}

/// A release or acquire pattern in local numbers (see `model::patterns::Pattern`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LPattern {
    pub bound: usize,
    pub access: usize,
}
