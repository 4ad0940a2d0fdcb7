//! The SAT engine: one solver per test; allowed final states are enumerated by
//! solving, decoding the model into an execution, and blocking its final state.

pub mod candidates;
pub mod counting;
pub mod encode;
pub mod formula;
pub mod hubs;
pub mod prop;
pub mod rows;
pub mod spin;
pub mod symmetry;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::outcome::{Execution, Flags, Outcome, Reach, State};
use crate::program::symbolic::SymModel;
use crate::program::{EventId, Program};
use crate::reference::verify::Verifier;
use encode::Encoding;
use formula::{Model, B};
use std::time::Instant;

/// Limits of one run.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// With `list: None`, more allowed final states than this is a limit error.
    pub max_states: usize,
    /// List at most this many final states (`None`: all of them). The verdict
    /// and the observation are decided by queries, whatever is listed.
    pub list: Option<usize>,
    /// The model, the deadline the queries stop at, tracing.
    pub ctx: Ctx,
    /// Re-check every execution found with the reference engine's relations and
    /// axioms (`reference::verify`); a disagreement is an internal error.
    pub self_check: bool,
    /// Break thread symmetry in the verdict queries (`sat::symmetry`, D70).
    pub symmetry: bool,
    /// Encode one event per instruction instance (`program::merge`, D65);
    /// off: one event per path's copy, as the builder made them.
    pub merge_paths: bool,
    /// With `merge_paths`, drop the paths that only add failed spin
    /// iterations to another path (D66); off only to check that doing so
    /// changes no answer (tests/engines/reductions.rs), never an approximation.
    pub drop_spin_paths: bool,
}

impl SolveOptions {
    pub fn model(&self) -> &crate::model::Model {
        &self.ctx.model
    }
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            max_states: 100_000,
            list: None,
            ctx: Ctx::default(),
            self_check: true,
            symmetry: true,
            merge_paths: true,
            drop_spin_paths: true,
        }
    }
}

/// The solver, the axioms' activation literals and the test's filter: what every
/// query of one check assumes.
struct Session<'p, 'o> {
    enc: Encoding<'p>,
    base: Vec<B>,
    opts: &'o SolveOptions,
    /// The builder's program; `enc.p` is its merged form when `merged` is set (D65).
    orig: &'p Program,
    merged: Option<&'p crate::program::merge::Merged>,
    /// The self-check, keeping what it computed per combination of traces
    /// for every later query of this check (verdict, listing, filterless).
    verifier: Verifier<'p, 'o>,
    /// A symbolic program (`orig`, D186): the concrete program of every
    /// execution found so far, which the executions returned refer to.
    projection: Option<crate::program::symbolic::Projection>,
    /// Executions of the projection not verified yet: the self-check verifies
    /// them on the last projection, which only grows, with one `Verifier`
    /// that prepares each combination of traces once (D200).
    unverified: Vec<Execution>,
}

impl Session<'_, '_> {
    fn timed_out(&self) -> Result<()> {
        if self.opts.ctx.past_deadline() {
            return Err(Error::limit("timeout: the test took longer than --timeout"));
        }
        Ok(())
    }

    /// One allowed execution also satisfying `extra`, decoded and (self-check)
    /// verified; None when there is none.
    fn find(&mut self, extra: &[B]) -> Result<Option<Execution>> {
        match self.find_decoded(extra)? {
            Some((x, Some(m))) => self.project(&x, &m).map(Some),
            Some((x, None)) => {
                if self.opts.self_check {
                    self.verifier.verify(&x)?;
                }
                Ok(Some(x))
            }
            None => Ok(None),
        }
    }

    /// [`Session::find`]'s execution as decoded: of the builder's program, or
    /// for a symbolic one of the symbolic program, with what the model says of
    /// its terms (not verified yet).
    fn find_decoded(&mut self, extra: &[B]) -> Result<Option<(Execution, Option<SymModel>)>> {
        let mut assume = self.base.clone();
        assume.extend_from_slice(extra);
        let sat = self.enc.f.solve_assuming(&assume)?;
        self.timed_out()?;
        if !sat {
            return Ok(None);
        }
        let model = self.enc.f.model()?;
        let mut x = decode(&self.enc, &model);
        if let Some(m) = self.merged {
            x = m.concrete(self.orig, &x);
        }
        let symbolic = self.projection.is_some().then(|| self.enc.symbolic_model(&model));
        Ok(Some((x, symbolic)))
    }

