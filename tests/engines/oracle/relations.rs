//! FROZEN ORACLE (issue 13): the reference engine's hand-written relations as
//! they were before the model became rows (`src/model/rows.rs`). Do not edit to
//! follow a row: a disagreement with the evaluator is a bug in one of them.
//!
//! The definitions of PTX ISA chapter 8, one function each, over the executed
//! events of one candidate execution (local numbers of [`Ctx`]).

use ptx_litmus::ast::{FenceSem, Proxy, Scope};
use ptx_litmus::model::rel::Rel;
use ptx_litmus::program::{EventKind, MemSem, SyncKind, SyncRole};
use ptx_litmus::reference::enumerate::{Ctx, Matching};

/// 8.4 (Table 20): "strong operation: A memory fence operation, or a memory
/// operation with a .relaxed, .acquire, .release, .acq_rel, .volatile, or .mmio
/// qualifier." (`.volatile`/`.mmio` are already `Relaxed` at `.sys`.)
pub fn is_strong(ctx: &Ctx, i: usize) -> bool {
    match &ctx.event(i).kind {
        EventKind::Fence { .. } => true,
        EventKind::Mem(a) => a.sem != MemSem::Weak,
        _ => false,
    }
}

/// 8.5: "Each strong operation must specify a scope, which is the set of threads
/// that may interact directly with that operation".
pub fn scope_of(ctx: &Ctx, i: usize) -> Option<Scope> {
    if !is_strong(ctx, i) {
        return None;
    }
    match &ctx.event(i).kind {
        EventKind::Fence { scope, .. } => Some(*scope),
        EventKind::Mem(a) => Some(a.scope),
        _ => None,
    }
}

/// 8.5 (Table 21): ".cta: The set of all threads executing in the same CTA as the
/// current thread. .cluster: ... in the same cluster ... .gpu: ... on the same
/// compute device ... .sys: The set of all threads in the current program".
/// Does the scope of strong operation `i` include the thread executing `j`?
pub fn scope_includes(ctx: &Ctx, i: usize, j: usize) -> bool {
    let (Some(s), Some(pi), Some(pj)) = (scope_of(ctx, i), ctx.placement(i), ctx.placement(j)) else { return false };
    match s {
        Scope::Cta => pi.cta == pj.cta,
        Scope::Cluster => pi.cluster == pj.cluster,
        Scope::Gpu => pi.gpu == pj.gpu,
        Scope::Sys => true,
    }
}

/// 8.6: "Memory operations as defined in Operation types use generic method of
/// memory access, i.e. a generic proxy. Other operations such as textures and
/// surfaces all use distinct methods of memory access". Fences are generic.
pub fn proxy_of(ctx: &Ctx, i: usize) -> Proxy {
    match ctx.access(i) {
        Some(a) => a.proxy,
        None => Proxy::Generic,
    }
}

/// 8.2.1: "Two memory operations are said to overlap when they specify the same
/// virtual address and the corresponding memory locations overlap. The overlap is
/// said to be complete when both memory locations are identical".
pub fn overlap_completely(ctx: &Ctx, i: usize, j: usize) -> bool {
    match (ctx.access(i), ctx.access(j)) {
        (Some(a), Some(b)) => a.loc == b.loc && a.vaddr == b.vaddr && a.size == b.size && a.start == b.start,
        _ => false,
    }
}

/// 8.9.1: "The program order relates all operations performed by a thread to the
/// order in which a sequential processor will execute instructions".
/// Same trace, lower position.
pub fn program_order(ctx: &Ctx) -> Rel {
    Rel::from_fn(ctx.n(), |a, b| {
        let (ea, eb) = (ctx.event(a), ctx.event(b));
        // Within one candidate, the events of a thread all lie on its chosen path.
        ea.thread.is_some() && ea.thread == eb.thread && ea.po < eb.po
    })
}

