//! Symbolic threads (issue 27, D185): the terms of `program::symbolic` as
//! literals. Each term gets one literal per value it may take ("term t has
//! value v"), at most one of them true, and *none* true when the term has no
//! value in the execution (a read not performed, or an operation over such a
//! read that no short-circuit decides). A guard's literal for 1 is "the
//! event is performed". Why exact: paper-notes/encoding.md, "Symbolic threads".

use super::*;
use crate::program::symbolic::{SymFacts, SymOp, Term, TermId};

/// Most combinations of argument values one operation term is encoded for
/// (one clause each); past it the test is refused as a limit.
const MAX_COMBINATIONS: usize = 1 << 16;

/// The literals of every term of a symbolic program.
#[derive(Default)]
pub(crate) struct SymLits {
    /// Per term: each value it may take (sorted) with the literal "the term
    /// has this value".
    pub(crate) lits: Vec<Vec<(i64, B)>>,
}

impl SymLits {
    /// The literal "term `t` has value `v`" (false when `v` is not one of its values).
    pub(crate) fn is(&self, t: TermId, v: i64) -> B {
        self.lits[t].iter().find(|x| x.0 == v).map_or(B::F, |x| x.1)
    }

    /// The literal "term `t` has some value".
    fn defined(&self, f: &mut Formula, t: TermId) -> B {
        let ls: Vec<B> = self.lits[t].iter().map(|x| x.1).collect();
        f.or(&ls)
    }

    /// The value of every term in a model (`None`: the term has none).
    pub(crate) fn values_in(&self, m: &crate::sat::formula::Model) -> Vec<Option<i64>> {
        self.lits.iter().map(|ls| ls.iter().find(|x| m.value(x.1)).map(|x| x.0)).collect()
    }
}

