//! The symbolic builder (issue 27, D181-D184): each thread's unrolled code
//! walked once, as a DAG of instruction instances, into a [`Program`] whose
//! threads have one trace each and whose [`SymFacts`] say, as terms over the
//! values the thread reads, when each event is performed, what it writes,
//! what it depends on and what the registers end holding
//! (paper-notes/encoding.md, "Symbolic threads").
//!
//! The walk mirrors the path builder (`explore`, `step`, `rmw`) instruction
//! for instruction, with terms where the path builder has concrete values:
//! a work list of states ordered by instance key `(back edges, pc)`, where
//! two states at the same key with the same visit counts merge (their guard
//! the disjunction, each register an `Ite` on the first one's guard). A
//! branch on a term splits a state's guard; nothing forks on a value. What
//! the walk does not cover is refused ([`SymbolicBuild::Outside`]) before
//! anything is built from it.

mod refuse;
mod terms;
mod walk;

pub use terms::evaluate;

use super::*;
use crate::error::{Error, Result};
use crate::program::symbolic::{SymFacts, Term, TermId, FALSE, TRUE};
use terms::{TermError, Terms};

/// Most values one location's domain may hold in a symbolic build (the path
/// builder's 64 bounds its enumeration; here a value is a literal, D184).
const MAX_DOMAIN: usize = 256;

/// What [`build_symbolic`] made of a test (made once per test: the size of
/// the program beside a sentence costs nothing).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum SymbolicBuild {
    /// The program, with `symbolic` set: one trace per thread.
    Built(Program),
    /// The first construct the symbolic builder does not cover, with its
    /// line, in one sentence; the path builder's answer stands.
    Outside(String),
}

/// Why a symbolic build stopped: a construct it does not cover, or an error
/// the path builder would give too (an input error, a limit).
#[derive(Debug)]
pub(in crate::program::build) enum Stop {
    Outside(String),
    Err(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Err(e)
    }
}

impl Stop {
    /// An instruction inlined from a PTX module: its errors point into the module.
    fn in_origin(self, origin: &Option<std::sync::Arc<crate::error::Origin>>) -> Self {
        match self {
            Stop::Err(e) => Stop::Err(e.in_origin(origin)),
            out => out,
        }
    }
}

type SResult<T> = std::result::Result<T, Stop>;

/// `ins` is outside the symbolic builder's fragment, because `why`.
fn outside(ins: &ast::Instr, why: &str) -> Stop {
    Stop::Outside(format!("line {}: `{}`: {}", ins.span.line, ins.text, why))
}

/// A term that could not be made at `ins`.
fn term_error(e: TermError, ins: &ast::Instr) -> Stop {
    match e {
        TermError::NoValue(arith::NoValue::Arity) => {
            Stop::Err(Error::input(format!("`{}` has the wrong number of operands", ins.text), ins.span))
        }
        // The value sets combine values no one path may hold together: only
        // the path builder can tell whether a path really divides by zero.
        TermError::NoValue(_) => outside(ins, "it may divide by zero or overflow for some values it is given"),
        TermError::TooManyValues => outside(
            ins,
            &format!(
                "its value set is larger than {} values (or {} combinations of argument values)",
                terms::MAX_VALUES,
                terms::MAX_COMBINATIONS
            ),
        ),
        TermError::TooManyTerms => {
            Stop::Err(Error::limit(format!("the symbolic encoding needs more than {} terms", terms::MAX_TERMS)))
        }
    }
}

/// The only way an `Ite`, `And`, `Or` or `Not` can fail: the term table is full.
fn too_many_terms(_: TermError) -> Stop {
    Stop::Err(Error::limit(format!("the symbolic encoding needs more than {} terms", terms::MAX_TERMS)))
}

/// Dependencies of a value or of a thread's control (8.10.4): each read
/// (its index in [`Round::events`]) with the 0/1 term under which the
/// state's path carries it.
pub(in crate::program::build) type Deps = BTreeMap<usize, TermId>;

