//! The PTX model as clauses. Choices of the execution (trace per thread, rf, co,
//! Fence-SC order, barrier matching) are free variables; derived relations (obs,
//! sync, base causality, causality) are variables forced by Horn clauses from
//! their definitions. Every axiom only ever forbids *more* when a derived
//! relation grows, so the solver never gains by making one larger than its
//! least fixpoint: satisfiability is exact (paper-notes/encoding.md).

use super::formula::{Formula, B};
use crate::ast::FenceSem;
use crate::error::Result;
use crate::model::patterns::{acquire_patterns, release_patterns};
use crate::model::proxy::{fillings, requirement, ProxyRequirement};
use crate::model::strong::morally_strong;
use crate::model::{Axiom, Model};
use crate::program::{EventId, EventKind, Expected, LocId, Program};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;

pub type Rel = HashMap<(EventId, EventId), B>;

pub struct Encoding<'p> {
    pub p: &'p Program,
    pub f: Formula,
    /// One literal per trace: this trace is the thread's path.
    pub trace: Vec<B>,
    /// Per event: it is performed (OR of the literals of the traces it lies on).
    pub executed: Vec<B>,
    pub rf: Rel,
    pub co: Rel,
    pub fr: Rel,
    pub sc: Rel,
    pub bar_sync: Rel,
    pub cluster_sync: Rel,
    pub obs: Rel,
    pub sw: Rel,
    pub cb: Rel,
    pub cause: Rel,
    /// Candidate final write per location.
    pub fin: BTreeMap<LocId, Vec<(EventId, B)>>,
    /// Activation literal of each axiom (assumed true to enforce it).
    pub act: BTreeMap<Axiom, B>,
    /// Activation of barrier progress (no deadlocked execution is a final state).
    pub act_progress: B,
    /// Observable value literals: (observable index, value) -> literal.
    pub obs_val: Vec<Vec<(i64, B)>>,
    /// Per-read rf candidates (writes).
    pub rf_cands: BTreeMap<EventId, Vec<EventId>>,
    /// Per write: the values it may write, each with the literal "it writes this
    /// value" (constant `T` for a constant write; forced along reads-from for a
    /// read-modify-write).
    pub wval: Vec<Vec<(i64, B)>>,
    /// Whether `obs_val` has been made exact (at most one value per observable;
    /// see `sat::prop`).
    pub exact_obs: bool,
    /// Every query assumes the six axioms (`sat::check`, not explanations):
    /// facts they imply may be built in as constants (D61).
    pub axioms_assumed: bool,
    /// Barrier instances routed through hub nodes (`sat::hubs`, D63) and their edges.
    pub hubs: Vec<super::hubs::Hub>,
    pub hub_rel: Rel,
    /// Activation literals of check rows beyond the six axioms (a model with
    /// more rows, compiled by `sat::rows`).
    pub extra_act: Vec<(String, B)>,
}

/// The hand-written derived relations and axioms (before issue 13) encode
/// model ptx only; `PTXL_ENCODER=hand` selects them, for comparison.
fn hand_encoder(model: &Model) -> bool {
    model.name == "ptx" && model.rows.len() == crate::model::ModelKind::Ptx.model().rows.len() && std::env::var("PTXL_ENCODER").is_ok_and(|v| v == "hand")
}

fn get(r: &Rel, a: EventId, b: EventId) -> B {
    r.get(&(a, b)).copied().unwrap_or(B::F)
}

impl<'p> Encoding<'p> {
    /// The encoding of model ptx for candidate executions (axioms switched by literals).
    pub fn new(p: &'p Program) -> Self {
        // Model ptx has no closure under a difference, the only row the compiler refuses.
        Self::build(p, false, crate::model::ModelKind::Ptx.model()).unwrap_or_else(|e| panic!("model ptx compiles: {}", e))
    }

    /// The encoding for queries that all assume the axioms (D61): coherence
    /// between same-thread writes is fixed by program order.
    pub fn with_axioms(p: &'p Program, model: &Model) -> Result<Self> {
        Self::build(p, true, model)
    }

