//! Candidate executions, for explanations: what the program can do when the six
//! axioms of 8.10 are switched off (their activation literals assumed false;
//! barrier progress stays on, so every candidate still ends in a final state).
//!
//! - `Candidates::forbidden_states`: final states some candidate reaches that
//!   no allowed execution reaches.
//! - [`Candidates::executions`]: the candidate executions producing one given
//!   final state: the state's observable values are assumed, and each decoded
//!   execution's choices (traces, reads-from, the orientation of morally strong
//!   coherence and Fence-SC pairs, barrier matching) are blocked in turn.
//! - `Candidates::can_synchronize`: does some *allowed* execution contain a
//!   given synchronizes-with edge (axioms on)?
//!
//! Executions are returned in their *least* form (`least_orders`): coherence
//! and Fence-SC order hold only what 8.9.6 and 8.9.3 require (the initial write
//! first, the morally strong pairs as the solver oriented them, and what
//! transitivity adds). Unrequired edges between racy writes are noise for a
//! reader; the least form produces the same final state.

use super::decode;
use super::encode::Encoding;
use super::formula::B;
use crate::ast::Prop;
use crate::error::{Error, Result};
use crate::model::strong::morally_strong;
use crate::outcome::{Execution, State};
use crate::program::symbolic::Projection;
use crate::program::{EventId, Program};
use std::collections::BTreeSet;
use std::time::Instant;

/// At most this many final states (or executions of one state) are looked at
/// before the first ones are sorted and shown.
pub(crate) const SCAN_LIMIT: usize = 64;

pub struct Candidates<'p> {
    pub enc: Encoding<'p>,
    pub deadline: Option<Instant>,
    /// For a symbolic program: the ordinary program its decoded candidates are
    /// projected to (D186), as the listing's executions are (D218).
    projection: Option<Projection>,
}

impl<'p> Candidates<'p> {
    /// The candidate executions of `p` under `model`'s rows (each axiom switched by a literal).
    pub fn new(p: &'p Program, model: &crate::model::Model) -> Result<Self> {
        let mut enc = Encoding::new(p, model)?;
        enc.ground_rmw_chains();
        if p.symbolic.is_some() {
            performed_writes_have_values(&mut enc);
        }
        let projection = p.symbolic.is_some().then(|| Projection::new(p));
        Ok(Candidates { enc, deadline: None, projection })
    }

    /// The program the executions `forbidden_states` and `executions` decode
    /// belong to: `p`, or for a symbolic one its projection so far (which only
    /// grows: an execution decoded earlier stays one of it).
    pub fn program(&self) -> &Program {
        self.projection.as_ref().map_or(self.enc.p, |x| &x.program)
    }

    /// The candidate execution of the solver's model `m`, of [`Candidates::program`].
    fn decoded(&mut self, m: &crate::sat::formula::Model) -> Execution {
        let x = decode(&self.enc, m);
        let Some(proj) = &mut self.projection else { return x };
        proj.add(self.enc.p, &x, &self.enc.symbolic_model(m))
    }

    /// Assumptions: every axiom off, barrier progress and reductions on.
    fn axioms_off(&self) -> Vec<B> {
        let mut v: Vec<B> = self.enc.axiom_acts().into_iter().map(|a| !a).collect();
        v.push(self.enc.act.progress);
        v.push(self.enc.act.values);
        v
    }

