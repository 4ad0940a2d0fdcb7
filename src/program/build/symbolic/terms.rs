//! The term table of a symbolic build (issue 27, D181): hash-consed terms,
//! constant folding, and each term's value set.
//!
//! A term's value set is computed when the term is made, by evaluating its
//! operation (the same `arith`/`access` function the path builder calls) on
//! every combination of its arguments' value sets: an over-approximation
//! (two arguments that are one read are combined as if independent), which
//! is all `SymFacts::values` promises.

use crate::ast::AluOp;
use crate::program::arith::NoValue;
use crate::program::symbolic::{SymFacts, SymOp, Term, TermId, FALSE, TRUE};
use crate::program::EventId;
use std::collections::{BTreeSet, HashMap};

/// Most combinations of argument values one term's value set is computed from.
pub const MAX_COMBINATIONS: usize = 1 << 16;
/// Most values one term may take.
pub const MAX_VALUES: usize = 4096;
/// Most terms one program may have (a limit, exit 3).
pub const MAX_TERMS: usize = 1 << 21;

/// Why a term could not be made.
#[derive(Debug, PartialEq, Eq)]
pub enum TermError {
    /// The operation has no value on some combination of argument values.
    NoValue(NoValue),
    /// Its value set would be larger than the caps above.
    TooManyValues,
    /// The program has more than [`MAX_TERMS`] terms.
    TooManyTerms,
}

/// Terms with their value sets; `terms[0]` and `terms[1]` are 0 and 1.
#[derive(Clone, Debug)]
pub struct Terms {
    pub terms: Vec<Term>,
    pub values: Vec<Vec<i64>>,
    index: HashMap<Term, TermId>,
    /// Bytes charged to the memory budget for the table.
    charged: u64,
}

impl Default for Terms {
    fn default() -> Self {
        let mut t = Terms { terms: Vec::new(), values: Vec::new(), index: HashMap::new(), charged: 0 };
        t.konst(0);
        t.konst(1);
        t
    }
}

impl Terms {
    fn intern(&mut self, term: Term, values: impl FnOnce() -> Vec<i64>) -> Result<TermId, TermError> {
        if let Some(&id) = self.index.get(&term) {
            return Ok(id);
        }
        if self.terms.len() >= MAX_TERMS {
            return Err(TermError::TooManyTerms);
        }
        let id = self.terms.len();
        let values = values();
        // The term, its arguments, its value set and its index entry.
        let bytes = 96 + 8 * (args_len(&term) + values.len()) as u64;
        crate::budget::charge(bytes);
        self.charged += bytes;
        self.values.push(values);
        self.index.insert(term.clone(), id);
        self.terms.push(term);
        Ok(id)
    }

    /// The bytes this table was charged (credited when it is dropped).
    pub fn bytes(&self) -> u64 {
        self.charged
    }

    /// Forget the terms from id `n` on (a thread's walk undone, D198).
    pub fn truncate(&mut self, n: usize) {
        let values = self.values.split_off(n.min(self.values.len()));
        for (term, vals) in self.terms.split_off(n.min(self.terms.len())).into_iter().zip(values) {
            let bytes = (96 + 8 * (args_len(&term) + vals.len()) as u64).min(self.charged);
            crate::budget::credit(bytes);
            self.charged -= bytes;
            self.index.remove(&term);
        }
    }

    pub fn konst(&mut self, c: i64) -> TermId {
        // A constant is never refused: the table's first two entries are constants.
        self.intern(Term::Const(c), || vec![c]).unwrap_or(FALSE)
    }

    /// The value of a read, `loaded` being the values its register may get.
    pub fn read(&mut self, e: EventId, loaded: Vec<i64>) -> Result<TermId, TermError> {
        self.intern(Term::Read(e), || sorted(loaded))
    }

    pub fn choice(&mut self, k: usize) -> Result<TermId, TermError> {
        self.intern(Term::Choice(k), || vec![0, 1])
    }

    pub fn constant(&self, t: TermId) -> Option<i64> {
        match self.terms[t] {
            Term::Const(c) => Some(c),
            _ => None,
        }
    }

