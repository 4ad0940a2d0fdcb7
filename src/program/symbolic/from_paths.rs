//! A path program whose threads have one path each, said as a symbolic
//! program (D187): the test vehicle of the symbolic encoding. Deciding both
//! forms must give the same final states, verdict and flags, which checks
//! the term literals, reads' values, final registers, the projection and the
//! re-check on every single-path test of the library and the corpora
//! (`tests/engines/symbolic.rs`).

use super::{SymFacts, SymOp, Term, TermId, FALSE, TRUE};
use crate::ast::Cmp;
use crate::program::{EventId, EventKind, Program, RegValue};
use std::collections::{BTreeMap, HashMap};

/// Hash-consed terms with their values.
struct Terms {
    facts: SymFacts,
    index: HashMap<Term, TermId>,
}

impl Terms {
    fn new() -> Terms {
        let mut t = Terms { facts: SymFacts::default(), index: HashMap::new() };
        t.add(Term::Const(0), vec![0]);
        t.add(Term::Const(1), vec![1]);
        t
    }

    fn add(&mut self, term: Term, values: Vec<i64>) -> TermId {
        if let Some(&t) = self.index.get(&term) {
            return t;
        }
        let t = self.facts.terms.len();
        self.facts.terms.push(term.clone());
        self.facts.values.push(values);
        self.index.insert(term, t);
        t
    }

    fn constant(&mut self, c: i64) -> TermId {
        self.add(Term::Const(c), vec![c])
    }

    /// The 0/1 term "read `e` returns the stored value `raw`".
    fn reads(&mut self, p: &Program, e: EventId, raw: i64) -> TermId {
        let Some(a) = p.events[e].access() else { return FALSE };
        let read = read_term(self, p, e);
        let c = self.constant(a.loaded(raw));
        self.add(Term::Op(SymOp::Compare(Cmp::Eq, None), vec![read, c]), vec![0, 1])
    }
}

/// `p` as a symbolic program when every thread has exactly one path (and
/// `p` is neither merged nor symbolic already); `None` otherwise. Every event
/// of a thread is performed (guard 1); each read's assumption becomes an
/// assumption term over its value; plain writes, operands and final
/// registers become constant or read terms; dependencies hold always. Plain
/// writes and operands are constants: they stay in the events (`write` and
/// `operands` hold only values that are not).
pub fn symbolic_from_single_paths(p: &Program) -> Option<Program> {
    if p.symbolic.is_some() || p.guards.is_some() || p.threads.iter().any(|t| t.traces.len() != 1) {
        return None;
    }
    let mut q = p.clone();
    let mut terms = Terms::new();
    let mut guard = vec![TRUE; p.events.len()];
    let mut assume = Vec::new();
    for e in &mut q.events {
        if e.thread.is_some() && e.paths.is_empty() {
            guard[e.id] = FALSE;
        }
        let EventKind::Mem(a) = &mut e.kind else { continue };
        if a.reads {
            if let Some(v) = a.read_value.take() {
                assume.push((e.id, terms.reads(p, e.id, v)));
            }
            for v in std::mem::take(&mut a.read_not) {
                let is = terms.reads(p, e.id, v);
                let not = terms.add(Term::Op(SymOp::Not, vec![is]), vec![0, 1]);
                assume.push((e.id, not));
            }
        }
    }
    let mut regs = Vec::with_capacity(p.threads.len());
    let mut deps = Vec::new();
    for th in &p.threads {
        let tr = &p.traces[th.traces[0]];
        let mut named = BTreeMap::new();
        for (name, v) in &tr.regs {
            let t = match *v {
                RegValue::Const(c) => terms.constant(c),
                RegValue::ReadOf(r) => read_term(&mut terms, p, r),
            };
            named.insert(name.clone(), t);
        }
        regs.push(named);
        deps.extend(tr.deps.iter().map(|&(a, b)| (a, b, TRUE)));
    }
    for tr in &mut q.traces {
        tr.deps.clear();
        tr.regs.clear();
    }
    let mut facts = terms.facts;
    (facts.guard, facts.assume) = (guard, assume);
    (facts.regs, facts.deps, facts.cut) = (regs, deps, vec![FALSE; p.threads.len()]);
    q.symbolic = Some(Box::new(facts));
    Some(q)
}

/// The term `Read(r)` with its values.
fn read_term(terms: &mut Terms, p: &Program, r: EventId) -> TermId {
    let Some(a) = p.events[r].access() else { return FALSE };
    let mut vals: Vec<i64> = p.locations[a.loc].values.iter().map(|&v| a.loaded(v)).collect();
    vals.sort();
    vals.dedup();
    terms.add(Term::Read(r), vals)
}