/// 8.7: "Two operations are said to be morally strong relative to each other if
/// they satisfy all of the following conditions: 1. The operations are related in
/// program order (i.e, they are both executed by the same thread), or each
/// operation is strong and specifies a scope that includes the thread executing
/// the other operation. 2. Both operations are performed via the same proxy.
/// 3. If both are memory operations, then they overlap completely."
/// Initial writes are no thread's operation: never morally strong.
pub fn morally_strong(ctx: &Ctx) -> Rel {
    Rel::from_fn(ctx.n(), |a, b| {
        if a == b {
            return false;
        }
        let (Some(ta), Some(tb)) = (ctx.thread(a), ctx.thread(b)) else { return false };
        let cond1 = ta == tb
            || (is_strong(ctx, a) && is_strong(ctx, b) && scope_includes(ctx, a, b) && scope_includes(ctx, b, a));
        let cond2 = proxy_of(ctx, a) == proxy_of(ctx, b);
        let cond3 = if ctx.is_mem(a) && ctx.is_mem(b) { overlap_completely(ctx, a, b) } else { true };
        cond1 && cond2 && cond3
    })
}

/// 8.7.1: "Two overlapping memory operations are said to conflict when at least
/// one of them is a write." (Initial writes are not operations of the program.)
pub fn conflict(ctx: &Ctx, a: usize, b: usize) -> bool {
    a != b
        && !ctx.is_init(a)
        && !ctx.is_init(b)
        && ctx.is_mem(a)
        && ctx.is_mem(b)
        && ctx.loc(a) == ctx.loc(b)
        && (ctx.is_write(a) || ctx.is_write(b))
}

/// 8.7.1: "Two conflicting memory operations are said to be in a data-race if they
/// are not related in causality order and they are not morally strong."
pub fn has_data_race(ctx: &Ctx, ms: &Rel, cause: &Rel) -> bool {
    (0..ctx.n())
        .any(|a| (0..ctx.n()).any(|b| conflict(ctx, a, b) && !ms.has(a, b) && !cause.has(a, b) && !cause.has(b, a)))
}

/// 8.9.7 (3): "A read R precedes an overlapping write W in communication order if,
/// for any byte accessed by both R and W, R returns the value written by a write
/// W' that precedes W in coherence order." (fr = rf⁻¹ ; co, minus R = W.)
pub fn from_reads(ctx: &Ctx, rf: &Rel, co: &Rel) -> Rel {
    rf.inverse().compose(co).filter(|r, w| r != w && ctx.is_read(r) && ctx.is_write(w))
}

/// 8.9.2: "A write W precedes a read R in observation order if: 1. R and W are
/// morally strong and R reads the value written by W, or 2. For some atomic
/// operation Z, W precedes Z and Z precedes R in observation order."
/// Z is an atomic operation that writes (it is observed as a write in step 2).
pub fn observation(ctx: &Ctx, ms: &Rel, rf: &Rel) -> Rel {
    let mut obs = ms.intersect(rf).filter(|w, _| !ctx.is_init(w));
    let atomic_writes = Rel::from_fn(ctx.n(), |a, b| a == b && ctx.access(a).is_some_and(|x| x.atomic && x.writes));
    loop {
        let next = obs.union(&obs.compose(&atomic_writes).compose(&obs));
        if next == obs {
            return obs;
        }
        obs = next;
    }
}

/// A release or acquire pattern: `bound` is the first operation of a release
/// pattern (the last of an acquire pattern); `access` is its write (its read) on M.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub bound: usize,
    pub access: usize,
}

fn fence_sem(ctx: &Ctx, i: usize) -> Option<FenceSem> {
    match ctx.event(i).kind {
        EventKind::Fence { sem, .. } => Some(sem),
        _ => None,
    }
}

fn is_strong_write(ctx: &Ctx, i: usize) -> bool {
    ctx.access(i).is_some_and(|a| a.writes && a.sem.is_strong())
}

/// A strong read that may start an acquire pattern: 8.11.1 "Atomic reduction
/// operations like red do not form acquire patterns with acquire fences."
fn is_pattern_read(ctx: &Ctx, i: usize) -> bool {
    ctx.access(i).is_some_and(|a| a.reads && !a.is_red && a.sem.is_strong())
}

