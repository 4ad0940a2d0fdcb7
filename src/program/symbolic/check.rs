//! Does a [`SymModel`] say what the terms mean (D192)? The projection (D186)
//! reads a model's term values as the constants of a concrete path, and the
//! reference engine's re-check of that path sees its relations and axioms but
//! not whether a final register or a written value is what the thread's terms
//! compute. A model the solver returns satisfies the term clauses by
//! construction, one renamed by thread symmetry (`sat::symmetry`) need not:
//! under the self-check both are checked here against the terms' meaning as
//! the encoding states it (`sat::encode::symbolic`): every term has the value
//! its definition gives on the execution, or none exactly when it gives none.

use super::{SymFacts, SymModel, SymOp, Term};
use crate::outcome::Execution;
use crate::program::Program;

impl SymModel {
    /// `Err` with the first term or event whose value in `self` is not what
    /// execution `x` of symbolic program `q` gives it. Only terms the facts
    /// reach are checked: the builder leaves others behind (a register value
    /// overwritten), which nothing reads and a renaming does not move.
    pub fn check(&self, q: &Program, x: &Execution) -> Result<(), String> {
        let Some(facts) = q.symbolic.as_deref() else { return Ok(()) };
        if self.terms.len() != facts.terms.len() || self.performed.len() != q.events.len() {
            return Err("the model does not fit the program".into());
        }
        let live = live_terms(facts);
        for (t, term) in facts.terms.iter().enumerate().filter(|&(t, _)| live[t]) {
            // A choice is free, but always made (0 or 1).
            let expected = match term {
                Term::Choice(_) => self.terms[t].filter(|v| *v == 0 || *v == 1).or(Some(0)),
                _ => self.meaning(q, x, term),
            };
            if self.terms[t] != expected {
                return Err(format!("term {} is {:?} where its definition gives {:?}", t, self.terms[t], expected));
            }
        }
        self.facts_hold(q, facts)
    }

    /// The value term `term` has in `x`, from its arguments' values in `self`.
    fn meaning(&self, q: &Program, x: &Execution, term: &Term) -> Option<i64> {
        match term {
            Term::Const(c) => Some(*c),
            Term::Choice(_) => None,
            Term::Read(e) => {
                let access = q.events[*e].access()?;
                let source = x.rf.get(e).filter(|_| self.performed[*e])?;
                Some(access.loaded(self.written.get(*source).copied().flatten()?))
            }
            Term::Op(op, args) => {
                let vals: Vec<Option<i64>> = args.iter().map(|&a| self.terms.get(a).copied().flatten()).collect();
                match op {
                    SymOp::And | SymOp::Or => {
                        let decide = i64::from(*op == SymOp::Or);
                        if vals.contains(&Some(decide)) {
                            Some(decide)
                        } else {
                            vals.iter().all(|v| *v == Some(1 - decide)).then_some(1 - decide)
                        }
                    }
                    SymOp::Ite => match vals.first()? {
                        Some(1) => *vals.get(1)?,
                        Some(0) => *vals.get(2)?,
                        _ => None,
                    },
                    _ => op.eval(&vals.into_iter().collect::<Option<Vec<i64>>>()?).ok(),
                }
            }
        }
    }

    /// Guards are the performed events, assumptions of performed events
    /// hold, no thread is cut, plain writes write their term's value.
    fn facts_hold(&self, q: &Program, facts: &SymFacts) -> Result<(), String> {
        let value = |t: usize| self.terms.get(t).copied().flatten();
        for e in q.events.iter().filter(|e| e.thread.is_some()) {
            if self.performed[e.id] != (facts.guard.get(e.id).copied().and_then(value) == Some(1)) {
                return Err(format!("event {} is performed where its guard says otherwise", e.id));
            }
        }
        if let Some(&(e, _)) = facts.assume.iter().find(|&&(e, t)| self.performed[e] && value(t) != Some(1)) {
            return Err(format!("event {} is performed where its assumption fails", e));
        }
        if facts.cut.iter().any(|&t| value(t) == Some(1)) {
            return Err("the unroll bound cut a thread".into());
        }
        for (&e, &t) in &facts.write {
            if self.performed[e] && self.written.get(e).copied().flatten() != value(t) {
                return Err(format!("write {} writes another value than its term's", e));
            }
        }
        Ok(())
    }
}

/// Per term: some fact reaches it (a guard, a written value, an operand, an
/// assumption, a dependency's condition, a final register, a cut).
fn live_terms(facts: &SymFacts) -> Vec<bool> {
    let mut live = vec![false; facts.terms.len()];
    let roots = facts.guard.iter().chain(facts.write.values()).chain(facts.operands.values().flatten());
    let roots = roots.chain(facts.assume.iter().map(|x| &x.1)).chain(facts.deps.iter().map(|x| &x.2));
    let roots = roots.chain(facts.regs.iter().flat_map(|r| r.values())).chain(&facts.cut);
    for &t in roots {
        if let Some(x) = live.get_mut(t) {
            *x = true;
        }
    }
    // Arguments have smaller ids than their terms: one pass downwards.
    for t in (0..facts.terms.len()).rev() {
        if let (true, Term::Op(_, args)) = (live[t], &facts.terms[t]) {
            for &a in args {
                if let Some(x) = live.get_mut(a) {
                    *x = true;
                }
            }
        }
    }
    live
}
