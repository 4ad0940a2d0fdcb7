//! Control flow as guards (issue 14, D65): one event per instruction instance.
//!
//! The builder gives each control-flow path of a thread its own events (paths
//! share only a common prefix), so a value-dependent branch inside a loop
//! multiplies events by paths. [`merge`] makes the program the SAT engine
//! encodes: the events of one thread that perform the same instruction
//! instance (D64) with the same *static* attributes (location, kind,
//! semantics, scope, proxy, size, RMW operation, barrier key) become one event
//! performed on the union of their paths. What still differs between those
//! paths (the value a read is assumed to return, the constant a plain write
//! writes) moves into [`PathFacts`], which the encoder turns into clauses
//! guarded by the trace literals (`sat::encode::values`). Dependencies stay per
//! trace (`Trace::deps`) and are guarded the same way (`sat::rows::nodes`).
//!
//! Why exact (paper-notes/encoding.md, "Control flow as guards"): a model picks
//! one path per thread; the merged events performed are exactly that path's
//! events, with its values, assumptions and dependencies, ordered by the
//! instance key, which is its program order. [`Merged::concrete`] maps them
//! back, so the self-check and every report see the builder's own events.

use super::{Event, EventId, EventKind, Program, RegValue, TraceId};
use crate::outcome::Execution;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What a merged read assumes on some of its paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    /// The paths (sorted) on which the read makes this assumption.
    pub paths: Vec<TraceId>,
    /// The value the read returns on these paths (`None`: any value).
    pub value: Option<i64>,
    /// Values it does not return on these paths.
    pub not: Vec<i64>,
}

impl Assumption {
    pub fn allows(&self, v: i64) -> bool {
        self.value.is_none_or(|x| x == v) && !self.not.contains(&v)
    }
}

/// Per-path facts of merged events whose paths disagree (empty for a program
/// straight from the builder).
#[derive(Clone, Debug, Default)]
pub struct PathFacts {
    /// Reads whose assumption differs between their paths: one entry per
    /// distinct assumption. The merged access itself assumes nothing.
    pub assume: BTreeMap<EventId, Vec<Assumption>>,
    /// Plain writes whose constant differs between their paths: each value
    /// with the paths (sorted) that write it.
    pub writes: BTreeMap<EventId, Vec<(i64, Vec<TraceId>)>>,
}

/// The merged program and the way back to the builder's events.
pub struct Merged {
    pub program: Program,
}

impl Merged {
    /// The execution `x` of the merged program as one of `orig`, the program
    /// it was merged from: each performed merged event becomes the builder's
    /// event it stands for on its thread's chosen trace (both list a trace's
    /// events in program order, one for one). Pairs of events not performed
    /// are dropped.
    pub fn concrete(&self, orig: &Program, x: &Execution) -> Execution {
        let mut to: HashMap<EventId, EventId> = orig.init_events.iter().map(|&i| (i, i)).collect();
        for &t in &x.traces {
            let (mine, theirs) = (&self.program.traces[t].events, &orig.traces[t].events);
            to.extend(mine.iter().copied().zip(theirs.iter().copied()));
        }
        let one = |e: &EventId| to.get(e).copied();
        let pair = |&(a, b): &(EventId, EventId)| Some((one(&a)?, one(&b)?));
        Execution {
            traces: x.traces.clone(),
            rf: x.rf.iter().filter_map(|(r, w)| Some((one(r)?, one(w)?))).collect(),
            co: x.co.iter().filter_map(pair).collect(),
            sc: x.sc.iter().filter_map(pair).collect(),
            barrier_sync: x.barrier_sync.iter().filter_map(pair).collect(),
            finals: x.finals.iter().filter_map(|(&l, w)| Some((l, one(w)?))).collect(),
        }
    }
}

