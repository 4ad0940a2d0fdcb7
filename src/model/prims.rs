//! The primitive relations and event sets the rows are written over: the
//! definitions of chapter 8 that the program text fixes, one small function
//! each over a [`View`], under its ISA section. The execution's own relations
//! (rf, co, Fence-SC, barrier matching) are given by the engine.

use super::patterns::{closes_acquire, opens_release, Op};
use super::proxy::{self, ProxyRequirement};
use super::rel::Rel;
use super::view::{Part, View};
use crate::ast::{FenceSem, Scope};
use crate::program::{Event, EventId, EventKind, Expected, Sync, SyncKind, SyncRole};
use rustc_hash::FxHashMap as HashMap;

/// Event sets usable inside `[...]`, with what each holds.
pub const SETS: [(&str, &str); 21] = [
    ("R", "reads (8.2.6: every memory operation that reads, read parts included)"),
    ("W", "writes, initial writes included (8.2.6)"),
    ("M", "memory operations of the threads (8.4)"),
    ("Init", "the initial write of each location (8.2.6)"),
    ("F", "memory fences fence.{sc,acq_rel,acquire,release} (8.4)"),
    ("FSC", "fence.sc operations (8.9.3)"),
    ("A", "atomic operations that write (8.4: atom, red)"),
    ("ArriveRelaxed", "barrier.cluster.arrive.relaxed (8.9.4: does not synchronize)"),
    ("RelShared", "release fences whose effect applies only to operations on shared memory (9.7.13.4 .sync_restrict::shared::cta, D316)"),
    ("AcqShared", "acquire fences whose effect applies only to operations on shared memory (9.7.13.4 .sync_restrict::shared::cluster, D316)"),
    ("Shared", "memory operations on shared-memory locations (5.1.7: .shared::cta and .shared::cluster)"),
    ("PF", "proxy fences (8.6), the fence.proxy.async::generic forms included"),
    ("RMW", "read-modify-writes that are one event (herd's RMW: reads and writes; empty under split-rmw)"),
    ("IW", "C: the initial writes (herd's IW)"),
    ("NA", "C: plain (non-atomic) accesses"),
    ("RLX", "C: memory_order_relaxed accesses and fences"),
    ("CON", "C: memory_order_consume accesses and fences"),
    ("ACQ", "C: memory_order_acquire accesses and fences"),
    ("REL", "C: memory_order_release accesses and fences"),
    ("ACQ_REL", "C: memory_order_acq_rel accesses and fences"),
    ("SC", "C: memory_order_seq_cst accesses and fences"),
];

/// Static relations, fixed once the traces are chosen.
pub const STATIC: [(&str, &str); 16] = [
    ("id", "identity"),
    ("po", "8.9.1 program order (asynchronous operations are in none, 8.9.1.1)"),
    ("issue", "8.9.1.1 a thread's operation -> the accesses of its later asynchronous copies"),
    ("async-order", "8.9.1.1 an asynchronous operation's access -> what its completion mechanism orders after it"),
    ("init-release", "fence.mbarrier_init: an mbarrier.init -> what follows its thread's later fence.mbarrier_init.release.cluster (D291)"),
    ("init-fence-ms", "fence.mbarrier_init: an mbarrier.init -> what that later fence is morally strong with (D291)"),
    ("ms", "8.7 morally strong"),
    ("mbo", "operations of one mbarrier object (arrives, transaction counts, waits): atomic on the object whatever their scopes (D294)"),
    ("loc", "8.2.1 same memory location"),
    ("ext", "different threads"),
    ("dep", "8.10.4 data, address and control dependencies"),
    ("exchange", "8.10.4 inter-thread communication by warp collectives and bar.red: arrive -> wait whose result reads its value"),
    ("rmw", "read part -> write part of one read-modify-write (ptx-alloy)"),
    ("relpat", "8.8 release patterns: first operation -> its write on M"),
    ("acqpat", "8.8 acquire patterns: its read on M -> last operation"),
    ("incl", "C (scoped-rc11): each event's scope includes the other's thread"),
];