    /// The least value `t` can take whatever its conditions are, when it is
    /// built of constants and 0/1 terms by `ite` and additions (a visit
    /// count, `Walk::within_bound`): unlike its value set, this bound does
    /// not depend on the read domains, which grow from round to round.
    pub fn least_leaf(&self, t: TermId) -> Option<i64> {
        let mut memo: HashMap<TermId, Option<i64>> = HashMap::new();
        self.least_leaf_memo(t, &mut memo)
    }

    fn least_leaf_memo(&self, t: TermId, memo: &mut HashMap<TermId, Option<i64>>) -> Option<i64> {
        if let Some(&m) = memo.get(&t) {
            return m;
        }
        let m = match &self.terms[t] {
            Term::Const(c) => Some(*c),
            Term::Op(SymOp::Ite, a) => {
                let (x, y) = (self.least_leaf_memo(a[1], memo), self.least_leaf_memo(a[2], memo));
                x.zip(y).map(|(x, y)| x.min(y))
            }
            // A 0/1 term (a guard merged into a count, `ite(g, 1, 0)` is `g`) is at least 0.
            Term::Op(SymOp::And | SymOp::Or | SymOp::Not | SymOp::Compare(..), _) => Some(0),
            Term::Op(SymOp::Alu(AluOp::Add, None, None), a) if a.len() == 2 => {
                let (x, y) = (self.least_leaf_memo(a[0], memo), self.least_leaf_memo(a[1], memo));
                x.zip(y).and_then(|(x, y)| x.checked_add(y))
            }
            _ => None,
        };
        memo.insert(t, m);
        m
    }

    /// The term may be 1 (a guard that may hold).
    pub fn may_hold(&self, t: TermId) -> bool {
        self.values[t].contains(&1)
    }

    pub fn not(&mut self, a: TermId) -> Result<TermId, TermError> {
        if let Some(c) = self.constant(a) {
            return Ok(self.konst(i64::from(c == 0)));
        }
        if let Term::Op(SymOp::Not, args) = &self.terms[a] {
            return Ok(args[0]);
        }
        let vals: Vec<i64> = self.values[a].iter().map(|&v| i64::from(v == 0)).collect();
        self.intern(Term::Op(SymOp::Not, vec![a]), || sorted(vals))
    }

    /// Conjunction (`and = true`) or disjunction of 0/1 terms, folded: an
    /// absorbing constant decides it, neutral constants and repeats drop out.
    fn junction(&mut self, and: bool, args: &[TermId]) -> Result<TermId, TermError> {
        let (absorbing, neutral) = if and { (FALSE, TRUE) } else { (TRUE, FALSE) };
        let mut kept: Vec<TermId> = Vec::new();
        for &a in args {
            if a == absorbing {
                return Ok(absorbing);
            }
            if a != neutral && !kept.contains(&a) {
                kept.push(a);
            }
        }
        // x and not x: the absorbing constant. (g and c) or (g and not c): g,
        // the guard two sides of a branch merge back to.
        if kept.iter().any(|&a| kept.iter().any(|&b| self.complementary(a, b))) {
            return Ok(absorbing);
        }
        if let (false, [a, b]) = (and, kept.as_slice()) {
            if let Some(g) = self.rejoined(*a, *b) {
                return Ok(g);
            }
        }
        match kept.len() {
            0 => Ok(neutral),
            1 => Ok(kept[0]),
            _ => {
                let has = |v: i64, vals: &Vec<i64>| vals.contains(&v);
                let (some, all) = if and { (0, 1) } else { (1, 0) };
                let any_absorbs = kept.iter().any(|&a| has(some, &self.values[a]));
                let all_neutral = kept.iter().all(|&a| has(all, &self.values[a]));
                let mut vals = Vec::new();
                if any_absorbs {
                    vals.push(some);
                }
                if all_neutral {
                    vals.push(all);
                }
                let op = if and { SymOp::And } else { SymOp::Or };
                self.intern(Term::Op(op, kept), || sorted(vals))
            }
        }
    }

    /// `b` is `not a`, or `a` is `not b`.
    fn complementary(&self, a: TermId, b: TermId) -> bool {
        let negates = |x: TermId, y: TermId| matches!(&self.terms[x], Term::Op(SymOp::Not, n) if n[0] == y);
        negates(a, b) || negates(b, a)
    }

