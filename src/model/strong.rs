//! 8.4 operation types, 8.5 scope, 8.7 morally strong operations.

use crate::ast::Proxy;
use crate::ast::Scope;
use crate::program::{Event, EventKind, Program};

/// 8.4: a strong operation is a memory fence operation, or a memory operation
/// with .relaxed, .acquire, .release, .acq_rel, .volatile or .mmio.
pub fn is_strong(e: &Event) -> bool {
    match &e.kind {
        EventKind::Fence { .. } => true,
        EventKind::Mem(a) => a.sem.is_strong(),
        _ => false,
    }
}

/// The scope a strong operation specifies.
fn scope_of(e: &Event) -> Option<Scope> {
    match &e.kind {
        EventKind::Fence { scope, .. } => Some(*scope),
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

/// 8.7: X and Y are morally strong relative to each other when
/// 1. they are related in program order (same thread), or each is strong and
///    specifies a scope that includes the thread executing the other;
/// 2. both are performed via the same proxy;
/// 3. if both are memory operations, they overlap completely.
///
/// Initial writes are never morally strong with anything (they are no thread's operation).
pub fn morally_strong(p: &Program, x: &Event, y: &Event) -> bool {
    let (Some(tx), Some(ty)) = (x.thread, y.thread) else { return false };
    // D101: in a C test coherence (herd's `mo`, cos.cat) is a total order of
    // all writes of a location; the engines order the morally strong pairs.
    let cond1 = if p.c11.is_some() {
        tx != ty || p.compatible(x.id, y.id)
    } else if tx == ty {
        p.compatible(x.id, y.id)
    } else {
        match (scope_of(x), scope_of(y)) {
            (Some(sx), Some(sy)) => {
                let (px, py) = (p.threads[tx].placement, p.threads[ty].placement);
                px.scope_includes(sx, &py) && py.scope_includes(sy, &px)
            }
            _ => false,
        }
    };
    let cond2 = proxy_of(x) == proxy_of(y);
    let cond3 = match (x.access(), y.access()) {
        (Some(_), Some(_)) => overlap_completely(x, y),
        _ => true,
    };
    cond1 && cond2 && cond3
}
