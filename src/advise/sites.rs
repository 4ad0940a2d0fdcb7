//! The sites of a test: which instructions the advisor may change, which gaps
//! may receive a fence, and the levels each may take in each mode.

use super::menu::{access_levels, fence_levels, AccessKind, FenceSemO, Level, SemO, ALL_SCOPES};
use crate::ast::{InstrKind, Litmus, Proxy, Scope};
use crate::program::Program;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Access(AccessKind),
    Fence,
    /// Insert a fence right after instruction `index`.
    Gap,
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
        InstrKind::Atomic { sem, scope, proxy, dst, .. } => {
            acc(*sem, *scope, *proxy, if dst.is_some() { AccessKind::Atom } else { AccessKind::Red })
        }
        InstrKind::Fence { sem, scope } => Some((SiteKind::Fence, Level::Fence(FenceSemO::from_ast(*sem), *scope))),
        _ => None,
    }
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
    for (t, code) in lit.code.iter().enumerate() {
        let scopes = match mode {
            Mode::Repair => distinct_scopes(p, t),
            Mode::Weaken => ALL_SCOPES.to_vec(),
        };
        for (i, ins) in code.iter().enumerate() {
            if let Some((kind, original)) = classify(&ins.kind) {
                let all = match kind {
                    SiteKind::Access(k) => access_levels(k, &scopes),
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
            let later_memory = code[i + 1..].iter().any(|x| is_memory(&x.kind));
            let next_is_fence = matches!(code.get(i + 1).map(|x| &x.kind), Some(InstrKind::Fence { .. }));
            if mode == Mode::Repair && is_memory(&ins.kind) && later_memory && !next_is_fence {
                let mut levels = vec![Level::Absent];
                levels.extend(fence_levels(&scopes));
                out.push(Site {
                    thread: t,
                    index: i,
                    kind: SiteKind::Gap,
                    original: Level::Absent,
                    line: ins.span.line,
                    text: ins.text.clone(),
                    levels,
                });
            }
        }
    }
    out.retain(|s| s.levels.len() > 1);
    out
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
