//! The nodes the compiled rows range over and the primitives on them.
//!
//! Nodes are the events of the model's view of the *whole* program (every
//! trace of every thread: the solver chooses one), numbered as the view
//! numbers them (model `ptx-alloy` splits each read-modify-write into a read
//! node and a write node, D50), followed by the barrier hub nodes (D63).
//! A static pair holds in an execution when both its nodes are performed, so a
//! static pair becomes the literal "both performed" (`guard`); every literal
//! relation of the encoding (rf, co, sc, barrier matching) already implies it.

use super::val::LRel;
use crate::model::prims;
use crate::model::rel::Rel;
use crate::model::view::View;
use crate::program::{EventId, Program};
use crate::sat::encode::Encoding;
use crate::sat::formula::B;
use rustc_hash::FxHashMap as HashMap;

pub(crate) struct Nodes<'p> {
    pub view: View<'p>,
    /// View nodes (`0..nv`), then hubs (`nv..n`).
    pub(crate) nv: usize,
    pub n: usize,
    /// Per node: it is performed.
    pub exec: Vec<B>,
    /// Per node: the program event it is part of (`None` for a hub).
    pub event: Vec<Option<EventId>>,
    guards: HashMap<(usize, usize), B>,
}

impl<'p> Nodes<'p> {
    pub fn new(enc: &Encoding<'p>, split: bool) -> Nodes<'p> {
        let p = enc.p;
        let all: Vec<EventId> = (0..p.events.len()).collect();
        let traces: Vec<usize> = (0..p.traces.len()).collect();
        let view = View::new(p, &traces, &all, split);
        let nv = view.n();
        let n = nv + enc.sync.hubs.len();
        let mut exec: Vec<B> = (0..nv).map(|i| enc.exec(view.events[i].event.id)).collect();
        exec.resize(n, B::T);
        let mut event: Vec<Option<EventId>> = (0..nv).map(|i| Some(view.events[i].event.id)).collect();
        event.resize(n, None);
        Nodes { view, nv, n, exec, event, guards: HashMap::default() }
    }

    /// The node of event `e` acting as a writer (`write`) or as a reader.
    pub fn of(&self, p: &Program, e: EventId, write: bool) -> usize {
        if e >= p.events.len() {
            return self.nv + (e - p.events.len()); // a hub
        }
        self.view.part_of(e, write)
    }

    /// Two nodes may both be performed in one execution.
    pub(crate) fn compatible(&self, p: &Program, a: usize, b: usize) -> bool {
        match (self.event[a], self.event[b]) {
            (Some(x), Some(y)) => p.compatible(x, y),
            _ => true,
        }
    }

    /// "Both performed", the literal of a static pair.
    pub fn guard(&mut self, enc: &mut Encoding, a: usize, b: usize) -> B {
        let (x, y) = (self.exec[a], self.exec[b]);
        if x == B::T || x == y {
            return y;
        }
        if y == B::T {
            return x;
        }
        let key = (a.min(b), a.max(b));
        if let Some(&g) = self.guards.get(&key) {
            return g;
        }
        let g = enc.f.and(&[x, y]);
        self.guards.insert(key, g);
        g
    }

    /// A static relation of the view, widened to the hub nodes (which it never relates).
    fn widen(&self, r: Rel) -> Rel {
        if self.n == self.nv {
            return r;
        }
        Rel::from_pairs(self.n, r.pairs())
    }

    /// A static primitive (`prims::STATIC`) by name: over the view of the
    /// whole program, program order relates only operations on a common path.
    pub(crate) fn static_prim(&self, name: &str) -> Option<Rel> {
        Some(self.widen(prims::relation(&self.view, name)?))
    }

    /// Whether node `i` is in the named event set (hubs are in none).
    pub(crate) fn in_set(&self, name: &str, i: usize) -> bool {
        i < self.nv && prims::in_set(&self.view, name, i).unwrap_or(false)
    }

    /// Program order restricted to `keep` (a static relation inside `po`), as
    /// its immediate steps on each trace, each guarded by the trace: the same
    /// transitive closure as every pair, with n-1 edges per path instead of
    /// n^2 (D61).
    pub(crate) fn po_steps(&mut self, enc: &mut Encoding, keep: &Rel) -> Vec<(usize, usize, B)> {
        let p = enc.p;
        let mut lits: HashMap<(usize, usize), Vec<B>> = HashMap::default();
        for tr in &p.traces {
            let mut nodes: Vec<usize> = Vec::new();
            for &e in &tr.events {
                let (r, w) = (self.view.part_of(e, false), self.view.part_of(e, true));
                nodes.push(r);
                if w != r {
                    nodes.push(w);
                }
            }
            for (i, &a) in nodes.iter().enumerate() {
                let mut later: Vec<usize> = Vec::new();
                for &b in &nodes[i + 1..] {
                    // b is an immediate step unless an earlier kept c leads to it.
                    if keep.has(a, b) && !later.iter().any(|&c| keep.has(c, b)) {
                        lits.entry((a, b)).or_default().push(enc.choices.trace[tr.id]);
                    }
                    if keep.has(a, b) {
                        later.push(b);
                    }
                }
            }
        }
        let mut out: Vec<(usize, usize, B)> = Vec::with_capacity(lits.len());
        let mut keys: Vec<(usize, usize)> = lits.keys().copied().collect();
        keys.sort();
        for k in keys {
            // On several paths: "both performed" implies the pair is in program order.
            let l = if lits[&k].len() == 1 { lits[&k][0] } else { self.guard(enc, k.0, k.1) };
            out.push((k.0, k.1, l));
        }
        out
    }

    /// An execution relation of the encoding (`prims::EXEC`) over nodes.
    pub(crate) fn exec_rel(&self, enc: &mut Encoding, name: &str) -> Option<LRel> {
        let p = enc.p;
        let mut out = LRel::default();
        let mut put = |pairs: &crate::sat::encode::Rel, src_w: bool, dst_w: bool| {
            for (&(a, b), &v) in pairs {
                out.insert(self.of(p, a, src_w), self.of(p, b, dst_w), v);
            }
        };
        match name {
            "rf" => put(&enc.choices.rf, true, false),
            "co" => put(&enc.choices.co, true, true),
            "sc" => put(&enc.choices.sc, false, false),
            "bar" => {
                // A hub's pairs synchronize through its node (D63).
                let hubbed = enc.hub_waits();
                let direct: crate::sat::encode::Rel =
                    enc.sync.sync_pairs.iter().filter(|(k, _)| !hubbed.contains(&k.1)).map(|(k, v)| (*k, *v)).collect();
                put(&direct, false, false);
                put(&enc.sync.hub_rel, false, false);
            }
            // A symbolic program (D185): a dependency holds when both events are
            // performed and its condition is 1.
            "dep" if p.symbolic.is_some() => {
                let local = prims::view_events_of(&self.view);
                let mut on: HashMap<(usize, usize), Vec<B>> = HashMap::default();
                for &(r, x, cond) in p.symbolic.as_ref().map_or(&[][..], |s| &s.deps[..]) {
                    let holds = [enc.exec(r), enc.exec(x), enc.term_is(cond, 1)];
                    let lit = enc.f.and(&holds);
                    for k in prims::dependency_nodes(&self.view, &local, r, x) {
                        on.entry(k).or_default().push(lit);
                    }
                }
                let mut keys: Vec<(usize, usize)> = on.keys().copied().collect();
                keys.sort();
                for k in keys {
                    let lits = on.remove(&k).unwrap_or_default();
                    out.insert(k.0, k.1, enc.f.or(&lits));
                }
            }
            // Merged events (D65): a dependency holds on the paths that have it.
            "dep" if p.guards.is_some() => {
                let mut on: HashMap<(usize, usize), Vec<B>> = HashMap::default();
                for (t, pairs) in prims::dependencies_by_trace(&self.view) {
                    for k in pairs {
                        let lits = on.entry(k).or_default();
                        if !lits.contains(&enc.choices.trace[t]) {
                            lits.push(enc.choices.trace[t]);
                        }
                    }
                }
                let mut keys: Vec<(usize, usize)> = on.keys().copied().collect();
                keys.sort();
                for k in keys {
                    let lits = on.remove(&k).unwrap_or_default();
                    out.insert(k.0, k.1, enc.f.or(&lits));
                }
            }
            _ => return None,
        }
        Some(out)
    }
}