    /// `g` when `a` is `and(g, c)` and `b` is `and(g, not c)` (or the other way).
    fn rejoined(&self, a: TermId, b: TermId) -> Option<TermId> {
        match (&self.terms[a], &self.terms[b]) {
            (Term::Op(SymOp::And, x), Term::Op(SymOp::And, y))
                if x.len() == 2 && y.len() == 2 && x[0] == y[0] && self.complementary(x[1], y[1]) =>
            {
                Some(x[0])
            }
            _ => None,
        }
    }

    pub fn and(&mut self, args: &[TermId]) -> Result<TermId, TermError> {
        self.junction(true, args)
    }

    pub fn or(&mut self, args: &[TermId]) -> Result<TermId, TermError> {
        self.junction(false, args)
    }

    /// `c ? a : b`.
    pub fn ite(&mut self, c: TermId, a: TermId, b: TermId) -> Result<TermId, TermError> {
        if let Some(v) = self.constant(c) {
            return Ok(if v != 0 { a } else { b });
        }
        if a == b {
            return Ok(a);
        }
        if (a, b) == (TRUE, FALSE) {
            return Ok(c);
        }
        if (a, b) == (FALSE, TRUE) {
            return self.not(c);
        }
        let mut vals: BTreeSet<i64> = BTreeSet::new();
        if self.values[c].iter().any(|&v| v != 0) {
            vals.extend(&self.values[a]);
        }
        if self.values[c].contains(&0) {
            vals.extend(&self.values[b]);
        }
        let vals: Vec<i64> = vals.into_iter().collect();
        self.intern(Term::Op(SymOp::Ite, vec![c, a, b]), || vals)
    }

    /// A value operation (`Alu`, `Compare`, `Convert`, `Stored`) of `args`:
    /// folded when they are constants, else its value set by evaluation.
    pub fn op(&mut self, op: SymOp, args: Vec<TermId>) -> Result<TermId, TermError> {
        if let Some(consts) = args.iter().map(|&a| self.constant(a)).collect::<Option<Vec<i64>>>() {
            let v = op.eval(&consts).map_err(TermError::NoValue)?;
            return Ok(self.konst(v));
        }
        if matches!(op, SymOp::Alu(AluOp::Mov, None, None)) && args.len() == 1 {
            return Ok(args[0]);
        }
        let sets: Vec<&Vec<i64>> = args.iter().map(|&a| &self.values[a]).collect();
        let vals = combine(&sets, |v| op.eval(v))?;
        self.intern(Term::Op(op, args), || vals)
    }
}

/// Most (assignment, term) evaluations one [`Terms::refine`] may make.
const MAX_REFINE_WORK: usize = 1 << 20;

impl Terms {
    /// Make the value set of `t` exact over its leaves (D184): evaluate it
    /// on every assignment of values to the reads and choices it mentions,
    /// instead of combining its arguments' value sets as if independent
    /// (`(r0 + n) * 3 - 3 * n - 2 * r0` is `r0`, not 80 values). Left as it
    /// is when that takes too many evaluations or some assignment has no value.
    pub fn refine(&mut self, t: TermId) {
        let mut exact = BTreeSet::new();
        if self.tabulate(&[t], |v| {
            exact.insert(v[0]);
        }) {
            self.values[t] = exact.into_iter().collect();
        }
    }

    /// No assignment of values to the reads and choices `conds` mention makes
    /// every term of `conds` nonzero; false also where that takes too many
    /// evaluations or some assignment has no value (it may not be so).
    pub fn never_all_hold(&self, conds: &[TermId]) -> bool {
        if conds.contains(&FALSE) {
            return true;
        }
        let mut some = false;
        let done = self.tabulate(conds, |v| some |= v.iter().all(|&c| c != 0));
        done && !some
    }

    /// The values `t` takes where every term of `conds` is 0 (a written
    /// value on the paths where no read's value flows into it, D184);
    /// `None` when that takes too many evaluations. A condition whose value
    /// set lacks 0 holds on every assignment, so no assignment qualifies; one
    /// whose value set is {0} holds on none and constrains nothing (D195):
    /// both are read off the value sets, which over-approximate what a
    /// term takes, without evaluating anything.
    pub fn where_none_holds(&self, t: TermId, conds: &[TermId]) -> Option<Vec<i64>> {
        if conds.iter().any(|&c| !self.values[c].contains(&0)) {
            return Some(Vec::new());
        }
        let open = conds.iter().copied().filter(|&c| self.values[c] != [0]);
        let mut out = BTreeSet::new();
        let roots: Vec<TermId> = std::iter::once(t).chain(open).collect();
        let done = self.tabulate(&roots, |v| {
            if v[1..].iter().all(|&c| c == 0) {
                out.insert(v[0]);
            }
        });
        done.then(|| out.into_iter().collect())
    }