    fn build(p: &'p Program, axioms_assumed: bool, model: &Model) -> Result<Self> {
        let mut e = Encoding {
            p,
            f: Formula::new(),
            trace: Vec::new(),
            executed: Vec::new(),
            rf: Rel::default(),
            co: Rel::default(),
            fr: Rel::default(),
            sc: Rel::default(),
            bar_sync: Rel::default(),
            cluster_sync: Rel::default(),
            obs: Rel::default(),
            sw: Rel::default(),
            cb: Rel::default(),
            cause: Rel::default(),
            fin: BTreeMap::new(),
            act: BTreeMap::new(),
            act_progress: B::T,
            obs_val: Vec::new(),
            rf_cands: BTreeMap::new(),
            wval: Vec::new(),
            exact_obs: false,
            axioms_assumed,
            hubs: Vec::new(),
            hub_rel: Rel::default(),
            extra_act: Vec::new(),
        };
        for ax in [Axiom::Coherence, Axiom::FenceSc, Axiom::Atomicity, Axiom::NoThinAir, Axiom::ScPerLocation, Axiom::Causality] {
            let l = e.f.fresh();
            e.act.insert(ax, l);
        }
        e.act_progress = e.f.fresh();
        let debug = std::env::var("PTXL_DEBUG").is_ok();
        type Step<'q> = (&'static str, fn(&mut Encoding<'q>));
        let base: [Step<'p>; 8] = [
            ("traces", Self::traces),
            ("write_values", Self::write_values),
            ("reads_from", Self::reads_from),
            ("rmw_values", Self::rmw_values),
            ("coherence_order", Self::coherence_order),
            ("from_reads", Self::from_reads),
            ("fence_sc_order", Self::fence_sc_order),
            ("barriers", Self::barriers),
        ];
        let hand: [Step<'p>; 5] = [
            ("observation", Self::observation),
            ("synchronizes", Self::synchronizes),
            ("base_causality", Self::base_causality),
            ("causality", Self::causality),
            ("axioms", Self::axioms),
        ];
        let finals: [Step<'p>; 2] = [
            ("final_values", Self::final_values),
            // After final_values: the facts mention the final-write choice.
            ("counting_facts", Self::counting_facts),
        ];
        let run = |e: &mut Encoding<'p>, steps: &[Step<'p>]| {
            for (name, step) in steps {
                let (t, c) = (std::time::Instant::now(), e.f.clauses);
                crate::budget::phase(name);
                step(e);
                if debug {
                    eprintln!("encode {:16} {:>9} clauses {:?}", name, e.f.clauses - c, t.elapsed());
                }
            }
        };
        run(&mut e, &base);
        if hand_encoder(model) {
            run(&mut e, &hand);
        } else {
            let (t, c) = (std::time::Instant::now(), e.f.clauses);
            super::rows::compile(&mut e, model)?;
            if debug {
                eprintln!("encode {:16} {:>9} clauses {:?}", "model rows", e.f.clauses - c, t.elapsed());
            }
        }
        run(&mut e, &finals);
        Ok(e)
    }

    /// The event happens in the execution.
    pub fn exec(&self, e: EventId) -> B {
        self.executed[e]
    }

    fn ms(&self, a: EventId, b: EventId) -> bool {
        morally_strong(self.p, &self.p.events[a], &self.p.events[b])
    }

    /// Each thread follows exactly one of its traces.
    fn traces(&mut self) {
        self.trace = vec![B::F; self.p.traces.len()];
        for th in &self.p.threads {
            if th.traces.len() == 1 {
                self.trace[th.traces[0]] = B::T;
                continue;
            }
            let lits: Vec<B> = th.traces.iter().map(|_| self.f.fresh()).collect();
            for (&t, &l) in th.traces.iter().zip(&lits) {
                self.trace[t] = l;
            }
            self.f.clause(&lits);
            self.f.at_most_one(&lits);
        }
        let p = self.p;
        let mut executed = Vec::with_capacity(p.events.len());
        for e in &p.events {
            executed.push(match e.thread {
                None => B::T,
                Some(t) if e.paths.len() == p.threads[t].traces.len() => B::T,
                Some(_) => {
                    let lits: Vec<B> = e.paths.iter().map(|&t| self.trace[t]).collect();
                    self.f.or(&lits)
                }
            });
        }
        self.executed = executed;
    }

    /// Writes (initial ones included) to location `l`.
    fn writes_to(&self, l: LocId) -> Vec<EventId> {
        self.p.events.iter().filter(|e| e.write_loc() == Some(l)).map(|e| e.id).collect()
    }

    fn reads_of(&self, l: LocId) -> Vec<EventId> {
        self.p.events.iter().filter(|e| e.read_loc() == Some(l)).map(|e| e.id).collect()
    }

    /// The values each write may write: its constant, or for a read-modify-write
    /// its operation applied to each value the location can hold.
    fn write_values(&mut self) {
        let p = self.p;
        self.wval = vec![Vec::new(); p.events.len()];
        for e in &p.events {
            if let Some(c) = e.written_value(p) {
                self.wval[e.id] = vec![(c, B::T)];
            } else if let Some(op) = e.access().and_then(|a| a.rmw.as_ref()) {
                let loc = &p.locations[e.access().map(|a| a.loc).unwrap_or(0)];
                let vals: std::collections::BTreeSet<i64> = loc.values.iter().map(|&v| op.apply(v)).collect();
                self.wval[e.id] = vals.into_iter().map(|v| (v, self.f.fresh())).collect();
            }
        }
    }

    /// A read-modify-write writes its operation applied to the value of the write
    /// it reads from (least fixpoint: the literals are only ever forced).
    fn rmw_values(&mut self) {
        let p = self.p;
        for e in &p.events {
            let Some(op) = e.access().and_then(|a| a.rmw.as_ref()) else { continue };
            for &s in self.rf_cands.get(&e.id).map(|v| v.as_slice()).unwrap_or(&[]) {
                let rf = get(&self.rf, s, e.id);
                for (v, ls) in self.wval[s].clone() {
                    let new = op.apply(v);
                    match self.wval[e.id].iter().find(|x| x.0 == new) {
                        Some(&(_, le)) => self.f.implies(&[rf, ls], le),
                        // Beyond every value the location can hold: no such execution.
                        None => self.f.clause(&[!rf, !ls]),
                    }
                }
            }
        }
    }

