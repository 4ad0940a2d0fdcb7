//! Event names in the ISA's style: `W1`, `R2`, `A1` (atomic), `F1` (fences,
//! proxy fences included), `B1a`/`B1w` (the arrive and wait halves of a barrier),
//! and `W0(x)` for the initial write of `x`. Numbers count per letter in thread
//! order, then program order, as the ISA numbers its litmus tests.

use crate::program::{EventId, EventKind, Program, SyncRole};
use std::collections::BTreeMap;

/// The letter of an event's kind.
pub fn letter(p: &Program, e: EventId) -> &'static str {
    match &p.events[e].kind {
        EventKind::Init => "W",
        EventKind::Mem(a) if a.atomic => "A",
        EventKind::Mem(a) if a.writes => "W",
        EventKind::Mem(_) => "R",
        EventKind::Fence { .. } | EventKind::ProxyFence { .. } => "F",
        _ => "B",
    }
}

/// Names of `events` (ids in increasing order: initial writes, then threads in
/// order, each in program order).
pub fn event_names(p: &Program, events: &[EventId]) -> Vec<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(events.len());
    // The barrier instruction (thread, trace, line) of the last arrive, to give
    // its wait the same number.
    let mut last_arrive: Option<(Option<usize>, usize, usize)> = None;
    for &id in events {
        let e = &p.events[id];
        let name = match &e.kind {
            EventKind::Init => format!("W0({})", e.init_loc.map(|l| p.locations[l].name.as_str()).unwrap_or("?")),
            EventKind::Sync(s) if s.role == SyncRole::Arrive => {
                let k = count.entry("B").or_insert(0);
                *k += 1;
                last_arrive = Some((e.trace, e.po, *k));
                format!("B{}a", k)
            }
            EventKind::Sync(_) => {
                // bar.sync: the wait directly follows its own arrive (same line).
                let same = last_arrive
                    .filter(|&(t, po, _)| t == e.trace && po + 1 == e.po && id > 0 && p.events[id - 1].line == e.line);
                let k = match same {
                    Some((_, _, k)) => k,
                    None => {
                        let k = count.entry("B").or_insert(0);
                        *k += 1;
                        *k
                    }
                };
                format!("B{}w", k)
            }
            _ => {
                let l = letter(p, id);
                let k = count.entry(l).or_insert(0);
                *k += 1;
                format!("{}{}", l, k)
            }
        };
        out.push(name);
    }
    out
}