    /// Call `visit` with the values of `roots` on every assignment of values
    /// to the reads and choices they mention; false (having visited
    /// nothing or part) when that takes too many evaluations or some
    /// assignment has no value.
    fn tabulate(&self, roots: &[TermId], mut visit: impl FnMut(&[i64])) -> bool {
        let order = self.post_order(roots);
        // The reads and choices, in the order the evaluation meets them.
        let sets: Vec<&Vec<i64>> = order
            .iter()
            .filter(|&&x| matches!(self.terms[x], Term::Read(_) | Term::Choice(_)))
            .map(|&x| &self.values[x])
            .collect();
        let count = sets.iter().try_fold(1usize, |n, s| n.checked_mul(s.len()));
        if count.is_none_or(|n| n > MAX_COMBINATIONS || n.saturating_mul(order.len()) > MAX_REFINE_WORK) {
            return false;
        }
        let position: HashMap<TermId, usize> = order.iter().enumerate().map(|(i, &x)| (x, i)).collect();
        // Each node: its operation and its arguments' positions, a constant, or the next leaf.
        enum Node<'t> {
            Op(&'t SymOp, Vec<usize>),
            Const(i64),
            Leaf,
        }
        let nodes: Vec<Node> = order
            .iter()
            .map(|x| match &self.terms[*x] {
                Term::Op(op, args) => Node::Op(op, args.iter().map(|a| position[a]).collect()),
                Term::Const(c) => Node::Const(*c),
                _ => Node::Leaf,
            })
            .collect();
        let root_at: Vec<usize> = roots.iter().map(|r| position[r]).collect();
        let mut slots = vec![0i64; order.len()];
        let mut vals = Vec::new();
        let mut out = vec![0i64; roots.len()];
        let assign = |leaf_values: &[i64]| -> Result<i64, NoValue> {
            let mut next_leaf = 0;
            for (i, node) in nodes.iter().enumerate() {
                slots[i] = match node {
                    Node::Op(op, args) => {
                        vals.clear();
                        vals.extend(args.iter().map(|&a| slots[a]));
                        op.eval(&vals)?
                    }
                    Node::Const(c) => *c,
                    Node::Leaf => {
                        next_leaf += 1;
                        leaf_values[next_leaf - 1]
                    }
                };
            }
            root_at.iter().zip(out.iter_mut()).for_each(|(&at, o)| *o = slots[at]);
            visit(&out);
            Ok(0)
        };
        combine(&sets, assign).is_ok()
    }

    /// The terms `roots` are made of, each after its arguments.
    fn post_order(&self, roots: &[TermId]) -> Vec<TermId> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<(TermId, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
        while let Some((x, done)) = stack.pop() {
            if done {
                out.push(x);
                continue;
            }
            if !seen.insert(x) {
                continue;
            }
            stack.push((x, true));
            if let Term::Op(_, args) = &self.terms[x] {
                stack.extend(args.iter().rev().filter(|a| !seen.contains(a)).map(|&a| (a, false)));
            }
        }
        out
    }
}

/// Evaluate `f` on every combination of values of `sets`; the distinct results, sorted.
pub fn combine(sets: &[&Vec<i64>], mut f: impl FnMut(&[i64]) -> Result<i64, NoValue>) -> Result<Vec<i64>, TermError> {
    let mut count: usize = 1;
    for s in sets {
        count = count.saturating_mul(s.len());
    }
    if count > MAX_COMBINATIONS {
        return Err(TermError::TooManyValues);
    }
    let mut out = BTreeSet::new();
    let mut pick = vec![0usize; sets.len()];
    let mut args = vec![0i64; sets.len()];
    for _ in 0..count {
        for (i, s) in sets.iter().enumerate() {
            args[i] = s[pick[i]];
        }
        out.insert(f(&args).map_err(TermError::NoValue)?);
        if out.len() > MAX_VALUES {
            return Err(TermError::TooManyValues);
        }
        // The next combination, the last argument fastest.
        for i in (0..sets.len()).rev() {
            pick[i] += 1;
            if pick[i] < sets[i].len() {
                break;
            }
            pick[i] = 0;
        }
    }
    Ok(out.into_iter().collect())
}

