//! Thread symmetry (issue 14, decision D70). Threads with the same code, the
//! same place relative to every other thread (CTA, cluster, GPU: ISA 8.5, the
//! only thing scopes see of a placement) and a condition, filter and
//! `locations` list that swapping them leaves unchanged are interchangeable:
//! renaming them maps every allowed execution (8.10: the axioms only see events'
//! operations, locations, values and scope relations) onto an allowed execution
//! with the same verdict. The verdict and listing queries may then look only at
//! executions whose symmetric threads come "sorted", the listing adding each
//! found state's orbit; `paper-notes/encoding.md` ("Symmetry") gives the argument.

use super::encode::Encoding;
use super::formula::B;
use crate::ast::{Observable, Prop, Term};
use crate::outcome::{Execution, State};
use crate::program::{EventId, Program, RegValue};
use std::collections::{BTreeMap, BTreeSet};

mod symbolic;
pub use symbolic::swap_symbolic;

/// Classes of interchangeable threads (each sorted, at least two threads),
/// sorted by their first thread.
pub fn classes(p: &Program) -> Vec<Vec<usize>> {
    // Same code first (a cheap key), then the pairwise checks against each
    // class's first thread: if (a b) and (a c) are symmetries so is (b c), so
    // one representative decides membership.
    let mut by_code: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    // A symbolic thread is renamed only with choices of its own (D192).
    let private = p.symbolic.as_deref().map(|f| symbolic::private_threads(p, f));
    for t in 0..p.threads.len() {
        if private.as_ref().is_some_and(|x| !x[t]) {
            continue;
        }
        if let Some(sig) = signature(p, t) {
            by_code.entry(sig).or_default().push(t);
        }
    }
    let mut out = Vec::new();
    for group in by_code.into_values() {
        let mut open: Vec<Vec<usize>> = Vec::new();
        for t in group {
            match open.iter_mut().find(|c| swappable(p, c[0], t)) {
                Some(c) => c.push(t),
                None => open.push(vec![t]),
            }
        }
        out.extend(open.into_iter().filter(|c| c.len() > 1));
    }
    out.sort();
    out
}

/// `classes` of the builder's program `p`, kept only where the merged program
/// `q` (D65) has the same code for the class's threads too (it has when the
/// merge treats equal threads alike; checked, since the symmetry-breaking
/// constraints are put on `q`'s events).
pub fn classes_merged(p: &Program, q: &Program) -> Vec<Vec<usize>> {
    let classes = classes(p);
    if std::ptr::eq(p, q) {
        return classes;
    }
    let mut out = Vec::new();
    for c in classes {
        let mut by_code: BTreeMap<Option<String>, Vec<usize>> = BTreeMap::new();
        for &t in &c {
            by_code.entry(signature(q, t)).or_default().push(t);
        }
        out.extend(by_code.into_iter().filter(|(k, v)| k.is_some() && v.len() > 1).map(|x| x.1));
    }
    out.sort();
    out
}