    /// An execution of the symbolic program with its model, as an execution
    /// of the projection (D186), verified against the projection as it is now
    /// (it grows with every execution), its model against the terms (D192).
    fn project(&mut self, x: &Execution, m: &SymModel) -> Result<Execution> {
        let Some(proj) = &mut self.projection else {
            return Err(Error::internal("projecting an execution of a program that is not symbolic"));
        };
        if self.opts.self_check {
            // The projection reads the term values as constants: they must be
            // what the terms mean (D192; a renamed model is made, not solved).
            m.check(self.orig, x).map_err(|why| Error::internal(format!("self-check: {}", why)))?;
        }
        let x = proj.add(self.orig, x, m);
        if self.opts.self_check {
            self.unverified.push(x.clone());
        }
        Ok(x)
    }

    /// The program the executions `find` returns belong to: the builder's,
    /// or for a symbolic program its projection so far.
    fn concrete(&self) -> &Program {
        self.projection.as_ref().map_or(self.orig, |x| &x.program)
    }
}

/// Decide a test: first the verdict (is the condition's proposition satisfiable
/// / falsifiable by an allowed execution satisfying the filter: two queries),
/// then the listing of final states, one query each, each state blocked in turn.
/// A symbolic program is decided by [`check_symbolic`] (refused here: its
/// executions belong to the projection that one returns).
pub fn check(p: &Program, opts: &SolveOptions) -> Result<Outcome> {
    if p.symbolic.is_some() {
        return Err(Error::internal("a symbolic program is decided by sat::check_symbolic"));
    }
    Ok(decide(p, opts)?.0)
}

/// Decide a symbolic program (D185, D186): the outcome, whose executions
/// belong to the returned ordinary program (one path per thread and
/// execution shown: `program::symbolic::Projection`). An ordinary program is
/// decided as [`check`] does, and returned as it is.
pub fn check_symbolic(p: &Program, opts: &SolveOptions) -> Result<(Program, Outcome)> {
    let (out, projected) = decide(p, opts)?;
    Ok((projected.unwrap_or_else(|| p.clone()), out))
}