    /// Candidate executions (axioms off) must still give every read a value. A
    /// read-modify-write's value is defined along its reads-from chain back to
    /// a plain write; a cycle of read-modify-writes reading each other defines
    /// none (the axioms forbid it: 8.10.4 No-Thin-Air, as rf is a cycle). With
    /// n read-modify-writes on a location, `ground[k][e]` means "e's chain
    /// reaches a plain write within k steps"; an executed one needs k = n.
    pub fn ground_rmw_chains(&mut self) {
        let p = self.p;
        for l in 0..p.locations.len() {
            let rmws: Vec<EventId> = self.writes_to(l).into_iter().filter(|&w| p.events[w].access().is_some_and(|a| a.rmw.is_some())).collect();
            if rmws.len() < 2 {
                continue;
            }
            let is_rmw = |w: EventId| rmws.contains(&w);
            let cands = |e: EventId| self.rf_cands.get(&e).cloned().unwrap_or_default();
            // Level 0: reads from a plain write.
            let mut ground: BTreeMap<EventId, B> = BTreeMap::new();
            for &e in &rmws {
                let plain: Vec<B> = cands(e).into_iter().filter(|&s| !is_rmw(s)).map(|s| get(&self.rf, s, e)).collect();
                let g = self.f.or(&plain);
                ground.insert(e, g);
            }
            for _ in 1..rmws.len() {
                let mut next = BTreeMap::new();
                for &e in &rmws {
                    let mut ways = vec![ground[&e]];
                    for s in cands(e).into_iter().filter(|&s| is_rmw(s)) {
                        let step = self.f.and(&[get(&self.rf, s, e), ground[&s]]);
                        ways.push(step);
                    }
                    let g = self.f.or(&ways);
                    next.insert(e, g);
                }
                ground = next;
            }
            for &e in &rmws {
                let ex = self.exec(e);
                self.f.implies(&[ex], ground[&e]);
            }
        }
    }

    /// 8 (intro): each read returns the value of some write to the same location;
    /// a trace that assumed a value can only read from writes of that value.
    fn reads_from(&mut self) {
        for l in 0..self.p.locations.len() {
            let writes = self.writes_to(l);
            for r in self.reads_of(l) {
                let Some(acc) = self.p.events[r].access() else { continue };
                let mut lits = Vec::new();
                let mut cands = Vec::new();
                for &w in &writes {
                    if w == r || !self.p.compatible(w, r) {
                        continue;
                    }
                    if !self.wval[w].iter().any(|&(v, _)| acc.allows(v)) {
                        continue;
                    }
                    let v = self.f.fresh();
                    for (val, lit) in self.wval[w].clone() {
                        if !acc.allows(val) {
                            self.f.clause(&[!v, !lit]);
                        }
                    }
                    self.f.implies(&[v], self.exec(w));
                    self.f.implies(&[v], self.exec(r));
                    self.rf.insert((w, r), v);
                    lits.push(v);
                    cands.push(w);
                }
                let mut c = lits.clone();
                c.push(!self.exec(r));
                self.f.clause(&c);
                self.f.at_most_one(&lits);
                self.rf_cands.insert(r, cands);
            }
        }
    }

    /// 8.9.6: a partial transitive order on overlapping writes, relating every
    /// morally strong pair; the initial write precedes all others (8.2.6).
    fn coherence_order(&mut self) {
        for l in 0..self.p.locations.len() {
            let init = self.p.init_events[l];
            let ws: Vec<EventId> = self.writes_to(l).into_iter().filter(|&w| w != init).collect();
            for &w in &ws {
                let x = self.exec(w);
                self.co.insert((init, w), x);
            }
            for &a in &ws {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &b in &ws {
                    if a != b && self.p.compatible(a, b) && self.axioms_assumed && self.p.po(a, b) && self.ms(a, b) {
                        // 8.10.5: coherence cannot contradict program order between
                        // morally strong writes of one thread (D61); (b, a) stays F.
                        let (xa, xb) = (self.exec(a), self.exec(b));
                        let v = self.f.and(&[xa, xb]);
                        crate::budget::charge(32);
                        self.co.insert((a, b), v);
                    } else if a != b && self.p.compatible(a, b) && !(self.axioms_assumed && self.p.po(b, a) && self.ms(a, b)) {
                        let v = self.f.fresh();
                        self.f.implies(&[v], self.exec(a));
                        self.f.implies(&[v], self.exec(b));
                        self.co.insert((a, b), v);
                    }
                }
            }
            for (i, &a) in ws.iter().enumerate() {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &b in &ws[i + 1..] {
                    if !self.p.compatible(a, b) {
                        continue;
                    }
                    let (ab, ba) = (get(&self.co, a, b), get(&self.co, b, a));
                    self.f.clause(&[!ab, !ba]);
                    if self.ms(a, b) {
                        let (xa, xb) = (self.exec(a), self.exec(b));
                        self.f.clause(&[!xa, !xb, ab, ba]);
                    }
                }
            }
            // Transitivity, over triples that can be performed together (a pair on
            // different paths of one thread is already excluded by the trace choice).
            let mut succ: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
            for &a in &ws {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &b in &ws {
                    let ab = get(&self.co, a, b);
                    if ab != B::F {
                        succ.entry(a).or_default().push((b, ab));
                    }
                }
            }
            // Only triples with a variable edge need a clause: two constant edges
            // (program order, D61) already imply a constant third one. Iterating
            // the variable edges first keeps one thread's n writes O(n^2).
            let mut var_succ: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
            for (&a, v) in &succ {
                var_succ.insert(a, v.iter().copied().filter(|x| x.1 != B::T).collect());
            }
            let none: &[(EventId, B)] = &[];
            for &a in &ws {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &(b, ab) in succ.get(&a).map(|v| v.as_slice()).unwrap_or(none) {
                    let next = if ab == B::T { var_succ.get(&b) } else { succ.get(&b) };
                    for &(c, bc) in next.map(|v| v.as_slice()).unwrap_or(none) {
                        if c != a && self.p.compatible(a, c) {
                            let ac = get(&self.co, a, c);
                            self.f.implies(&[ab, bc], ac);
                        }
                    }
                }
            }
        }
    }