/// The thread's code as the program built it, with event and trace ids made
/// local (positions in the thread): equal signatures mean the two threads'
/// events, paths, register values and dependencies correspond one to one,
/// and for a symbolic program the terms of their facts too (D192).
/// `None` for a thread with no events, or whose symbolic facts mention
/// another thread's events.
fn signature(p: &Program, t: usize) -> Option<String> {
    let events = thread_events(p, t);
    if events.is_empty() {
        return None;
    }
    let traces = &p.threads[t].traces;
    let local_event: std::collections::HashMap<EventId, usize> =
        events.iter().enumerate().map(|(i, &e)| (e, i)).collect();
    let local_trace: std::collections::HashMap<usize, usize> =
        traces.iter().enumerate().map(|(i, &q)| (q, i)).collect();
    let ev = |e: EventId| local_event.get(&e).copied().unwrap_or(usize::MAX);
    let tr = |x: usize| local_trace.get(&x).copied().unwrap_or(usize::MAX);
    let mut s = String::new();
    // An event's paths are the traces whose lines below list it.
    for &e in &events {
        let x = &p.events[e];
        s.push_str(&format!("e{} {:?}\n", x.po, x.kind));
        // A merged program's per-path values (D65), paths made local.
        for a in p.assumptions(e).unwrap_or(&[]) {
            let on: Vec<usize> = a.paths.iter().map(|&q| tr(q)).collect();
            s.push_str(&format!("  assume {:?} {:?} {:?}\n", on, a.value, a.not));
        }
        for (v, paths) in p.path_writes(e).unwrap_or(&[]) {
            let on: Vec<usize> = paths.iter().map(|&q| tr(q)).collect();
            s.push_str(&format!("  writes {} {:?}\n", v, on));
        }
    }
    for &q in traces {
        let trace = &p.traces[q];
        let evs: Vec<usize> = trace.events.iter().map(|&e| ev(e)).collect();
        let deps: Vec<(usize, usize)> = trace.deps.iter().map(|&(a, b)| (ev(a), ev(b))).collect();
        let regs: Vec<(String, String)> = trace
            .regs
            .iter()
            .map(|(r, v)| match v {
                RegValue::Const(c) => (r.clone(), format!("={}", c)),
                RegValue::ReadOf(e) => (r.clone(), format!("@{}", ev(*e))),
            })
            .collect();
        s.push_str(&format!("t {:?} {:?} {:?}\n", evs, deps, regs));
    }
    if let Some(facts) = p.symbolic.as_deref() {
        s.push_str(&symbolic::thread_terms(facts, t, &events)?.text);
    }
    Some(s)
}

/// The thread's events in id order (the order the build created them).
pub(crate) fn thread_events(p: &Program, t: usize) -> Vec<EventId> {
    p.events.iter().filter(|e| e.thread == Some(t)).map(|e| e.id).collect()
}

/// Is the transposition of threads `a` and `b` (of equal signature) a symmetry:
/// placement relations to every thread kept, condition, filter and observables
/// unchanged?
fn swappable(p: &Program, a: usize, b: usize) -> bool {
    let (pa, pb) = (p.threads[a].placement, p.threads[b].placement);
    let same = |x: &crate::program::Placement, y: &crate::program::Placement| {
        (x.cta == y.cta, x.cluster == y.cluster, x.gpu == y.gpu)
    };
    let placed =
        p.threads.iter().filter(|k| k.id != a && k.id != b).all(|k| same(&pa, &k.placement) == same(&pb, &k.placement));
    let swap = |t: usize| {
        if t == a {
            b
        } else if t == b {
            a
        } else {
            t
        }
    };
    let invariant = |prop: &Prop| canon(prop, &|t| t) == canon(prop, &swap);
    let mut obs: Vec<String> = p.observables.iter().map(|o| obs_text(o, &|t| t)).collect();
    let mut swapped: Vec<String> = p.observables.iter().map(|o| obs_text(o, &swap)).collect();
    obs.sort();
    swapped.sort();
    placed && invariant(&p.condition) && p.filter.as_ref().is_none_or(invariant) && obs == swapped
}

fn obs_text(o: &Observable, rename: &dyn Fn(usize) -> usize) -> String {
    match o {
        Observable::Reg { thread, reg } => format!("P{}:{}", rename(*thread), reg),
        Observable::Loc(l) => l.to_string(),
    }
}

/// A canonical text of a proposition with threads renamed: conjunctions and
/// disjunctions flattened and sorted, `==`/`!=` operands sorted. Equal texts
/// mean logically equivalent propositions (the converse need not hold: a
/// missed symmetry only costs speed).
fn canon(prop: &Prop, rename: &dyn Fn(usize) -> usize) -> String {
    let term = |t: &Term| match t {
        Term::Obs(o, _) => obs_text(o, rename),
        Term::Const(c) => format!("#{}", c),
    };
    let sorted = |op: &str, x: &Term, y: &Term| {
        let mut v = [term(x), term(y)];
        v.sort();
        format!("{}({},{})", op, v[0], v[1])
    };
    match prop {
        Prop::True => "T".into(),
        Prop::False => "F".into(),
        Prop::Eq(x, y) => sorted("eq", x, y),
        Prop::Ne(x, y) => sorted("ne", x, y),
        Prop::Lt(x, y) => format!("lt({},{})", term(x), term(y)),
        Prop::Le(x, y) => format!("le({},{})", term(x), term(y)),
        Prop::Not(x) => format!("not({})", canon(x, rename)),
        Prop::Implies(x, y) => format!("imp({},{})", canon(x, rename), canon(y, rename)),
        Prop::And(..) | Prop::Or(..) => {
            let and = matches!(prop, Prop::And(..));
            let mut parts = Vec::new();
            flatten(prop, and, &mut parts);
            let mut texts: Vec<String> = parts.iter().map(|q| canon(q, rename)).collect();
            texts.sort();
            texts.dedup();
            format!("{}[{}]", if and { "and" } else { "or" }, texts.join(","))
        }
    }
}