/// Relations of one candidate execution, given by the engine.
pub const EXEC: [(&str, &str); 4] = [
    ("rf", "8.9.7 reads-from"),
    ("co", "8.9.6 coherence order"),
    ("sc", "8.9.3 Fence-SC order"),
    ("bar", "8.9.4 barrier arrive -> wait matching"),
];

/// Primitives computed from a relation.
pub const CALLS: [(&str, &str); 2] = [
    ("proxy-preserved", "8.9.5 proxy-preserved base causality, given base causality"),
    (
        "proxy-preserved-cumulative",
        "8.9.5 as proxy-preserved, a fence.proxy.async of any thread of the CTA on the path counting (D263)",
    ),
];

/// Is `i` in the named set? None: no such set.
pub(crate) fn in_set(v: &View, name: &str, i: usize) -> Option<bool> {
    let kind = &v.event(i).kind;
    Some(match name {
        "R" => v.is_read(i),
        "W" => v.is_write(i),
        "M" => v.is_mem(i),
        "Init" => v.is_init(i),
        "F" => matches!(kind, EventKind::Fence { .. }),
        "FSC" => v.event(i).is_fence_sc(),
        "A" => v.access(i).is_some_and(|a| a.atomic && a.writes),
        "ArriveRelaxed" => matches!(kind, EventKind::Sync(s) if s.role == SyncRole::Arrive && !s.orders_memory),
        "RelShared" => matches!(kind, EventKind::Fence { sem: FenceSem::Release, shared_only: true, .. }),
        "AcqShared" => matches!(kind, EventKind::Fence { sem: FenceSem::Acquire, shared_only: true, .. }),
        "Shared" => v.loc(i).is_some_and(|l| v.p.locations[l].shared) && v.is_mem(i),
        "PF" => v.event(i).is_proxy_fence(),
        // herd7 7.58 makes a C read-modify-write one event in RMW (D224); a
        // split view has two parts, neither of which both reads and writes.
        "RMW" => v.access(i).is_some_and(|a| a.reads && a.writes),
        "IW" => v.is_init(i),
        "NA" | "RLX" | "CON" | "ACQ" | "REL" | "ACQ_REL" | "SC" => c_order(v, i).is_some_and(|o| o.set_name() == name),
        _ => return None,
    })
}

/// The named static relation. None: no such relation.
pub fn relation(v: &View, name: &str) -> Option<Rel> {
    let n = v.n();
    Some(match name {
        "id" => Rel::identity(n, |_| true),
        "po" => program_order(v),
        "ms" => morally_strong(v),
        "mbo" => Rel::from_fn(n, |a, b| a != b && mbarrier_pair(v, a, b)),
        "loc" => Rel::from_fn(n, |a, b| v.loc(a).is_some() && v.loc(a) == v.loc(b)),
        // D257: an asynchronous operation is an agent beside its thread.
        "ext" => Rel::from_fn(n, |a, b| {
            v.thread(a).is_some() && v.thread(b).is_some() && v.event(a).agent() != v.event(b).agent()
        }),
        "issue" => issue_order(v),
        "async-order" => async_order(v),
        "init-release" => init_fenced(v, |po, f, x| po.has(f, x)),
        "init-fence-ms" => init_fenced(v, |_, f, y| super::strong::morally_strong(v.p, v.event(f), v.event(y))),
        "dep" => dependencies(v),
        "exchange" => exchanges(v),
        "rmw" => Rel::from_fn(n, |a, b| {
            v.events[a].part == Part::Read && v.events[b].part == Part::Write && v.events[a].orig == v.events[b].orig
        }),
        "relpat" => release_patterns(v, &program_order(v)),
        "acqpat" => acquire_patterns(v, &program_order(v)),
        "incl" => Rel::from_fn(n, |a, b| scope_includes_c(v, a, b) && scope_includes_c(v, b, a)),
        _ => return None,
    })
}

