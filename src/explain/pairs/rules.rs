//! Which rule applies, in words: moral strength of a pair (8.7) or the first condition that fails, the rule of a
//! release or acquire pattern (8.8), and the rules by which two operations may synchronize (8.9.4; in a C test,
//! rc11's `sw`).

use super::describe::{placement, proxy_name, scope_name};
use crate::model::patterns::Pattern;
use crate::model::strong::{self, NotStrong, Strong};
use crate::program::{Event, EventId, EventKind, Program, SyncRole};

/// When `a` synchronizes with `b` under the C model's `sw` (rc11.cat: a
/// release write or fence, an acquire read or fence, and a read that reads
/// from the release sequence of the write).
pub(super) fn c_sync_rule(p: &Program, a: EventId, b: EventId, n: &dyn Fn(EventId) -> String) -> String {
    let (fa, fb) = (p.events[a].access().is_none(), p.events[b].access().is_none());
    let reader = if fb { format!("a read before {}", n(b)) } else { n(b) };
    let writer = if fa { format!("a write after {}", n(a)) } else { n(a) };
    format!("if {} reads from the release sequence of {}", reader, writer)
}
/// 8.7 for one pair, in words: `Ok(why yes)` or `Err(first reason why not)`,
/// from the one decision (`strong::moral_strength`).
pub fn moral_strength(p: &Program, x: &Event, y: &Event, nx: &str, ny: &str) -> std::result::Result<String, String> {
    let why = strong::moral_strength(p, x, y).map_err(|no| not_strong_text(p, x, y, nx, ny, no))?;
    let why1 = match why {
        Strong::SameThread => "related in program order (same thread)".to_string(),
        Strong::CTest => "threads of a C test: coherence is total, so every pair is ordered (D101)".to_string(),
        Strong::Scopes(sx, sy) => {
            format!("both strong, and the {} and {} scopes include each other's thread", scope_name(sx), scope_name(sy))
        }
    };
    if x.access().is_some() && y.access().is_some() {
        return Ok(format!("{}, same proxy, same address", why1));
    }
    Ok(format!("{}, same proxy", why1))
}

/// Why not, in words (8.7's condition named).
fn not_strong_text(p: &Program, x: &Event, y: &Event, nx: &str, ny: &str, no: NotStrong) -> String {
    let (tx, ty) = (x.thread.unwrap_or(0), y.thread.unwrap_or(0));
    match no {
        NotStrong::InitialWrite => "an initial write is no thread's operation".into(),
        NotStrong::OtherPaths => "one thread, but no path performs both (8.7 condition 1)".into(),
        NotStrong::NotStrongOp { first } => {
            let (e, n) = if first { (x, nx) } else { (y, ny) };
            let what = match &e.kind {
                EventKind::Mem(_) => "a weak operation",
                EventKind::ProxyFence { .. } => "a proxy fence, not a strong operation",
                _ => "a barrier operation, not a strong operation",
            };
            format!("not related in program order, and {} is {} (8.7 condition 1)", n, what)
        }
        NotStrong::ScopeExcludes { first, scope } => {
            let (n, other) = if first { (nx, ty) } else { (ny, tx) };
            format!(
                "not related in program order, and the {} scope of {} does not include P{} (P{}: {}; P{}: {}) (8.7 condition 1)",
                scope_name(scope),
                n,
                other,
                tx,
                placement(p, tx),
                ty,
                placement(p, ty)
            )
        }
        NotStrong::Proxies(qx, qy) => {
            format!("different proxies ({}: {}, {}: {}) (8.7 condition 2)", nx, proxy_name(qx), ny, proxy_name(qy))
        }
        NotStrong::NoOverlap => {
            let (Some(a), Some(b)) = (x.access(), y.access()) else {
                return "no complete overlap (8.7 condition 3)".into();
            };
            let why = if a.loc != b.loc {
                format!("different addresses ({}, {})", p.locations[a.loc].name, p.locations[b.loc].name)
            } else if a.vaddr != b.vaddr {
                format!("different virtual addresses of one location ({} and {} are aliases)", a.vaddr, b.vaddr)
            } else {
                format!("partial overlap ({} bytes and {} bytes of {})", a.size, b.size, p.locations[a.loc].name)
            };
            format!("{} (8.7 condition 3)", why)
        }
    }
}

pub(super) fn release_rule(p: &Program, x: &Pattern) -> &'static str {
    if x.bound == x.access {
        "release operation (rule 1)"
    } else if p.events[x.bound].access().is_some() {
        "release operation followed by a strong write on the same location (rule 2)"
    } else {
        "release fence followed by a strong write (rule 3)"
    }
}

pub(super) fn acquire_rule(p: &Program, y: &Pattern) -> &'static str {
    if y.bound == y.access {
        "acquire operation (rule 1)"
    } else if p.events[y.bound].access().is_some() {
        "strong read followed by an acquire operation on the same location (rule 2)"
    } else {
        "strong read followed by an acquire fence (rule 3)"
    }
}

/// The 8.9.4 rules by which `a` may synchronize with `b`.
pub(super) fn sync_rules(
    p: &Program,
    a: EventId,
    b: EventId,
    rels: &[Pattern],
    acqs: &[Pattern],
    n: &dyn Fn(EventId) -> String,
) -> String {
    let (ea, eb) = (&p.events[a], &p.events[b]);
    let mut how = Vec::new();
    if ea.is_fence_sc() && eb.is_fence_sc() {
        how.push(format!("if {} precedes {} in Fence-SC order, rule 1", n(a), n(b)));
    }
    if let (Some(x), Some(y)) = (ea.sync(), eb.sync()) {
        if x.role == SyncRole::Arrive && y.role == SyncRole::Wait && x.key.kind.noun() == y.key.kind.noun() {
            how.push(x.key.kind.rule().into());
        }
    }
    for x in rels.iter().filter(|x| x.bound == a) {
        for y in acqs.iter().filter(|y| y.bound == b) {
            let same_loc = p.events[x.access].access().map(|q| q.loc) == p.events[y.access].access().map(|q| q.loc);
            if same_loc && strong::morally_strong(p, ea, eb) {
                how.push(format!("if {} precedes {} in observation order, rule 4", n(x.access), n(y.access)));
            }
        }
    }
    how.dedup();
    how.join("; ")
}