fn decide(p: &Program, opts: &SolveOptions) -> Result<(Outcome, Option<Program>)> {
    let symbolic = p.symbolic.is_some();
    // Every query below assumes the axioms (the deadlock search's barrier-only
    // query does not, but fixed same-thread coherence cannot stop barriers).
    if opts.ctx.debug {
        let per: Vec<usize> = p.threads.iter().map(|t| t.traces.len()).collect();
        eprintln!("events {} traces {} (per thread {:?})", p.events.len(), p.traces.len(), per);
    }
    // One event per instruction instance, shared by the paths that perform it (D65).
    // Paths that only add failed spin iterations are dropped (D66): the
    // argument covers the built-in models' rows, not arbitrary ones.
    let merged = if opts.merge_paths && !symbolic {
        let gone = if opts.drop_spin_paths && opts.model().is_builtin() {
            spin::redundant_traces(p)
        } else {
            Default::default()
        };
        if opts.ctx.debug && !gone.is_empty() {
            eprintln!("dropped {} paths that only add failed spin iterations (D66)", gone.len());
        }
        crate::program::merge::merge(p, &gone)
    } else {
        None
    };
    let q = merged.as_ref().map_or(p, |m| &m.program);
    if opts.ctx.debug && merged.is_some() {
        eprintln!("merged: {} events", q.events.len());
    }
    let mut enc = Encoding::with_axioms(q, opts.model())?;
    let acts = enc.all_acts();
    let filter = match &p.filter {
        Some(f) => enc.prop_literal(f),
        None => B::T,
    };
    let cond = enc.prop_literal(&p.condition);
    // Every query below that assumes `sym` asks a question that renaming
    // symmetric threads does not change (D70, for symbolic threads D192); the
    // listing adds orbits.
    let classes = if opts.symmetry { symmetry::classes_merged(p, q) } else { Vec::new() };
    let guard = symmetry::break_symmetry(&mut enc, &classes);
    let sym = guard.unwrap_or(B::T);
    if opts.ctx.debug {
        eprintln!("{}", symmetry::describe(p, &classes));
        eprintln!("vars {} clauses {}", enc.f.vars, enc.f.clauses);
    }
    let mut base = acts.clone();
    base.push(filter);
    let projection = symbolic.then(|| crate::program::symbolic::Projection::new(p));
    let verifier = Verifier::new(p, opts.model());
    let unverified = Vec::new();
    let mut s = Session { enc, base, opts, orig: p, merged: merged.as_ref(), verifier, projection, unverified };
    crate::budget::phase("the verdict queries");
    let positive = s.find(&[cond, sym])?;
    let negative = s.find(&[!cond, sym])?;
    let holds = |x: &Execution| crate::outcome::eval(p, &p.condition, &x.state(s.concrete()));
    if positive.as_ref().is_some_and(|x| !holds(x)) || negative.as_ref().is_some_and(holds) {
        return Err(Error::internal("self-check: a verdict query's execution does not agree with the condition"));
    }
    let mut out = Outcome {
        reach: Some(Reach { positive: positive.is_some(), negative: negative.is_some() }),
        ..Outcome::default()
    };
    crate::budget::phase("listing final states");
    list_states(&mut s, &mut out, guard.map(|g| (classes.as_slice(), g)))?;
    let summary = out.summary(p);
    if out.complete && (summary.positive > 0, summary.negative > 0) != (summary.some_positive, summary.some_negative) {
        return Err(Error::internal("self-check: the listed final states disagree with the verdict queries"));
    }
    out.any_execution = positive.is_some() || negative.is_some();
    if !out.any_execution && p.flags.unroll_bound_hit && p.filter.is_some() {
        // The filter may have removed every execution: ask without it.
        let with_filter = std::mem::replace(&mut s.base, acts.clone());
        out.any_execution = s.find(&[sym])?.is_some();
        s.base = with_filter;
    }
    crate::budget::phase("the data-race and deadlock queries");
    out.flags = Flags {
        // Renaming symmetric threads maps a racy execution to a racy one (the
        // race query sees no condition or filter): the guard applies (D70).
        data_race: has_race(&mut s.enc, &[acts.as_slice(), &[sym]].concat())?,
        deadlock: match symbolic {
            true => has_deadlock_symbolic(&mut s.enc, opts.ctx.deadline)?,
            false => has_deadlock(&mut s.enc, opts.ctx.deadline)?,
        },
        unroll_bound_hit: p.flags.unroll_bound_hit,
        mixed_size: p.flags.mixed_size,
    };
    let projected = s.projection.map(|x| x.program);
    if let Some(q) = &projected {
        let mut verifier = Verifier::new(q, opts.model());
        s.unverified.iter().try_for_each(|x| verifier.verify(x))?;
    }
    Ok((out, projected))
}

/// List allowed final states (filter assumed) up to `opts.list`, blocking each.
/// With symmetry (`sym`: the classes and their guard), each query finds an
/// execution whose symmetric threads are sorted, and every state it maps to
/// under the classes' permutations is listed (and blocked) with it: the
/// allowed states are exactly the union of these orbits (D70).
fn list_states(s: &mut Session, out: &mut Outcome, sym: Option<(&[Vec<usize>], B)>) -> Result<()> {
    let no_observables = s.orig.observables.is_empty();
    let limit = s.opts.list.unwrap_or(usize::MAX);
    let room = if s.opts.list.is_none() { s.opts.max_states } else { limit };
    let blocking = s.enc.f.fresh();
    loop {
        let query: Vec<B> = std::iter::once(blocking).chain(sym.map(|x| x.1)).collect();
        let found = match sym {
            Some((classes, _)) => {
                let room = room.saturating_sub(out.states.len()) + 1;
                match orbit(s, classes, &query, room)? {
                    Some(found) => found,
                    None => break,
                }
            }
            None => match s.find(&query)? {
                Some(x) => vec![(x.state(s.concrete()), x)],
                None => break,
            },
        };
        for (k, (state, x)) in found.into_iter().enumerate() {
            if out.states.len() >= limit {
                out.complete = false;
                return Ok(());
            }
            if out.states.contains_key(&state) {
                return Err(Error::internal("state enumeration found the same final state twice"));
            }
            if s.opts.list.is_none() && out.states.len() >= s.opts.max_states {
                return Err(Error::limit(format!(
                    "more than {} final states (raise --max-states, or list fewer with --states N)",
                    s.opts.max_states
                )));
            }
            // The solver's own execution was verified by `find`, and so is a
            // renamed one of a symbolic program (`project`); a renamed one of
            // another is verified here, which checks the symmetry itself.
            if k > 0 && s.opts.self_check && s.projection.is_none() {
                s.verifier.verify(&x)?;
            }
            s.enc.block_state(blocking, &state);
            out.states.insert(state, x);
        }
        if no_observables {
            break;
        }
    }
    Ok(())
}