/// The named primitive applied to `r`. None: no such primitive.
pub fn call(v: &View, name: &str, r: &Rel) -> Option<Rel> {
    match name {
        "proxy-preserved" => Some(proxy_preserved(v, r, false)),
        "proxy-preserved-cumulative" => Some(proxy_preserved(v, r, true)),
        _ => None,
    }
}

/// The C memory order of a C test's access or fence (`crate::c11`); None in
/// a PTX test and for initial writes.
pub(crate) fn c_order(v: &View, i: usize) -> Option<crate::c11::Order> {
    let e = v.event(i);
    let (t, inst) = (e.thread?, e.instance?);
    v.p.c11.as_ref()?.of_event(t, inst.pc, e.access().is_some_and(|a| a.writes))
}

/// Scoped RC11 (Lustig et al., ASPLOS'19, Figure 10): "The incl relation
/// ... relates pairs of events with mutually inclusive scopes". Does the
/// scope of `i` (system for plain accesses) include `j`'s thread?
fn scope_includes_c(v: &View, i: usize, j: usize) -> bool {
    let scope = match &v.event(i).kind {
        EventKind::Fence { scope, .. } => *scope,
        EventKind::Mem(a) if a.sem.is_strong() => a.scope,
        _ => Scope::Sys,
    };
    match (v.placement(i), v.placement(j)) {
        (Some(pi), Some(pj)) => pi.scope_includes(scope, &pj),
        _ => false,
    }
}

/// 8.9.1: "The program order relates all operations performed by a thread to
/// the order in which a sequential processor will execute instructions".
/// Over a view of several paths of a thread (the SAT engine's whole program),
/// only operations on a common path are related: no sequential processor
/// executes both paths.
///
/// 8.9.1.1: asynchronous operations "are not part of the program order for
/// that thread" (D257): their accesses are in no pair (`issue` and
/// `async-order` say what orders them).
pub fn program_order(v: &View) -> Rel {
    Rel::from_fn(v.n(), |a, b| {
        v.thread(a).is_some()
            && v.thread(a) == v.thread(b)
            && v.po_key(a) < v.po_key(b)
            && v.event(a).async_op().is_none()
            && v.event(b).async_op().is_none()
            && v.compatible(a, b)
    })
}

/// 8.9.1.1: "These asynchronous operations are ordered after prior
/// instructions in the same thread": each operation of a thread (in its
/// program order) -> each access of the thread's later asynchronous
/// operations, on a common path. The model adds these pairs to base
/// causality without closing it again (`let cb = cbo | (cbo?; issue)`):
/// "the implicit mbarrier complete-tx ... does not transitively establish
/// ordering with respect to prior instructions from the issuing thread"
/// (D257).
pub fn issue_order(v: &View) -> Rel {
    Rel::from_fn(v.n(), |x, y| {
        v.event(y).async_op().is_some()
            && v.thread(x).is_some()
            && v.thread(x) == v.thread(y)
            && v.event(x).async_op().is_none()
            && v.po_key(x) < v.po_key(y)
            && v.compatible(x, y)
    })
}

/// 8.9.1.1: asynchronous operations "provide weaker ordering guarantees as
/// documented in the instruction description" (D257, D260, D262). Pairs, on
/// a common path of the thread:
/// - an operation's accesses in order ("the loads and stores performed as
///   part of a cp.async are ordered with respect to each other"), its
///   complete-tx last;
/// - a `cp.async`'s accesses -> the asynchronous arrive of a later
///   `cp.async.mbarrier.arrive` tracking it;
/// - an operation's accesses -> a wait (`wait_group`, `wait_all`,
///   `bulk.wait_group`) that waits for them and each later operation of the
///   thread (`.read`: only the source reads).
pub fn async_order(v: &View) -> Rel {
    let n = v.n();
    let waits: Vec<(usize, &Vec<(u32, bool)>)> = (0..n)
        .filter_map(|i| match &v.event(i).kind {
            EventKind::AsyncWait { done } => Some((i, done)),
            _ => None,
        })
        .collect();
    Rel::from_fn(n, |x, y| {
        let Some((op, _, part)) = v.access(x).and_then(|a| a.async_op()) else { return false };
        if x == y || v.thread(x) != v.thread(y) || !v.compatible(x, y) {
            return false;
        }
        match v.access(y).and_then(|a| a.asynch.as_deref()) {
            Some(r) if r.op == op => v.po_key(x) < v.po_key(y),
            Some(r) => r.part == crate::program::AsyncPart::Arrive && r.tracks.contains(&op),
            None => waits.iter().any(|&(c, done)| {
                v.thread(c) == v.thread(x)
                    && done.iter().any(|&(o, reads)| o == op && (!reads || part == crate::program::AsyncPart::Read))
                    && (c == y || v.po_key(c) < v.po_key(y))
                    && common_path(&[v.event(x), v.event(c), v.event(y)])
            }),
        }
    })
}