    fn check_time(&self) -> Result<()> {
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Err(Error::limit("timeout: explaining the test took longer than --timeout"));
        }
        Ok(())
    }

    fn value_lit(&self, i: usize, v: i64) -> B {
        self.enc.value_lit(i, v)
    }

    /// A clause (guarded by `guard`) excluding final state `s`.
    fn block_state(&mut self, guard: B, s: &[i64]) {
        self.enc.block_state(guard, s);
    }

    /// A literal equivalent to proposition `prop` over the final state.
    pub(crate) fn prop_literal(&mut self, prop: &Prop) -> B {
        self.enc.prop_literal(prop)
    }

    /// Final states reached by some candidate execution, not in `allowed`, for
    /// which `want` holds (a proposition, encoded; `keep` checks the decoded
    /// state again): sorted, at most `max`; the flag tells whether more exist.
    pub(crate) fn forbidden_states(
        &mut self,
        allowed: &BTreeSet<State>,
        want: &Prop,
        keep: impl Fn(&State) -> bool,
        max: usize,
    ) -> Result<(Vec<State>, bool)> {
        let want = self.prop_literal(want);
        let guard = self.enc.f.fresh();
        for s in allowed {
            self.block_state(guard, s);
        }
        let mut assume = self.axioms_off();
        assume.push(guard);
        assume.push(want);
        let mut found = BTreeSet::new();
        let mut seen = BTreeSet::new();
        let mut more = false;
        while self.enc.f.solve_assuming(&assume)? {
            self.check_time()?;
            let m = self.enc.f.model()?;
            let s = self.decoded(&m).state(self.program());
            // Blocked states are not found again: one decoded twice would loop.
            if !seen.insert(s.clone()) {
                return Err(Error::internal("explaining: a candidate's decoded state is one already blocked"));
            }
            self.block_state(guard, &s);
            if keep(&s) && !allowed.contains(&s) {
                found.insert(s);
            }
            if found.len() >= SCAN_LIMIT.max(max + 1) {
                more = true;
                break;
            }
        }
        self.enc.f.clause(&[!guard]);
        let more = more || found.len() > max;
        Ok((found.into_iter().take(max).collect(), more))
    }

    /// Candidate executions (in least form, sorted) ending in final state `s`:
    /// at most `max`; the flag tells whether more exist.
    pub fn executions(&mut self, s: &State, max: usize) -> Result<(Vec<Execution>, bool)> {
        let mut assume = self.axioms_off();
        for (i, &v) in s.iter().enumerate() {
            if self.value_lit(i, v) == B::F {
                return Ok((Vec::new(), false));
            }
            // An observable value literal is forced by its premises; assuming the
            // literals of the *other* values false leaves `v` as the only value.
            for &(val, lit) in &self.enc.values.obs_val[i] {
                if val != v {
                    assume.push(!lit);
                }
            }
        }
        let guard = self.enc.f.fresh();
        assume.push(guard);
        let choices = self.choice_literals();
        let mut found: BTreeSet<ExecKey> = BTreeSet::new();
        let mut more = false;
        while self.enc.f.solve_assuming(&assume)? {
            self.check_time()?;
            let m = self.enc.f.model()?;
            let x = self.decoded(&m);
            let x = least_orders(self.program(), &x);
            if x.state(self.program()) == *s {
                found.insert(ExecKey(x));
            }
            let mut clause = vec![!guard];
            for &l in &choices {
                clause.push(if m.value(l) { !l } else { l });
            }
            self.enc.f.clause(&clause);
            if found.len() >= (4 * max).clamp(16, SCAN_LIMIT).max(max + 1) {
                more = true;
                break;
            }
        }
        self.enc.f.clause(&[!guard]);
        let more = more || found.len() > max;
        Ok((found.into_iter().take(max).map(|k| k.0).collect(), more))
    }

    /// The literals that identify a candidate execution up to unrequired order edges.
    fn choice_literals(&self) -> Vec<B> {
        let enc = &self.enc;
        let p = enc.p;
        let ms = |a: EventId, b: EventId| morally_strong(p, &p.events[a], &p.events[b]);
        let mut v: Vec<B> = enc.choices.trace.clone();
        let mut keyed: Vec<((EventId, EventId), B)> = enc.choices.rf.iter().map(|(k, v)| (*k, *v)).collect();
        keyed.extend(enc.choices.co.iter().filter(|((a, b), _)| ms(*a, *b)).map(|(k, v)| (*k, *v)));
        keyed.extend(enc.choices.sc.iter().filter(|((a, b), _)| ms(*a, *b)).map(|(k, v)| (*k, *v)));
        keyed.extend(enc.sync.sync_pairs.iter().map(|(k, v)| (*k, *v)));
        // HashMap order is not stable: sort for a deterministic clause.
        keyed.sort_by_key(|(k, _)| *k);
        v.extend(keyed.into_iter().map(|x| x.1));
        v.retain(|l| matches!(l, B::L(_)));
        v
    }

    /// Does some allowed execution (all axioms and barrier progress on) have
    /// `a` synchronizing with `b` (8.9.4)?
    pub(crate) fn can_synchronize(&mut self, a: EventId, b: EventId) -> Result<bool> {
        self.check_time()?;
        let Some(&lit) = self.enc.derived.sw.get(&(a, b)) else { return Ok(false) };
        let mut assume = self.enc.all_acts();
        assume.push(lit);
        self.enc.f.solve_assuming(&assume)
    }
}