/// A register value: a term, or a static address (the path builder's `V::Addr`).
#[derive(Clone, Debug, PartialEq)]
pub(in crate::program::build) enum SV {
    T(TermId),
    Addr(String, i64),
}

#[derive(Clone, Debug, PartialEq)]
pub(in crate::program::build) struct SVal {
    v: SV,
    deps: Deps,
}

impl SVal {
    /// An unwritten register: 0 (as the path builder reads one).
    fn zero() -> Self {
        SVal { v: SV::T(FALSE), deps: Deps::new() }
    }
}

/// The events, terms and facts of one walk of every thread (one round of
/// the value domains' fixpoint).
#[derive(Default)]
struct Round {
    terms: Terms,
    /// Every event, threads in order, each thread's in instance order.
    events: Vec<DraftEvent>,
    thread_of: Vec<usize>,
    guard: Vec<TermId>,
    write: BTreeMap<usize, TermId>,
    /// For a plain write of a term (a store, `exch`): the conditions of the
    /// reads whose values flow into it (its `value_srcs`, each under the
    /// condition that the path carries it).
    write_conds: BTreeMap<usize, Vec<TermId>>,
    operands: BTreeMap<usize, Vec<TermId>>,
    assume: Vec<(usize, TermId)>,
    deps: Vec<(usize, usize, TermId)>,
    /// Per thread, each finished state's guard and registers.
    finals: Vec<Vec<(TermId, BTreeMap<String, SVal>)>>,
    cut: Vec<TermId>,
    /// The first thread none of whose paths may finish within the bound.
    every_path_cut: Option<usize>,
    /// Instruction instances so far (`--max-events`).
    instances: usize,
    /// Choices made so far (`Term::Choice` numbers, unique in the program).
    choices: usize,
    /// Bytes charged to the budget for the events (credited when dropped).
    charged: u64,
    /// The reads of the failed spin iterations left out (D189).
    left_out: BTreeSet<usize>,
    /// D198 (`walk/cas.rs`): the cas instances (thread, back edges, pc)
    /// walked succeeding only, the cas instances of the thread being walked
    /// that chose (with their failure's guard), and whether the cut term of
    /// a walk done again may hold.
    success_only: BTreeSet<(usize, u32, usize)>,
    failures: Vec<(u32, usize, TermId, TermId)>,
    cut_walked_again: bool,
}

impl Round {
    fn bytes(&self) -> u64 {
        self.charged + self.terms.bytes()
    }
}

/// Build the symbolic program of a parsed litmus test (issue 27): every
/// thread walked once, as the path builder would walk all its paths
/// (`BuildOptions::unroll`, `max_events`; `max_traces` does not apply),
/// every failed spin iteration kept. `Outside` for a test it does not cover.
pub fn build_symbolic(lit: &Litmus, opts: &BuildOptions) -> Result<SymbolicBuild> {
    Ok(build_symbolic_leaving_out_spins(lit, &BuildOptions { prune_spins: false, ..opts.clone() })?.0)
}

/// [`build_symbolic`]; with `opts.prune_spins`, failed spin iterations left
/// out of the walk (D189) and their reads returned (events of the program),
/// which the caller must check race with nothing (`sat::spin`) before using
/// the program, as `build_leaving_out_spins`' (D113).
pub fn build_symbolic_leaving_out_spins(
    lit: &Litmus,
    opts: &BuildOptions,
) -> Result<(SymbolicBuild, Option<Vec<LeftOutEvent>>)> {
    if let Some(why) = refuse::upfront(lit) {
        return Ok((SymbolicBuild::Outside(why), None));
    }
    let ctx = Ctx::new(lit, opts)?;
    match build(ctx) {
        Ok((p, left_out)) => Ok((SymbolicBuild::Built(p), Some(left_out))),
        Err(Stop::Outside(why)) => Ok((SymbolicBuild::Outside(why), None)),
        Err(Stop::Err(e)) => Err(e),
    }
}