/// The states of the orbit of an execution satisfying `query` (D70), each
/// with an execution; `None` when no execution satisfies it. A symbolic
/// program's executions are renamed as the symbolic program's, with their
/// models, and each image projected (D192).
fn orbit(s: &mut Session, classes: &[Vec<usize>], query: &[B], room: usize) -> Result<Option<Vec<(State, Execution)>>> {
    let Some((x, m)) = s.find_decoded(query)? else { return Ok(None) };
    let Some(m) = m else {
        if s.opts.self_check {
            s.verifier.verify(&x)?;
        }
        return Ok(Some(symmetry::orbit(s.orig, classes, x, room)));
    };
    let p = s.orig;
    let rename = |(x, m): &(Execution, SymModel), a: usize, b: usize| {
        symmetry::swap_symbolic(p, x, m, a, b)
            .ok_or_else(|| Error::internal("symmetry: two threads of a class have facts that do not correspond"))
    };
    let show = |(x, m): &(Execution, SymModel)| {
        let x = s.project(x, m)?;
        Ok((x.state(s.concrete()), x))
    };
    symmetry::closure(classes, (x, m), room, rename, show).map(Some)
}

/// Read the execution out of a model.
pub fn decode(enc: &Encoding, m: &Model) -> Execution {
    let p = enc.p;
    let mut x = Execution::default();
    for th in &p.threads {
        let t = th.traces.iter().copied().find(|&t| m.value(enc.choices.trace[t])).unwrap_or(th.traces[0]);
        x.traces.push(t);
    }
    for (&(w, r), &v) in &enc.choices.rf {
        if m.value(v) {
            x.rf.insert(r, w);
        }
    }
    for (&(a, b), &v) in &enc.choices.co {
        if m.value(v) && x.executes(p, a) && x.executes(p, b) {
            x.co.insert((a, b));
        }
    }
    for (&(a, b), &v) in &enc.choices.sc {
        if m.value(v) {
            x.sc.insert((a, b));
        }
    }
    for (&(a, b), &v) in enc.sync.sync_pairs.iter() {
        if m.value(v) {
            x.barrier_sync.insert((a, b));
        }
    }
    for (&l, c) in &enc.choices.fin {
        if let Some(&(w, _)) = c.iter().find(|(_, v)| m.value(*v)) {
            x.finals.insert(l, w);
        }
    }
    // Locations not observed: any coherence-maximal write.
    x
}

/// 8.7.1: does some allowed execution have two conflicting operations that are
/// neither morally strong nor related in causality order? Causality literals are
/// least-fixpoint forced, so asking for their absence is exact.
fn has_race(enc: &mut Encoding, acts: &[B]) -> Result<bool> {
    if let Some(dr) = enc.derived.dr.clone() {
        return some_pair(enc, dr, acts);
    }
    let mut lits = Vec::new();
    for (a, b, both) in enc.derived.race_pairs.clone() {
        let r = enc.f.fresh();
        let cause = |x, y| enc.derived.cause_nodes.get(&(x, y)).copied().unwrap_or(B::F);
        let (cab, cba) = (cause(a, b), cause(b, a));
        enc.f.implies(&[r], both);
        enc.f.implies(&[r], !cab);
        enc.f.implies(&[r], !cba);
        lits.push(r);
    }
    some_pair(enc, lits, acts)
}

/// herd's `undefined_unless empty dr` (the C models): does some allowed
/// execution have a pair in `dr`? Each literal implies its pair is in it.
fn some_pair(enc: &mut Encoding, lits: Vec<B>, acts: &[B]) -> Result<bool> {
    if lits.is_empty() {
        return Ok(false);
    }
    let q = enc.f.fresh();
    let mut c = lits;
    c.push(!q);
    enc.f.clause(&c);
    let mut assume = acts.to_vec();
    assume.push(q);
    enc.f.solve_assuming(&assume)
}