/// A symbolic program's candidate executions (axioms off) must still give
/// every performed write a value, as every path does (D218): a term's value
/// literals are only forced along reads-from, so a cycle of reads and the
/// writes computed from them (which the axioms forbid: 8.10.4, 8.10.5) could
/// otherwise leave them all without one, an execution of no path. A cycle
/// whose values agree stays a candidate, as it is one of the paths'.
fn performed_writes_have_values(enc: &mut Encoding) {
    let p = enc.p;
    for e in p.events.iter().filter(|e| e.thread.is_some() && e.access().is_some_and(|a| a.writes)) {
        let mut some_value: Vec<B> = enc.values.wval[e.id].iter().map(|x| x.1).collect();
        if some_value.is_empty() {
            continue;
        }
        some_value.push(!enc.exec(e.id));
        enc.f.clause(&some_value);
    }
}

/// Orders executions for a stable display: fewer edges first, then by content.
#[derive(PartialEq, Eq)]
struct ExecKey(Execution);

type Pairs = BTreeSet<(EventId, EventId)>;

impl ExecKey {
    #[allow(clippy::type_complexity)]
    fn key(&self) -> (usize, &Vec<usize>, Vec<(EventId, EventId)>, &Pairs, &Pairs, &Pairs) {
        let x = &self.0;
        let rf: Vec<(EventId, EventId)> = x.rf.iter().map(|(r, w)| (*r, *w)).collect();
        (x.co.len() + x.sc.len(), &x.traces, rf, &x.co, &x.sc, &x.barrier_sync)
    }
}

impl PartialOrd for ExecKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ExecKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key()).then_with(|| self.0.finals.cmp(&other.0.finals))
    }
}

/// The least coherence and Fence-SC orders of an execution: the transitive
/// closure of (initial write -> every executed write of its location) and of
/// the morally strong pairs as `x` orients them. Final writes stay maximal.
pub(crate) fn least_orders(p: &Program, x: &Execution) -> Execution {
    let ms = |a: EventId, b: EventId| morally_strong(p, &p.events[a], &p.events[b]);
    let mut co: BTreeSet<(EventId, EventId)> =
        x.co.iter().copied().filter(|&(a, b)| ms(a, b) || p.events[a].thread.is_none()).collect();
    for e in &p.events {
        if let Some(l) = e.write_loc() {
            if e.thread.is_some() && x.executes(p, e.id) {
                co.insert((p.init_events[l], e.id));
            }
        }
    }
    let sc: BTreeSet<(EventId, EventId)> = x.sc.iter().copied().filter(|&(a, b)| ms(a, b)).collect();
    Execution { co: closure(co), sc: closure(sc), ..x.clone() }
}

/// Transitive closure of a small relation given as pairs.
pub fn closure(mut r: BTreeSet<(EventId, EventId)>) -> BTreeSet<(EventId, EventId)> {
    loop {
        let mut add = Vec::new();
        for &(a, b) in &r {
            for &(c, d) in r.range((b, 0)..(b, usize::MAX)) {
                debug_assert_eq!(b, c);
                if a != d && !r.contains(&(a, d)) {
                    add.push((a, d));
                }
            }
        }
        if add.is_empty() {
            return r;
        }
        r.extend(add);
    }
}