    /// 8.9.7 (3): R precedes W in communication order when R reads from a write
    /// that precedes W in coherence order ("from-reads").
    #[allow(clippy::wrong_self_convention)] // named after the relation fr, not a conversion
    fn from_reads(&mut self) {
        let pairs: Vec<(EventId, Vec<EventId>)> = self.rf_cands.iter().map(|(r, c)| (*r, c.clone())).collect();
        for (r, cands) in pairs {
            let Some(l) = self.p.events[r].read_loc() else { continue };
            for w in self.writes_to(l) {
                if w == r || !self.p.compatible(w, r) {
                    continue;
                }
                let mut v = None;
                for &w0 in &cands {
                    let co = get(&self.co, w0, w);
                    if co == B::F {
                        continue;
                    }
                    let lit = *v.get_or_insert_with(|| self.f.fresh());
                    let rf = get(&self.rf, w0, r);
                    self.f.implies(&[rf, co], lit);
                }
                if let Some(lit) = v {
                    self.fr.insert((r, w), lit);
                }
            }
        }
    }

    /// 8.9.3: an acyclic partial order relating every pair of morally strong fence.sc.
    fn fence_sc_order(&mut self) {
        let fences: Vec<EventId> = self.p.events.iter().filter(|e| e.is_fence_sc()).map(|e| e.id).collect();
        for &a in &fences {
            for &b in &fences {
                if a != b && self.p.compatible(a, b) {
                    let v = self.f.fresh();
                    self.f.implies(&[v], self.exec(a));
                    self.f.implies(&[v], self.exec(b));
                    self.sc.insert((a, b), v);
                }
            }
        }
        for (i, &a) in fences.iter().enumerate() {
            for &b in &fences[i + 1..] {
                if !self.p.compatible(a, b) {
                    continue;
                }
                let (ab, ba) = (get(&self.sc, a, b), get(&self.sc, b, a));
                self.f.clause(&[!ab, !ba]);
                if self.ms(a, b) {
                    let (xa, xb) = (self.exec(a), self.exec(b));
                    self.f.clause(&[!xa, !xb, ab, ba]);
                }
            }
        }
        for &a in &fences {
            for &b in &fences {
                for &c in &fences {
                    if a != b && b != c && a != c {
                        let (ab, bc, ac) = (get(&self.sc, a, b), get(&self.sc, b, c), get(&self.sc, a, c));
                        if ab != B::F && bc != B::F {
                            self.f.implies(&[ab, bc], ac);
                        }
                    }
                }
            }
        }
    }