/// Can some combination of thread paths get stuck at a barrier (no matching of
/// arrivals to waits completes every wait without a cycle), while its memory
/// operations satisfy the six axioms when barrier synchronization is ignored?
/// Checked per combination of traces (up to 4096 combinations).
fn has_deadlock(enc: &mut Encoding, deadline: Option<Instant>) -> Result<bool> {
    let p = enc.p;
    let has_barrier = p.events.iter().any(|e| e.is_sync_wait());
    if !has_barrier {
        return Ok(false);
    }
    // Only threads with a barrier operation on some path decide whether barriers
    // complete; the paths of the others are left to the solver.
    let is_barrier = |e: &crate::program::Event| e.sync().is_some();
    let threads: Vec<&crate::program::Thread> =
        p.threads.iter().filter(|t| p.events.iter().any(|e| e.thread == Some(t.id) && is_barrier(e))).collect();
    let combos: usize = threads.iter().map(|t| t.traces.len()).product();
    if combos > 4096 {
        return Ok(false);
    }
    let axioms: Vec<B> = enc.axiom_acts();
    let no_axioms: Vec<B> = axioms.iter().map(|&a| !a).collect();
    let mut idx = vec![0usize; threads.len()];
    loop {
        let lits: Vec<B> = threads.iter().zip(&idx).map(|(t, &i)| enc.choices.trace[t.traces[i]]).collect();
        // Barriers alone (axioms off, progress on): can they complete?
        let mut barriers_only = no_axioms.clone();
        barriers_only.push(enc.act.progress);
        barriers_only.extend(&lits);
        // Memory alone (axioms on, progress off).
        let mut memory_only = axioms.clone();
        memory_only.push(!enc.act.progress);
        memory_only.extend(&lits);
        if deadline.is_some_and(|d| Instant::now() > d) {
            return Err(Error::limit("timeout: the test took longer than --timeout (while looking for deadlocks)"));
        }
        if !enc.f.solve_assuming(&barriers_only)? && enc.f.solve_assuming(&memory_only)? {
            return Ok(true);
        }
        // Next combination.
        let mut k = 0;
        loop {
            if k == idx.len() {
                return Ok(false);
            }
            idx[k] += 1;
            if idx[k] < threads[k].traces.len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// [`has_deadlock`] for a symbolic program (D185), whose threads' paths are
/// not trace literals but which events are performed: each combination of
/// paths of the threads with a barrier operation whose memory operations
/// satisfy the axioms (barrier progress off) is found in turn, and is a
/// deadlock when barriers alone cannot complete with exactly those events
/// performed. At most 4096 combinations, as there.
fn has_deadlock_symbolic(enc: &mut Encoding, deadline: Option<Instant>) -> Result<bool> {
    let p = enc.p;
    if !p.events.iter().any(|e| e.is_sync_wait()) {
        return Ok(false);
    }
    let threads: Vec<usize> = p
        .threads
        .iter()
        .filter(|t| p.events.iter().any(|e| e.thread == Some(t.id) && e.sync().is_some()))
        .map(|t| t.id)
        .collect();
    let events: Vec<EventId> =
        p.events.iter().filter(|e| e.thread.is_some_and(|t| threads.contains(&t))).map(|e| e.id).collect();
    let axioms: Vec<B> = enc.axiom_acts();
    let no_axioms: Vec<B> = axioms.iter().map(|&a| !a).collect();
    // Switches on the clauses that rule out the combinations already tried.
    let tried = enc.f.fresh();
    for _ in 0..4096 {
        if deadline.is_some_and(|d| Instant::now() > d) {
            return Err(Error::limit("timeout: the test took longer than --timeout (while looking for deadlocks)"));
        }
        let memory_only: Vec<B> = axioms.iter().copied().chain([!enc.act.progress, tried]).collect();
        if !enc.f.solve_assuming(&memory_only)? {
            return Ok(false);
        }
        let m = enc.f.model()?;
        let path: Vec<B> = events.iter().map(|&e| enc.exec(e)).map(|x| if m.value(x) { x } else { !x }).collect();
        let barriers_only: Vec<B> =
            no_axioms.iter().copied().chain([enc.act.progress]).chain(path.iter().copied()).collect();
        if !enc.f.solve_assuming(&barriers_only)? {
            return Ok(true);
        }
        let block: Vec<B> = std::iter::once(!tried).chain(path.iter().map(|&x| !x)).collect();
        enc.f.clause(&block);
    }
    Ok(false)
}
