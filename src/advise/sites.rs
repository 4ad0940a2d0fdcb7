//! The sites of a test: which instructions the advisor may change, which gaps
//! may receive a fence, and the levels each may take in each mode.

use super::menu::{access_levels, fence_levels, AccessKind, FenceSemO, Level, SemO, ALL_SCOPES, PROXY_SPACES};
use crate::ast::{AsyncInstr, AtomOp, FenceSpace, InstrKind, Litmus, MbarrierOp, Proxy, Scope};
use crate::program::Program;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Access(AccessKind),
    Fence,
    /// Insert a fence right after instruction `index`.
    Gap,
    /// An existing `fence.proxy.async{.space}` (weakened or removed).
    ProxyFence,
    /// Insert a `fence.proxy.async{.space}` right after instruction `index`:
    /// only in tests with asynchronous operations (D313). Where a `Gap` may
    /// insert a thread fence after the same instruction there are two, one
    /// before that fence and one after it (`after_fence`): a proxy fence lies
    /// on a causality path only on its side of the release or acquire fence
    /// (before a release, after an acquire).
    ProxyGap {
        after_fence: bool,
    },
    /// A `cp.async.bulk.wait_group{.read}`.
    BulkWait,
}

impl SiteKind {
    /// Inserts an instruction (rather than changing or removing one).
    pub fn inserts(self) -> bool {
        matches!(self, SiteKind::Gap | SiteKind::ProxyGap { .. })
    }
}

#[derive(Clone, Debug)]
pub struct Site {
    pub thread: usize,
    /// Index into `Litmus::code[thread]`.
    pub index: usize,
    pub kind: SiteKind,
    pub original: Level,
    /// Source line of the instruction (for a gap: the instruction it follows).
    pub line: usize,
    pub text: String,
    /// The levels the search may choose, the original included.
    pub levels: Vec<Level>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Strengthen and insert (the original level and stronger ones).
    Repair,
    /// Weaken and remove (the original level and weaker ones).
    Weaken,
}

/// The level an instruction has as written, and its kind; `None` for
/// instructions the menu does not change (non-generic proxies, `.mmio`, `ld.nc`).
fn classify(k: &InstrKind) -> Option<(SiteKind, Level)> {
    let acc = |sem, scope: Option<Scope>, proxy, kind| {
        let s = SemO::from_ast(sem)?;
        if proxy != Proxy::Generic {
            return None;
        }
        // `.volatile` is relaxed at `.sys`; atomics default to `.gpu` (D7).
        let scope = match (s, sem) {
            (SemO::Weak, _) => None,
            (_, crate::ast::Sem::Volatile) => Some(Scope::Sys),
            _ => Some(scope.unwrap_or(Scope::Gpu)),
        };
        Some((SiteKind::Access(kind), Level::Access(s, scope)))
    };
    match k {
        InstrKind::Load { sem, scope, proxy, .. } => acc(*sem, *scope, *proxy, AccessKind::Load),
        InstrKind::Store { sem, scope, proxy, .. } => acc(*sem, *scope, *proxy, AccessKind::Store),
        // expect_tx and complete_tx are `.relaxed` only: nothing to change.
        InstrKind::Atomic { op: AtomOp::MbarrierExpectTx | AtomOp::MbarrierCompleteTx, .. } => None,
        InstrKind::Atomic { sem, scope, proxy, op, .. } if op.is_mbarrier() => {
            acc(*sem, *scope, *proxy, AccessKind::MbarrierArrive)
        }
        InstrKind::Atomic { sem, scope, proxy, dst, .. } => {
            acc(*sem, *scope, *proxy, if dst.is_some() { AccessKind::Atom } else { AccessKind::Red })
        }
        // A wait without a scope is `.cta` (9.7.15.16.16).
        InstrKind::Mbarrier { op: MbarrierOp::TestWait { .. }, sem, scope, .. } => {
            acc(*sem, Some(scope.unwrap_or(Scope::Cta)), Proxy::Generic, AccessKind::MbarrierWait)
        }
        InstrKind::Fence { sem, scope } => Some((SiteKind::Fence, Level::Fence(FenceSemO::from_ast(*sem), *scope))),
        InstrKind::ProxyFence { proxy: Proxy::Async, space } => Some((SiteKind::ProxyFence, Level::ProxyFence(*space))),
        InstrKind::Async(AsyncInstr::Wait { bulk: true, read, .. }) => {
            Some((SiteKind::BulkWait, Level::BulkWait { read: *read }))
        }
        _ => None,
    }
}

/// An instruction a proxy fence can be ordered after or before: a memory
/// access, a barrier, an mbarrier operation, an asynchronous operation or a
/// thread fence (a proxy fence goes after an acquire fence).
fn orders_across_proxies(k: &InstrKind) -> bool {
    is_memory(k)
        || matches!(
            k,
            InstrKind::Barrier { .. } | InstrKind::Mbarrier { .. } | InstrKind::Async(_) | InstrKind::Fence { .. }
        )
}

/// The test has asynchronous operations (copies, waits, async-proxy accesses):
/// only then does the menu offer proxy fences (D313).
fn is_async_test(lit: &Litmus) -> bool {
    lit.code.iter().flatten().any(|i| match &i.kind {
        InstrKind::Async(_) => true,
        InstrKind::ProxyFence { proxy, .. } => *proxy == Proxy::Async,
        InstrKind::Load { proxy, .. } | InstrKind::Store { proxy, .. } | InstrKind::Atomic { proxy, .. } => {
            *proxy == Proxy::Async
        }
        _ => false,
    })
}

