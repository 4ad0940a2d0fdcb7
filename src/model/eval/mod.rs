//! The evaluator: a model's rows computed on one concrete candidate execution,
//! as bit matrices over a [`View`]'s events.
//!
//! Rows are computed on demand and kept until an execution relation they read
//! changes ([`Evaluator::set`]), so an engine that enumerates coherence orders
//! innermost recomputes only the rows that read `co`.//!
//! The parts: `names` resolves the names of each row once per model (what
//! each denotes, which execution relations each row reads), `expr` evaluates
//! a row's expression with a cache per node; this file holds the evaluator,
//! its caches and the checks.

mod expr;
mod names;

pub use names::validate;
pub(crate) use names::{unresolved, Plan};

use super::algebra::{CheckKind, Stmt};
use super::prims;
use super::rel::Rel;
use super::rows::Model;
use super::view::View;
use names::{resolve, Ref};
use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::rc::Rc;

/// A computed relation, shared between the caches that hold it (a row, its
/// top node, a primitive) instead of copied into each.
type Val = Rc<Rel>;

/// The relations of a candidate execution the engine gives (`prims::EXEC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec {
    Rf = 0,
    Co = 1,
    Sc = 2,
    Bar = 3,
}

/// An axiom the execution violates: the check row's name and ISA section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub axiom: String,
    pub section: String,
}

impl Violation {
    pub fn name(&self) -> &str {
        &self.axiom
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.axiom, self.section)
    }
}
/// A model's rows on one view; the execution relations are set by the engine.
pub struct Evaluator<'a, 'p> {
    model: &'a Model,
    view: &'a View<'p>,
    plan: &'a Plan,
    statics: Vec<Option<Val>>,
    exec: [Option<Val>; 4],
    rows: Vec<Option<Val>>,
    /// `[S]` per set expression of the model (keyed by its address: the model
    /// outlives the evaluator), computed once per view.
    sets: HashMap<usize, Val>,
    /// Values of compound subexpressions, with the execution relations each
    /// reads (keyed by node address): a row that reads `co` recomputes only
    /// its parts that do when the engine moves to the next coherence order.
    nodes: HashMap<usize, (u8, Val)>,
    /// `node_mask` per node address (fixed for the model).
    node_masks: HashMap<usize, u8>,
}

/// What an evaluator has computed that reads no execution relation: the
/// primitives, the `[S]` sets, and the rows and subexpressions whose mask is
/// empty. They are functions of the model and the view alone, so a later
/// evaluator of the same model on an equal view (same program, same traces,
/// same split) may start from them ([`Evaluator::with_statics`]): this is the
/// reuse [`Evaluator::set`] already makes when an execution relation changes,
/// carried across evaluators.
#[derive(Default)]
pub(crate) struct Statics {
    statics: Vec<Option<Val>>,
    rows: Vec<Option<Val>>,
    sets: HashMap<usize, Val>,
    nodes: HashMap<usize, (u8, Val)>,
    node_masks: HashMap<usize, u8>,
}

impl Statics {
    /// Bytes of the relations kept.
    pub fn bytes(&self) -> usize {
        let opt = |v: &Vec<Option<Val>>| v.iter().flatten().map(|r| r.bytes()).sum::<usize>();
        opt(&self.statics)
            + opt(&self.rows)
            + self.sets.values().map(|r| r.bytes()).sum::<usize>()
            + self.nodes.values().map(|(_, r)| r.bytes()).sum::<usize>()
    }
}

impl<'a, 'p> Evaluator<'a, 'p> {
    pub fn new(model: &'a Model, view: &'a View<'p>) -> Self {
        Self::with_statics(model, view, Statics::default())
    }

    /// An evaluator starting from `st`, which must come from
    /// [`Evaluator::into_statics`] of an evaluator of the same `model` on a
    /// view of the same program, traces and split (or be empty).
    pub(crate) fn with_statics(model: &'a Model, view: &'a View<'p>, st: Statics) -> Self {
        let fill = |mut v: Vec<Option<Val>>, len: usize| (v.resize(len, None), v).1;
        Evaluator {
            model,
            view,
            plan: model.plan(),
            statics: fill(st.statics, prims::STATIC.len()),
            exec: [None, None, None, None],
            rows: fill(st.rows, model.rows.len()),
            sets: st.sets,
            nodes: st.nodes,
            node_masks: st.node_masks,
        }
    }