/// The value of term `t` of `facts` where each read `e` returns `read(e)`
/// (`None`: not performed) and each choice `k` is `choice(k)`; `None` when
/// the value needs a read that is not performed. `And`, `Or` and `Ite` look
/// only at the arguments that decide them, in order.
pub fn evaluate(
    facts: &SymFacts,
    t: TermId,
    read: &dyn Fn(EventId) -> Option<i64>,
    choice: &dyn Fn(usize) -> i64,
) -> Option<i64> {
    match &facts.terms[t] {
        Term::Const(c) => Some(*c),
        Term::Read(e) => read(*e),
        Term::Choice(k) => Some(choice(*k)),
        Term::Op(SymOp::And, args) | Term::Op(SymOp::Or, args) => {
            let and = matches!(facts.terms[t], Term::Op(SymOp::And, _));
            for &a in args {
                let v = evaluate(facts, a, read, choice)? != 0;
                if v != and {
                    return Some(i64::from(v));
                }
            }
            Some(i64::from(and))
        }
        Term::Op(SymOp::Ite, args) => {
            let c = evaluate(facts, args[0], read, choice)?;
            evaluate(facts, if c != 0 { args[1] } else { args[2] }, read, choice)
        }
        Term::Op(op, args) => {
            let vals: Option<Vec<i64>> = args.iter().map(|&a| evaluate(facts, a, read, choice)).collect();
            op.eval(&vals?).ok()
        }
    }
}

fn sorted(mut v: Vec<i64>) -> Vec<i64> {
    v.sort_unstable();
    v.dedup();
    v
}

