//! AST -> program: threads placed in CTAs/clusters/GPUs, each with its finite set of
//! traces (control-flow paths, loops unrolled), and the events every trace performs
//! (`event`, `access`).
//!
//! Both engines (`sat` and `reference`) start from a [`Program`]; nothing here
//! knows about the model's relations.

pub mod access;
pub mod arith;
pub mod bits;
pub mod build;
pub mod cells;
pub mod event;
pub mod float;
pub mod merge;
pub mod private;
pub mod symbolic;
pub mod unknown;
pub mod value;
pub mod warp;

use crate::ast::{Observable, Prop, Proxy, Quantifier, Scope};
use std::collections::{BTreeMap, BTreeSet};

pub use access::{Access, AsyncPart, AsyncRole, MbarrierUse, MemSem, Rmw};
pub use build::{build_leaving_out_spins, build_program, build_symbolic, BuildOptions, SymbolicBuild};
pub use event::{reduce, Event, EventKind, Expected, Instance, Sync, SyncKey, SyncKind, SyncRole};

pub type EventId = usize;
pub type TraceId = usize;
pub type LocId = usize;

/// An event of a failed spin iteration the builder left out (a read, D113,
/// or a silent read-modify-write, D116): an event of its thread that is in no
/// event list, to be checked before the program is used
/// (`sat::spin::left_out_is_exact`), with the barrier waits its thread
/// performed before it on every path that left it out (D179).
#[derive(Clone, Debug)]
pub struct LeftOutEvent {
    pub event: Event,
    pub after_waits: Vec<Sync>,
}

/// Where a thread runs (ISA 8.5): globally unique CTA and cluster numbers, and its GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub cta: usize,
    pub cluster: usize,
    pub gpu: u32,
}

/// `Pn@cta C,cluster K,gpu G` as written (`cluster` may be absent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrittenPlacement {
    pub cta: u32,
    pub cluster: Option<u32>,
    pub gpu: u32,
}

impl WrittenPlacement {
    /// `CTA 1, cluster 0, GPU 0`, or `CTA 1, GPU 0` without `cluster`.
    pub fn label(&self) -> String {
        match self.cluster {
            Some(k) => format!("CTA {}, cluster {}, GPU {}", self.cta, k, self.gpu),
            None => format!("CTA {}, GPU {}", self.cta, self.gpu),
        }
    }

    /// The cluster's name in pictures: `cluster K`, or the implicit one-CTA cluster.
    pub fn cluster_label(&self) -> String {
        match self.cluster {
            Some(k) => format!("cluster {}", k),
            None => format!("cluster of CTA {}", self.cta),
        }
    }
}

impl Program {
    /// Every thread of the test is in one CTA.
    pub fn in_one_cta(&self) -> bool {
        self.threads.windows(2).all(|w| w[0].placement == w[1].placement)
    }
}

impl Placement {
    /// The threads of `scope` as seen from this thread include `other` (Table 21).
    pub fn scope_includes(&self, scope: Scope, other: &Placement) -> bool {
        match scope {
            Scope::Cta => self.cta == other.cta,
            Scope::Cluster => self.cluster == other.cluster,
            Scope::Gpu => self.gpu == other.gpu,
            Scope::Sys => true,
        }
    }
}

/// A physical memory location (ISA 8.2): a declared variable at a byte offset.
/// Shared-memory variables get one location per cluster (8.3).
#[derive(Clone, Debug)]
pub struct Location {
    /// Display name: `x`, `x+4`, or `x@cluster1` for shared memory.
    pub name: String,
    pub init: i64,
    /// The access sizes seen on this location (more than one: mixed-size).
    pub sizes: Vec<u8>,
    /// Every value the location can hold in some execution (an over-approximation,
    /// closed under the read-modify-writes of the test); sorted.
    pub values: Vec<i64>,
    /// Shared memory (`.shared`, per CTA or cluster), not global: what the
    /// state space of `fence.proxy.async.SPACE` is compared with (D258).
    pub shared: bool,
}

/// The final value of a register in a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegValue {
    Const(i64),
    /// Whatever the read event returns.
    ReadOf(EventId),
}

/// One control-flow path of a thread, with the values its reads are assumed to return.
#[derive(Clone, Debug)]
pub struct Trace {
    pub id: TraceId,
    pub thread: usize,
    /// Events in program order.
    pub events: Vec<EventId>,
    pub regs: BTreeMap<String, RegValue>,
    /// Dependencies (data, address, control) from a read to a later event (8.10.4).
    pub deps: Vec<(EventId, EventId)>,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub id: usize,
    pub placement: Placement,
    /// The placement as the thread header writes it (`cta`, `cluster`, `gpu`):
    /// what reports print (`placement` numbers CTAs and clusters densely).
    pub written: WrittenPlacement,
    pub traces: Vec<TraceId>,
}

