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
//! stay unordered in X'. Barrier operations are never left out, so X' has
//! every barrier event of X in the same program order with the same
//! matching: barrier synchronization, completion and deadlock are unchanged
//! (D179). Mixed-size programs are left alone (their overlap rules are not
//! covered by the argument above).

use crate::model::proxy::{requirement, ProxyRequirement};
use crate::model::strong::{morally_strong, overlap_completely, proxy_of};
use crate::program::{Access, Event, EventId, Expected, LeftOutEvent, Program, RegValue, Sync, SyncKey, SyncKind};
use crate::program::{SyncRole, TraceId};
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
        if th.traces.len() < 2 {
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

/// What moral strength (8.7) sees of an access, besides the paths.
fn profile(thread: Option<usize>, a: &Access) -> String {
    format!("{:?}", (thread, a.loc, &a.vaddr, a.proxy, a.size, a.start, a.sem, a.scope))
}

/// A read that writes nothing (a load, or a failing `cas`) and races with
/// nothing (see [`races_with_nothing`]). Whether it races is decided once per
/// access profile; whether it writes is not part of the profile (a load and
/// an `atom.exch` of one thread, location and qualifiers share one), so it is
/// asked first, of every event: an exchange must never inherit a load's verdict.
fn can_leave_out(
    p: &Program,
    r: EventId,
    writes_of: &HashMap<usize, Vec<EventId>>,
    verdicts: &mut HashMap<String, bool>,
) -> bool {
    let e = &p.events[r];
    let Some(a) = e.access() else { return false };
    if !reads_only(e) {
        return false;
    }
    let key = profile(e.thread, a);
    if let Some(&v) = verdicts.get(&key) {
        return v;
    }
    let v = races_with_nothing(p, e, writes_of.get(&a.loc).map_or(&[][..], |v| v.as_slice()));
    verdicts.insert(key, v);
    v
}

/// `e` reads, writes nothing and races with nothing: [`cannot_race`] with
/// every write to its location (`writes`).
fn races_with_nothing(p: &Program, e: &Event, writes: &[EventId]) -> bool {
    reads_only(e) && writes.iter().all(|&w| cannot_race(p, e, &p.events[w]))
}

/// A read of a thread that writes nothing.
fn reads_only(e: &Event) -> bool {
    e.thread.is_some() && e.access().is_some_and(|a| a.reads && !a.writes)
}

/// Read `e` and write `w` never race (8.7.1): morally strong (8.7) when `w`
/// is another thread's; of the same proxy and footprint when it is `e`'s own
/// (8.7 conditions 2 and 3; condition 1 holds on a common path).
fn cannot_race(p: &Program, e: &Event, w: &Event) -> bool {
    // One agent: program order (an asynchronous operation is an agent of its own, D257).
    if w.agent() == e.agent() {
        proxy_of(w) == proxy_of(e) && overlap_completely(e, w)
    } else {
        morally_strong(p, e, w)
    }
}

/// The events of the failed spin iterations the builder left out (D113,
/// D116: events of `p`'s threads, not in its event list) may be left out: the
/// program is not mixed-size, each read races with nothing (D66's
/// conditions): every write to its location cannot race with it
/// ([`cannot_race`]) or precedes it in causality order in every execution
/// ([`barrier_orders`], D179); and each silent read-modify-write goes unseen
/// ([`silent_rmw_unseen`]).
pub(crate) fn left_out_is_exact(p: &Program, left_out: &[LeftOutEvent]) -> bool {
    if left_out.is_empty() {
        return true;
    }
    let events: Vec<Event> = left_out.iter().map(|l| l.event.clone()).collect();
    let writes_to = |l: usize| p.events.iter().filter(move |w| w.thread.is_some() && w.write_loc() == Some(l));
    !p.flags.mixed_size
        && left_out.iter().all(|l| {
            let e = &l.event;
            match e.access() {
                Some(a) if a.writes => silent_rmw_unseen(p, e, &events),
                Some(a) => reads_only(e) && writes_to(a.loc).all(|w| cannot_race(p, e, w) || barrier_orders(p, w, l)),
                None => false,
            }
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
    p.events
        .iter()
        .chain(left_out)
        .filter_map(|e| e.access().filter(|b| e.thread.is_some() && b.loc == a.loc).map(|b| (e, b)))
        .all(|(e, b)| {
            if e.agent() == u.agent() {
                proxy_of(e) == proxy_of(u) && overlap_completely(e, u)
            } else {
                !b.reads && morally_strong(p, u, e)
            }
        })
}

/// D179: write `w` of another thread precedes the left-out read `r` in
/// causality order in every execution that performs both. Every path of
/// `w`'s thread that performs `w` arrives at a barrier instance after it
/// ([`arrives_after`]); `r`'s thread waited at that instance before `r` on
/// every path that left `r` out; the wait is matched with that arrival in
/// every execution that performs both ([`must_match`]), so the arrive
/// synchronizes with the wait (8.9.4 (2), (3)) and `w` po; sw; po `r` is base
/// causality (8.9.5); it is proxy-preserved, so causality, when
/// [`requirement`] asks nothing more (same address, one proxy). C models
/// have no barriers: never there.
fn barrier_orders(p: &Program, w: &Event, r: &LeftOutEvent) -> bool {
    let (Some(tw), Some(tr)) = (w.thread, r.event.thread) else { return false };
    // An asynchronous write is in no program order before an arrive (D257).
    let in_po = w.async_op().is_none();
    if tw == tr || !in_po || p.c11.is_some() || requirement(p, w, &r.event, false) != ProxyRequirement::Nothing {
        return false;
    }
    r.after_waits.iter().any(|wait| must_match(p, wait, tw) && arrives_after(p, w, &wait.key))
}

/// Every path of `w`'s thread that performs `w` performs after it an arrive
/// at `key` that orders memory (not `barrier.cluster.arrive.relaxed`).
fn arrives_after(p: &Program, w: &Event, key: &SyncKey) -> bool {
    let Some(tw) = w.thread else { return false };
    let arrive = |e: &EventId| {
        p.events[*e].sync().is_some_and(|s| s.role == SyncRole::Arrive && s.orders_memory && s.key == *key)
    };
    p.threads[tw].traces.iter().all(|&t| {
        let events = &p.traces[t].events;
        match events.iter().position(|&e| e == w.id) {
            Some(i) => events[i + 1..].iter().any(arrive),
            None => true,
        }
    })
}

/// Every execution that performs `wait` matches it with the arrival of
/// thread `tw` (another thread) at its instance whenever `tw` performs one
/// (the matching rule, paper-notes/barriers.md): a corpus-form wait takes every
/// arrival; a cluster wait one of each listed thread; a wait for `n` threads
/// at least `n - 1` others, which is every other thread of the CTA when `n`
/// is at least the CTA's size (only its threads arrive at a CTA barrier).
fn must_match(p: &Program, wait: &Sync, tw: usize) -> bool {
    match &wait.expected {
        Expected::Arrivals => true,
        Expected::Threads(threads) => threads.contains(&tw),
        Expected::Count(n) => {
            matches!(wait.key.kind, SyncKind::CtaBarrier | SyncKind::CtaReduction(_))
                && p.threads[tw].placement.cta == wait.key.unit
                && *n >= p.cta_sizes[wait.key.unit]
        }
    }
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

#[cfg(test)]
mod tests {
    use super::left_out_is_exact;
    use crate::program::{build_leaving_out_spins, BuildOptions};

    /// P0 runs `p0` then raises `f` with `st.release`; P1 runs `p1` then spins
    /// on `f` with `ld.acquire`; P2 (if given) runs `p2`. Thread t is in CTA
    /// `ctas[t]`. Do the polls the builder leaves out (D113) possibly race?
    fn left_out_polls_may_race(p0: &[&str], p1: &[&str], p2: Option<&[&str]>, ctas: &[u32]) -> bool {
        let spin = ["W:", "ld.acquire.cta.u32 r1, [f]", "setp.ne.u32 p1, r1, 1", "@p1 bra W"];
        let mut cols: Vec<Vec<&str>> = vec![p0.to_vec(), p1.iter().chain(&spin).copied().collect()];
        cols[0].push("st.release.cta.u32 [f], 1");
        cols.extend(p2.map(|p| p.to_vec()));
        let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
        let cell = |c: &Vec<&str>, i: usize| c.get(i).copied().unwrap_or("").to_string();
        let header: Vec<String> = (0..cols.len()).map(|t| format!("P{}@cta {},gpu 0", t, ctas[t])).collect();
        let mut text = format!("PTX t\n{{ f = 5; }}\n {} ;\n", header.join(" | "));
        for i in 0..rows {
            text += &format!(" {} ;\n", cols.iter().map(|c| cell(c, i)).collect::<Vec<_>>().join(" | "));
        }
        text += "exists (1:r1 == 1)\n";
        let ast = crate::parse::parse_litmus(&text).unwrap_or_else(|e| panic!("{}\n{}", e, text));
        let (p, left_out) = build_leaving_out_spins(&ast, &BuildOptions::default()).expect("builds");
        let left_out = left_out.expect("every read location is in the program");
        assert!(!left_out.is_empty(), "a failed poll is left out:\n{}", text);
        !left_out_is_exact(&p, &left_out)
    }

    /// D179: P0's plain reset of `f` precedes every left-out poll in causality
    /// order when P0 arrives at a barrier instance after it and P1 waits there
    /// before polling, the wait being matched with P0's arrival in every
    /// execution: `bar.sync 0` (the whole CTA, of two or three threads) and
    /// the corpus form `bar.cta.sync 0` (every arrival).
    #[test]
    fn a_reset_before_a_common_barrier_is_ordered_before_the_polls() {
        let reset = ["st.u32 [f], 0", "bar.sync 0"];
        assert!(!left_out_polls_may_race(&reset, &["bar.sync 0"], None, &[0, 0]));
        let corpus = ["st.u32 [f], 0", "bar.cta.sync 0"];
        assert!(!left_out_polls_may_race(&corpus, &["bar.cta.sync 0"], None, &[0, 0]));
        assert!(!left_out_polls_may_race(&reset, &["bar.sync 0"], Some(&["bar.sync 0"]), &[0, 0, 0]));
    }

    /// What the proof must not accept: no barrier; the reset after P0's
    /// arrival; a wait that may be matched with another thread's arrival
    /// instead of P0's (`bar.sync 0, 2` in a CTA of three); the poller in
    /// another CTA (another barrier).
    #[test]
    fn a_reset_no_barrier_orders_may_race() {
        assert!(left_out_polls_may_race(&["st.u32 [f], 0"], &["mov.u32 r2, 0"], None, &[0, 0]));
        let late = ["bar.sync 0", "st.u32 [f], 0"];
        assert!(left_out_polls_may_race(&late, &["bar.sync 0"], None, &[0, 0]));
        let two = ["st.u32 [f], 0", "bar.sync 0, 2"];
        assert!(left_out_polls_may_race(&two, &["bar.sync 0, 2"], Some(&["bar.sync 0, 2"]), &[0, 0, 0]));
        let reset = ["st.u32 [f], 0", "bar.sync 0"];
        assert!(left_out_polls_may_race(&reset, &["bar.sync 0"], None, &[0, 1]));
    }
}