/// The fixpoint of `build_leaving_out_spins`, on symbolic walks: rounds
/// until the value domains settle, again (at most 8 times) while typed
/// accesses change initial values (D74); cells that would split (mixed
/// sizes, D18) are refused.
fn build(mut ctx: Ctx) -> SResult<(Program, Vec<LeftOutEvent>)> {
    for _ in 0..8 {
        ctx.foot.clear();
        ctx.widest0.clear();
        let typed = ctx.typed_roots.clone();
        let round = ctx.symbolic_rounds()?;
        let retyped = ctx
            .typed_roots
            .difference(&typed)
            .any(|r| ctx.inits.get(r).is_some_and(|&v| v != cells::extract(v, 0, ctx.width(r).min(8) as u8)));
        if !retyped {
            ctx.refuse_split_cells()?;
            return finish(ctx, round);
        }
        crate::budget::credit(round.bytes());
        ctx.domains.clear();
        ctx.constants.clear();
    }
    Err(Stop::Err(Error::limit("the initial values of the locations keep changing with the types of their accesses")))
}

impl Ctx<'_> {
    /// Walk every thread with the value domains known, then extend the
    /// domains by what the walk writes, until nothing changes (`explore_all`).
    fn symbolic_rounds(&mut self) -> SResult<Round> {
        let mut rounds = 0;
        let mut last_new_constant = 0;
        loop {
            let round = self.walk_until_exchanges_settle()?;
            let changed = self.extend_domains(&round, rounds, &mut last_new_constant)?;
            rounds += 1;
            if !changed && rounds > 1 {
                if let Some(t) = round.every_path_cut {
                    return Err(Stop::Err(self.every_path_cut(t)));
                }
                return Ok(round);
            }
            crate::budget::credit(round.bytes());
            if self.domains.values().any(|d| d.len() > MAX_DOMAIN) {
                return Err(Stop::Err(Error::limit(format!(
                    "a location can hold more than {} distinct values; the test computes too many values to encode",
                    MAX_DOMAIN
                ))));
            }
        }
    }

    /// Walk every thread, again while the warp collectives' contributions
    /// grow (as `explore_all` does, D210): the last walk's round.
    fn walk_until_exchanges_settle(&mut self) -> SResult<Round> {
        loop {
            let start = explore::exchanged_count(self);
            let mut round = Round::default();
            for t in 0..self.lit.threads.len() {
                walk::Walk { ctx: self, r: &mut round, t }.thread()?;
            }
            if explore::exchanged_count(self) == start {
                return Ok(round);
            }
            crate::budget::credit(round.bytes());
        }
    }

    /// Add to the domains what the round's writes write (as `explore_all`
    /// does for paths: constants every round, values computed from reads in
    /// the rounds a chain of such writes needs, read-modify-writes applied to
    /// the values known at the round's start). Whether something changed.
    fn extend_domains(&mut self, r: &Round, rounds: usize, last_new_constant: &mut usize) -> SResult<bool> {
        let per_thread: Vec<Vec<FinishedPath>> = (0..self.lit.threads.len())
            .map(|t| {
                let events = r.events.iter().zip(&r.thread_of).filter(|(_, &u)| u == t).map(|(e, _)| e.clone());
                vec![FinishedPath { events: events.collect(), regs: HashMap::new() }]
            })
            .collect();
        let bounds = explore::chain_bounds(&per_thread);
        let before = self.domains.clone();
        let (mut changed, mut new_constant) = (false, false);
        for (g, e) in r.events.iter().enumerate() {
            let DraftKind::Mem { key, access } = &e.kind else { continue };
            if !access.writes {
                continue;
            }
            let bound = bounds.get(key).copied().unwrap_or(0);
            let window = (1..=*last_new_constant + bound).contains(&rounds);
            let init = BTreeSet::from([self.key_init(key)]);
            let (every_round, windowed) = self.written_values(r, g, (e, access), (&before, &init))?;
            for &v in &every_round {
                if self.new_constant(key, v) {
                    changed = true;
                    new_constant = true;
                }
            }
            let d = self.domains.entry(key.clone()).or_insert_with(|| init.clone());
            for v in every_round {
                changed |= d.insert(v);
            }
            if window || (e.value_srcs.is_empty() && rounds == 0) {
                for v in windowed {
                    changed |= d.insert(v);
                }
            }
        }
        if new_constant {
            *last_new_constant = rounds;
        }
        Ok(changed)
    }

    /// What write `g` of the round writes: the values the path builder would
    /// see as constants (written on paths where no read's value flows into
    /// the write: every round) and the others (the rounds a chain needs).
    #[allow(clippy::type_complexity)]
    fn written_values(
        &self,
        r: &Round,
        g: usize,
        (e, access): (&DraftEvent, &Access),
        (before, init): (&HashMap<LocKey, BTreeSet<i64>>, &BTreeSet<i64>),
    ) -> SResult<(Vec<i64>, Vec<i64>)> {
        let DraftKind::Mem { key, .. } = &e.kind else { return Ok((Vec::new(), Vec::new())) };
        let refused = |why: &str| Stop::Outside(format!("line {}: `{}`: {}", e.line, e.text, why));
        Ok(match (&access.rmw, r.write.get(&g)) {
            (None, None) if e.value_srcs.is_empty() => (vec![access.write_value], Vec::new()),
            (None, None) => (Vec::new(), vec![access.write_value]),
            (None, Some(&t)) if e.value_srcs.is_empty() => (r.terms.values[t].clone(), Vec::new()),
            (None, Some(&t)) => {
                let constant = match r.write_conds.get(&g) {
                    Some(conds) => r.terms.where_none_holds(t, conds).ok_or_else(|| {
                        refused("the values it writes on paths where no read flows into it take too long to tell apart")
                    })?,
                    None => Vec::new(),
                };
                (constant, r.terms.values[t].clone())
            }
            (Some(op), _) => {
                let known: Vec<i64> = before.get(key).unwrap_or(init).iter().copied().collect();
                (Vec::new(), rmw_images(op, known, r.operands.get(&g), &r.terms).map_err(refused)?)
            }
        })
    }

    /// Cells the accesses would split (accesses of different sizes that
    /// overlap, D18) are outside the symbolic builder.
    fn refuse_split_cells(&self) -> SResult<()> {
        let all: BTreeSet<cells::Footprint> = self.foot.iter().cloned().chain(self.extents()).collect();
        let cells = Cells::new(&all);
        for (root, cl, off, size) in &all {
            if cells.split(root, *cl, *off, *size) != vec![(*off, *size)] {
                let line = self.foot_at.iter().filter(|(f, _)| &f.0 == root).map(|(_, (s, _))| s.line).min();
                return Err(Stop::Outside(format!(
                    "line {}: accesses of different sizes overlap in `{}` (mixed-size), which the symbolic builder does not split into cells",
                    line.unwrap_or(0),
                    crate::module::written_name(root)
                )));
            }
        }
        Ok(())
    }
}

