//! The PTX model as clauses. Choices of the execution (trace per thread, rf, co,
//! Fence-SC order, barrier matching) are free variables; derived relations (obs,
//! sync, base causality, causality) are variables forced by Horn clauses from
//! their definitions. Every axiom only ever forbids *more* when a derived
//! relation grows, so the solver never gains by making one larger than its
//! least fixpoint: satisfiability is exact (paper-notes/encoding.md).

mod barriers;
mod finals;
mod order;
mod symbolic;
mod values;

use super::formula::{Formula, B};
use crate::ast::{FenceSem, RedOp};
use crate::error::{Error, Result};
use crate::model::strong::morally_strong;
use crate::model::Model;
use crate::program::{EventId, EventKind, Expected, LocId, Program, SyncKey, SyncKind, SyncRole};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

pub type Rel = HashMap<(EventId, EventId), B>;

/// The encoding of one program under one model: the formula and the
/// variables it is written in, grouped by role. The groups' fields are the
/// SAT engine's own (`pub(super)`: `src/sat` and below); outside it the
/// encoding is read through its methods.
pub struct Encoding<'p> {
    pub p: &'p Program,
    pub f: Formula,
    /// The execution's free choices: path, reads-from, the orders, final writes.
    pub(super) choices: Choices,
    /// Which value each write and each observable takes.
    pub(super) values: ValueLits,
    /// Barrier matching: arrive -> wait pairs and the hubs that route them.
    pub(super) sync: SyncLits,
    /// The rows the engine reads back by name after compiling the model (D130).
    pub(super) derived: Derived,
    /// The literals that switch constraints on or off per query.
    pub(super) act: Activations,
    /// Every query assumes the model's axioms (`sat::check`, not explanations):
    /// facts they imply may be built in as constants (D61).
    pub(super) axioms_assumed: bool,
}

/// The choices that make a candidate execution (8.9): which trace each thread
/// follows, which write each read reads from, coherence and Fence-SC order.
#[derive(Default)]
pub(super) struct Choices {
    /// One literal per trace: this trace is the thread's path.
    pub(super) trace: Vec<B>,
    /// Per event: it is performed (OR of the literals of the traces it lies on).
    pub(super) executed: Vec<B>,
    /// Per read: the writes it may read from.
    pub(super) rf_cands: BTreeMap<EventId, Vec<EventId>>,
    pub(super) rf: Rel,
    pub(super) co: Rel,
    pub(super) sc: Rel,
    /// Per location: the candidate final writes, each with its literal.
    pub(super) fin: BTreeMap<LocId, Vec<(EventId, B)>>,
}

/// Value literals.
#[derive(Default)]
pub(super) struct ValueLits {
    /// Per write: the values it may write, each with the literal "it writes this
    /// value" (constant `T` for a constant write; forced along reads-from for a
    /// read-modify-write).
    pub(super) wval: Vec<Vec<(i64, B)>>,
    /// Observable value literals: (observable index, value) -> literal.
    pub(super) obs_val: Vec<Vec<(i64, B)>>,
    /// Whether `obs_val` has been made exact (at most one value per observable;
    /// see `sat::prop`).
    pub(super) exact_obs: bool,
    /// A symbolic program's term literals (`symbolic`).
    pub(super) sym: Option<symbolic::SymLits>,
}

/// Synchronizing operations' matching.
#[derive(Default)]
pub(super) struct SyncLits {
    /// Arrive -> wait pair literals of synchronizing operations (8.9.4 rules 2, 3).
    pub(super) sync_pairs: Rel,
    /// Barrier instances routed through hub nodes (`sat::hubs`, D63) and their edges.
    pub(super) hubs: Vec<super::hubs::Hub>,
    pub(super) hub_rel: Rel,
}

/// Relations the engine needs after the rows are compiled (`src/sat/rows/`).
#[derive(Default)]
pub(super) struct Derived {
    /// The model's `sw` row: candidates and explanations read it.
    pub(super) sw: Rel,
    /// Causality order over the model's nodes (ptx-alloy splits an RMW into
    /// a read node and a write node, D50): what 8.7.1's data race is decided
    /// on, as the reference engine does (`prims::has_data_race`).
    pub(super) cause_nodes: Rel,
    /// A model with a `dr` row (herd's `undefined_unless empty dr`, the C
    /// models): its pairs' literals, each implying the pair is in `dr`.
    pub(super) dr: Option<Vec<B>>,
    /// The node pairs that race unless causality orders them
    /// (`prims::race_candidates`), each with its literal "both performed".
    pub(super) race_pairs: Vec<(usize, usize, B)>,
}