    /// Everything computed so far that reads no execution relation.
    pub(crate) fn into_statics(self) -> Statics {
        let masks = &self.plan.masks;
        let rows = self.rows.into_iter().zip(masks).map(|(r, &m)| r.filter(|_| m == 0)).collect();
        let mut nodes = self.nodes;
        nodes.retain(|_, (m, _)| *m == 0);
        Statics { statics: self.statics, rows, sets: self.sets, nodes, node_masks: self.node_masks }
    }

    pub fn view(&self) -> &View<'p> {
        self.view
    }

    /// Give an execution relation (over the view's events); forgets the rows that read it.
    pub fn set(&mut self, which: Exec, r: Rel) {
        self.replace(which, Some(Rc::new(r)));
    }

    /// Take an execution relation back (the engine moves to another choice).
    pub fn clear(&mut self, which: Exec) {
        self.replace(which, None);
    }

    fn replace(&mut self, which: Exec, r: Option<Val>) {
        let bit = 1u8 << which as u8;
        for (row, m) in self.rows.iter_mut().zip(&self.plan.masks) {
            if m & bit != 0 {
                *row = None;
            }
        }
        self.nodes.retain(|_, (m, _)| *m & bit == 0);
        self.exec[which as usize] = r;
    }

    fn ready(&self, mask: u8) -> bool {
        (0..4).all(|k| mask & (1 << k) == 0 || self.exec[k].is_some())
    }

    /// The value of a `let` row (the last one of that name) or a primitive.
    pub fn value(&mut self, name: &str) -> Option<Rel> {
        let v = match resolve(self.model, self.model.rows.len(), name)? {
            Ref::Row(i) => self.row(i),
            r => self.get(r),
        };
        v.map(Rc::unwrap_or_clone)
    }

    /// The primitive `name`, whatever the model's rows call by that name.
    pub fn primitive(&mut self, name: &str) -> Option<Rel> {
        let r = resolve(self.model, 0, name)?;
        self.get(r).map(Rc::unwrap_or_clone)
    }

    fn get(&mut self, r: Ref) -> Option<Val> {
        match r {
            Ref::Static(k) => {
                if self.statics[k].is_none() {
                    self.statics[k] = prims::relation(self.view, prims::STATIC[k].0).map(Rc::new);
                }
                self.statics[k].clone()
            }
            Ref::Exec(k) => self.exec[k].clone(),
            Ref::Row(i) => self.row(i),
        }
    }

    /// The value of row `i`: a `let` row's relation, or the relation a check
    /// row tests (explanations show it); None while an execution relation it reads is not given.
    pub(crate) fn row_value(&mut self, i: usize) -> Option<Rel> {
        self.row(i).map(Rc::unwrap_or_clone)
    }

    fn row(&mut self, i: usize) -> Option<Val> {
        if self.rows[i].is_none() {
            if !self.ready(self.plan.masks[i]) {
                return None;
            }
            let model = self.model;
            let (Stmt::Let { expr, .. } | Stmt::Check { expr, .. }) = &model.rows[i].stmt;
            let v = self.eval(i, expr)?;
            self.rows[i] = Some(v);
        }
        self.rows[i].clone()
    }
    /// The first check row (in model order) that fails, among those whose
    /// execution relations are all given. With every relation given: the first
    /// violated axiom, None when the execution is consistent.
    pub fn first_violated(&mut self) -> Option<Violation> {
        let model = self.model;
        for i in 0..model.rows.len() {
            let Stmt::Check { kind, name, .. } = &model.rows[i].stmt else { continue };
            if !self.ready(self.plan.masks[i]) {
                continue;
            }
            let Some(r) = self.row(i) else { continue };
            let holds = match kind {
                CheckKind::Acyclic => r.is_acyclic(),
                CheckKind::Irreflexive => r.is_irreflexive(),
                CheckKind::Empty => r.is_empty(),
            };
            if !holds {
                return Some(Violation { axiom: name.clone(), section: model.rows[i].section.clone() });
            }
        }
        None
    }
}
