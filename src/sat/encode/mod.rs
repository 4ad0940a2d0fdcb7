//! The PTX model as clauses. Choices of the execution (trace per thread, rf, co,
//! Fence-SC order, barrier matching) are free variables; derived relations (obs,
//! sync, base causality, causality) are variables forced by Horn clauses from
//! their definitions. Every axiom only ever forbids *more* when a derived
//! relation grows, so the solver never gains by making one larger than its
//! least fixpoint: satisfiability is exact (paper-notes/encoding.md).

mod barriers;
mod finals;
mod order;
mod values;

use super::formula::{Formula, B};
use crate::ast::{FenceSem, RedOp};
use crate::error::Result;
use crate::model::strong::morally_strong;
use crate::model::Model;
use crate::program::{EventId, EventKind, Expected, LocId, Program, SyncKey, SyncKind, SyncRole};
use rustc_hash::FxHashMap as HashMap;
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
    pub sc: Rel,
    /// Arrive -> wait pair literals of synchronizing operations (8.9.4 rules 2, 3).
    pub sync_pairs: Rel,
    pub sw: Rel,
    /// Causality order over the model's nodes (ptx-alloy splits an RMW into
    /// a read node and a write node, D50): what 8.7.1's data race is decided
    /// on, as the reference engine does (`prims::has_data_race`).
    pub cause_nodes: Rel,
    /// A model with a `dr` row (herd's `undefined_unless empty dr`, the C
    /// models): its pairs' literals, each implying the pair is in `dr`.
    pub dr: Option<Vec<B>>,
    /// The node pairs that race unless causality orders them
    /// (`prims::race_candidates`), each with its literal "both performed".
    pub race_pairs: Vec<(usize, usize, B)>,
    /// Candidate final write per location.
    pub fin: BTreeMap<LocId, Vec<(EventId, B)>>,
    /// Activation literal of each check row of the model (the axioms, named
    /// by their rows, in model order; assumed true to enforce them).
    pub acts: Vec<(String, B)>,
    /// Activation of barrier progress (no deadlocked execution is a final state).
    pub act_progress: B,
    /// Activation of reductions (a `bar.red` wait gets the result its path
    /// assumes); off while looking for deadlocks, which ignore values.
    pub act_values: B,
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
}

fn get(r: &Rel, a: EventId, b: EventId) -> B {
    r.get(&(a, b)).copied().unwrap_or(B::F)
}

impl<'p> Encoding<'p> {
    /// The encoding of `model` for candidate executions (axioms switched by literals).
    pub fn new(p: &'p Program, model: &Model) -> Result<Self> {
        Self::build(p, false, model)
    }

    /// The encoding for queries that all assume the axioms (D61): coherence
    /// between same-thread writes is fixed by program order, when the model
    /// keeps the rows of a built-in model that imply it (D131).
    pub fn with_axioms(p: &'p Program, model: &Model) -> Result<Self> {
        Self::build(p, model.has_builtin_axioms(), model)
    }

    fn build(p: &'p Program, axioms_assumed: bool, model: &Model) -> Result<Self> {
        let mut e = Encoding {
            p,
            f: Formula::new(),
            trace: Vec::new(),
            executed: Vec::new(),
            rf: Rel::default(),
            co: Rel::default(),
            sc: Rel::default(),
            sync_pairs: Rel::default(),
            sw: Rel::default(),
            cause_nodes: Rel::default(),
            dr: None,
            race_pairs: Vec::new(),
            fin: BTreeMap::new(),
            acts: Vec::new(),
            act_progress: B::T,
            act_values: B::T,
            obs_val: Vec::new(),
            rf_cands: BTreeMap::new(),
            wval: Vec::new(),
            exact_obs: false,
            axioms_assumed,
            hubs: Vec::new(),
            hub_rel: Rel::default(),
        };
        for row in &model.rows {
            if let crate::model::algebra::Stmt::Check { name, .. } = &row.stmt {
                if !e.acts.iter().any(|(n, _)| n == name) {
                    let l = e.f.fresh();
                    e.acts.push((name.clone(), l));
                }
            }
        }
        e.act_progress = e.f.fresh();
        e.act_values = e.f.fresh();
        let debug = crate::out::tracing();
        type Step<'q> = (&'static str, fn(&mut Encoding<'q>));
        let base: [Step<'p>; 7] = [
            ("traces", Self::traces),
            ("write_values", Self::write_values),
            ("reads_from", Self::reads_from),
            ("rmw_values", Self::rmw_values),
            ("coherence_order", Self::coherence_order),
            ("fence_sc_order", Self::fence_sc_order),
            ("barriers", Self::barriers),
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
        // The derived relations and the axioms: the model's rows (issue 13).
        let (t, c) = (std::time::Instant::now(), e.f.clauses);
        super::rows::compile(&mut e, model)?;
        if debug {
            eprintln!("encode {:16} {:>9} clauses {:?}", "model rows", e.f.clauses - c, t.elapsed());
        }
        run(&mut e, &finals);
        Ok(e)
    }

    /// The event happens in the execution.
    pub fn exec(&self, e: EventId) -> B {
        self.executed[e]
    }

    pub(super) fn ms(&self, a: EventId, b: EventId) -> bool {
        morally_strong(self.p, &self.p.events[a], &self.p.events[b])
    }

    /// Each thread follows exactly one of its traces.
    pub(super) fn traces(&mut self) {
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
    pub(super) fn writes_to(&self, l: LocId) -> Vec<EventId> {
        self.p.events.iter().filter(|e| e.write_loc() == Some(l)).map(|e| e.id).collect()
    }

    pub(super) fn reads_of(&self, l: LocId) -> Vec<EventId> {
        self.p.events.iter().filter(|e| e.read_loc() == Some(l)).map(|e| e.id).collect()
    }

    /// All activation literals (axioms, progress and reductions).
    pub fn all_acts(&self) -> Vec<B> {
        let mut v = self.axiom_acts();
        v.push(self.act_progress);
        v.push(self.act_values);
        v
    }

    /// The activation literal of every check row of the model.
    pub fn axiom_acts(&self) -> Vec<B> {
        self.acts.iter().map(|x| x.1).collect()
    }

    /// The activation literal of the check row `name` (None: the model has no such row).
    pub fn act(&self, name: &str) -> Option<B> {
        self.acts.iter().find(|(n, _)| n == name).map(|x| x.1)
    }

    pub fn fence_sem(&self, e: EventId) -> Option<FenceSem> {
        match self.p.events[e].kind {
            EventKind::Fence { sem, .. } => Some(sem),
            _ => None,
        }
    }
}