/// The attributes two events must share to merge: everything but the values
/// that depend on the path (a read's assumption, a plain write's constant)
/// and the bookkeeping of the builder (ids, trace, position).
fn static_key(e: &Event) -> String {
    let mut kind = e.kind.clone();
    if let EventKind::Mem(a) = &mut kind {
        a.read_value = None;
        a.read_not.clear();
        if a.rmw.is_none() {
            a.write_value = 0;
        }
    }
    format!("{:?}|{:?}|{}", e.instance, kind, e.line)
}

/// The program with one event per (thread, instruction instance, static
/// attributes), without the traces in `gone` (`spin::redundant_traces`), or
/// `None` when that changes nothing.
pub fn merge(p: &Program, gone: &BTreeSet<TraceId>) -> Option<Merged> {
    // Threads with one path each share nothing: most tests stop here.
    if gone.is_empty() && p.threads.iter().all(|t| t.traces.len() < 2) {
        return None;
    }
    let ninit = p.init_events.len();
    if p.init_events.iter().enumerate().any(|(i, &e)| i != e) {
        return None; // the builder numbers initial writes first
    }
    let (id_of, members) = group_instances(p, gone)?;
    if members.len() == p.events.len() && gone.is_empty() {
        return None;
    }
    let mut q = without_traces(p, gone);
    let mut facts = PathFacts::default();
    let mut events: Vec<Event> = q.events[..ninit].to_vec();
    for (m, group) in members.iter().enumerate().skip(ninit) {
        events.push(merged_event(&q, m, group, &mut facts));
    }
    number_program_order(&mut events, ninit);
    let mut fences: Vec<EventId> =
        q.proxy_fences.iter().filter(|&&e| !q.events[e].paths.is_empty()).map(|&e| id_of[e]).collect();
    fences.sort();
    fences.dedup();
    for tr in &mut q.traces {
        tr.events = tr.events.iter().map(|&e| id_of[e]).collect();
        tr.deps = tr.deps.iter().map(|&(a, b)| (id_of[a], id_of[b])).collect();
        for v in tr.regs.values_mut() {
            if let RegValue::ReadOf(r) = v {
                *r = id_of[*r];
            }
        }
    }
    // Each path performs an instance once, in key order (D64): checked, not assumed.
    let increasing = |tr: &super::Trace| tr.events.windows(2).all(|w| events[w[0]].po < events[w[1]].po);
    if !q.traces.iter().all(increasing) {
        return None;
    }
    q.events = events;
    q.proxy_fences = fences;
    q.guards = Some(Box::new(facts));
    Some(Merged { program: q })
}

/// The merged id of every event (initial writes keep theirs) and the members
/// of every merged event: the events on a kept path, grouped by thread and
/// `static_key`. `None` for an event of no thread past the initial writes.
fn group_instances(p: &Program, gone: &BTreeSet<TraceId>) -> Option<(Vec<EventId>, Vec<Vec<EventId>>)> {
    let ninit = p.init_events.len();
    let mut id_of: Vec<EventId> = (0..p.events.len()).collect();
    let mut members: Vec<Vec<EventId>> = (0..ninit).map(|i| vec![i]).collect();
    let mut by_key: HashMap<(usize, String), EventId> = HashMap::new();
    let kept = |e: &&Event| e.paths.iter().any(|t| !gone.contains(t));
    for e in p.events[ninit..].iter().filter(kept) {
        let t = e.thread?;
        let m = *by_key.entry((t, static_key(e))).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[m].push(e.id);
        id_of[e.id] = m;
    }
    Some((id_of, members))
}

/// `p` without the traces in `gone`: no thread chooses them, no event lies on
/// them, and they list nothing.
fn without_traces(p: &Program, gone: &BTreeSet<TraceId>) -> Program {
    let mut q = p.clone();
    for t in gone {
        let tr = &mut q.traces[*t];
        tr.events.clear();
        tr.deps.clear();
        tr.regs.clear();
    }
    for th in &mut q.threads {
        th.traces.retain(|t| !gone.contains(t));
    }
    for e in &mut q.events {
        e.paths.retain(|t| !gone.contains(t));
    }
    q
}

