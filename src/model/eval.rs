//! The evaluator: a model's rows computed on one concrete candidate execution,
//! as bit matrices over a [`View`]'s events.
//!
//! Rows are computed on demand and kept until an execution relation they read
//! changes ([`Evaluator::set`]), so an engine that enumerates coherence orders
//! innermost recomputes only the rows that read `co`.

use super::algebra::{CheckKind, Expr, SetExpr, Stmt};
use super::prims;
use super::rel::Rel;
use super::rows::Model;
use super::view::View;
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

#[derive(Clone, Copy, Debug)]
pub(crate) enum Ref {
    Static(usize),
    Exec(usize),
    Row(usize),
}

/// Name -> what it denotes, as rows `0..upto` define it.
fn resolve(m: &Model, upto: usize, name: &str) -> Option<Ref> {
    let row = m.rows[..upto].iter().rposition(|r| matches!(&r.stmt, Stmt::Let { name: n, .. } if n == name));
    if let Some(i) = row {
        return Some(Ref::Row(i));
    }
    if let Some(i) = prims::EXEC.iter().position(|(n, _)| *n == name) {
        return Some(Ref::Exec(i));
    }
    prims::STATIC.iter().position(|(n, _)| *n == name).map(Ref::Static)
}

/// A row that reads a name denoting nothing: which row, which name, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unresolved {
    pub row: usize,
    pub name: String,
    pub message: String,
}

/// Every name of every row resolves to a primitive, an execution relation or
/// an earlier row; every set and primitive call exists.
pub fn validate(m: &Model) -> Result<(), String> {
    unresolved(m).map_or(Ok(()), |u| Err(format!("row `{}`: {}", m.rows[u.row].stmt, u.message)))
}

/// The first name of the model that denotes nothing (see [`validate`]).
pub(crate) fn unresolved(m: &Model) -> Option<Unresolved> {
    for (i, r) in m.rows.iter().enumerate() {
        let e = match &r.stmt {
            Stmt::Let { expr, .. } | Stmt::Check { expr, .. } => expr,
        };
        let mut names = Vec::new();
        e.names(&mut names);
        if let Some(n) = names.into_iter().find(|n| resolve(m, i, n).is_none()) {
            let message = format!(
                "`{}` is no primitive relation and no earlier row (`ptx-litmus model` lists the primitives)",
                n
            );
            return Some(Unresolved { row: i, name: n, message });
        }
        let mut sets = Vec::new();
        e.set_names(&mut sets);
        if let Some(s) = sets.into_iter().find(|s| !prims::SETS.iter().any(|(n, _)| n == s)) {
            let message = format!("`{}` is no event set (`ptx-litmus model` lists them)", s);
            return Some(Unresolved { row: i, name: s, message });
        }
        let mut calls = Vec::new();
        e.call_names(&mut calls);
        if let Some(f) = calls.into_iter().find(|f| !prims::CALLS.iter().any(|(n, _)| n == f)) {
            let message = format!("`{}` is no primitive function (`ptx-litmus model` lists them)", f);
            return Some(Unresolved { row: i, name: f, message });
        }
    }
    None
}

/// Which execution relations (bit k: `Exec` k) each row reads, directly or through earlier rows.
fn exec_masks(m: &Model) -> Vec<u8> {
    let mut masks: Vec<u8> = Vec::with_capacity(m.rows.len());
    for (i, r) in m.rows.iter().enumerate() {
        let (Stmt::Let { expr, .. } | Stmt::Check { expr, .. }) = &r.stmt;
        let mut names = Vec::new();
        expr.names(&mut names);
        let mask = names.iter().fold(0u8, |acc, n| match resolve(m, i, n) {
            Some(Ref::Exec(k)) => acc | 1 << k,
            Some(Ref::Row(j)) => acc | masks[j],
            _ => acc,
        });
        masks.push(mask);
    }
    masks
}

/// What an evaluator needs of a model besides its rows, computed once per model.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    masks: Vec<u8>,
    names: Vec<HashMap<String, Ref>>,
}

