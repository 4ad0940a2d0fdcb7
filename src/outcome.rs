//! What an engine answers: the allowed final states, flags, and one witness
//! execution per state. Shared by both engines so their answers can be compared.

use crate::ast::{Observable, Prop, Quantifier, Term};
use crate::program::{EventId, LocId, Program, RegValue, TraceId};
use std::collections::{BTreeMap, BTreeSet};

/// Values of `Program::observables`, in that order.
pub(crate) type State = Vec<i64>;

/// One candidate execution, concrete: enough to recompute every relation.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Execution {
    /// The trace chosen for each thread.
    pub traces: Vec<TraceId>,
    /// reads-from: read event -> write event (initial writes included).
    pub rf: BTreeMap<EventId, EventId>,
    /// Coherence order edges between writes (not transitively reduced).
    pub co: BTreeSet<(EventId, EventId)>,
    /// Fence-SC order edges.
    pub sc: BTreeSet<(EventId, EventId)>,
    /// Barrier synchronization: arrive event -> wait event.
    pub(crate) barrier_sync: BTreeSet<(EventId, EventId)>,
    /// The coherence-maximal write chosen as the final value of each location.
    pub finals: BTreeMap<LocId, EventId>,
}

impl Execution {
    /// The final state this execution ends in.
    pub fn state(&self, p: &Program) -> State {
        p.observables.iter().map(|o| observe(p, self, o)).collect()
    }
    pub(crate) fn executes(&self, p: &Program, e: EventId) -> bool {
        let ev = &p.events[e];
        ev.thread.is_none() || ev.paths.iter().any(|t| self.traces.contains(t))
    }
}

impl Execution {
    /// The value write `w` writes in this execution.
    pub(crate) fn value_written(&self, p: &Program, w: EventId) -> Option<i64> {
        p.value_written(w, &|r| self.rf.get(&r).copied())
    }
}

fn observe(p: &Program, x: &Execution, o: &Observable) -> i64 {
    match o {
        Observable::Reg { thread, reg } => {
            let Some(&tr) = x.traces.get(*thread) else { return 0 };
            match p.traces[tr].regs.get(reg) {
                Some(RegValue::Const(c)) => *c,
                Some(RegValue::ReadOf(r)) => {
                    let raw = x.rf.get(r).and_then(|&w| x.value_written(p, w)).unwrap_or(0);
                    p.events[*r].access().map_or(raw, |a| a.loaded(raw))
                }
                None => 0,
            }
        }
        Observable::Loc(name) => {
            let fin = |l: LocId| x.finals.get(&l).and_then(|&w| x.value_written(p, w)).unwrap_or(p.locations[l].init);
            if let Some(parts) = p.loc_parts.get(name) {
                return p.shown(o, Program::compose_parts(parts, &fin));
            }
            let Some(&l) = p.loc_names.get(name) else { return 0 };
            p.shown(o, fin(l))
        }
    }
}

/// Flags of a result, as herd reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Flags {
    /// Some allowed execution has a data race (8.7.1).
    pub data_race: bool,
    /// Some execution cannot finish because a barrier never completes.
    pub deadlock: bool,
    pub unroll_bound_hit: bool,
    pub mixed_size: bool,
}

#[derive(Clone, Debug)]
pub struct Outcome {
    /// Allowed final states (after `filter`), each with one witness execution.
    pub states: BTreeMap<State, Execution>,
    pub flags: Flags,
    /// Some allowed execution exists, before `filter` removes states: when none
    /// does and the unroll bound cut paths, the verdict would be vacuous.
    pub(crate) any_execution: bool,
    /// Whether `states` lists every allowed final state (false when the listing
    /// stopped at `--states N`).
    pub complete: bool,
    /// Decided by the engine without listing: does some allowed final state
    /// satisfy the condition's proposition, and does some falsify it? `None`:
    /// read both from the (complete) list of states.
    pub reach: Option<Reach>,
}

impl Default for Outcome {
    fn default() -> Self {
        Outcome { states: BTreeMap::new(), flags: Flags::default(), complete: true, reach: None, any_execution: false }
    }
}

/// Whether the condition's proposition holds in some / fails in some allowed
/// final state: enough for the verdict and the `Observation` kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    pub positive: bool,
    pub negative: bool,
}

/// herd's verdict: `Ok` when the quantified condition holds over the allowed states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Verdict {
    Ok,
    No,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Summary {
    pub verdict: Verdict,
    /// Listed states satisfying / not satisfying the proposition (all allowed
    /// states when `complete`).
    pub positive: usize,
    pub negative: usize,
    /// Some allowed state satisfies / falsifies the proposition (exact even when
    /// the list is not complete).
    pub(crate) some_positive: bool,
    pub(crate) some_negative: bool,
    pub complete: bool,
}

impl Summary {
    /// herd's `Never` / `Sometimes` / `Always`, exact whether or not every state is listed.
    pub fn observation(&self) -> &'static str {
        match (self.some_positive, self.some_negative) {
            (false, _) => "Never",
            (true, false) => "Always",
            (true, true) => "Sometimes",
        }
    }
}

impl Outcome {
    pub fn summary(&self, p: &Program) -> Summary {
        let positive = self.states.keys().filter(|s| eval(p, &p.condition, s)).count();
        let negative = self.states.len() - positive;
        let reach = self.reach.unwrap_or(Reach { positive: positive > 0, negative: negative > 0 });
        let ok = match p.quantifier {
            Quantifier::Exists => reach.positive,
            Quantifier::NotExists => !reach.positive,
            Quantifier::Forall => !reach.negative,
        };
        Summary {
            verdict: if ok { Verdict::Ok } else { Verdict::No },
            positive,
            negative,
            some_positive: reach.positive,
            some_negative: reach.negative,
            complete: self.complete,
        }
    }
}

/// Evaluate a proposition on a final state.
pub fn eval(p: &Program, prop: &Prop, s: &[i64]) -> bool {
    let term = |t: &Term| -> i64 {
        match t {
            Term::Const(c) => *c,
            Term::Obs(o, _) => p.observables.iter().position(|x| x == o).and_then(|i| s.get(i).copied()).unwrap_or(0),
        }
    };
    match prop {
        Prop::True => true,
        Prop::False => false,
        Prop::Eq(a, b) => term(a) == term(b),
        Prop::Ne(a, b) => term(a) != term(b),
        Prop::Lt(a, b) => term(a) < term(b),
        Prop::Le(a, b) => term(a) <= term(b),
        Prop::Not(a) => !eval(p, a, s),
        Prop::And(a, b) => eval(p, a, s) && eval(p, b, s),
        Prop::Or(a, b) => eval(p, a, s) || eval(p, b, s),
        Prop::Implies(a, b) => !eval(p, a, s) || eval(p, b, s),
    }
}

/// Keep only the states satisfying the test's `filter`.
pub(crate) fn apply_filter(p: &Program, states: &mut BTreeMap<State, Execution>) {
    if let Some(f) = &p.filter {
        states.retain(|s, _| eval(p, f, s));
    }
}