/// fence.mbarrier_init (9.7.13.4): "the synchronizing effect of the fence
/// only applies to the prior mbarrier.init operations executed by the same
/// thread on mbarrier objects in .shared::cta state space" (D291). Pairs
/// (an `mbarrier.init` I, Y) for which some `fence.mbarrier_init` F follows
/// I in program order and `after(F, Y)` holds. The rows make such an F a
/// release fence for I alone: `ptx.cat`'s `let mbi`.
fn init_fenced(v: &View, after: impl Fn(&Rel, usize, usize) -> bool) -> Rel {
    let po = program_order(v);
    let fences: Vec<usize> = (0..v.n()).filter(|&i| matches!(v.event(i).kind, EventKind::InitFence)).collect();
    Rel::from_fn(v.n(), |i, y| {
        v.access(i).is_some_and(|a| a.mbarrier == Some(crate::program::MbarrierUse::Init))
            && fences.iter().any(|&f| po.has(i, f) && after(&po, f, y))
    })
}

/// Both are operations of one mbarrier object (D294): the object changes
/// only through mbarrier instructions, each one atomic on it, so their
/// scopes do not make them race or break the chain of its updates.
fn mbarrier_pair(v: &View, a: usize, b: usize) -> bool {
    let op = |i: usize| v.access(i).is_some_and(|x| x.is_mbarrier_operation());
    op(a) && op(b) && v.loc(a) == v.loc(b)
}

/// Some path performs all of `events` (their sorted path lists intersect).
fn common_path(events: &[&Event]) -> bool {
    let Some((first, rest)) = events.split_first() else { return true };
    first.paths.iter().any(|t| rest.iter().all(|e| e.paths.binary_search(t).is_ok()))
}

/// 8.7: "Two operations are said to be morally strong relative to each other if
/// they satisfy all of the following conditions: 1. The operations are related in
/// program order (i.e, they are both executed by the same thread), or each
/// operation is strong and specifies a scope that includes the thread executing
/// the other operation. 2. Both operations are performed via the same proxy.
/// 3. If both are memory operations, then they overlap completely."
/// Initial writes are no thread's operation: never morally strong.
pub fn morally_strong(v: &View) -> Rel {
    // Decided per pair of events by `strong::moral_strength`; the two parts of
    // a split read-modify-write are one event, morally strong with each other's
    // partners as the event is.
    Rel::from_fn(v.n(), |a, b| a != b && super::strong::morally_strong(v.p, v.event(a), v.event(b)))
}

/// 8.10.4: "chains of instruction dependencies": data, address and control
/// dependencies from a read to a later memory operation of the same trace. A
/// dependency into a split read-modify-write reaches both its parts (D50).
/// The value a thread gives a warp collective or `bar.red` and the result it
/// gets back are instructions' values too (D165): a read -> the arrive that
/// carries a value computed from it, and the wait -> a later operation that
/// depends on its result.
pub fn dependencies(v: &View) -> Rel {
    let mut dep = Rel::new(v.n());
    for (_, pairs) in dependencies_by_trace(v) {
        for (a, b) in pairs {
            dep.add(a, b);
        }
    }
    dep
}

