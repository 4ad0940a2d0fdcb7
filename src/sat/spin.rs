//! Paths that only add failed spin iterations (issue 14, D66).
//!
//! A spin loop (`LOOP: ld.acquire r, [s]; bne r, t, LOOP`) gives every thread
//! one path per number of failed iterations. A path P whose extra events are
//! only such reads is *redundant* when the thread has a path P' equal to P
//! with those reads left out: the same other events in the same order with
//! the same values, no dependency P lacks, and the same final registers.
//!
//! Why dropping P changes no answer (paper-notes/encoding.md, "Failed spin
//! iterations"): take an allowed execution X on P and delete the left-out
//! reads. The result X' is an execution on P' (every kept read returns what
//! it returned, so every write writes what it wrote) with the same final
//! state. Its po, rf, co, sc and dependencies are those of X restricted to
//! the kept events, and every row of the built-in models only unions,
//! composes, intersects, closes and subtracts *static* relations (identity,
//! event classes), or (Coherence) asks `cause ⊆ co` where co is left as it
//! was; so each derived relation of X' is inside X's and every axiom X
//! satisfies, X' satisfies. Races (8.7.1) are kept too: the left-out reads
//! are morally strong with every write they could meet (so they race with
//! nothing), and two kept conflicting accesses unordered by causality in X
//! stay unordered in X'. Threads with barrier operations and mixed-size
//! programs are left alone (their completion and overlap rules are not
//! covered by the argument above).

use crate::model::strong::{morally_strong, overlap_completely, proxy_of};
use crate::program::{Access, Event, EventId, Program, RegValue, TraceId};
use std::collections::{BTreeSet, HashMap};

/// The traces that only add failed spin iterations to another trace of their thread.
pub fn redundant_traces(p: &Program) -> BTreeSet<TraceId> {
    let mut gone = BTreeSet::new();
    // Only a thread with several paths can have a redundant one.
    if p.flags.mixed_size || p.threads.iter().all(|t| t.traces.len() < 2) {
        return gone;
    }
    // Writes per location, one per distinct profile (what moral strength sees).
    let mut writes_of: HashMap<usize, Vec<EventId>> = HashMap::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for w in p.events.iter().filter(|w| w.thread.is_some()) {
        if let Some(b) = w.access().filter(|b| b.writes && seen.insert(profile(w.thread, b))) {
            writes_of.entry(b.loc).or_default().push(w.id);
        }
    }
    let mut verdicts: HashMap<String, bool> = HashMap::new();
    let droppable: Vec<bool> = (0..p.events.len()).map(|e| can_leave_out(p, e, &writes_of, &mut verdicts)).collect();
    // Each event's attributes and values (not its instance), interned.
    let mut ids: HashMap<String, u32> = HashMap::new();
    let sig: Vec<u32> = p
        .events
        .iter()
        .map(|e| {
            let n = ids.len() as u32;
            *ids.entry(format!("{:?}|{}", e.kind, e.line)).or_insert(n)
        })
        .collect();
    for th in &p.threads {
        let has_barrier = th.traces.iter().flat_map(|&t| &p.traces[t].events).any(|&e| is_barrier(p, e));
        if th.traces.len() < 2 || has_barrier {
            continue;
        }
        // Two paths can be twins only if they agree on every event that cannot be left out.
        let mut buckets: HashMap<Vec<u32>, Vec<TraceId>> = HashMap::new();
        for &t in &th.traces {
            let key: Vec<u32> = p.traces[t].events.iter().filter(|&&e| !droppable[e]).map(|&e| sig[e]).collect();
            buckets.entry(key).or_default().push(t);
        }
        for mut group in buckets.into_values() {
            group.sort_by_key(|&t| p.traces[t].events.len());
            for (i, &long) in group.iter().enumerate() {
                let shorter = group[..i].iter().filter(|&&s| p.traces[s].events.len() < p.traces[long].events.len());
                if shorter.into_iter().any(|&s| is_twin(p, s, long, &droppable, &sig)) {
                    gone.insert(long);
                }
            }
        }
    }
    gone
}

fn is_barrier(p: &Program, e: EventId) -> bool {
    p.events[e].sync().is_some()
}

/// What moral strength (8.7) sees of an access, besides the paths.
fn profile(thread: Option<usize>, a: &Access) -> String {
    format!("{:?}", (thread, a.loc, &a.vaddr, a.proxy, a.size, a.start, a.sem, a.scope))
}

/// A read that writes nothing (a load, or a failing `cas`) and races with
/// nothing (see [`races_with_nothing`]), decided once per access profile.
fn can_leave_out(
    p: &Program,
    r: EventId,
    writes_of: &HashMap<usize, Vec<EventId>>,
    verdicts: &mut HashMap<String, bool>,
) -> bool {
    let e = &p.events[r];
    let Some(a) = e.access() else { return false };
    let key = profile(e.thread, a);
    if let Some(&v) = verdicts.get(&key) {
        return v;
    }
    let v = races_with_nothing(p, e, writes_of.get(&a.loc).map_or(&[][..], |v| v.as_slice()));
    verdicts.insert(key, v);
    v
}

