//! 8.4 operation types, 8.5 scope, 8.7 morally strong operations.

use crate::ast::Proxy;
use crate::ast::Scope;
use crate::program::{Event, EventKind, Program};

/// 8.4: a strong operation is a memory fence operation, or a memory operation
/// with .relaxed, .acquire, .release, .acq_rel, .volatile or .mmio.
pub fn is_strong(e: &Event) -> bool {
    match &e.kind {
        EventKind::Fence { .. } | EventKind::InitFence => true,
        EventKind::Mem(a) => a.sem.is_strong(),
        _ => false,
    }
}

/// The scope a strong operation specifies.
fn scope_of(e: &Event) -> Option<Scope> {
    match &e.kind {
        EventKind::Fence { scope, .. } => Some(*scope),
        EventKind::InitFence => Some(Scope::Cluster),
        EventKind::Mem(a) if a.sem.is_strong() => Some(a.scope),
        _ => None,
    }
}

/// 8.6: the proxy an operation goes through. Fences belong to the generic proxy.
pub fn proxy_of(e: &Event) -> Proxy {
    match &e.kind {
        EventKind::Mem(a) => a.proxy,
        _ => Proxy::Generic,
    }
}

/// 8.2.1: two memory operations overlap completely when they use the same virtual
/// address and the same memory location of the same size.
pub fn overlap_completely(x: &Event, y: &Event) -> bool {
    match (x.access(), y.access()) {
        (Some(a), Some(b)) => a.loc == b.loc && a.vaddr == b.vaddr && a.size == b.size && a.start == b.start,
        _ => false,
    }
}

/// Why a pair is morally strong (8.7 condition 1; conditions 2 and 3 hold).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strong {
    /// Related in program order: the same thread, on one path.
    SameThread,
    /// Each is strong and specifies a scope that includes the other's thread.
    Scopes(Scope, Scope),
    /// Two threads of a C test: coherence is total (D101).
    CTest,
}

/// The first condition of 8.7 a pair fails. `Which` says which operation of
/// the pair (`true`: the first) the reason is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotStrong {
    /// An initial write is no thread's operation.
    InitialWrite,
    /// One thread, but no path performs both (program order does not relate them).
    OtherPaths,
    /// Different threads, and this operation is not strong (condition 1).
    NotStrongOp { first: bool },
    /// Different threads, and this operation's scope excludes the other's thread (condition 1).
    ScopeExcludes { first: bool, scope: Scope },
    /// Different proxies (condition 2).
    Proxies(Proxy, Proxy),
    /// Memory operations that do not overlap completely (condition 3).
    NoOverlap,
}

/// 8.7: "Two operations are said to be morally strong relative to each other if
/// they satisfy all of the following conditions: 1. The operations are related
/// in program order (i.e, they are both executed by the same thread), or each
/// operation is strong and specifies a scope that includes the thread executing
/// the other operation. 2. Both operations are performed via the same proxy.
/// 3. If both are memory operations, then they overlap completely."
///
/// The one decision of the relation: every engine, the primitives and the
/// explanations' reasons read it. Initial writes are never morally strong
/// with anything (they are no thread's operation).
pub(crate) fn moral_strength(p: &Program, x: &Event, y: &Event) -> Result<Strong, NotStrong> {
    let (Some(tx), Some(ty)) = (x.thread, y.thread) else { return Err(NotStrong::InitialWrite) };
    // D101: in a C test coherence (herd's `mo`, cos.cat) is a total order of
    // all writes of a location; the engines order the morally strong pairs.
    // D257: an asynchronous operation's accesses are an agent of their own,
    // in program order with nothing but each other.
    let why = if x.agent() == y.agent() {
        if !p.compatible(x.id, y.id) {
            return Err(NotStrong::OtherPaths);
        }
        Strong::SameThread
    } else if p.c11.is_some() {
        Strong::CTest
    } else {
        let (Some(sx), Some(sy)) = (scope_of(x), scope_of(y)) else {
            return Err(NotStrong::NotStrongOp { first: scope_of(x).is_none() });
        };
        let (px, py) = (p.threads[tx].placement, p.threads[ty].placement);
        if !px.scope_includes(sx, &py) {
            return Err(NotStrong::ScopeExcludes { first: true, scope: sx });
        }
        if !py.scope_includes(sy, &px) {
            return Err(NotStrong::ScopeExcludes { first: false, scope: sy });
        }
        Strong::Scopes(sx, sy)
    };
    if proxy_of(x) != proxy_of(y) {
        return Err(NotStrong::Proxies(proxy_of(x), proxy_of(y)));
    }
    if x.access().is_some() && y.access().is_some() && !overlap_completely(x, y) {
        return Err(NotStrong::NoOverlap);
    }
    Ok(why)
}

/// 8.7 morally strong (see `moral_strength`).
pub fn morally_strong(p: &Program, x: &Event, y: &Event) -> bool {
    moral_strength(p, x, y).is_ok()
}
