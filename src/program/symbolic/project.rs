//! From an execution of a symbolic program back to an ordinary one (D186):
//! each thread's performed events become one concrete path, with the values
//! the execution gave its terms as the constants the path builder would have
//! written (write values, operands, the value each read returns, final
//! registers) and the dependencies whose condition held. Every report, the
//! reference engine's re-check and the explanations read that program, as
//! they read `merge::Merged::concrete`'s for a merged one.

use crate::outcome::Execution;
use crate::program::{EventId, EventKind, Program, RegValue, Trace, TraceId};
use std::collections::HashMap;

/// What a model says of one execution of a symbolic program beyond its
/// relations (`sat::encode::symbolic`).
#[derive(Clone, Debug, Default)]
pub struct SymModel {
    /// Per event: it is performed (its guard is 1).
    pub performed: Vec<bool>,
    /// Per term: its value (`None`: it has none in this execution).
    pub terms: Vec<Option<i64>>,
    /// Per event: the value it writes (`None` for events that write nothing
    /// or are not performed).
    pub written: Vec<Option<i64>>,
}

/// The concrete programs of many executions of one symbolic program, gathered
/// in one ordinary program: each distinct projected path of a thread is one
/// of its traces, with events of its own, so every execution projected so
/// far is an execution of `program` (the listing's witnesses share it).
pub struct Projection {
    pub program: Program,
    /// Per (thread, the path's content): its trace and its events, by the
    /// symbolic program's event ids.
    seen: HashMap<(usize, PathKey), (TraceId, HashMap<EventId, EventId>)>,
}

impl Projection {
    /// The projection of no execution yet: the symbolic program's initial
    /// writes and everything that is not a thread's path.
    pub fn new(q: &Program) -> Projection {
        let mut program = q.clone();
        // Initial writes keep their place: the first ids.
        program.events = q.init_events.iter().enumerate().map(|(i, &e)| renumbered(q, e, i)).collect();
        program.init_events = (0..q.init_events.len()).collect();
        program.traces.clear();
        program.proxy_fences.clear();
        for th in &mut program.threads {
            th.traces.clear();
        }
        program.symbolic = None;
        program.guards = None;
        program.projected = true;
        Projection { program, seen: HashMap::new() }
    }

    /// The execution `x` of symbolic program `q` (whose term values and
    /// performed events `m` gives) as an execution of `self.program`.
    pub fn add(&mut self, q: &Program, x: &Execution, m: &SymModel) -> Execution {
        let mut to: HashMap<EventId, EventId> = q.init_events.iter().enumerate().map(|(i, &e)| (e, i)).collect();
        let mut traces = Vec::with_capacity(q.threads.len());
        for th in &q.threads {
            let (t, map) = self.path(q, th.id, x, m);
            traces.push(t);
            to.extend(map);
        }
        let one = |e: &EventId| to.get(e).copied();
        let pair = |&(a, b): &(EventId, EventId)| Some((one(&a)?, one(&b)?));
        Execution {
            traces,
            rf: x.rf.iter().filter_map(|(r, w)| Some((one(r)?, one(w)?))).collect(),
            co: x.co.iter().filter_map(pair).collect(),
            sc: x.sc.iter().filter_map(pair).collect(),
            barrier_sync: x.barrier_sync.iter().filter_map(pair).collect(),
            finals: x.finals.iter().filter_map(|(&l, w)| Some((l, one(w)?))).collect(),
        }
    }

