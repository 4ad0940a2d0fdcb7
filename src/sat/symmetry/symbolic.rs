//! Thread symmetry for symbolic programs (issue 27, D192). A symbolic
//! thread's meaning is not only its events but the terms of
//! `program::symbolic::SymFacts` its events are performed, write, assume and
//! depend under. Two threads are renamed into each other when, besides their
//! events, the terms their facts reach correspond one to one: the same
//! operations over corresponding arguments, `Read` of corresponding events,
//! `Choice`s of their own in the same order. Terms that mention no read and no
//! choice (constants, operations over constants) are the same term in both
//! threads (hash-consed), so they stay in place.

use super::swap;
use crate::outcome::Execution;
use crate::program::symbolic::{SymFacts, SymModel, Term, TermId};
use crate::program::{EventId, Program};
use std::collections::{BTreeSet, HashMap};

/// The terms a thread's facts reach that mention one of its reads or
/// choices, in a canonical order, and a text of the facts with every such
/// term numbered by that order (terms mentioning neither are named by their
/// id). Equal texts of two threads mean their facts correspond one to one
/// when `order[i]` of one is renamed `order[i]` of the other.
pub(super) struct ThreadTerms {
    pub order: Vec<TermId>,
    /// The `Choice` terms reached (their numbers are the program's).
    pub choices: BTreeSet<TermId>,
    pub text: String,
}

/// How the term walk names a term: by its local number (it mentions a read or
/// choice of the thread) or by its id (it mentions none).
#[derive(Clone, Copy)]
enum Name {
    Local(usize),
    Closed(TermId),
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Name::Local(n) => write!(f, "L{}", n),
            Name::Closed(t) => write!(f, "g{}", t),
        }
    }
}

struct Walk<'a> {
    facts: &'a SymFacts,
    /// The thread's events by id: their positions in the thread.
    local_event: HashMap<EventId, usize>,
    names: HashMap<TermId, Name>,
    out: ThreadTerms,
}

impl Walk<'_> {
    /// Name `root` and every term below it, arguments first (an explicit
    /// stack: guards chain through a whole unrolled thread). `None` when a
    /// term reads an event of another thread.
    fn name(&mut self, root: TermId) -> Option<Name> {
        let mut stack = vec![(root, false)];
        while let Some((t, args_named)) = stack.pop() {
            if self.names.contains_key(&t) {
                continue;
            }
            match (self.facts.terms.get(t)?, args_named) {
                (Term::Op(_, args), false) => {
                    stack.push((t, true));
                    stack.extend(args.iter().rev().map(|&a| (a, false)));
                }
                _ => self.define(t)?,
            }
        }
        self.names.get(&root).copied()
    }

    /// Name term `t`, whose arguments are named, and describe it when local.
    fn define(&mut self, t: TermId) -> Option<()> {
        let text = match &self.facts.terms[t] {
            Term::Const(_) => None,
            Term::Read(e) => Some(format!("read e{}", self.local_event.get(e)?)),
            Term::Choice(_) => {
                self.out.choices.insert(t);
                Some(format!("choice {}", self.out.choices.len()))
            }
            Term::Op(op, args) => {
                let names: Vec<Name> = args.iter().map(|a| self.names.get(a).copied()).collect::<Option<_>>()?;
                names.iter().any(|n| matches!(n, Name::Local(_))).then(|| {
                    let args: Vec<String> = names.iter().map(|n| n.to_string()).collect();
                    format!("{:?}({})", op, args.join(","))
                })
            }
        };
        let name = match text {
            Some(text) => {
                let n = self.out.order.len();
                self.out.order.push(t);
                self.out.text.push_str(&format!("L{} = {} in {:?}\n", n, text, self.facts.values.get(t)?));
                Name::Local(n)
            }
            None => Name::Closed(t),
        };
        self.names.insert(t, name);
        Some(())
    }
}