    /// 8.9.4 (2, 3): barrier operations synchronize with the waits of the same
    /// barrier instance. A wait completes once the expected number of threads
    /// arrived; executions where it cannot (too few arrivals, or a cycle of waits)
    /// deadlock and end in no final state (paper-notes/barriers.md).
    fn barriers(&mut self) {
        let p = self.p;
        let mut groups: BTreeMap<(u8, String), (Vec<EventId>, Vec<EventId>)> = BTreeMap::new();
        for e in &p.events {
            let (key, arrive) = match &e.kind {
                EventKind::BarrierArrive { key, .. } => ((0u8, format!("{:?}", key)), true),
                EventKind::BarrierWait { key, .. } => ((0u8, format!("{:?}", key)), false),
                EventKind::ClusterArrive { cluster, generation, .. } => ((1u8, format!("{}/{}", cluster, generation)), true),
                EventKind::ClusterWait { cluster, generation } => ((1u8, format!("{}/{}", cluster, generation)), false),
                _ => continue,
            };
            let g = groups.entry(key).or_default();
            if arrive {
                g.0.push(e.id)
            } else {
                g.1.push(e.id)
            }
        }
        for ((kind, _), (arrives, waits)) in groups {
            if kind == 0 {
                self.hub_for(&arrives, &waits);
            }
            for &w in &waits {
                let tw = p.events[w].thread;
                let others: Vec<EventId> = arrives.iter().copied().filter(|&a| p.events[a].thread != tw).collect();
                let mut lits = Vec::new();
                for &a in &others {
                    let v = self.f.fresh();
                    self.f.implies(&[v], self.exec(a));
                    self.f.implies(&[v], self.exec(w));
                    if kind == 0 {
                        self.bar_sync.insert((a, w), v);
                    } else {
                        self.cluster_sync.insert((a, w), v);
                    }
                    lits.push((a, v));
                }
                let xw = self.exec(w);
                let guard = self.f.and(&[xw, self.act_progress]);
                match &p.events[w].kind {
                    EventKind::BarrierWait { expected: Expected::Arrivals, .. } => {
                        for &(a, v) in &lits {
                            let xa = self.exec(a);
                            self.f.implies(&[xa, guard], v);
                        }
                    }
                    EventKind::BarrierWait { expected: Expected::Count(n), .. } => {
                        let vs: Vec<B> = lits.iter().map(|x| x.1).collect();
                        self.f.at_least(guard, &vs, n.saturating_sub(1));
                    }
                    EventKind::ClusterWait { cluster, .. } => {
                        // Every other thread of the cluster must arrive.
                        for t in p.threads.iter().filter(|t| t.placement.cluster == *cluster && Some(t.id) != tw) {
                            let mine: Vec<B> = lits.iter().filter(|(a, _)| p.events[*a].thread == Some(t.id)).map(|x| x.1).collect();
                            let mut c = mine.clone();
                            c.push(!guard);
                            self.f.clause(&c);
                            for &(a, v) in lits.iter().filter(|(a, _)| p.events[*a].thread == Some(t.id)) {
                                let xa = self.exec(a);
                                self.f.implies(&[xa, guard], v);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        self.hub_rel = self.hub_edges();
        self.progress();
    }

    /// No execution where waits form a cycle with program order is a final state.
    fn progress(&mut self) {
        let p = self.p;
        let nodes: Vec<EventId> = p
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::BarrierArrive { .. } | EventKind::BarrierWait { .. } | EventKind::ClusterArrive { .. } | EventKind::ClusterWait { .. }))
            .map(|e| e.id)
            .collect();
        if nodes.is_empty() {
            return;
        }
        let hubbed = self.hub_waits();
        let mut edges = self.hub_rel.clone();
        for (&k, &v) in self.bar_sync.iter().chain(self.cluster_sync.iter()) {
            if !hubbed.contains(&k.1) || self.cluster_sync.contains_key(&k) {
                edges.insert(k, v);
            }
        }
        let mut nodes = nodes;
        nodes.extend(self.hub_nodes());
        for &a in &nodes {
            for &b in &nodes {
                if self.is_event(a) && self.is_event(b) && p.po(a, b) {
                    edges.insert((a, b), self.exec(a));
                }
            }
        }
        let act = self.act_progress;
        self.acyclic(&nodes, &edges, act);
    }

    /// Forbid cycles in `edges` over `nodes` (when `act` holds), via a closure relation.
    fn acyclic(&mut self, nodes: &[EventId], edges: &Rel, act: B) {
        // Only nodes with both an incoming and an outgoing edge (repeatedly) can
        // lie on a cycle.
        let mut live: HashSet<EventId> = nodes.iter().copied().collect();
        loop {
            let mut has_in = HashSet::default();
            let mut has_out = HashSet::default();
            for (&(a, b), &v) in edges {
                if v != B::F && live.contains(&a) && live.contains(&b) {
                    has_out.insert(a);
                    has_in.insert(b);
                }
            }
            let before = live.len();
            live.retain(|n| has_in.contains(n) && has_out.contains(n));
            if live.len() == before {
                break;
            }
        }
        let nodes: Vec<EventId> = nodes.iter().copied().filter(|n| live.contains(n)).collect();
        let edges: Rel = edges.iter().filter(|((a, b), _)| live.contains(a) && live.contains(b)).map(|(k, v)| (*k, *v)).collect();
        let (nodes, edges) = (&nodes[..], &edges);
        let mut succ: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
        for (&(a, b), &v) in edges {
            if v != B::F {
                succ.entry(a).or_default().push((b, v));
            }
        }
        let mut reach = Rel::default();
        for &x in nodes {
            crate::budget::check_time(); // an O(n) row may add no clause (D62)
            for &y in nodes {
                if x != y && self.compatible_node(x, y) {
                    let v = self.f.fresh();
                    reach.insert((x, y), v);
                }
            }
        }
        for (&(a, b), &v) in edges {
            if let Some(&r) = reach.get(&(a, b)) {
                self.f.implies(&[v], r);
            }
        }
        for &x in nodes {
            crate::budget::check_time(); // an O(n) row may add no clause (D62)
            for &y in nodes {
                let Some(&rxy) = reach.get(&(x, y)) else { continue };
                for &(z, e) in succ.get(&y).map(|v| v.as_slice()).unwrap_or(&[]) {
                    if z == x {
                        // A cycle x -> ... -> y -> x.
                        self.f.clause(&[!act, !rxy, !e]);
                    } else if let Some(&rxz) = reach.get(&(x, z)) {
                        self.f.implies(&[rxy, e], rxz);
                    }
                }
            }
        }
    }

    /// 8.9.2: W precedes R in observation order if R and W are morally strong and
    /// R reads the value written by W, or W precedes an atomic Z that precedes R.
    fn observation(&mut self) {
        let p = self.p;
        for (&(w, r), &v) in &self.rf.clone() {
            if p.events[w].thread.is_some() && self.ms(w, r) {
                let lit = self.f.fresh();
                self.f.implies(&[v], lit);
                self.obs.insert((w, r), lit);
            }
        }
        // Chains through atomic operations, per location.
        for l in 0..p.locations.len() {
            let zs: Vec<EventId> = p.events.iter().filter(|e| e.access().is_some_and(|a| a.loc == l && a.atomic && a.writes)).map(|e| e.id).collect();
            if zs.is_empty() {
                continue;
            }
            let ws: Vec<EventId> = self.writes_to(l).into_iter().filter(|&w| p.events[w].thread.is_some()).collect();
            let rs = self.reads_of(l);
            for &w in &ws {
                for &r in &rs {
                    if w != r && p.compatible(w, r) && !self.obs.contains_key(&(w, r)) {
                        let v = self.f.fresh();
                        self.obs.insert((w, r), v);
                    }
                }
            }
            for &z in &zs {
                let into: Vec<(EventId, B)> = ws.iter().map(|&w| (w, get(&self.obs, w, z))).filter(|&(_, b)| b != B::F).collect();
                let out: Vec<(EventId, B)> = rs.iter().map(|&r| (r, get(&self.obs, z, r))).filter(|&(_, b)| b != B::F).collect();
                for &(w, wz) in &into {
                    for &(r, zr) in &out {
                        // An incompatible pair is never performed together.
                        if w != r && p.compatible(w, r) {
                            let wr = get(&self.obs, w, r);
                            self.f.implies(&[wz, zr], wr);
                        }
                    }
                }
            }
        }
    }

    fn add_sw(&mut self, a: EventId, b: EventId, premise: &[B]) {
        if a == b {
            return;
        }
        let v = match self.sw.get(&(a, b)) {
            Some(&v) => v,
            None => {
                let v = self.f.fresh();
                self.sw.insert((a, b), v);
                v
            }
        };
        self.f.implies(premise, v);
    }

    /// 8.9.4 Memory synchronization.
    fn synchronizes(&mut self) {
        let p = self.p;
        // 1. fence.sc X synchronizes with fence.sc Y if X precedes Y in Fence-SC order.
        for (&(a, b), &v) in &self.sc.clone() {
            self.add_sw(a, b, &[v]);
        }
        // 2. bar.sync/red/arrive synchronizes with bar.sync/red on the same barrier.
        let hubbed = self.hub_waits();
        for (&(a, b), &v) in &self.bar_sync.clone() {
            // A hub's pairs synchronize through its node (base causality below).
            if !hubbed.contains(&b) {
                self.add_sw(a, b, &[v]);
            }
        }
        // 3. barrier.cluster.arrive synchronizes with barrier.cluster.wait (not .relaxed).
        for (&(a, b), &v) in &self.cluster_sync.clone() {
            if !matches!(p.events[a].kind, EventKind::ClusterArrive { relaxed: true, .. }) {
                self.add_sw(a, b, &[v]);
            }
        }
        // 4. A release pattern X synchronizes with an acquire pattern Y if a write in
        //    X precedes a read in Y in observation order, and the first operation in X
        //    and the last operation in Y are morally strong.
        let rels = release_patterns(p);
        let acqs = acquire_patterns(p);
        for x in &rels {
            for y in &acqs {
                if p.events[x.bound].thread == p.events[y.bound].thread {
                    continue;
                }
                let o = get(&self.obs, x.access, y.access);
                if o != B::F && self.ms(x.bound, y.bound) {
                    let (ex, ey) = (self.exec(x.bound), self.exec(y.bound));
                    self.add_sw(x.bound, y.bound, &[o, ex, ey]);
                }
            }
        }
    }

    /// 8.9.5 Base causality order: the transitive closure of program order and
    /// synchronizes-with. Built by extending known paths one step at a time.
    fn base_causality(&mut self) {
        let p = self.p;
        let mut nodes: Vec<EventId> = p.events.iter().filter(|e| e.thread.is_some()).map(|e| e.id).collect();
        nodes.extend(self.hub_nodes());
        for &x in &nodes {
            crate::budget::check_time(); // an O(n) row may add no clause (D62)
            for &y in &nodes {
                if x != y && self.compatible_node(x, y) {
                    let v = self.f.fresh();
                    self.cb.insert((x, y), v);
                }
            }
        }
        // One step: the next event in program order, or a synchronization edge.
        let mut steps: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
        for tr in &p.traces {
            for w in tr.events.windows(2) {
                steps.entry(w[0]).or_default().push((w[1], self.trace[tr.id]));
            }
        }
        for (&(a, b), &v) in self.sw.iter().chain(self.hub_rel.iter()) {
            steps.entry(a).or_default().push((b, v));
        }
        for (&a, succ) in &steps {
            for &(b, v) in succ {
                let cb = get(&self.cb, a, b);
                self.f.implies(&[v], cb);
            }
        }
        for &x in &nodes {
            crate::budget::check_time(); // an O(n) row may add no clause (D62)
            for &y in &nodes {
                let Some(&xy) = self.cb.get(&(x, y)) else { continue };
                for &(z, v) in steps.get(&y).map(|s| s.as_slice()).unwrap_or(&[]) {
                    if z != x {
                        let xz = get(&self.cb, x, z);
                        self.f.implies(&[xy, v], xz);
                    }
                }
            }
        }
    }

    /// Proxy-preserved base causality (8.9.5) between two memory operations.
    fn proxy_preserved(&mut self, x: EventId, y: EventId) -> B {
        let p = self.p;
        match requirement(p, &p.events[x], &p.events[y]) {
            ProxyRequirement::Impossible => B::F,
            ProxyRequirement::Nothing => get(&self.cb, x, y),
            ProxyRequirement::Chain(slots) => {
                // One chain X -> F1 -> ... -> Fk -> Y of strict base-causality steps
                // per filling of the slots (fences are never memory operations, so
                // no step is from an event to itself).
                let mut chains: Vec<Vec<B>> = Vec::new();
                for fences in fillings(&slots) {
                    let mut steps = Vec::with_capacity(fences.len() + 1);
                    let mut at = x;
                    for &f in fences.iter().chain(std::iter::once(&y)) {
                        steps.push(get(&self.cb, at, f));
                        at = f;
                    }
                    if !steps.contains(&B::F) {
                        chains.push(steps);
                    }
                }
                if chains.is_empty() {
                    return B::F;
                }
                let v = self.f.fresh();
                for c in chains {
                    self.f.implies(&c, v);
                }
                v
            }
        }
    }

    /// 8.9.5 Causality order: X precedes Y if X precedes Y in proxy-preserved base
    /// causality, or X precedes Z in observation order and Z precedes Y in
    /// proxy-preserved base causality.
    fn causality(&mut self) {
        let p = self.p;
        let mut obs_succ: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
        for (&(w, r), &v) in &self.obs {
            obs_succ.entry(w).or_default().push((r, v));
        }
        for l in 0..p.locations.len() {
            let ops: Vec<EventId> = p.events.iter().filter(|e| e.access().is_some_and(|a| a.loc == l)).map(|e| e.id).collect();
            let mut pp = Rel::default();
            for &x in &ops {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &y in &ops {
                    if x != y && p.compatible(x, y) {
                        let v = self.proxy_preserved(x, y);
                        if v != B::F {
                            pp.insert((x, y), v);
                        }
                    }
                }
            }
            for &x in &ops {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &y in &ops {
                    if x == y || !p.compatible(x, y) {
                        continue;
                    }
                    let mut premises: Vec<Vec<B>> = Vec::new();
                    let d = get(&pp, x, y);
                    if d != B::F {
                        premises.push(vec![d]);
                    }
                    for &(z, o) in obs_succ.get(&x).map(|v| v.as_slice()).unwrap_or(&[]) {
                        let q = if z == y { B::F } else { get(&pp, z, y) };
                        if q != B::F {
                            premises.push(vec![o, q]);
                        }
                    }
                    if premises.is_empty() {
                        continue;
                    }
                    let v = self.f.fresh();
                    for c in premises {
                        self.f.implies(&c, v);
                    }
                    self.cause.insert((x, y), v);
                }
            }
        }
    }

    /// 8.10: the six axioms, each guarded by its activation literal.
    fn axioms(&mut self) {
        let p = self.p;
        let a = self.act.clone();
        // 8.10.1 Coherence: W causality-before overlapping W' => W co-before W'.
        for (&(x, y), &c) in &self.cause.clone() {
            if p.events[x].write_loc().is_some() && p.events[y].write_loc().is_some() {
                let co = get(&self.co, x, y);
                self.f.implies(&[a[&Axiom::Coherence], c], co);
            }
        }
        // 8.10.2 Fence-SC: F1 before F2 in (base) causality => F1 before F2 in Fence-SC order.
        for (&(f1, f2), &s21) in &self.sc.clone() {
            let _ = s21;
            if self.ms(f1, f2) {
                let cb12 = get(&self.cb, f1, f2);
                let sc21 = get(&self.sc, f2, f1);
                self.f.clause(&[!a[&Axiom::FenceSc], !cb12, !sc21]);
            }
        }
        // 8.10.3 Atomicity: a morally strong RMW A and write W: not (A reads from
        // W' co-before W, and W co-before A).
        for e in &p.events {
            let Some(acc) = e.access() else { continue };
            if !(acc.atomic && acc.writes) {
                continue;
            }
            for w in self.writes_to(acc.loc) {
                if w != e.id && p.events[w].thread.is_some() && self.ms(e.id, w) {
                    let (fr, co) = (get(&self.fr, e.id, w), get(&self.co, w, e.id));
                    self.f.clause(&[!a[&Axiom::Atomicity], !fr, !co]);
                }
            }
        }
        // 8.10.4 No-Thin-Air: acyclic(rf ∪ dep).
        let mem: Vec<EventId> = p.events.iter().filter(|e| e.access().is_some()).map(|e| e.id).collect();
        let mut edges = Rel::default();
        for (&(w, r), &v) in &self.rf {
            if p.events[w].thread.is_some() {
                edges.insert((w, r), v);
            }
        }
        for tr in &p.traces {
            for &(r, e) in &tr.deps {
                if p.events[e].access().is_some() {
                    // Shared prefixes: a dependency is the same on every path through `e`.
                    edges.insert((r, e), self.exec(e));
                }
            }
        }
        self.acyclic(&mem, &edges, a[&Axiom::NoThinAir]);
        // 8.10.5 SC-per-Location: acyclic(po_loc ∪ (ms ∩ (rf ∪ co ∪ fr))), per location.
        for l in 0..p.locations.len() {
            let ops: Vec<EventId> = p.events.iter().filter(|e| e.thread.is_some() && e.access().is_some_and(|x| x.loc == l)).map(|e| e.id).collect();
            let mut edges: Rel = Rel::default();
            for &x in &ops {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &y in &ops {
                    if x == y || !p.compatible(x, y) {
                        continue;
                    }
                    // Program order is added below as immediate steps only; an
                    // edge in program-order direction (rf, co, fr) closes no cycle
                    // that the steps do not already close.
                    if p.po(x, y) {
                        continue;
                    }
                    let mut lits = Vec::new();
                    if self.ms(x, y) {
                        for r in [&self.rf, &self.co, &self.fr] {
                            let v = get(r, x, y);
                            if v != B::F {
                                lits.push(v);
                            }
                        }
                    }
                    if lits.is_empty() {
                        continue;
                    }
                    let e = if lits.len() == 1 { lits[0] } else { self.f.or(&lits) };
                    edges.insert((x, y), e);
                }
            }
            self.po_steps(&ops, &mut edges);
            self.acyclic(&ops, &edges, a[&Axiom::ScPerLocation]);
        }
        // 8.10.6 Causality: irreflexive((rf ∪ fr); cause).
        for (&(w, r), &v) in &self.rf.clone() {
            let c = get(&self.cause, r, w);
            if c != B::F {
                self.f.clause(&[!a[&Axiom::Causality], !v, !c]);
            }
        }
        for (&(r, w), &v) in &self.fr.clone() {
            let c = get(&self.cause, w, r);
            if c != B::F {
                self.f.clause(&[!a[&Axiom::Causality], !v, !c]);
            }
        }
    }

    /// Program order among `ops` as immediate steps (D61): consecutive members of
    /// `ops` on a trace, guarded by the trace. A cycle through `x po y` uses the
    /// steps between them instead; n operations of one thread give n-1 edges
    /// (and an O(n^2) closure) rather than n^2 edges (and O(n^3)).
    fn po_steps(&mut self, ops: &[EventId], edges: &mut Rel) {
        let p = self.p;
        let set: HashSet<EventId> = ops.iter().copied().collect();
        let mut steps: BTreeMap<(EventId, EventId), Vec<B>> = BTreeMap::new();
        for tr in &p.traces {
            let on: Vec<EventId> = tr.events.iter().copied().filter(|e| set.contains(e)).collect();
            for w in on.windows(2) {
                steps.entry((w[0], w[1])).or_default().push(self.trace[tr.id]);
            }
        }
        for ((a, b), lits) in steps {
            let step = self.f.or(&lits);
            match edges.get(&(a, b)).copied() {
                Some(old) => {
                    let both = self.f.or(&[old, step]);
                    edges.insert((a, b), both);
                }
                None => {
                    edges.insert((a, b), step);
                }
            }
        }
    }

    /// The final value of a location is that of a coherence-maximal write (any one
    /// of them when several are maximal); observable values as literals.
    fn final_values(&mut self) {
        let p = self.p;
        for (oi, o) in p.observables.iter().enumerate() {
            let _ = oi;
            // (value, premises): the observable has the value when all premises hold.
            let mut vals: Vec<(i64, Vec<B>)> = Vec::new();
            match o {
                crate::ast::Observable::Loc(name) if p.loc_parts.contains_key(name) => vals = self.composed_final(&p.loc_parts[name]),
                crate::ast::Observable::Loc(name) => {
                    let Some(&l) = p.loc_names.get(name) else {
                        self.obs_val.push(vec![(0, B::T)]);
                        continue;
                    };
                    let cands = self.final_choice(l);
                    for (w, v) in cands {
                        for &(val, lit) in &self.wval[w] {
                            vals.push((val, vec![v, lit]));
                        }
                    }
                }
                crate::ast::Observable::Reg { thread, reg } => {
                    for &t in &p.threads[*thread].traces {
                        match p.traces[t].regs.get(reg) {
                            Some(crate::program::RegValue::Const(c)) => vals.push((*c, vec![self.trace[t]])),
                            // The read may lie on a prefix shared with other traces, where
                            // the register is later overwritten: the trace is a premise.
                            Some(crate::program::RegValue::ReadOf(r)) => {
                                let read = p.events[*r].access();
                                for &w in self.rf_cands.get(r).map(|v| v.as_slice()).unwrap_or(&[]) {
                                    for &(val, lit) in &self.wval[w] {
                                        let val = read.map_or(val, |a| a.loaded(val));
                                        vals.push((val, vec![self.trace[t], get(&self.rf, w, *r), lit]));
                                    }
                                }
                            }
                            None => vals.push((0, vec![self.trace[t]])),
                        }
                    }
                }
            }
            // One literal per distinct value.
            let mut by_val: BTreeMap<i64, B> = BTreeMap::new();
            for (val, premises) in vals {
                let lit = *by_val.entry(val).or_insert_with(|| self.f.fresh());
                self.f.implies(&premises, lit);
            }
            self.obs_val.push(by_val.into_iter().collect());
        }
    }

    /// The final values of a variable made of several cells (D18): every
    /// combination of the cells' final writes and values, bytes composed.
    fn composed_final(&mut self, parts: &[(LocId, u32, u32)]) -> Vec<(i64, Vec<B>)> {
        let mut combos: Vec<(Vec<i64>, Vec<B>)> = vec![(Vec::new(), Vec::new())];
        for &(l, _, _) in parts {
            let mut opts = Vec::new();
            for (w, v) in self.final_choice(l) {
                for &(val, lit) in &self.wval[w] {
                    opts.push((val, [v, lit]));
                }
            }
            combos = combos.into_iter().flat_map(|(vs, ps)| opts.iter().map(move |(val, pr)| ([vs.clone(), vec![*val]].concat(), [ps.clone(), pr.to_vec()].concat()))).collect();
        }
        combos
            .into_iter()
            .map(|(vs, ps)| {
                let v = |l: LocId| parts.iter().position(|x| x.0 == l).map_or(0, |i| vs[i]);
                (Program::compose_parts(parts, &v), ps)
            })
            .collect()
    }

    fn final_choice(&mut self, l: LocId) -> Vec<(EventId, B)> {
        if let Some(c) = self.fin.get(&l) {
            return c.clone();
        }
        let ws = self.writes_to(l);
        let lits: Vec<(EventId, B)> = ws.iter().map(|&w| (w, self.f.fresh())).collect();
        let all: Vec<B> = lits.iter().map(|x| x.1).collect();
        self.f.clause(&all);
        self.f.at_most_one(&all);
        for &(w, v) in &lits {
            let x = self.exec(w);
            self.f.implies(&[v], x);
            for &w2 in &ws {
                let co = get(&self.co, w, w2);
                if co != B::F {
                    self.f.clause(&[!v, !co]);
                }
            }
        }
        self.fin.insert(l, lits.clone());
        lits
    }

    /// All activation literals (axioms and progress).
    pub fn all_acts(&self) -> Vec<B> {
        let mut v = self.axiom_acts();
        v.push(self.act_progress);
        v
    }

    /// The activation literal of every check row of the model.
    pub fn axiom_acts(&self) -> Vec<B> {
        self.act.values().copied().chain(self.extra_act.iter().map(|x| x.1)).collect()
    }

    pub fn fence_sem(&self, e: EventId) -> Option<FenceSem> {
        match self.p.events[e].kind {
            EventKind::Fence { sem, .. } => Some(sem),
            _ => None,
        }
    }
}