impl Plan {
    pub fn new(model: &Model) -> Plan {
        let names = (0..model.rows.len())
            .map(|i| {
                let (Stmt::Let { expr, .. } | Stmt::Check { expr, .. }) = &model.rows[i].stmt;
                let mut ns = Vec::new();
                expr.names(&mut ns);
                ns.into_iter().filter_map(|n| resolve(model, i, &n).map(|r| (n, r))).collect()
            })
            .collect();
        Plan { masks: exec_masks(model), names }
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

    fn set_holds(&self, s: &SetExpr, e: usize) -> bool {
        match s {
            SetExpr::Name(n) => prims::in_set(self.view, n, e).unwrap_or(false),
            SetExpr::Union(a, b) => self.set_holds(a, e) || self.set_holds(b, e),
            SetExpr::Inter(a, b) => self.set_holds(a, e) && self.set_holds(b, e),
            SetExpr::Diff(a, b) => self.set_holds(a, e) && !self.set_holds(b, e),
            SetExpr::Compl(a) => !self.set_holds(a, e),
        }
    }

    /// The execution relations expression `e` of row `i` reads.
    fn node_mask(&self, i: usize, e: &Expr) -> u8 {
        match e {
            Expr::Name(n) => match self.plan.names[i].get(n.as_str()) {
                Some(Ref::Exec(k)) => 1 << k,
                Some(Ref::Row(j)) => self.plan.masks[*j],
                _ => 0,
            },
            Expr::Id(_) => 0,
            Expr::Union(a, b) | Expr::Seq(a, b) | Expr::Diff(a, b) | Expr::Inter(a, b) => {
                self.node_mask(i, a) | self.node_mask(i, b)
            }
            Expr::Inverse(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) | Expr::Call(_, a) => self.node_mask(i, a),
        }
    }

    /// Evaluate an expression of row `i`, reusing a compound node's value
    /// while the execution relations it reads are unchanged.
    fn eval(&mut self, i: usize, e: &Expr) -> Option<Val> {
        if matches!(e, Expr::Name(_) | Expr::Id(_)) {
            return self.eval_node(i, e);
        }
        let key = e as *const Expr as usize;
        if let Some((_, r)) = self.nodes.get(&key) {
            return Some(r.clone());
        }
        let r = self.eval_node(i, e)?;
        let mask = match self.node_masks.get(&key) {
            Some(&m) => m,
            None => {
                let m = self.node_mask(i, e);
                self.node_masks.insert(key, m);
                m
            }
        };
        self.nodes.insert(key, (mask, r.clone()));
        Some(r)
    }

    /// Evaluate one node of row `i` (names as row `i` sees them).
    fn eval_node(&mut self, i: usize, e: &Expr) -> Option<Val> {
        let n = self.view.n();
        let id = || Rel::identity(n, |_| true);
        Some(Rc::new(match e {
            Expr::Name(name) => {
                let r = *self.plan.names[i].get(name)?;
                return self.get(r);
            }
            Expr::Id(s) => {
                let key = s as *const SetExpr as usize;
                if !self.sets.contains_key(&key) {
                    let r = Rel::identity(n, |x| self.set_holds(s, x));
                    self.sets.insert(key, Rc::new(r));
                }
                return Some(self.sets[&key].clone());
            }
            Expr::Union(a, b) => self.eval(i, a)?.union(&*self.eval(i, b)?),
            Expr::Seq(a, b) => self.eval(i, a)?.compose(&*self.eval(i, b)?),
            Expr::Diff(a, b) => self.eval(i, a)?.minus(&*self.eval(i, b)?),
            Expr::Inter(a, b) => self.eval(i, a)?.intersect(&*self.eval(i, b)?),
            Expr::Inverse(a) => self.eval(i, a)?.inverse(),
            Expr::Plus(a) => self.eval(i, a)?.closure(),
            Expr::Star(a) => self.eval(i, a)?.closure().union(&id()),
            Expr::Opt(a) => self.eval(i, a)?.union(&id()),
            Expr::Call(f, a) => {
                let r = self.eval(i, a)?;
                prims::call(self.view, f, &r)?
            }
        }))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rows::{ModelKind, Row};

    #[test]
    fn both_models_validate_and_unknown_names_do_not() {
        for k in ModelKind::ALL {
            assert!(validate(k.model()).is_ok());
        }
        let m = ModelKind::Ptx.model();
        assert!(m.with_row(Row::new("0", "", "acyclic nosuch as X").unwrap()).is_err());
        assert!(m.with_row(Row::new("0", "", "acyclic [Nope]; po as X").unwrap()).is_err());
        assert!(m.with_row(Row::new("0", "", "acyclic po; cause as X").unwrap()).is_ok());
    }

    #[test]
    fn masks_follow_earlier_rows() {
        let m = ModelKind::Ptx.model();
        let masks = exec_masks(m);
        let idx = |n: &str| m.rows.iter().position(|r| matches!(&r.stmt, Stmt::Let { name, .. } if name == n)).unwrap();
        assert_eq!(masks[idx("fr")], 0b0011);
        assert_eq!(masks[idx("cause")], 0b1101, "cause reads rf, sc and bar, not co");
    }
}