/// The pairs of `dependencies` that each trace of the view contributes (for a
/// program whose paths share events, a pair holds only on the paths that have it).
pub(crate) fn dependencies_by_trace(v: &View) -> Vec<(usize, Vec<(usize, usize)>)> {
    let local = view_events_of(v);
    let mut out = Vec::with_capacity(v.traces.len());
    for &t in &v.traces {
        let pairs = v.p.traces[t].deps.iter().flat_map(|&(r, x)| dependency_nodes(v, &local, r, x)).collect();
        out.push((t, pairs));
    }
    out
}

/// The node pairs of the view that a dependency from read `r` to event `x`
/// (program event ids) relates: none when either is outside the view or `x`
/// neither accesses memory nor carries a value. `local`: each event's first
/// view event (`view_events_of`).
pub(crate) fn dependency_nodes(v: &View, local: &[Option<usize>], r: EventId, x: EventId) -> Vec<(usize, usize)> {
    let (Some(lr), Some(lx)) = (local[r], local[x]) else { return Vec::new() };
    let (src, to_r, to_w) = (v.part_of(lr, false), v.part_of(lx, false), v.part_of(lx, true));
    if v.is_mem(to_r) || carries_value(v.event(to_r)) {
        vec![(src, to_r), (src, to_w)]
    } else {
        Vec::new()
    }
}

/// Per program event, its first event in the view (`None`: not in the view).
pub(crate) fn view_events_of(v: &View) -> Vec<Option<usize>> {
    let mut local = vec![None; v.p.events.len()];
    for e in &v.events {
        local[e.event.id].get_or_insert(e.orig);
    }
    local
}

/// The arrive of a warp collective or `bar.red`: it gives the other threads a value.
fn carries_value(e: &Event) -> bool {
    e.sync().is_some_and(|s| s.role == SyncRole::Arrive && s.value.is_some())
}

/// 8.10.4 "chains of instruction dependencies and inter-thread communication"
/// (D165): besides reads-from, values pass between threads through warp
/// collectives and `bar.red`. Pairs: the arrive of thread u -> the wait of
/// another thread at the same use whose result is computed from u's value: a
/// collective's wait that assumes u's contribution (D174), or a `bar.red`
/// wait, which reduces every participant's predicate (D151), where every
/// thread arriving there is matched with it (at most as many as it counts).
/// Both halves performed means they were matched: a thread arrives once per
/// use, and a wait needs the arrivals it assumes.
pub fn exchanges(v: &View) -> Rel {
    let n = v.n();
    let syncs: Vec<(usize, &Sync)> = (0..n).filter_map(|i| Some((i, v.event(i).sync()?))).collect();
    let mut rel = Rel::new(n);
    for &(w, wait) in syncs.iter().filter(|(_, s)| s.role == SyncRole::Wait) {
        let arrives = syncs.iter().filter(|(a, s)| {
            s.role == SyncRole::Arrive && s.value.is_some() && s.key == wait.key && v.thread(*a) != v.thread(w)
        });
        let reduction = matches!(wait.key.kind, SyncKind::CtaReduction(_)) && wait.result.is_some();
        if reduction {
            let mut threads: Vec<_> = arrives.clone().map(|(a, _)| v.thread(*a)).collect();
            threads.sort();
            threads.dedup();
            let all_matched = match wait.expected {
                Expected::Count(k) => threads.len() < k,
                Expected::Arrivals => true,
                Expected::Threads(_) => false,
            };
            if !all_matched {
                continue;
            }
        }
        for &(a, _) in arrives {
            let assumed = wait.assumed.iter().any(|&(u, _)| Some(u) == v.thread(a));
            if reduction || assumed {
                rel.add(a, w);
            }
        }
    }
    rel
}

fn fence_sem(v: &View, i: usize) -> Option<FenceSem> {
    match v.event(i).kind {
        EventKind::Fence { sem, .. } => Some(sem),
        _ => None,
    }
}