/// `e` reads, writes nothing and races with nothing: morally strong (8.7)
/// with every write to its location of another thread (`writes`), and of the
/// same proxy and footprint as its own thread's writes there (8.7 conditions
/// 2 and 3; condition 1 holds on a common path).
fn races_with_nothing(p: &Program, e: &Event, writes: &[EventId]) -> bool {
    let Some(a) = e.access() else { return false };
    if !a.reads || a.writes || e.thread.is_none() {
        return false;
    }
    let strong_with = |w: &Event| {
        if w.thread == e.thread {
            proxy_of(w) == proxy_of(e) && overlap_completely(e, w)
        } else {
            morally_strong(p, e, w)
        }
    };
    writes.iter().all(|&w| strong_with(&p.events[w]))
}

/// The events of the failed spin iterations the builder left out (D113, D116:
/// events of `p`'s threads, not in its event list) may be left out: the
/// program is not mixed-size, no thread that left one out uses a barrier, each
/// read races with nothing (D66's conditions), and each silent
/// read-modify-write goes unseen ([`silent_rmw_unseen`]).
pub(crate) fn left_out_is_exact(p: &Program, left_out: &[Event]) -> bool {
    if left_out.is_empty() {
        return true;
    }
    let barrier_thread = |t: Option<usize>| p.events.iter().any(|e| e.thread == t && is_barrier(p, e.id));
    let writes_to = |l: usize| -> Vec<EventId> {
        p.events.iter().filter(|w| w.thread.is_some() && w.write_loc() == Some(l)).map(|w| w.id).collect()
    };
    !p.flags.mixed_size
        && left_out.iter().all(|e| {
            let Some(a) = e.access() else { return false };
            let fits =
                if a.writes { silent_rmw_unseen(p, e, left_out) } else { races_with_nothing(p, e, &writes_to(a.loc)) };
            !barrier_thread(e.thread) && fits
        })
}

/// D116: a left-out read-modify-write `u` that wrote back the value it read
/// may go when no other thread reads its location (kept or left out: a read
/// of another thread could take the copy `u` made, later in coherence order
/// than the write it copies), `u` is morally strong (8.7) with every write of
/// another thread there, and its own thread reaches the location only as `u`
/// does (same address, proxy and size: program order makes them morally strong).
fn silent_rmw_unseen(p: &Program, u: &Event, left_out: &[Event]) -> bool {
    let Some(a) = u.access() else { return false };
    let same_place = |e: &Event| e.access().is_some_and(|b| b.loc == a.loc);
    p.events.iter().chain(left_out).filter(|e| e.thread.is_some() && same_place(e)).all(|e| {
        let b = e.access().expect("same_place: an access");
        if e.thread == u.thread {
            proxy_of(e) == proxy_of(u) && overlap_completely(e, u)
        } else {
            !b.reads && morally_strong(p, u, e)
        }
    })
}

/// `long` is `short` plus left-out reads: an order-preserving matching of
/// `short`'s events onto equal events of `long` that skips only droppable
/// events, under which `short`'s dependencies are `long`'s and its final
/// registers are `long`'s.
fn is_twin(p: &Program, short: TraceId, long: TraceId, droppable: &[bool], sig: &[u32]) -> bool {
    let (s, l) = (&p.traces[short], &p.traces[long]);
    let mut to: HashMap<EventId, EventId> = HashMap::new();
    let mut j = 0;
    for &e in &l.events {
        if j < s.events.len() && sig[s.events[j]] == sig[e] {
            to.insert(s.events[j], e);
            j += 1;
        } else if !droppable[e] {
            return false;
        }
    }
    if j < s.events.len() {
        return false;
    }
    let long_deps: BTreeSet<(EventId, EventId)> = l.deps.iter().copied().collect();
    let deps_kept = s
        .deps
        .iter()
        .all(|(a, b)| matches!((to.get(a), to.get(b)), (Some(&x), Some(&y)) if long_deps.contains(&(x, y))));
    let same_reg = |x: &RegValue, y: &RegValue| match (x, y) {
        (RegValue::Const(a), RegValue::Const(b)) => a == b,
        (RegValue::ReadOf(a), RegValue::ReadOf(b)) => to.get(a) == Some(b),
        _ => false,
    };
    let regs_kept =
        s.regs.len() == l.regs.len() && s.regs.iter().all(|(k, v)| l.regs.get(k).is_some_and(|w| same_reg(v, w)));
    deps_kept && regs_kept
}