fn flatten<'a>(prop: &'a Prop, and: bool, out: &mut Vec<&'a Prop>) {
    match prop {
        Prop::And(x, y) if and => {
            flatten(x, and, out);
            flatten(y, and, out);
        }
        Prop::Or(x, y) if !and => {
            flatten(x, and, out);
            flatten(y, and, out);
        }
        _ => out.push(prop),
    }
}

/// Add the symmetry-breaking constraints of `classes`, each clause guarded by a
/// fresh literal (assumed by the verdict and listing queries, not by the race
/// and deadlock ones). `None` when no class
/// gives a constraint.
pub fn break_symmetry(enc: &mut Encoding, classes: &[Vec<usize>]) -> Option<B> {
    let guard = enc.f.fresh();
    let mut any = false;
    for class in classes {
        let events: Vec<Vec<EventId>> = class.iter().map(|&t| thread_events(enc.p, t)).collect();
        any |= match first_write(enc.p, &events[0]) {
            Some(q) => order_writes(enc, guard, &events, q),
            None => order_reads(enc, guard, &events),
        };
    }
    any.then_some(guard)
}

/// Position (in the thread's events) of the first write, if any.
fn first_write(p: &Program, events: &[EventId]) -> Option<usize> {
    events.iter().position(|&e| p.events[e].write_loc().is_some())
}

/// Threads that write: the corresponding writes W_t at position `q` appear in
/// coherence order in thread order, i.e. never W_{t_(k+1)} co-before W_{t_k}.
fn order_writes(enc: &mut Encoding, guard: B, events: &[Vec<EventId>], q: usize) -> bool {
    let mut any = false;
    for pair in events.windows(2) {
        let later_first = enc.choices.co.get(&(pair[1][q], pair[0][q])).copied().unwrap_or(B::F);
        if later_first != B::F {
            enc.f.clause(&[!guard, !later_first]);
            any = true;
        }
    }
    any
}

/// Threads that only read: their reads' sources are events of other threads,
/// which a swap leaves in place, so the reads-from choices of a thread (its
/// reads in program order, each a one-hot vector over the same candidate
/// writes) form a key; keys are non-increasing (lexicographically) in thread
/// order.
fn order_reads(enc: &mut Encoding, guard: B, events: &[Vec<EventId>]) -> bool {
    let p = enc.p;
    let key = |enc: &Encoding, evs: &[EventId]| -> Option<(Vec<EventId>, Vec<B>)> {
        let mut sources = Vec::new();
        let mut lits = Vec::new();
        for &r in evs.iter().filter(|&&e| p.events[e].read_loc().is_some()) {
            for &w in enc.choices.rf_cands.get(&r).map(|v| v.as_slice()).unwrap_or(&[]) {
                sources.push(w);
                lits.push(enc.choices.rf.get(&(w, r)).copied()?);
            }
        }
        Some((sources, lits))
    };
    let mut any = false;
    for pair in events.windows(2) {
        let (Some((sa, xa)), Some((sb, xb))) = (key(enc, &pair[0]), key(enc, &pair[1])) else { continue };
        // Defensive: the candidate writes must be the same events for the
        // keys to be comparable (they are when the threads write nothing).
        if sa != sb || xa.is_empty() || sa.iter().any(|&w| events.iter().any(|evs| evs.contains(&w))) {
            continue;
        }
        lex_ge(enc, guard, &xa, &xb);
        any = true;
    }
    any
}