/// The state spaces the menu offers a proxy fence (D313): the model
/// cannot tell `.shared::cta` from `.shared::cluster` (shared memory is per
/// cluster in the program, D258), so `.shared::cta` is offered only where no
/// thread of another CTA exists to own a location, and `.shared::cluster`
/// otherwise; neither is ever proposed as a weakening of the other then.
fn proxy_spaces(p: &Program) -> Vec<FenceSpace> {
    let shared = FenceSpace::narrowest(true, p.in_one_cta());
    PROXY_SPACES.into_iter().filter(|&s| s == shared || s == FenceSpace::Global || s == FenceSpace::All).collect()
}

fn is_async_access(k: &InstrKind) -> bool {
    matches!(k, InstrKind::Async(AsyncInstr::Copy { .. } | AsyncInstr::Store { .. }))
}

fn is_memory(k: &InstrKind) -> bool {
    matches!(k, InstrKind::Load { .. } | InstrKind::Store { .. } | InstrKind::Atomic { .. })
}

/// Scopes of thread `t` that differ in the threads they include: a wider scope
/// including exactly the threads of a narrower one behaves the same (scopes act
/// only through "includes", 8.5 and 8.7) and costs more, so only the narrowest
/// of each class is offered when strengthening.
pub(crate) fn distinct_scopes(p: &Program, t: usize) -> Vec<Scope> {
    let me = p.threads[t].placement;
    let mut seen: Vec<Vec<bool>> = Vec::new();
    let mut out = Vec::new();
    for s in ALL_SCOPES {
        let set: Vec<bool> = p.threads.iter().map(|o| me.scope_includes(s, &o.placement)).collect();
        if !seen.contains(&set) {
            seen.push(set);
            out.push(s);
        }
    }
    out
}

/// Every site of the test with its levels for `mode`.
pub fn sites(lit: &Litmus, p: &Program, mode: Mode) -> Vec<Site> {
    let mut out = Vec::new();
    let proxy_gaps = mode == Mode::Repair && is_async_test(lit);
    let spaces = proxy_spaces(p);
    for (t, code) in lit.code.iter().enumerate() {
        let scopes = match mode {
            Mode::Repair => distinct_scopes(p, t),
            Mode::Weaken => ALL_SCOPES.to_vec(),
        };
        for (i, ins) in code.iter().enumerate() {
            if let Some((kind, original)) = classify(&ins.kind) {
                let all = match kind {
                    SiteKind::Access(k) => access_levels(k, &scopes),
                    SiteKind::ProxyFence => {
                        let mut v: Vec<Level> = spaces.iter().map(|&s| Level::ProxyFence(s)).collect();
                        v.push(Level::Absent);
                        v
                    }
                    SiteKind::BulkWait => vec![Level::BulkWait { read: true }, Level::BulkWait { read: false }],
                    _ => {
                        let mut v = fence_levels(&scopes);
                        v.push(Level::Absent);
                        v
                    }
                };
                let levels = select(original, all, mode);
                out.push(Site {
                    thread: t,
                    index: i,
                    kind,
                    original,
                    line: ins.span.line,
                    text: ins.text.clone(),
                    levels,
                });
            }
            // An asynchronous copy or st.async later in the thread accesses memory too.
            let later_memory = code[i + 1..].iter().any(|x| is_memory(&x.kind) || is_async_access(&x.kind));
            let next_is_fence = matches!(code.get(i + 1).map(|x| &x.kind), Some(InstrKind::Fence { .. }));
            let thread_gap = mode == Mode::Repair && is_memory(&ins.kind) && later_memory && !next_is_fence;
            let proxy_gap = proxy_gaps && proxy_gap_after(code, i);
            let gap = |kind, levels| Site {
                thread: t,
                index: i,
                kind,
                original: Level::Absent,
                line: ins.span.line,
                text: ins.text.clone(),
                levels,
            };
            let mut proxy_levels = vec![Level::Absent];
            proxy_levels.extend(spaces.iter().map(|&s| Level::ProxyFence(s)));
            if proxy_gap {
                out.push(gap(SiteKind::ProxyGap { after_fence: false }, proxy_levels.clone()));
            }
            if thread_gap {
                let mut levels = vec![Level::Absent];
                levels.extend(fence_levels(&scopes));
                out.push(gap(SiteKind::Gap, levels));
            }
            if proxy_gap && thread_gap {
                out.push(gap(SiteKind::ProxyGap { after_fence: true }, proxy_levels));
            }
        }
    }
    out.retain(|s| s.levels.len() > 1);
    out
}

/// A proxy fence may go right after instruction `i`: it and a later
/// instruction of the thread are accesses, barriers or asynchronous
/// operations, and the next instruction is not a proxy fence already.
fn proxy_gap_after(code: &[crate::ast::Instr], i: usize) -> bool {
    let next_is_proxy_fence = matches!(code.get(i + 1).map(|x| &x.kind), Some(InstrKind::ProxyFence { .. }));
    orders_across_proxies(&code[i].kind)
        && code[i + 1..].iter().any(|x| orders_across_proxies(&x.kind))
        && !next_is_proxy_fence
}

/// The original level first, then the others comparable in the mode's direction.
fn select(original: Level, all: Vec<Level>, mode: Mode) -> Vec<Level> {
    let mut v = vec![original];
    for l in all {
        let keep = match mode {
            Mode::Repair => original.at_most(l),
            Mode::Weaken => l.at_most(original),
        };
        if keep && l != original && !v.contains(&l) {
            v.push(l);
        }
    }
    v
}
