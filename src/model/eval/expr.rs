//! A row's expression evaluated on the evaluator's view: sets as identities, names through the plan, compound
//! nodes cached with the execution relations they read (so a new coherence order recomputes only what reads `co`).

use super::names::Ref;
use super::{Evaluator, Val};
use crate::model::algebra::{Expr, SetExpr};
use crate::model::prims;
use crate::model::rel::Rel;
use std::rc::Rc;

impl Evaluator<'_, '_> {
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
    pub(super) fn eval(&mut self, i: usize, e: &Expr) -> Option<Val> {
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
}