/// Under `guard`: boolean vector `x` >= `y` lexicographically (true > false).
/// `eq` is "equal so far"; it is only ever forced true, which is all the
/// comparison needs (a solver setting it true needlessly only restricts itself).
fn lex_ge(enc: &mut Encoding, guard: B, x: &[B], y: &[B]) {
    let mut eq = guard;
    for (&xi, &yi) in x.iter().zip(y) {
        // Equal so far: not (x_i = 0 and y_i = 1).
        enc.f.clause(&[!eq, xi, !yi]);
        let next = enc.f.fresh();
        enc.f.clause(&[!eq, !xi, !yi, next]);
        enc.f.clause(&[!eq, xi, yi, next]);
        eq = next;
    }
}

/// Thread classes and whether they are barrier-free, for `PTXL_DEBUG`.
pub(crate) fn describe(p: &Program, classes: &[Vec<usize>]) -> String {
    let has_barrier = |t: usize| thread_events(p, t).iter().any(|&e| p.events[e].is_sync_arrive());
    let parts: Vec<String> =
        classes.iter().map(|c| format!("{:?}{}", c, if has_barrier(c[0]) { " (barriers)" } else { "" })).collect();
    format!("symmetric thread classes: {}", if parts.is_empty() { "none".to_string() } else { parts.join(" ") })
}

/// The execution with threads `a` and `b` (of one class) swapped: each event
/// of one thread becomes the corresponding event of the other.
pub fn swap(p: &Program, x: &Execution, a: usize, b: usize) -> Execution {
    let (ea, eb) = (thread_events(p, a), thread_events(p, b));
    let mut map: Vec<EventId> = (0..p.events.len()).collect();
    for (&u, &v) in ea.iter().zip(&eb) {
        map[u] = v;
        map[v] = u;
    }
    let (ta, tb) = (&p.threads[a].traces, &p.threads[b].traces);
    let trace = |t: usize| {
        ta.iter()
            .position(|&q| q == t)
            .map(|i| tb[i])
            .or_else(|| tb.iter().position(|&q| q == t).map(|i| ta[i]))
            .unwrap_or(t)
    };
    let mut traces: Vec<usize> = x.traces.iter().map(|&t| trace(t)).collect();
    traces.swap(a, b);
    let pairs = |s: &BTreeSet<(EventId, EventId)>| s.iter().map(|&(u, v)| (map[u], map[v])).collect();
    Execution {
        traces,
        rf: x.rf.iter().map(|(&r, &w)| (map[r], map[w])).collect(),
        co: pairs(&x.co),
        sc: pairs(&x.sc),
        barrier_sync: pairs(&x.barrier_sync),
        finals: x.finals.iter().map(|(&l, &w)| (l, map[w])).collect(),
    }
}

/// The distinct final states of the executions `x` maps to under every
/// permutation of the classes, each with one such execution, `x`'s own first;
/// at most `limit` of them (the closure of its state under swapping adjacent
/// threads of a class, which generate every permutation).
pub(crate) fn orbit(p: &Program, classes: &[Vec<usize>], x: Execution, limit: usize) -> Vec<(State, Execution)> {
    let found = closure(classes, x, limit, |x, a, b| Ok(swap(p, x, a, b)), |x| Ok((x.state(p), x.clone())));
    found.unwrap_or_default()
}

/// [`orbit`] over any form `T` of an execution: `swap` renames two threads of
/// a class, `show` gives a form's final state and the execution listed with
/// it. The images are kept in `T` form, as later swaps start from them.
pub(crate) fn closure<T>(
    classes: &[Vec<usize>],
    x: T,
    limit: usize,
    swap: impl Fn(&T, usize, usize) -> crate::error::Result<T>,
    mut show: impl FnMut(&T) -> crate::error::Result<(State, Execution)>,
) -> crate::error::Result<Vec<(State, Execution)>> {
    let first = show(&x)?;
    let mut seen: BTreeSet<State> = BTreeSet::new();
    seen.insert(first.0.clone());
    let mut out = vec![first];
    let mut forms = vec![x];
    let mut next = 0;
    while next < forms.len() && out.len() < limit {
        for class in classes {
            for pair in class.windows(2) {
                let y = swap(&forms[next], pair[0], pair[1])?;
                let (s, shown) = show(&y)?;
                if out.len() < limit && seen.insert(s.clone()) {
                    out.push((s, shown));
                    forms.push(y);
                }
            }
        }
        next += 1;
    }
    Ok(out)
}