/// 8.8: "A release pattern on a location M consists of one of the following:
/// 1. A release operation on M
/// 2. Or a release or acquire-release operation on M followed by a strong write on
///    M in program order
/// 3. Or a release or acquire-release memory fence followed by a strong write on M
///    in program order".
///
/// fence.sc counts as a release fence (it is at least as strong as fence.acq_rel).
pub fn release_patterns(ctx: &Ctx, po: &Rel) -> Vec<Pattern> {
    let mut out = Vec::new();
    for x in 0..ctx.n() {
        // 1.
        if ctx.access(x).is_some_and(|a| a.writes && a.sem.is_release()) {
            out.push(Pattern { bound: x, access: x });
        }
        for w in 0..ctx.n() {
            if !po.has(x, w) || !is_strong_write(ctx, w) {
                continue;
            }
            // 2.
            if ctx.access(x).is_some_and(|a| a.sem.is_release()) && ctx.loc(x) == ctx.loc(w) {
                out.push(Pattern { bound: x, access: w });
            }
            // 3.
            if matches!(fence_sem(ctx, x), Some(FenceSem::Release | FenceSem::AcqRel | FenceSem::Sc)) {
                out.push(Pattern { bound: x, access: w });
            }
        }
    }
    out
}

/// 8.8: "An acquire pattern on a location M consists of one of the following:
/// 1. An acquire operation on M
/// 2. Or a strong read on M followed by an acquire operation on M in program order
/// 3. Or a strong read on M followed by an acquire memory fence in program order".
///
/// 8.11.1: the strong read of a `red` never forms one. fence.sc counts as an
/// acquire fence.
pub fn acquire_patterns(ctx: &Ctx, po: &Rel) -> Vec<Pattern> {
    let mut out = Vec::new();
    for r in 0..ctx.n() {
        if !is_pattern_read(ctx, r) {
            continue;
        }
        // 1.
        if ctx.access(r).is_some_and(|a| a.sem.is_acquire()) {
            out.push(Pattern { bound: r, access: r });
        }
        for y in 0..ctx.n() {
            if !po.has(r, y) {
                continue;
            }
            // 2.
            if ctx.access(y).is_some_and(|a| a.sem.is_acquire()) && ctx.loc(y) == ctx.loc(r) {
                out.push(Pattern { bound: y, access: r });
            }
            // 3.
            if matches!(fence_sem(ctx, y), Some(FenceSem::Acquire | FenceSem::AcqRel | FenceSem::Sc)) {
                out.push(Pattern { bound: y, access: r });
            }
        }
    }
    out
}

/// 8.9.4: "1. A fence.sc operation X synchronizes with a fence.sc operation Y if X
/// precedes Y in the Fence-SC order.
/// 2. A bar{.cta}.sync or bar{.cta}.red or bar{.cta}.arrive operation
///    synchronizes with a bar{.cta}.sync or bar{.cta}.red operation executed on
///    the same barrier.
/// 3. A barrier.cluster.arrive operation synchronizes with a barrier.cluster.wait
///    operation.
/// 4. A release pattern X synchronizes with an acquire pattern Y, if a write
///    operation in X precedes a read operation in Y in observation order, and the
///    first operation in X and the last operation in Y are morally strong."
/// Barriers synchronize through the matching chosen for the execution (arrive of
/// one thread -> wait of another); `.relaxed` cluster arrives do not synchronize.
pub fn synchronizes_with(
    ctx: &Ctx,
    ms: &Rel,
    obs: &Rel,
    sc: &Rel,
    m: &Matching,
    rel: &[Pattern],
    acq: &[Pattern],
) -> Rel {
    // 1.
    let mut sw = sc.clone();
    // 2. and 3. (barrier.cluster.arrive.relaxed does not synchronize).
    sw = sw.union(&m.pairs.filter(|a, _| ctx.event(a).sync().is_some_and(|s| s.orders_memory)));
    // 4.
    for x in rel {
        for y in acq {
            if ctx.thread(x.bound) != ctx.thread(y.bound) && obs.has(x.access, y.access) && ms.has(x.bound, y.bound) {
                sw.add(x.bound, y.bound);
            }
        }
    }
    sw
}