/// Things the build noticed that the result must say.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BuildFlags {
    /// Some paths were cut because a loop ran past the unroll bound.
    pub unroll_bound_hit: bool,
    /// Accesses overlap partially: the axioms do not apply to mixed-size races (8.7.2).
    pub mixed_size: bool,
}

#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    pub threads: Vec<Thread>,
    pub traces: Vec<Trace>,
    pub events: Vec<Event>,
    pub locations: Vec<Location>,
    /// Location lookup by name (declared names and aliases resolve to their location).
    pub loc_names: BTreeMap<String, LocId>,
    /// Init event of each location.
    pub init_events: Vec<EventId>,
    /// All proxy fence events (`fence.proxy.*`).
    pub proxy_fences: Vec<EventId>,
    /// Number of threads in each CTA (for barriers without a count).
    pub cta_sizes: Vec<usize>,
    pub cluster_sizes: Vec<usize>,
    pub quantifier: Quantifier,
    pub condition: Prop,
    pub condition_text: String,
    /// False when the test has no condition (see `ast::Condition::given`).
    pub condition_given: bool,
    pub filter: Option<Prop>,
    /// What a final state shows, in order.
    pub observables: Vec<Observable>,
    /// (thread, `r0`) for each thread that names both `%r0` and `r0`: only
    /// there do listings keep the `%` apart (D252).
    pub percent_twins: BTreeSet<(usize, String)>,
    pub flags: BuildFlags,
    /// Per thread, where the unroll bound first cut one of its paths: the
    /// loop's first instruction (its label when it has one) and how to name
    /// it in a message.
    pub unroll_cuts: BTreeMap<usize, (crate::ast::Span, String)>,
    /// Variables a condition sees as several cells (mixed-size, D18): the
    /// cells' locations with their byte offset and length; their final values
    /// compose little-endian into an unsigned value.
    pub loc_parts: BTreeMap<String, Vec<(LocId, u32, u32)>>,
    /// Only in the SAT engine's merged program (`merge`, D65): the values that
    /// differ between the paths sharing an event. `None` from the builder.
    pub guards: Option<Box<merge::PathFacts>>,
    /// Only in a symbolic program (issue 27, D181): each thread's one trace
    /// holds all its instruction instances, performed under these guards.
    /// `None` from the path builder.
    pub symbolic: Option<Box<symbolic::SymFacts>>,
    /// Made by `symbolic::Projection` (D186): each thread has only the paths
    /// of the executions the SAT engine found, so candidate executions
    /// enumerated on it are not all the test has (explanations of forbidden
    /// states are not given).
    pub projected: bool,
    /// A C test: the C order of each access and fence (`crate::c11`).
    pub c11: Option<std::sync::Arc<crate::c11::Orders>>,
    /// A variable without an initial value (8.2.6) whose bytes some path
    /// reads: the answer may depend on them (D71).
    pub reads_unknown: Option<crate::ast::VarDecl>,
    /// The locations whose initial value the ISA leaves unknown (8.2.6):
    /// cells of a `.shared` variable, or of `.extern` memory no module defines.
    pub unknown_locs: Vec<LocId>,
    /// Some path reads a private byte (`.local`, `.param`) no store wrote:
    /// the symbolic walk keeps such bytes as numbers, so D311 cannot follow them.
    pub reads_unknown_private: bool,
    /// Threads proven never to leave a spin loop (D299): their traces end
    /// where the spin begins, and no execution reaches a final state.
    pub spinning_forever: Vec<usize>,
}

impl Program {
    /// The value an observable shows for `raw`, its register value or the bit
    /// pattern its location holds: a signed C location reads as its type
    /// (D285); every other value is shown as held.
    pub fn shown(&self, o: &crate::ast::Observable, raw: i64) -> i64 {
        match (o, &self.c11) {
            (crate::ast::Observable::Loc(name), Some(c)) => c.as_declared(name, raw),
            _ => raw,
        }
    }

    /// Whether listings write register `reg` of `thread` without its `%`
    /// (D252): a `%` name in a thread that has no register of the bare name.
    pub fn drops_percent(&self, thread: usize, reg: &str) -> bool {
        reg.strip_prefix('%')
            .is_some_and(|bare| !bare.is_empty() && !self.percent_twins.contains(&(thread, bare.to_string())))
    }