/// One merged event from its members (events of one thread and instance, equal
/// static attributes): the union of their paths, and their path-dependent
/// values in `facts` when they disagree.
fn merged_event(p: &Program, m: EventId, group: &[EventId], facts: &mut PathFacts) -> Event {
    let first = &p.events[group[0]];
    let mut e = first.clone();
    e.id = m;
    let mut paths: Vec<TraceId> = group.iter().flat_map(|&x| p.events[x].paths.iter().copied()).collect();
    paths.sort();
    paths.dedup();
    e.trace = paths.first().copied();
    e.paths = paths;
    let EventKind::Mem(acc) = &mut e.kind else { return e };
    let access = |x: EventId| p.events[x].access().cloned();
    let sorted = |x: EventId| p.events[x].paths.clone();
    if acc.reads {
        let mut assume: Vec<Assumption> = Vec::new();
        for &x in group {
            let a = access(x).unwrap_or_else(|| acc.clone());
            let (value, mut not) = (a.read_value, a.read_not.clone());
            not.sort();
            not.dedup();
            match assume.iter_mut().find(|s| s.value == value && s.not == not) {
                Some(s) => s.paths.extend(sorted(x)),
                None => assume.push(Assumption { paths: sorted(x), value, not }),
            }
        }
        if assume.len() > 1 {
            for s in &mut assume {
                s.paths.sort();
            }
            acc.read_value = None;
            acc.read_not.clear();
            facts.assume.insert(m, assume);
        }
    }
    if acc.writes && acc.rmw.is_none() {
        let mut writes: Vec<(i64, Vec<TraceId>)> = Vec::new();
        for &x in group {
            let v = access(x).map_or(acc.write_value, |a| a.write_value);
            match writes.iter_mut().find(|w| w.0 == v) {
                Some(w) => w.1.extend(sorted(x)),
                None => writes.push((v, sorted(x))),
            }
        }
        if writes.len() > 1 {
            for w in &mut writes {
                w.1.sort();
            }
            writes.sort();
            facts.writes.insert(m, writes);
        }
    }
    e
}

/// Program order of merged events is the order of their instance keys, which
/// grows along every path (D64): `po` becomes the key's rank in its thread
/// (events of one instance on different paths share a rank: never both performed).
fn number_program_order(events: &mut [Event], ninit: usize) {
    let mut keys: BTreeMap<usize, Vec<super::Instance>> = BTreeMap::new();
    for e in &events[ninit..] {
        if let (Some(t), Some(i)) = (e.thread, e.instance) {
            keys.entry(t).or_default().push(i);
        }
    }
    for k in keys.values_mut() {
        k.sort();
        k.dedup();
    }
    for e in &mut events[ninit..] {
        if let (Some(t), Some(i)) = (e.thread, e.instance) {
            e.po = keys[&t].binary_search(&i).unwrap_or(0);
        }
    }
}

impl Program {
    /// Read `r` may return `v` on some path: its own assumption and, when it was
    /// merged, that of one of its paths.
    pub fn may_read(&self, r: EventId, v: i64) -> bool {
        let own = self.events[r].access().is_none_or(|a| a.allows(v));
        own && self.assumptions(r).is_none_or(|s| s.iter().any(|x| x.allows(v)))
    }

    /// The per-path assumptions of a merged read (`None`: the access's own holds on every path).
    pub fn assumptions(&self, r: EventId) -> Option<&[Assumption]> {
        self.guards.as_ref()?.assume.get(&r).map(|v| v.as_slice())
    }

    /// The per-path constants of a merged plain write (`None`: its own `write_value`).
    pub fn path_writes(&self, w: EventId) -> Option<&[(i64, Vec<TraceId>)]> {
        self.guards.as_ref()?.writes.get(&w).map(|v| v.as_slice())
    }
}