/// 8.9.5: "An operation X precedes an operation Y in base causality order if:
/// 1. X precedes Y in program order, or
/// 2. X synchronizes with Y, or
/// 3. For some operation Z, [X precedes Z in program order or base causality
///    order, and Z precedes Y in program order or base causality order]".
///
/// That is (po ∪ sw)⁺.
pub fn base_causality(po: &Rel, sw: &Rel) -> Rel {
    po.union(sw).closure()
}

/// Base causality with the fences restricted to shared memory (9.7.13.4
/// `.sync_restrict`, D316), written as a search rather than the rows'
/// algebra: X precedes Y if some path of po and sw steps leads from X to Y
/// on which every synchronization begun by a restricted release fence has
/// X on shared memory (or X a proxy fence), and every one ended by a
/// restricted acquire fence has Y so.
pub fn base_causality_restricted(ctx: &Ctx, po: &Rel, sw: &Rel) -> Rel {
    let n = ctx.n();
    let restricted = |i: usize, want: FenceSem| matches!(ctx.event(i).kind, EventKind::Fence { sem, shared_only: true, .. } if sem == want);
    let passes = |i: usize| {
        ctx.event(i).is_proxy_fence()
            || (ctx.access(i).is_some() && ctx.loc(i).is_some_and(|l| ctx.p.locations[l].shared))
    };
    let mut out = Rel::new(n);
    for x in 0..n {
        // States (node, whether a synchronization ended by a restricted acquire fence was used).
        let mut seen = vec![[false; 2]; n];
        let mut stack = vec![(x, false)];
        while let Some((a, used_acq)) = stack.pop() {
            // A restricted release fence begins a synchronization only for an origin that passes.
            let release_ok = !restricted(a, FenceSem::Release) || passes(x);
            for (b, s) in seen.iter_mut().enumerate() {
                let by_sw = release_ok && sw.has(a, b);
                if !(po.has(a, b) || by_sw) {
                    continue;
                }
                let used = used_acq || (sw.has(a, b) && !po.has(a, b) && restricted(b, FenceSem::Acquire));
                if !s[usize::from(used)] {
                    s[usize::from(used)] = true;
                    stack.push((b, used));
                }
            }
        }
        for (y, s) in seen.iter().enumerate() {
            if s[0] || (s[1] && passes(y)) {
                out.add(x, y);
            }
        }
    }
    out
}

/// Proxy fences `fence.proxy.<proxy>` (`Generic`: `fence.proxy.alias`) executed by
/// a thread of `cta` (any thread when `cta` is None).
fn proxy_fences(ctx: &Ctx, proxy: Proxy, cta: Option<usize>) -> Vec<usize> {
    (0..ctx.n())
        .filter(|&f| matches!(ctx.event(f).kind, EventKind::ProxyFence { proxy: q, .. } if q == proxy))
        .filter(|&f| cta.is_none() || ctx.placement(f).map(|pl| pl.cta) == cta)
        .collect()
}