    /// An observable as text listings (explanations, pictures, `run`) write
    /// it: `1:r0` for `%r0` of thread 1 (herd's spelling, D252), the
    /// register as written where the thread also has `r0` (`1:%r0`), a
    /// location as declared.
    pub fn observable_name(&self, o: &Observable) -> String {
        match o {
            Observable::Reg { thread, reg } => format!("{}:{}", thread, self.register_name(*thread, reg)),
            Observable::Loc(l) => l.clone(),
        }
    }

    /// An observable as a JSON state names it: `P1:r0` for `%r0` of thread 1
    /// (D252; `P1:%r0` where the thread also has `r0`), a location as declared.
    /// The `P` keeps the key a condition's spelling of the register.
    pub fn json_name(&self, o: &Observable) -> String {
        match o {
            Observable::Reg { thread, reg } => format!("P{}:{}", thread, self.register_name(*thread, reg)),
            Observable::Loc(l) => l.clone(),
        }
    }

    fn register_name<'r>(&self, thread: usize, reg: &'r str) -> &'r str {
        if self.drops_percent(thread, reg) {
            &reg[1..]
        } else {
            reg
        }
    }
}

impl Program {
    /// The value of `name` from the final value of each of its cells.
    pub fn compose_parts(parts: &[(LocId, u32, u32)], value: &dyn Fn(LocId) -> i64) -> i64 {
        let bytes: Vec<(i64, i64, u8)> = parts.iter().map(|&(l, at, len)| (value(l), at as i64, len as u8)).collect();
        cells::compose(&bytes) as i64
    }
}

impl Program {
    pub fn event(&self, id: EventId) -> &Event {
        &self.events[id]
    }
    pub fn placement(&self, e: &Event) -> Option<Placement> {
        e.thread.map(|t| self.threads[t].placement)
    }
    /// Two events can both happen in one execution: not two different traces of one thread.
    pub fn compatible(&self, a: EventId, b: EventId) -> bool {
        let (ea, eb) = (&self.events[a], &self.events[b]);
        match (ea.thread, eb.thread) {
            (Some(ta), Some(tb)) if ta == tb => share_a_path(&ea.paths, &eb.paths),
            _ => true,
        }
    }
    /// The value write `w` writes in an execution where read `r` reads from
    /// `rf_source(r)`: a constant, or a read-modify-write applied to the value it
    /// reads, following reads-from back to a constant. `None` for a chain of
    /// read-modify-writes reading from each other in a cycle (thin air, which
    /// 8.10.4 forbids) or a read without a source.
    pub fn value_written(&self, w: EventId, rf_source: &dyn Fn(EventId) -> Option<EventId>) -> Option<i64> {
        let mut chain: Vec<&Rmw> = Vec::new();
        // The read-modify-writes passed: one met again closes a cycle.
        let mut passed: Vec<EventId> = Vec::new();
        let mut at = w;
        let base = loop {
            let e = &self.events[at];
            match &e.kind {
                EventKind::Mem(Access { writes: true, rmw: Some(op), .. }) => {
                    if passed.contains(&at) {
                        return None;
                    }
                    passed.push(at);
                    chain.push(op);
                    at = rf_source(at)?;
                }
                _ => break e.written_value(self)?,
            }
        };
        Some(chain.iter().rev().fold(base, |v, op| op.apply(v)))
    }

    /// Distinct (thread, instruction instance) pairs plus the initial writes:
    /// the events an encoding with one event per instance would have.
    pub fn instance_count(&self) -> usize {
        let keys: std::collections::BTreeSet<(Option<usize>, Option<Instance>)> =
            self.events.iter().filter(|e| e.thread.is_some()).map(|e| (e.thread, e.instance)).collect();
        keys.len() + self.init_events.len()
    }

    /// `a` precedes `b` in program order (8.9.1). The accesses of an
    /// asynchronous operation are in no thread's program order (8.9.1.1, D257).
    pub fn po(&self, a: EventId, b: EventId) -> bool {
        let (ea, eb) = (&self.events[a], &self.events[b]);
        ea.thread.is_some()
            && ea.thread == eb.thread
            && ea.po < eb.po
            && ea.async_op().is_none()
            && eb.async_op().is_none()
            && share_a_path(&ea.paths, &eb.paths)
    }

    /// The test has asynchronous operations (issue 41).
    pub fn has_async(&self) -> bool {
        self.events.iter().any(|e| e.async_op().is_some())
    }
}

/// Two sorted trace lists intersect.
pub(crate) fn share_a_path(a: &[TraceId], b: &[TraceId]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    false
}
