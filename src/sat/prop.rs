//! Propositions over the final state as literals: the condition and `filter` of
//! a test, so the verdict is one query (issue "verdict first") and explanations
//! can ask for states satisfying a proposition.

use super::encode::Encoding;
use super::formula::B;
use crate::ast::{Observable, Prop, Term};

impl Encoding<'_> {
    /// The literal "observable `i` has value `v`" (constant false when no
    /// execution can give it that value).
    pub(crate) fn value_lit(&self, i: usize, v: i64) -> B {
        self.values.obs_val[i].iter().find(|(val, _)| *val == v).map(|x| x.1).unwrap_or(B::F)
    }

    /// A clause (guarded by `guard`) excluding final state `s`.
    pub(crate) fn block_state(&mut self, guard: B, s: &[i64]) {
        let mut clause = vec![!guard];
        for (i, &v) in s.iter().enumerate() {
            clause.push(!self.value_lit(i, v));
        }
        self.f.clause(&clause);
    }

    /// Make the observable-value literals exact: at most one value per
    /// observable (the one its premises force), so they can be assumed and
    /// combined into propositions. Satisfiability is unchanged: every
    /// execution sets exactly its own values.
    pub(crate) fn exact_values(&mut self) {
        if self.values.exact_obs {
            return;
        }
        self.values.exact_obs = true;
        for i in 0..self.values.obs_val.len() {
            let lits: Vec<B> = self.values.obs_val[i].iter().map(|x| x.1).collect();
            self.f.at_most_one(&lits);
        }
    }

    /// A literal equivalent to proposition `prop` over the final state.
    pub(crate) fn prop_literal(&mut self, prop: &Prop) -> B {
        self.exact_values();
        match prop {
            Prop::True => B::T,
            Prop::False => B::F,
            Prop::Eq(a, b) => self.equal(a, b),
            Prop::Ne(a, b) => !self.equal(a, b),
            Prop::Lt(a, b) => self.order(a, b, |x, y| x < y),
            Prop::Le(a, b) => self.order(a, b, |x, y| x <= y),
            Prop::Not(a) => !self.prop_literal(a),
            Prop::And(a, b) => {
                let (x, y) = (self.prop_literal(a), self.prop_literal(b));
                self.f.and(&[x, y])
            }
            Prop::Or(a, b) => {
                let (x, y) = (self.prop_literal(a), self.prop_literal(b));
                self.f.or(&[x, y])
            }
            Prop::Implies(a, b) => {
                let (x, y) = (self.prop_literal(a), self.prop_literal(b));
                self.f.or(&[!x, y])
            }
        }
    }

    /// The literal "the final values of `a` and `b` satisfy `holds`" (`<`, `<=`):
    /// the disjunction over the value pairs that do.
    fn order(&mut self, a: &Term, b: &Term, holds: fn(i64, i64) -> bool) -> B {
        let p = self.p;
        let index = |o: &Observable| p.observables.iter().position(|x| x == o);
        let side = |t: &Term, obs_val: &Vec<Vec<(i64, B)>>| -> Vec<(i64, B)> {
            match t {
                Term::Const(c) => vec![(*c, B::T)],
                Term::Obs(o, _) => index(o).map(|i| obs_val[i].clone()).unwrap_or_default(),
            }
        };
        let (xs, ys) = (side(a, &self.values.obs_val), side(b, &self.values.obs_val));
        let mut ands = Vec::new();
        for &(x, lx) in &xs {
            for &(y, ly) in &ys {
                if holds(x, y) {
                    ands.push(self.f.and(&[lx, ly]));
                }
            }
        }
        self.f.or(&ands)
    }

    /// The literal "term `a` equals term `b`" in the final state.
    fn equal(&mut self, a: &Term, b: &Term) -> B {
        let p = self.p;
        let index = |o: &Observable| p.observables.iter().position(|x| x == o);
        match (a, b) {
            (Term::Const(x), Term::Const(y)) => {
                if x == y {
                    B::T
                } else {
                    B::F
                }
            }
            (Term::Obs(o, _), Term::Const(c)) | (Term::Const(c), Term::Obs(o, _)) => match index(o) {
                Some(i) => self.value_lit(i, *c),
                None => B::F,
            },
            (Term::Obs(o1, _), Term::Obs(o2, _)) => match (index(o1), index(o2)) {
                (Some(i), Some(j)) => {
                    let pairs: Vec<(B, B)> = self.values.obs_val[i]
                        .iter()
                        .filter_map(|&(v, l)| self.values.obs_val[j].iter().find(|x| x.0 == v).map(|x| (l, x.1)))
                        .collect();
                    let ands: Vec<B> = pairs.into_iter().map(|(l1, l2)| self.f.and(&[l1, l2])).collect();
                    self.f.or(&ands)
                }
                _ => B::F,
            },
        }
    }
}