/// 8.9.5: "A memory operation X precedes a memory operation Y in proxy-preserved
/// base causality order if X precedes Y in base causality order, and:
/// 1. X and Y are performed to the same address, using the generic proxy, or
/// 2. X and Y are performed to the same address, using the same proxy, and by the
///    same thread block, or
/// 3. X and Y are aliases and there is an alias proxy fence along the base
///    causality path from X to Y."
///
/// Extended by litmus-format.md 4.1 (the mixed-proxy table, cases 3-9): otherwise
/// ONE chain of strict base-causality steps must run X -> F1 -> FA -> F2 -> Y, where
/// F1 is a `fence.proxy.P` of X's CTA (only when X uses a non-generic proxy P), FA
/// a `fence.proxy.alias` of any CTA (only for virtual aliases) and F2 a
/// `fence.proxy.Q` of Y's CTA (only when Y uses a non-generic proxy Q); one fence
/// never fills two slots.
pub fn proxy_preserved(ctx: &Ctx, cb: &Rel) -> Rel {
    let n = ctx.n();
    Rel::from_fn(n, |x, y| {
        let (Some(a), Some(b)) = (ctx.access(x), ctx.access(y)) else { return false };
        if a.loc != b.loc || !cb.has(x, y) {
            return false;
        }
        let cta = |i: usize| ctx.placement(i).map(|pl| pl.cta);
        let same_address = a.vaddr == b.vaddr;
        // 1.
        if same_address && a.proxy == Proxy::Generic && b.proxy == Proxy::Generic {
            return true;
        }
        // 2.
        if same_address && a.proxy == b.proxy && cta(x) == cta(y) {
            return true;
        }
        // 3. and the table of section 4.1: the slots, in chain order.
        let mut slots: Vec<Vec<usize>> = Vec::new();
        if a.proxy != Proxy::Generic {
            slots.push(proxy_fences(ctx, a.proxy, cta(x)));
        }
        if !same_address {
            slots.push(proxy_fences(ctx, Proxy::Generic, None));
        }
        if b.proxy != Proxy::Generic {
            slots.push(proxy_fences(ctx, b.proxy, cta(y)));
        }
        chain_through(cb, x, &slots, y, &mut Vec::new())
    })
}

/// Whether some chain `from -> s1 -> ... -> sk -> to` exists with one fence of each
/// slot, each step in `cb`, no fence used twice (`used` holds the fences so far).
fn chain_through(cb: &Rel, from: usize, slots: &[Vec<usize>], to: usize, used: &mut Vec<usize>) -> bool {
    let Some((slot, rest)) = slots.split_first() else { return cb.has(from, to) };
    slot.iter().any(|&f| {
        if used.contains(&f) || !cb.has(from, f) {
            return false;
        }
        used.push(f);
        let found = chain_through(cb, f, rest, to, used);
        used.pop();
        found
    })
}

/// 8.9.5: "An operation X precedes an operation Y in causality order if:
/// 1. X precedes Y in proxy-preserved base causality order, or
/// 2. For some operation Z, X precedes Z in observation order, and Z precedes Y in
///    proxy-preserved base causality order."
pub fn causality(obs: &Rel, ppcb: &Rel) -> Rel {
    ppcb.union(&obs.compose(ppcb))
}

/// 8.10.4: the dependencies of No-Thin-Air ("chains of instruction dependencies"):
/// data, address and control dependencies from a read to a later memory operation
/// of the same trace, and (D165, a deliberate change of this oracle) to the
/// arrive of a warp collective or `bar.red` that gives other threads a value.
pub fn dependencies(ctx: &Ctx) -> Rel {
    let mut dep = Rel::new(ctx.n());
    let gives_value = |i: usize| ctx.event(i).sync().is_some_and(|s| s.role == SyncRole::Arrive && s.value.is_some());
    for &t in &ctx.traces {
        for &(r, e) in &ctx.p.traces[t].deps {
            if let (Some(lr), Some(le)) = (ctx.local[r], ctx.local[e]) {
                if ctx.is_mem(le) || gives_value(le) {
                    dep.add(lr, le);
                }
            }
        }
    }
    dep
}

/// 8.10.4 "inter-thread communication" besides reads-from (D165): the matched
/// arrive -> wait pairs of this execution through which a wait's result takes
/// the arriving thread's value (a collective's wait assuming that thread's
/// value, or a `bar.red` wait, which reduces every matched predicate).
pub fn lane_exchanges(ctx: &Ctx, m: &Matching) -> Rel {
    let mut x = Rel::new(ctx.n());
    for (a, w) in m.pairs.pairs() {
        let (Some(sa), Some(sw)) = (ctx.event(a).sync(), ctx.event(w).sync()) else { continue };
        let from_a = sw.assumed.iter().any(|&(u, _)| Some(u) == ctx.thread(a));
        let reduces = matches!(sw.key.kind, SyncKind::CtaReduction(_)) && sw.result.is_some();
        if sa.value.is_some() && ctx.thread(a) != ctx.thread(w) && (from_a || reduces) {
            x.add(a, w);
        }
    }
    x
}