/// The terms thread `t` of symbolic program `p` reaches from its facts (its
/// events' guards, written values, operands, assumptions and dependencies, its
/// final registers and its cut), `events` being its events in id order.
/// `None` when a fact of the thread mentions another thread's event.
pub(super) fn thread_terms(facts: &SymFacts, t: usize, events: &[EventId]) -> Option<ThreadTerms> {
    let local_event: HashMap<EventId, usize> = events.iter().enumerate().map(|(i, &e)| (e, i)).collect();
    let out = ThreadTerms { order: Vec::new(), choices: BTreeSet::new(), text: String::new() };
    let mut w = Walk { facts, local_event, names: HashMap::new(), out };
    let mut lines: Vec<String> = Vec::new();
    for (i, &e) in events.iter().enumerate() {
        let guard = w.name(*facts.guard.get(e)?)?;
        let write = match facts.write.get(&e) {
            Some(&x) => Some(w.name(x)?.to_string()),
            None => None,
        };
        let operands: Vec<String> = match facts.operands.get(&e) {
            Some(args) => args.iter().map(|&x| w.name(x).map(|n| n.to_string())).collect::<Option<_>>()?,
            None => Vec::new(),
        };
        lines.push(format!("e{} if {} writes {:?} operands {:?}", i, guard, write, operands));
    }
    // Assumptions and dependencies are sets: sorted, so the order the
    // builder listed them in does not matter.
    let mut set = Vec::new();
    for &(e, c) in &facts.assume {
        if let Some(&le) = w.local_event.get(&e) {
            set.push(format!("assume e{} {}", le, w.name(c)?));
        }
    }
    for &(r, e, c) in &facts.deps {
        let (lr, le) = (w.local_event.get(&r).copied(), w.local_event.get(&e).copied());
        match (lr, le) {
            (Some(lr), Some(le)) => set.push(format!("dep e{} e{} if {}", lr, le, w.name(c)?)),
            (None, None) => {}
            _ => return None,
        }
    }
    set.sort();
    lines.extend(set);
    for (reg, &x) in facts.regs.get(t)? {
        lines.push(format!("reg {} = {}", reg, w.name(x)?));
    }
    lines.push(format!("cut {}", w.name(*facts.cut.get(t)?)?));
    let mut out = w.out;
    out.text.push_str(&lines.join("\n"));
    Some(out)
}

/// Per thread: whether its facts' choices are its own (no other thread's
/// facts reach them). Only such threads are renamed, and none when some
/// thread's facts mention another thread's event: then the terms that
/// mention a read or a choice of one thread belong to it alone, and a
/// renaming moves them whole.
pub(super) fn private_threads(p: &Program, facts: &SymFacts) -> Vec<bool> {
    let walks: Vec<Option<ThreadTerms>> =
        (0..p.threads.len()).map(|t| thread_terms(facts, t, &super::thread_events(p, t))).collect();
    if walks.iter().any(Option::is_none) {
        return vec![false; walks.len()];
    }
    let mut owners: HashMap<TermId, usize> = HashMap::new();
    for w in walks.iter().flatten() {
        for &c in &w.choices {
            *owners.entry(c).or_default() += 1;
        }
    }
    walks.iter().map(|w| w.as_ref().is_some_and(|w| w.choices.iter().all(|c| owners[c] == 1))).collect()
}

/// The execution `x` of symbolic program `p`, with what its model `m` says,
/// with threads `a` and `b` (of one class) swapped: events as [`swap`] does,
/// and each term of one thread's facts given the value of the corresponding
/// term of the other. `None` if the threads' facts do not correspond (they
/// do for threads of one class).
pub fn swap_symbolic(p: &Program, x: &Execution, m: &SymModel, a: usize, b: usize) -> Option<(Execution, SymModel)> {
    let facts = p.symbolic.as_deref()?;
    let (ea, eb) = (super::thread_events(p, a), super::thread_events(p, b));
    let (ta, tb) = (thread_terms(facts, a, &ea)?, thread_terms(facts, b, &eb)?);
    let sizes = [m.performed.len(), m.written.len()];
    if ea.len() != eb.len() || ta.text != tb.text || sizes != [p.events.len(); 2] || m.terms.len() != facts.terms.len()
    {
        return None;
    }
    let mut y = m.clone();
    for (&u, &v) in ea.iter().zip(&eb) {
        y.performed.swap(u, v);
        y.written.swap(u, v);
    }
    for (&u, &v) in ta.order.iter().zip(&tb.order) {
        y.terms.swap(u, v);
    }
    Some((swap(p, x, a, b), y))
}