/// Activation literals: a query assumes the ones whose constraints it wants.
pub(super) struct Activations {
    /// One per check row of the model (the axioms, named by their rows, in
    /// model order; assumed true to enforce them).
    pub(super) checks: Vec<(String, B)>,
    /// Barrier progress (no deadlocked execution is a final state).
    pub(super) progress: B,
    /// Reductions (a `bar.red` wait gets the result its path assumes); off
    /// while looking for deadlocks, which ignore values.
    pub(super) values: B,
    /// What the counting facts (D60) hold under: None, no facts; otherwise
    /// the activations of the rows that imply them (`counting_guards`, D221).
    pub(super) counting: Option<[B; 2]>,
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
    pub(crate) fn with_axioms(p: &'p Program, model: &Model) -> Result<Self> {
        Self::build(p, model.has_builtin_axioms(), model)
    }

    fn build(p: &'p Program, axioms_assumed: bool, model: &Model) -> Result<Self> {
        let act = Activations { checks: Vec::new(), progress: B::T, values: B::T, counting: None };
        let mut e = Encoding {
            p,
            f: Formula::new(),
            choices: Choices::default(),
            values: ValueLits::default(),
            sync: SyncLits::default(),
            derived: Derived::default(),
            act,
            axioms_assumed,
        };
        for row in &model.rows {
            if let crate::model::algebra::Stmt::Check { name, .. } = &row.stmt {
                if !e.act.checks.iter().any(|(n, _)| n == name) {
                    let l = e.f.fresh();
                    e.act.checks.push((name.clone(), l));
                }
            }
        }
        // After the check rows' literals: the order of variables steers the
        // solver's search, and with it which witness an explanation shows.
        e.act.progress = e.f.fresh();
        e.act.values = e.f.fresh();
        e.act.counting = e.counting_guards(model);
        let debug = crate::out::tracing();
        type Step<'q> = (&'static str, fn(&mut Encoding<'q>));
        e.symbolic_terms()?;
        let base: [Step<'p>; 8] = [
            ("traces", Self::traces),
            ("write_values", Self::write_values),
            ("reads_from", Self::reads_from),
            ("rmw_values", Self::rmw_values),
            ("symbolic_reads", Self::symbolic_reads),
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

    /// The pairs the model's `sw` row may relate (each has a literal).
    pub(crate) fn sw_pairs(&self) -> impl Iterator<Item = (EventId, EventId)> + '_ {
        self.derived.sw.keys().copied()
    }

    /// The event happens in the execution.
    pub fn exec(&self, e: EventId) -> B {
        self.choices.executed[e]
    }

    pub(super) fn ms(&self, a: EventId, b: EventId) -> bool {
        morally_strong(self.p, &self.p.events[a], &self.p.events[b])
    }

    /// Each thread follows exactly one of its traces.
    pub(super) fn traces(&mut self) {
        self.choices.trace = vec![B::F; self.p.traces.len()];
        for th in &self.p.threads {
            if th.traces.len() == 1 {
                self.choices.trace[th.traces[0]] = B::T;
                continue;
            }
            let lits: Vec<B> = th.traces.iter().map(|_| self.f.fresh()).collect();
            for (&t, &l) in th.traces.iter().zip(&lits) {
                self.choices.trace[t] = l;
            }
            self.f.clause(&lits);
            self.f.at_most_one(&lits);
        }
        let p = self.p;
        let mut executed = Vec::with_capacity(p.events.len());
        for e in &p.events {
            // A symbolic program (one trace per thread): performed when the guard is 1.
            if let (Some(facts), Some(sym)) = (&p.symbolic, &self.values.sym) {
                executed.push(sym.is(facts.guard[e.id], 1));
                continue;
            }
            executed.push(match e.thread {
                None => B::T,
                Some(t) if e.paths.len() == p.threads[t].traces.len() => B::T,
                Some(_) => {
                    let lits: Vec<B> = e.paths.iter().map(|&t| self.choices.trace[t]).collect();
                    self.f.or(&lits)
                }
            });
        }
        self.choices.executed = executed;
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
        v.push(self.act.progress);
        v.push(self.act.values);
        v
    }

    /// The activation literal of every check row of the model.
    pub(crate) fn axiom_acts(&self) -> Vec<B> {
        self.act.checks.iter().map(|x| x.1).collect()
    }

    /// The activation literal of the check row `name` (None: the model has no such row).
    pub fn act(&self, name: &str) -> Option<B> {
        self.act.checks.iter().find(|(n, _)| n == name).map(|x| x.1)
    }

    pub fn fence_sem(&self, e: EventId) -> Option<FenceSem> {
        match self.p.events[e].kind {
            EventKind::Fence { sem, .. } => Some(sem),
            _ => None,
        }
    }
}