    /// Thread `thread`'s path in execution `x`: a trace seen before with the
    /// same content, or a new one.
    fn path(
        &mut self,
        q: &Program,
        thread: usize,
        x: &Execution,
        m: &SymModel,
    ) -> (TraceId, HashMap<EventId, EventId>) {
        let Some(facts) = q.symbolic.as_deref() else { return (0, HashMap::new()) };
        let sym_trace = &q.traces[q.threads[thread].traces[0]];
        let performed: Vec<EventId> = sym_trace.events.iter().copied().filter(|&e| m.performed[e]).collect();
        let mut events = Vec::with_capacity(performed.len());
        for &e in &performed {
            let mut ev = q.events[e].clone();
            if let EventKind::Mem(a) = &mut ev.kind {
                if a.reads {
                    // The value read: what the write it reads from writes.
                    a.read_value = x.rf.get(&e).and_then(|&w| m.written[w]);
                    a.read_not.clear();
                }
                if let Some(&t) = facts.write.get(&e) {
                    a.write_value = m.terms[t].unwrap_or(a.write_value);
                }
                if let (Some(args), Some(op)) = (facts.operands.get(&e), a.rmw.as_mut()) {
                    op.operands = args.iter().map(|&t| m.terms[t].unwrap_or(0)).collect();
                }
            }
            events.push(ev);
        }
        let regs: std::collections::BTreeMap<String, RegValue> = facts.regs[thread]
            .iter()
            .filter_map(|(name, &t)| Some((name.clone(), RegValue::Const(m.terms[t]?))))
            .collect();
        let deps: Vec<(EventId, EventId)> = facts
            .deps
            .iter()
            .filter(|&&(r, e, c)| m.performed[r] && m.performed[e] && m.terms[c] == Some(1))
            .map(|&(r, e, _)| (r, e))
            .collect();
        let key = path_key(&performed, &events, &regs, &deps);
        if let Some((t, map)) = self.seen.get(&(thread, key.clone())) {
            return (*t, map.clone());
        }
        let t = self.program.traces.len();
        let mut map = HashMap::new();
        for (po, (&e, mut ev)) in performed.iter().zip(events).enumerate() {
            ev.id = self.program.events.len();
            (ev.trace, ev.paths, ev.po) = (Some(t), vec![t], po);
            if ev.is_proxy_fence() {
                self.program.proxy_fences.push(ev.id);
            }
            map.insert(e, ev.id);
            self.program.events.push(ev);
        }
        let deps = deps.iter().filter_map(|(r, e)| Some((*map.get(r)?, *map.get(e)?))).collect();
        let trace_events = performed.iter().map(|e| map[e]).collect();
        self.program.traces.push(Trace { id: t, thread, events: trace_events, regs, deps });
        self.program.threads[thread].traces.push(t);
        self.seen.insert((thread, key), (t, map.clone()));
        (t, map)
    }
}

/// Event `e` of `q` with id `id`.
/// What tells two paths of one thread apart: the events performed, what
/// each reads, writes and operates on (the rest of a path's event is its
/// symbolic event's), the final registers and the dependencies (D200: the
/// fields `path` sets, without printing every event).
type PathKey = (Vec<EventId>, Vec<(Option<i64>, i64, Option<Vec<i64>>)>, Vec<(String, i64)>, Vec<(EventId, EventId)>);

fn path_key(
    performed: &[EventId],
    events: &[crate::program::Event],
    regs: &std::collections::BTreeMap<String, RegValue>,
    deps: &[(EventId, EventId)],
) -> PathKey {
    let values = events
        .iter()
        .map(|e| match &e.kind {
            EventKind::Mem(a) => (a.read_value, a.write_value, a.rmw.as_ref().map(|op| op.operands.clone())),
            _ => (None, 0, None),
        })
        .collect();
    let regs = regs
        .iter()
        .map(|(name, v)| match v {
            RegValue::Const(c) => (name.clone(), *c),
            // Not made by `path` (its registers are constants); `@` is in no register's name.
            RegValue::ReadOf(e) => (format!("{}@", name), *e as i64),
        })
        .collect();
    (performed.to_vec(), values, regs, deps.to_vec())
}

fn renumbered(q: &Program, e: EventId, id: EventId) -> crate::program::Event {
    let mut ev = q.events[e].clone();
    ev.id = id;
    ev
}