impl Encoding<'_> {
    /// The literals and clauses of every term (before `traces`: the guards'
    /// literals are the events' `executed`). A read's value is forced later,
    /// once reads-from exists (`symbolic_reads`).
    pub(super) fn symbolic_terms(&mut self) -> Result<()> {
        let Some(facts) = self.p.symbolic.as_deref() else { return Ok(()) };
        let mut sym = SymLits { lits: Vec::with_capacity(facts.terms.len()) };
        for (t, term) in facts.terms.iter().enumerate() {
            let lits = match term {
                Term::Const(c) => vec![(*c, B::T)],
                Term::Choice(_) => {
                    let x = self.f.fresh();
                    vec![(0, !x), (1, x)]
                }
                Term::Read(e) => self.read_lits(*e),
                Term::Op(op, args) => {
                    if args.iter().any(|&a| a >= t) {
                        return Err(Error::internal("a symbolic term refers to a later term"));
                    }
                    self.op_lits(&sym, op, args)?
                }
            };
            sym.lits.push(lits);
        }
        self.values.sym = Some(sym);
        Ok(())
    }

    /// A read's value literals: what its access makes of each value its
    /// location may hold, at most one of them.
    fn read_lits(&mut self, e: EventId) -> Vec<(i64, B)> {
        let Some(a) = self.p.events[e].access().filter(|a| a.reads) else { return Vec::new() };
        let mut vals: Vec<i64> = self.p.locations[a.loc].values.iter().map(|&v| a.loaded(v)).collect();
        vals.sort();
        vals.dedup();
        let lits: Vec<(i64, B)> = vals.into_iter().map(|v| (v, self.f.fresh())).collect();
        let ls: Vec<B> = lits.iter().map(|x| x.1).collect();
        self.f.at_most_one(&ls);
        lits
    }

    /// An operation's value literals, forced by its arguments' and only by them.
    fn op_lits(&mut self, sym: &SymLits, op: &SymOp, args: &[TermId]) -> Result<Vec<(i64, B)>> {
        match op {
            SymOp::And | SymOp::Or => self.and_or_lits(sym, *op == SymOp::And, args),
            SymOp::Ite => self.ite_lits(sym, args),
            _ => self.strict_lits(sym, op, args),
        }
    }

    /// Fresh literals for `vals`, at most one true.
    fn value_lits(&mut self, vals: impl IntoIterator<Item = i64>) -> Vec<(i64, B)> {
        let vals: std::collections::BTreeSet<i64> = vals.into_iter().collect();
        let lits: Vec<(i64, B)> = vals.into_iter().map(|v| (v, self.f.fresh())).collect();
        let ls: Vec<B> = lits.iter().map(|x| x.1).collect();
        self.f.at_most_one(&ls);
        lits
    }

    /// An operation that needs every argument: for each combination of the
    /// arguments' values, those values imply the result; a value of the result
    /// implies that every argument has one (so with an argument without value,
    /// the result has none; with all of them, exactly the forced one).
    fn strict_lits(&mut self, sym: &SymLits, op: &SymOp, args: &[TermId]) -> Result<Vec<(i64, B)>> {
        let combos: usize = args.iter().map(|&a| sym.lits[a].len()).product();
        if combos > MAX_COMBINATIONS {
            return Err(Error::limit(format!(
                "a symbolic value combines more than {} argument values (the symbolic encoding)",
                MAX_COMBINATIONS
            )));
        }
        let mut results: Vec<(Vec<B>, i64)> = Vec::with_capacity(combos);
        for c in combinations(sym, args) {
            let vals: Vec<i64> = c.iter().map(|x| x.0).collect();
            let r = op.eval(&vals).map_err(|e| {
                Error::limit(format!(
                    "a symbolic value may have no value ({:?}: the path encoding decides it per path)",
                    e
                ))
            })?;
            results.push((c.iter().map(|x| x.1).collect(), r));
        }
        let lits = self.value_lits(results.iter().map(|x| x.1));
        for (premises, r) in &results {
            let head = lits.iter().find(|x| x.0 == *r).map_or(B::F, |x| x.1);
            self.f.implies(premises, head);
        }
        for &a in args {
            let def = sym.defined(&mut self.f, a);
            for &(_, l) in &lits {
                self.f.implies(&[l], def);
            }
        }
        Ok(lits)
    }

    /// Short-circuit conjunction (`and`) or disjunction: one argument with the
    /// deciding value (0 for `and`, 1 for `or`) alone gives it; the other value
    /// needs every argument to have the other value. Arguments are 0/1 terms.
    fn and_or_lits(&mut self, sym: &SymLits, and: bool, args: &[TermId]) -> Result<Vec<(i64, B)>> {
        if args.iter().any(|&a| sym.lits[a].iter().any(|x| x.0 != 0 && x.0 != 1)) {
            return Err(Error::internal("a symbolic `and`/`or` of a term that is not 0/1"));
        }
        let (decide, other) = if and { (0, 1) } else { (1, 0) };
        let lits = self.value_lits([0, 1]);
        let (ld, lo) = (lits[decide as usize].1, lits[other as usize].1);
        let deciding: Vec<B> = args.iter().map(|&a| sym.is(a, decide)).collect();
        let all_other: Vec<B> = args.iter().map(|&a| sym.is(a, other)).collect();
        for &d in &deciding {
            self.f.implies(&[d], ld);
        }
        let mut back = deciding.clone();
        back.push(!ld);
        self.f.clause(&back);
        self.f.implies(&all_other, lo);
        for &o in &all_other {
            self.f.implies(&[lo], o);
        }
        Ok(lits)
    }

    /// `[c, a, b]`: `a`'s value when `c` is 1, `b`'s when it is 0; only the
    /// chosen side needs a value.
    fn ite_lits(&mut self, sym: &SymLits, args: &[TermId]) -> Result<Vec<(i64, B)>> {
        let [c, a, b] = args else { return Err(Error::internal("a symbolic `ite` without three arguments")) };
        if sym.lits[*c].iter().any(|x| x.0 != 0 && x.0 != 1) {
            return Err(Error::internal("a symbolic `ite` whose condition is not 0/1"));
        }
        let (c1, c0) = (sym.is(*c, 1), sym.is(*c, 0));
        let vals = sym.lits[*a].iter().chain(&sym.lits[*b]).map(|x| x.0);
        let lits = self.value_lits(vals);
        for &(v, l) in &lits {
            let (av, bv) = (sym.is(*a, v), sym.is(*b, v));
            self.f.implies(&[c1, av], l);
            self.f.implies(&[c0, bv], l);
            self.f.clause(&[!l, c0, c1]);
            self.f.implies(&[l, c1], av);
            self.f.implies(&[l, c0], bv);
        }
        Ok(lits)
    }

    /// After reads-from: a performed read's value is the value of the write it
    /// reads from, through its access (`Access::loaded`); a read's value
    /// implies it is performed. What the events assume when performed, and
    /// that no execution is one the unroll bound cut.
    pub(super) fn symbolic_reads(&mut self) {
        let Some(facts) = self.p.symbolic.as_deref() else { return };
        let Some(sym) = self.values.sym.take() else { return };
        for (t, term) in facts.terms.iter().enumerate() {
            let Term::Read(e) = *term else { continue };
            let ex = self.exec(e);
            for &(_, l) in &sym.lits[t] {
                self.f.implies(&[l], ex);
            }
            let Some(a) = self.p.events[e].access() else { continue };
            for &w in self.choices.rf_cands.get(&e).map(|v| v.as_slice()).unwrap_or(&[]) {
                let rf = get(&self.choices.rf, w, e);
                for &(u, lw) in &self.values.wval[w] {
                    // A value outside the location's values: no such execution
                    // (as for a read-modify-write's result, `rmw_values`).
                    self.f.implies(&[rf, lw], sym.is(t, a.loaded(u)));
                }
            }
        }
        self.performed_have_values(facts, &sym);
        self.assumptions_and_cuts(facts, &sym);
        self.values.sym = Some(sym);
    }

    /// A performed read has the value of the write it reads from, and a
    /// performed write writes one (8.9.7: a read reads *a value*). Without
    /// this, a cycle of reads from writes whose values are computed from
    /// those reads could leave every term on it without a value, an execution
    /// no path of the path builder has (each of its paths has concrete
    /// values): for instance a `shfl.sync` none of whose waits is performed
    /// because its source read has no value, while the deadlock search has
    /// barrier progress off (D304).
    fn performed_have_values(&mut self, facts: &SymFacts, sym: &SymLits) {
        for (t, term) in facts.terms.iter().enumerate() {
            let Term::Read(e) = *term else { continue };
            if self.p.events[e].access().is_some_and(|a| a.reads) {
                let mut c: Vec<B> = sym.lits[t].iter().map(|x| x.1).collect();
                c.push(!self.exec(e));
                self.f.clause(&c);
            }
        }
        for e in &self.p.events {
            let ls = &self.values.wval[e.id];
            if e.write_loc().is_some() && !ls.iter().any(|x| x.1 == B::T) {
                let mut c: Vec<B> = ls.iter().map(|x| x.1).collect();
                c.push(!self.exec(e.id));
                self.f.clause(&c);
            }
        }
    }

    fn assumptions_and_cuts(&mut self, facts: &SymFacts, sym: &SymLits) {
        for &(e, t) in &facts.assume {
            let ex = self.exec(e);
            self.f.implies(&[ex], sym.is(t, 1));
        }
        for &t in &facts.cut {
            self.f.clause(&[!sym.is(t, 1)]);
        }
    }

    /// A read-modify-write with symbolic operands: every combination of its
    /// operands' values, each with the literals that say the operands have them.
    pub(super) fn symbolic_operands(&self, e: EventId) -> Option<Vec<(Vec<i64>, Vec<B>)>> {
        let args = self.p.symbolic.as_ref()?.operands.get(&e)?;
        let sym = self.values.sym.as_ref()?;
        let combos = combinations(sym, args).into_iter();
        Some(combos.map(|c| (c.iter().map(|x| x.0).collect(), c.iter().map(|x| x.1).collect())).collect())
    }

    /// The literal "term `t` has value `v`" (symbolic programs only; false otherwise).
    pub(crate) fn term_is(&self, t: TermId, v: i64) -> B {
        self.values.sym.as_ref().map_or(B::F, |s| s.is(t, v))
    }

    /// The value literals of a term (symbolic programs only).
    pub(super) fn term_lits(&self, t: TermId) -> Vec<(i64, B)> {
        self.values.sym.as_ref().map_or(Vec::new(), |s| s.lits[t].clone())
    }

    /// What a model says of a symbolic program's execution beyond the
    /// decoded relations: which events are performed, the value of every
    /// term and the value each performed write writes.
    pub(crate) fn symbolic_model(&self, m: &crate::sat::formula::Model) -> crate::program::symbolic::SymModel {
        let performed = (0..self.p.events.len()).map(|e| m.value(self.exec(e))).collect();
        let terms = self.values.sym.as_ref().map_or(Vec::new(), |s| s.values_in(m));
        let written = self.values.wval.iter().map(|ls| ls.iter().find(|x| m.value(x.1)).map(|x| x.0)).collect();
        crate::program::symbolic::SymModel { performed, terms, written }
    }
}

/// Every combination of one value literal per argument, in argument order.
fn combinations(sym: &SymLits, args: &[TermId]) -> Vec<Vec<(i64, B)>> {
    let mut out: Vec<Vec<(i64, B)>> = vec![Vec::new()];
    for &a in args {
        out = out.into_iter().flat_map(|c| sym.lits[a].iter().map(move |&x| [c.clone(), vec![x]].concat())).collect();
    }
    out
}