fn args_len(t: &Term) -> usize {
    match t {
        Term::Op(_, args) => args.len(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Cmp, IntTy};

    const U32: Option<IntTy> = Some(IntTy { bits: 32, signed: false });

    #[test]
    fn operations_on_constants_fold_to_the_arith_result() {
        let mut t = Terms::default();
        let (a, b) = (t.konst(0xffff_ffff), t.konst(1));
        // add.u32 wraps at 32 bits: 0xffffffff + 1 = 0 (arith::alu).
        let sum = t.op(SymOp::Alu(AluOp::Add, U32, None), vec![a, b]).unwrap();
        assert_eq!(t.terms[sum], Term::Const(0));
        assert_eq!(sum, FALSE, "constants are hash-consed: 0 is term 0");
        let div = t.op(SymOp::Alu(AluOp::Div, U32, None), vec![b, FALSE]);
        assert_eq!(div, Err(TermError::NoValue(NoValue::DivByZero)));
    }

    #[test]
    fn value_sets_combine_every_argument_value() {
        let mut t = Terms::default();
        let r = t.read(7, vec![2, 0, 1]).unwrap();
        let one = t.konst(1);
        let sum = t.op(SymOp::Alu(AluOp::Add, None, None), vec![r, one]).unwrap();
        assert_eq!(t.values[sum], vec![1, 2, 3]);
        let eq = t.op(SymOp::Compare(Cmp::Eq, None), vec![r, one]).unwrap();
        assert_eq!(t.values[eq], vec![0, 1]);
        // Hash-consing: the same term again is the same id.
        assert_eq!(t.op(SymOp::Compare(Cmp::Eq, None), vec![r, one]).unwrap(), eq);
        let ne = t.not(eq).unwrap();
        assert_eq!(t.not(ne).unwrap(), eq, "double negation folds");
        let g = t.and(&[TRUE, eq, eq]).unwrap();
        assert_eq!(g, eq, "neutral constants and repeats drop out");
        assert_eq!(t.and(&[eq, FALSE]).unwrap(), FALSE);
        assert_eq!(t.ite(eq, TRUE, FALSE).unwrap(), eq);
        let both = t.ite(eq, r, sum).unwrap();
        assert_eq!(t.values[both], vec![0, 1, 2, 3]);
        let big = t.read(8, (0..300).collect()).unwrap();
        let huge = t.read(9, (0..300).collect()).unwrap();
        let product = t.op(SymOp::Alu(AluOp::Mul, None, None), vec![big, huge]);
        assert_eq!(product, Err(TermError::TooManyValues), "90,000 combinations exceed the cap");
    }

    #[test]
    fn refinement_makes_a_written_value_set_exact_over_its_reads() {
        let mut t = Terms::default();
        let r0 = t.read(0, vec![0, 1]).unwrap();
        let n = t.read(1, (0..14).collect()).unwrap();
        let (three, add, mul, sub) = (
            t.konst(3),
            SymOp::Alu(AluOp::Add, U32, None),
            SymOp::Alu(AluOp::Mul, U32, None),
            SymOp::Alu(AluOp::Sub, U32, None),
        );
        // (r0 + n) * 3 - n - n - n - r0 - r0 is r0 at every assignment.
        let mut v = t.op(add, vec![r0, n]).unwrap();
        v = t.op(mul, vec![v, three]).unwrap();
        for x in [n, n, n, r0, r0] {
            v = t.op(sub.clone(), vec![v, x]).unwrap();
        }
        assert!(t.values[v].len() > 2, "combined as independent: an over-approximation");
        t.refine(v);
        assert_eq!(t.values[v], vec![0, 1]);
    }

    /// A sum of five reads of 16 values each: 2^20 assignments, past what
    /// `tabulate` enumerates.
    fn wide_sum(t: &mut Terms) -> TermId {
        let add = SymOp::Alu(AluOp::Add, U32, None);
        let mut sum = t.read(10, (0..16).collect()).unwrap();
        for e in 11..15 {
            let r = t.read(e, (0..16).collect()).unwrap();
            sum = t.op(add.clone(), vec![sum, r]).unwrap();
        }
        sum
    }

    #[test]
    fn constant_written_values_are_read_off_conditions_that_cannot_vary() {
        let mut t = Terms::default();
        let wide = wide_sum(&mut t);
        let r0 = t.read(0, vec![0, 1, 2]).unwrap();
        let two = t.konst(2);
        let r0_is_2 = t.op(SymOp::Compare(Cmp::Eq, None), vec![r0, two]).unwrap();
        // Where r0 is not 2, wide + r0 still spans 2^20 assignments: too many to tell.
        let written = t.op(SymOp::Alu(AluOp::Add, U32, None), vec![wide, r0]).unwrap();
        assert_eq!(t.where_none_holds(written, &[r0_is_2]), None);
        // A condition whose value set lacks 0 holds everywhere: no assignment
        // leaves every condition 0, whatever the rest costs to evaluate.
        assert_eq!(t.where_none_holds(written, &[r0_is_2, TRUE]), Some(vec![]));
        let nonzero = t.op(SymOp::Alu(AluOp::Add, U32, None), vec![r0, two]).unwrap();
        assert_eq!(t.values[nonzero], vec![2, 3, 4]);
        assert_eq!(t.where_none_holds(written, &[nonzero]), Some(vec![]));
        // A condition that is 0 everywhere (the sum never reaches 100) constrains
        // nothing: only r0's three values are evaluated, exactly.
        let hundred = t.konst(100);
        let never = t.op(SymOp::Compare(Cmp::Gt, U32), vec![wide, hundred]).unwrap();
        assert_eq!(t.values[never], vec![0]);
        let ten = t.konst(10);
        let r0_plus_10 = t.op(SymOp::Alu(AluOp::Add, U32, None), vec![r0, ten]).unwrap();
        assert_eq!(t.where_none_holds(r0_plus_10, &[never, r0_is_2]), Some(vec![10, 11]));
    }

    #[test]
    fn evaluation_short_circuits_on_reads_not_performed() {
        let mut t = Terms::default();
        let (r0, r1) = (t.read(0, vec![0, 1]).unwrap(), t.read(1, vec![0, 1]).unwrap());
        let g = t.and(&[r0, r1]).unwrap();
        let facts = SymFacts { terms: t.terms.clone(), values: t.values.clone(), ..Default::default() };
        let only_first = |v: i64| move |e: EventId| (e == 0).then_some(v);
        assert_eq!(evaluate(&facts, g, &only_first(0), &|_| 0), Some(0));
        assert_eq!(evaluate(&facts, g, &only_first(1), &|_| 0), None);
    }
}