/// Every value a read-modify-write may write: its operation applied to each
/// value `known` in its location and each combination of its operands' values.
fn rmw_images(
    op: &Rmw,
    known: Vec<i64>,
    operands: Option<&Vec<TermId>>,
    t: &Terms,
) -> std::result::Result<Vec<i64>, &'static str> {
    let mut sets: Vec<Vec<i64>> = vec![known];
    match operands {
        Some(ops) => sets.extend(ops.iter().map(|&o| t.values[o].clone())),
        None => sets.extend(op.operands.iter().map(|&c| vec![c])),
    }
    let refs: Vec<&Vec<i64>> = sets.iter().collect();
    let apply = |v: &[i64]| Ok(Rmw { op: op.op, operands: v[1..].to_vec(), ty: op.ty }.apply(v[0]));
    terms::combine(&refs, apply).map_err(|_| "the values it may write are more than the symbolic builder enumerates")
}

/// Number the last round's events into a program (the path builder's
/// `assemble`, one path per thread) and attach its facts; the failed spin
/// iterations' reads it left out, each access profile once.
fn finish(ctx: Ctx, mut r: Round) -> SResult<(Program, Vec<LeftOutEvent>)> {
    let regs = final_registers(&ctx, &mut r)?;
    let nthreads = ctx.lit.threads.len();
    let mut paths: Vec<Vec<FinishedPath>> = (0..nthreads).map(|_| Vec::new()).collect();
    let mut evs: Vec<Vec<DraftEvent>> = (0..nthreads).map(|_| Vec::new()).collect();
    for (e, &t) in std::mem::take(&mut r.events).into_iter().zip(&r.thread_of) {
        evs[t].push(e);
    }
    for (t, events) in evs.into_iter().enumerate() {
        paths[t].push(FinishedPath { events, regs: HashMap::new() });
    }
    let unroll_hit = r.cut_walked_again || r.cut.iter().any(|&c| r.terms.may_hold(c));
    let (mut program, _) = ctx.assemble(paths, unroll_hit)?;
    crate::budget::credit(r.charged);
    // The g-th event of the round is the next event of its thread's one trace.
    let mut next = vec![0usize; nthreads];
    let id: Vec<EventId> = r
        .thread_of
        .iter()
        .map(|&t| {
            let trace = &program.traces[program.threads[t].traces[0]];
            next[t] += 1;
            trace.events[next[t] - 1]
        })
        .collect();
    let mut profiles = BTreeSet::new();
    let left_out = (r.left_out.iter())
        .map(|&g| &program.events[id[g]])
        .filter(|e| profiles.insert(format!("{:?}|{:?}", e.thread, e.kind)))
        .map(|e| LeftOutEvent { event: e.clone(), after_waits: Vec::new() })
        .collect();
    let mut guard = vec![TRUE; program.events.len()];
    for (g, &e) in id.iter().enumerate() {
        guard[e] = r.guard[g];
    }
    let terms = r
        .terms
        .terms
        .into_iter()
        .map(|t| match t {
            Term::Read(g) => Term::Read(id[g]),
            other => other,
        })
        .collect();
    program.symbolic = Some(Box::new(SymFacts {
        terms,
        values: r.terms.values,
        guard,
        write: r.write.into_iter().map(|(g, t)| (id[g], t)).collect(),
        operands: r.operands.into_iter().map(|(g, o)| (id[g], o)).collect(),
        assume: r.assume.into_iter().map(|(g, t)| (id[g], t)).collect(),
        deps: r.deps.into_iter().map(|(a, b, c)| (id[a], id[b], c)).collect(),
        regs,
        cut: r.cut,
    }));
    Ok((program, left_out))
}

/// Each thread's registers at its end: the finished states' values, each
/// chosen by its state's guard (an address as the number reports show).
fn final_registers(ctx: &Ctx, r: &mut Round) -> SResult<Vec<BTreeMap<String, TermId>>> {
    let mut out = Vec::new();
    for finals in std::mem::take(&mut r.finals) {
        let names: BTreeSet<&String> = finals.iter().flat_map(|(_, regs)| regs.keys()).collect();
        let mut regs = BTreeMap::new();
        for name in names {
            let mut acc = FALSE;
            for (i, (g, state_regs)) in finals.iter().enumerate().rev() {
                let v = match state_regs.get(name).map(|v| &v.v) {
                    Some(SV::T(t)) => *t,
                    Some(SV::Addr(n, off)) => {
                        let idx = ctx.names.keys().position(|k| k == n).unwrap_or(0);
                        r.terms.konst(value::address_number(idx, *off))
                    }
                    None => FALSE,
                };
                acc = if i + 1 == finals.len() { v } else { r.terms.ite(*g, v, acc).map_err(too_many_terms)? };
            }
            regs.insert(name.clone(), acc);
        }
        out.push(regs);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