/// 8.8 release patterns (`super::patterns::opens_release`, the one decision).
/// Pairs: first operation -> write on M.
pub fn release_patterns(v: &View, po: &Rel) -> Rel {
    let op = |i: usize| Op { access: v.access(i), fence: fence_sem(v, i) };
    Rel::from_fn(v.n(), |x, w| (x == w || po.has(x, w)) && opens_release(op(x), op(w), x == w))
}

/// 8.8 acquire patterns (`super::patterns::closes_acquire`). Pairs: read -> last operation.
pub fn acquire_patterns(v: &View, po: &Rel) -> Rel {
    let op = |i: usize| Op { access: v.access(i), fence: fence_sem(v, i) };
    Rel::from_fn(v.n(), |r, y| (r == y || po.has(r, y)) && closes_acquire(op(r), op(y), r == y))
}

/// 8.9.5 proxy-preserved base causality over the base causality `cb` of a
/// view: the pairs of `cb` that need nothing more, or that one chain of `cb`
/// steps passes through the proxy fences [`proxy::requirement`] asks for (the
/// one decision, read by the SAT engine and the explanations too).
pub fn proxy_preserved(v: &View, cb: &Rel, cumulative: bool) -> Rel {
    let fences: rustc_hash::FxHashSet<EventId> = v.p.proxy_fences.iter().copied().collect();
    let mut node_of: HashMap<EventId, usize> = HashMap::default();
    for i in 0..v.n() {
        if fences.contains(&v.event(i).id) {
            node_of.entry(v.event(i).id).or_insert(i);
        }
    }
    Rel::from_fn(v.n(), |x, y| {
        if !cb.has(x, y) {
            return false;
        }
        match proxy::requirement(v.p, v.event(x), v.event(y), cumulative) {
            ProxyRequirement::Impossible => false,
            ProxyRequirement::Nothing => true,
            ProxyRequirement::Chain(slots) => {
                // Only the fences this execution performs can fill a slot.
                let slots: Vec<Vec<usize>> =
                    slots.iter().map(|s| s.iter().filter_map(|f| node_of.get(f).copied()).collect()).collect();
                proxy::fillings(&slots).iter().any(|fences| chain_holds(cb, x, fences, y))
            }
        }
    })
}

/// Whether `from -> via[0] -> ... -> to` is a chain of `cb` steps.
fn chain_holds(cb: &Rel, from: usize, via: &[usize], to: usize) -> bool {
    let mut at = from;
    for &f in via {
        if !cb.has(at, f) {
            return false;
        }
        at = f;
    }
    cb.has(at, to)
}

/// 8.7.1: "Two overlapping memory operations are said to conflict when at least
/// one of them is a write." (Initial writes are not operations of the program.)
pub fn conflict(v: &View, a: usize, b: usize) -> bool {
    let op = |i: usize| v.is_mem(i) && !v.is_init(i);
    a != b && op(a) && op(b) && v.loc(a) == v.loc(b) && (v.is_write(a) || v.is_write(b))
}

/// 8.7.1: "Two conflicting memory operations are said to be in a data-race if
/// they are not related in causality order and they are not morally strong."
/// The pairs `a < b` of the view that race unless causality orders them:
/// conflicting, not morally strong (`ms`), and on a common path. The SAT
/// engine asks for these and adds only "both performed, causality neither way".
pub(crate) fn race_candidates(v: &View, ms: &Rel) -> Vec<(usize, usize)> {
    let n = v.n();
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            conflict(v, a, b) && !(ms.has(a, b) && ms.has(b, a)) && !mbarrier_pair(v, a, b) && v.compatible(a, b)
        })
        .collect()
}

/// 8.7.1 on one execution: some race candidate is not related in causality
/// order (`cause`) either way.
pub fn has_data_race(v: &View, ms: &Rel, cause: &Rel) -> bool {
    race_candidates(v, ms).into_iter().any(|(a, b)| !cause.has(a, b) && !cause.has(b, a))
}
