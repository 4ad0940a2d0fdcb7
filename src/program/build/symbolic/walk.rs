//! One thread's walk: the work list of states in instance order, merges,
//! and each covered instruction as the path builder's step performs it,
//! with terms for values (D181, D183).

use super::*;
use crate::ast::{AtomOp, BranchCond, Cmp, InstrKind, IntTy, Operand};
use crate::program::build::meaning;
use crate::program::symbolic::SymOp;

mod barrier;
mod cas;
mod collective;
mod private;
mod spin;
mod values;

/// Most states one thread's work list may hold (a limit, exit 3).
const MAX_STATES: usize = 100_000;

/// A point of one thread's walk: the paths that reach instruction `pc`
/// after `back_edges` back edges with these visit counts, as one state.
#[derive(Clone, Debug)]
pub(in crate::program::build) struct SymState {
    /// The 0/1 term "this state's paths are taken".
    guard: TermId,
    regs: BTreeMap<String, SVal>,
    /// Control dependencies (8.10.4) of the events this state performs next.
    ctrl: Deps,
    /// The private (`.local`, `.param`) bytes written so far.
    private: private::Bytes,
    /// How many times the paths used each CTA barrier so far (the same on
    /// every path of the state: a merge of different counts is refused).
    phases: barrier::Phases,
    /// The asynchronous operations issued so far and their groups (the
    /// same on every path of the state: a merge of different ones is refused).
    asyncs: meaning::AsyncState,
    /// How many times the paths ran each instruction so far: a term, as
    /// merged paths may differ (D183).
    visits: BTreeMap<usize, TermId>,
    back_edges: u32,
    pc: usize,
    /// The state at each loop head the last time its paths stood there,
    /// with what they did since (D189).
    spins: spin::Snapshots,
}

/// States merge at the same instruction instance.
type StateKey = (u32, usize);

/// A walk's finished states: each one's guard and registers.
type Finished = Vec<(TermId, BTreeMap<String, SVal>)>;

pub(in crate::program::build) struct Walk<'c, 'a> {
    pub ctx: &'c mut Ctx<'a>,
    pub r: &'c mut Round,
    pub t: usize,
}

impl Walk<'_, '_> {
    /// Walk the thread: its events, its finished states and its cut term
    /// go into the round.
    pub fn thread(mut self) -> SResult<()> {
        let mark = self.mark();
        let (mut finished, mut cut) = self.walk()?;
        if self.failures_cut(cut)? {
            (finished, cut) = self.walk_again(mark)?;
        }
        if !finished.iter().any(|(g, _)| self.r.terms.may_hold(*g)) {
            // An error only if the domains are final (a later round may find paths).
            self.r.every_path_cut.get_or_insert(self.t);
        }
        self.r.finals.push(finished);
        self.r.cut.push(cut);
        Ok(())
    }

    /// One walk of the thread: its events go into the round; its finished
    /// states (guard, registers) and its cut term are returned.
    fn walk(&mut self) -> SResult<(Finished, TermId)> {
        let lit = self.ctx.lit;
        let code = &lit.code[self.t];
        let labels = self.ctx.labels(self.t)?;
        let regs = self.initial_regs();
        let start = SymState {
            guard: TRUE,
            regs,
            ctrl: Deps::new(),
            private: private::Bytes::new(),
            phases: barrier::Phases::new(),
            asyncs: meaning::AsyncState::default(),
            visits: BTreeMap::new(),
            back_edges: 0,
            pc: 0,
            spins: spin::Snapshots::new(),
        };
        let heads = self.ctx.loop_heads(self.t, &labels);
        let mut work: BTreeMap<StateKey, SymState> = BTreeMap::new();
        let mut finished = Vec::new();
        let mut cut = FALSE;
        self.enqueue(&mut work, start, code)?;
        while let Some((_, mut st)) = work.pop_first() {
            if st.pc >= code.len() {
                finished.push((st.guard, st.regs));
                continue;
            }
            let ins = &code[st.pc];
            if heads.is_head(st.pc) {
                self.snapshot(&heads, &mut st);
            }
            if !self.within_bound(&mut st, ins, &mut cut)? {
                continue;
            }
            for next in self.step(st, ins, &labels).map_err(|s| s.in_origin(&ins.origin))? {
                if !self.only_failed_iteration(&heads, &next, code, &mut cut)? {
                    self.enqueue(&mut work, next, code)?;
                }
            }
            if work.len() > MAX_STATES {
                return Err(Stop::Err(Error::limit(format!(
                    "thread P{} needs more than {} states in the symbolic walk (lower --unroll or simplify the test)",
                    self.t, MAX_STATES
                ))));
            }
        }
        Ok((finished, cut))
    }

    /// Count one more run of `ins` (`explore_thread`): the paths that run it
    /// more than `unroll + 1` times are cut (their guard goes into `cut`);
    /// whether some paths of `st` go on.
    fn within_bound(&mut self, st: &mut SymState, ins: &ast::Instr, cut: &mut TermId) -> SResult<bool> {
        let before = st.visits.get(&st.pc).copied().unwrap_or(FALSE);
        let (one, most) = (self.r.terms.konst(1), self.r.terms.konst(i64::from(self.ctx.opts.unroll) + 1));
        let add = SymOp::Alu(crate::ast::AluOp::Add, None, None);
        let now = self.r.terms.op(add, vec![before, one]).map_err(|e| term_error(e, ins))?;
        st.visits.insert(st.pc, now);
        // Every path of a merged state may have run `ins` too often although
        // the count is not a constant (paths that met after different
        // iterations): the over-the-bound term is then 1, whatever the domains.
        let all_over = self.r.terms.least_leaf(now).is_some_and(|k| k > i64::from(self.ctx.opts.unroll) + 1);
        let over = match all_over {
            true => TRUE,
            false => self.r.terms.op(SymOp::Compare(Cmp::Gt, None), vec![now, most]).map_err(|e| term_error(e, ins))?,
        };
        let cut_here = self.r.terms.and(&[st.guard, over]).map_err(too_many_terms)?;
        *cut = self.r.terms.or(&[*cut, cut_here]).map_err(too_many_terms)?;
        // Value sets only grow from round to round: a cut that may hold now
        // may hold in the last round, where the program is built.
        if self.r.terms.may_hold(cut_here) {
            self.ctx.unroll_cuts.entry(self.t).or_insert_with(|| loop_name(ins, self.t));
        }
        let not_over = self.r.terms.not(over).map_err(too_many_terms)?;
        self.restrict(st, not_over)?;
        Ok(st.guard != FALSE)
    }

    /// The registers the init block gives the thread (`initial_regs`).
    fn initial_regs(&mut self) -> BTreeMap<String, SVal> {
        let mut regs = BTreeMap::new();
        for (name, v) in self.ctx.initial_regs(self.t) {
            let v = match v.v {
                V::Addr(n, off) => SV::Addr(n, off),
                V::Const(c) => SV::T(self.r.terms.konst(c)),
                V::Free(_) => SV::T(FALSE),
            };
            regs.insert(name, SVal { v, deps: Deps::new() });
        }
        regs
    }

    /// Put `st` on the work list, merged with the state of its key if there
    /// is one. Only a guard that is the constant 0 drops a state: one whose
    /// value set lacks 1 may still write what makes it hold once the domains
    /// grow (D183), and the domains only grow from what the walk writes.
    fn enqueue(&mut self, work: &mut BTreeMap<StateKey, SymState>, st: SymState, code: &[ast::Instr]) -> SResult<()> {
        if st.guard == FALSE {
            return Ok(());
        }
        let key = (st.back_edges, st.pc);
        let st = match work.remove(&key) {
            Some(a) => self.merge(a, st, code.get(key.1))?,
            None => st,
        };
        work.insert(key, st);
        Ok(())
    }

    /// Two states of one key as one (their paths are disjoint: every split
    /// divides a guard by a term and its negation): the guard their
    /// disjunction, each register and dependency condition `a`'s where
    /// `a`'s guard holds, `b`'s elsewhere.
    fn merge(&mut self, a: SymState, b: SymState, at: Option<&ast::Instr>) -> SResult<SymState> {
        let ga = a.guard;
        let guard = self.r.terms.or(&[ga, b.guard]).map_err(too_many_terms)?;
        let names: BTreeSet<&String> = a.regs.keys().chain(b.regs.keys()).collect();
        let mut regs = BTreeMap::new();
        for name in names {
            let va = a.regs.get(name).cloned().unwrap_or_else(SVal::zero);
            let vb = b.regs.get(name).cloned().unwrap_or_else(SVal::zero);
            let Some(v) = self.merge_value(ga, &va, &vb)? else {
                return Err(Stop::Outside(format!(
                    "{}: register `{}` holds an address on one path and another value on another, which the symbolic builder does not merge",
                    place(at),
                    name
                )));
            };
            regs.insert(name.clone(), v);
        }
        let ctrl = self.merge_deps(ga, &a.ctrl, &b.ctrl)?;
        let mut visits = BTreeMap::new();
        for &pc in a.visits.keys().chain(b.visits.keys()) {
            let (va, vb) = (a.visits.get(&pc).copied().unwrap_or(FALSE), b.visits.get(&pc).copied().unwrap_or(FALSE));
            visits.insert(pc, self.r.terms.ite(ga, va, vb).map_err(too_many_terms)?);
        }
        let private = self.merge_private(ga, &a.private, &b.private, at)?;
        if a.phases != b.phases {
            return Err(Stop::Outside(format!(
                "{}: paths that used a barrier a different number of times meet, which the symbolic builder does not merge",
                place(at)
            )));
        }
        if a.asyncs != b.asyncs {
            return Err(Stop::Outside(format!(
                "{}: paths that issued different asynchronous operations meet, which the symbolic builder does not merge",
                place(at)
            )));
        }
        let spins = self.merge_snapshots(&a.spins, &b.spins)?;
        Ok(SymState { guard, regs, ctrl, private, visits, spins, ..a })
    }

    /// `a` where `ga` holds, `b` elsewhere; `None` when one is an address
    /// and the other is not the same address.
    fn merge_value(&mut self, ga: TermId, a: &SVal, b: &SVal) -> SResult<Option<SVal>> {
        let v = match (&a.v, &b.v) {
            (x, y) if x == y => x.clone(),
            (SV::T(x), SV::T(y)) => SV::T(self.r.terms.ite(ga, *x, *y).map_err(too_many_terms)?),
            _ => return Ok(None),
        };
        Ok(Some(SVal { v, deps: self.merge_deps(ga, &a.deps, &b.deps)? }))
    }

    fn merge_deps(&mut self, ga: TermId, a: &Deps, b: &Deps) -> SResult<Deps> {
        let mut out = Deps::new();
        for &read in a.keys().chain(b.keys()) {
            let (ca, cb) = (a.get(&read).copied().unwrap_or(FALSE), b.get(&read).copied().unwrap_or(FALSE));
            let c = self.r.terms.ite(ga, ca, cb).map_err(too_many_terms)?;
            if c != FALSE {
                out.insert(read, c);
            }
        }
        Ok(out)
    }

    /// Add `from` to `into`: a read in both is carried when either carries it.
    fn add_deps(&mut self, into: &mut Deps, from: &Deps) -> SResult<()> {
        for (&read, &c) in from {
            let old = into.get(&read).copied().unwrap_or(FALSE);
            into.insert(read, self.r.terms.or(&[old, c]).map_err(too_many_terms)?);
        }
        Ok(())
    }

    /// The states after `ins` (`step`): one, two after a branch on a term,
    /// none when `ins` is outside the fragment (refused).
    fn step(&mut self, mut st: SymState, ins: &ast::Instr, labels: &HashMap<String, usize>) -> SResult<Vec<SymState>> {
        if let Some(why) = refuse::kind(&ins.kind) {
            return Err(outside(ins, why));
        }
        match &ins.kind {
            InstrKind::Branch { cond, target } => return self.branch(st, ins, cond, labels[target]),
            InstrKind::Choose(offsets) => return self.choose_order(st, offsets),
            InstrKind::Skip(n) => {
                st.pc += n;
                return Ok(vec![st]);
            }
            InstrKind::Alu { .. } => meaning::alu(self, &mut st, ins)?,
            InstrKind::Setp { .. } => one_state(meaning::setp(self, &mut st, ins)?)?,
            InstrKind::Selp { .. } => meaning::selp(self, &mut st, ins)?,
            InstrKind::Load { .. } => one_state(meaning::load(self, &mut st, ins)?)?,
            InstrKind::Store { .. } => meaning::store(self, &mut st, ins)?,
            InstrKind::Atomic { .. } => meaning::atomic(self, &mut st, ins)?,
            InstrKind::Barrier { .. } => one_state(meaning::cta_barrier(self, &mut st, ins)?)?,
            InstrKind::Warp { .. } => self.warp_collective(&mut st, ins)?,
            InstrKind::ActiveMask { .. } => meaning::activemask(self, &mut st, ins)?,
            InstrKind::Mapa { .. } => meaning::mapa(self, &mut st, ins)?,
            InstrKind::CtaRank { .. } => meaning::ctarank(self, &mut st, ins)?,
            InstrKind::Timer { .. } => one_state(meaning::timer(self, &mut st, ins)?)?,
            InstrKind::IsSpace { .. } => meaning::isspace(self, &mut st, ins)?,
            InstrKind::Mbarrier { .. } => one_state(meaning::mbarrier(self, &mut st, ins)?)?,
            InstrKind::ClusterBarrier { .. } => meaning::cluster_barrier(self, &mut st, ins)?,
            InstrKind::Async(_) => one_state(meaning::async_op(self, &mut st, ins)?)?,
            InstrKind::Fence { .. }
            | InstrKind::SharedFence { .. }
            | InstrKind::ProxyFence { .. }
            | InstrKind::InitFence => meaning::fence(self, &mut st, ins)?,
            _ => {}
        }
        st.pc += 1;
        Ok(vec![st])
    }

    fn operand(&mut self, st: &SymState, op: &Operand) -> SVal {
        match op {
            Operand::Imm(c) => SVal { v: SV::T(self.r.terms.konst(*c)), deps: Deps::new() },
            Operand::Reg(r) => st.regs.get(r).cloned().unwrap_or_else(SVal::zero),
            Operand::Sym(s) => SVal { v: SV::Addr(s.clone(), 0), deps: Deps::new() },
        }
    }

    /// A value as a term: an address used as a number is its synthetic
    /// number (the path builder's `concrete`).
    fn term_of(&mut self, v: &SVal) -> TermId {
        match &v.v {
            SV::T(t) => *t,
            SV::Addr(name, off) => {
                let idx = self.ctx.names.keys().position(|n| n == name).unwrap_or(0);
                self.r.terms.konst(value::address_number(idx, *off))
            }
        }
    }

    /// Converting `v` to `ty` changes none of its values (`Ctx::keeps`).
    fn keeps(&self, v: &SVal, ty: Option<IntTy>) -> bool {
        match (&v.v, ty) {
            (_, None) | (SV::Addr(..), _) => true,
            (SV::T(t), Some(_)) => self.r.terms.values[*t].iter().all(|&c| arith::convert(ty, c) == c),
        }
    }

    /// The 0/1 term "`t` is not 0" (a predicate register used by a branch or `selp`).
    fn nonzero(&mut self, t: TermId, ins: &ast::Instr) -> SResult<TermId> {
        if self.r.terms.values[t].iter().all(|&v| v == 0 || v == 1) {
            return Ok(t);
        }
        self.r.terms.op(SymOp::Compare(Cmp::Ne, None), vec![t, FALSE]).map_err(|e| term_error(e, ins))
    }

    /// `Branch` instructions (`meaning::branch`): a constant condition goes
    /// one way, a term splits the guard.
    fn branch(&mut self, mut st: SymState, ins: &ast::Instr, cond: &BranchCond, to: usize) -> SResult<Vec<SymState>> {
        let from = st.pc;
        let jump = |mut s: SymState, taken: bool| {
            if taken {
                s.pc = to;
                s.back_edges += u32::from(to <= from);
            } else {
                s.pc += 1;
            }
            s
        };
        Ok(match meaning::branch(self, &mut st, cond, ins)? {
            meaning::Branched::Goes(taken) => vec![jump(st, taken)],
            meaning::Branched::Split(parts) => parts.into_iter().map(|(s, taken)| jump(s, taken)).collect(),
        })
    }

    /// A strong vector access's element orders (8.2.4, `Choose`): the
    /// path builder makes one path per order; here one state per order,
    /// each under a one-hot free choice (a `Skip` then leaves the order's
    /// block), which the engines range over as the path builder's paths.
    fn choose_order(&mut self, st: SymState, offsets: &[usize]) -> SResult<Vec<SymState>> {
        let picks = self.one_hot(offsets.len())?;
        let mut out = Vec::with_capacity(offsets.len());
        for (&o, &pick) in offsets.iter().zip(&picks) {
            let mut s = st.clone();
            self.restrict(&mut s, pick)?;
            s.pc += o;
            out.push(s);
        }
        Ok(out)
    }

    /// Push an event of `st` at sub-index `at.0`, performed where the
    /// state's guard and `at.1` hold: its dependencies are `deps` (data and
    /// address) and the state's control dependencies.
    fn push(
        &mut self,
        st: &mut SymState,
        at: (usize, TermId),
        kind: DraftKind,
        deps: &Deps,
        ins: &ast::Instr,
    ) -> SResult<usize> {
        self.push_event(st, at, kind, deps, ins, None)
    }

    /// [`Self::push`] for an exchange that writes the constant `writes`
    /// (`None`: another event), silent where it reads that value (D116).
    fn push_event(
        &mut self,
        st: &mut SymState,
        at: (usize, TermId),
        kind: DraftKind,
        deps: &Deps,
        ins: &ast::Instr,
        writes: Option<i64>,
    ) -> SResult<usize> {
        let idx = self.r.events.len();
        // --max-events counts instruction instances: a cas's two events are one.
        self.r.instances += usize::from(at.0 == 0);
        if self.r.instances > self.ctx.opts.max_events {
            return Err(Stop::Err(too_many_events(self.ctx.opts.max_events)));
        }
        let mut value_srcs: BTreeSet<LocKey> = self.value_sources(deps);
        if let DraftKind::Mem { key, access } = &kind {
            // A read-modify-write's value comes from its own location too (`push_mem`).
            if access.atomic && access.reads && (access.rmw.is_some() || access.writes && !is_exch(ins)) {
                value_srcs.insert(key.clone());
            }
        }
        let mut all = deps.clone();
        self.add_deps(&mut all, &st.ctrl)?;
        let bytes = 96 + 16 * all.len() as u64 + ins.text.len() as u64;
        crate::budget::charge(bytes);
        self.r.charged += bytes;
        self.r.deps.extend(all.into_iter().map(|(read, c)| (read, idx, c)));
        let inst = Instance { back_edges: st.back_edges, pc: st.pc, sub: at.0 };
        let (text, line, value_srcs) = (ins.text.clone(), ins.span.line, value_srcs.into_iter().collect());
        let performed = self.r.terms.and(&[st.guard, at.1]).map_err(too_many_terms)?;
        self.note_event(st, (idx, at.1), &kind, writes, ins)?;
        self.r.events.push(DraftEvent { kind, value_srcs, text, line, deps: BTreeSet::new(), at: inst });
        self.r.thread_of.push(self.t);
        self.r.guard.push(performed);
        Ok(idx)
    }

    /// The register value of read `idx` of `key` by `access` (its loaded view).
    fn read_value(&mut self, idx: usize, key: &LocKey, access: &Access, ins: &ast::Instr) -> SResult<SVal> {
        let loaded = self.ctx.domain(key).into_iter().map(|v| access.loaded(v)).collect();
        let t = self.r.terms.read(idx, loaded).map_err(|e| term_error(e, ins))?;
        Ok(SVal { v: SV::T(t), deps: Deps::from([(idx, TRUE)]) })
    }

    /// The bit pattern a write of `v` by an access of `ty` and `size` leaves,
    /// its value set exact over its reads (it feeds the domains, D184).
    fn stored_term(&mut self, v: &SVal, ty: Option<IntTy>, size: u8, ins: &ast::Instr) -> SResult<TermId> {
        let t = self.term_of(v);
        let w = match ty {
            None => t,
            Some(_) => self.r.terms.op(SymOp::Stored(ty, size), vec![t]).map_err(|e| term_error(e, ins))?,
        };
        self.r.terms.refine(w);
        Ok(w)
    }

    /// `dst` (when the operation has one) gets what event `idx` reads.
    fn set_read(
        &mut self,
        st: &mut SymState,
        dst: &Option<String>,
        idx: usize,
        key: &LocKey,
        access: &Access,
        ins: &ast::Instr,
    ) -> SResult<()> {
        if let Some(d) = dst {
            let v = self.read_value(idx, key, access, ins)?;
            st.regs.insert(d.clone(), v);
        }
        Ok(())
    }

    /// `atom.cas` (`Ctx::cas`): one event that reads a value equal to
    /// `cmp` at the operation's type and writes `new`, one that reads
    /// another value and writes nothing, under a fresh choice (each only
    /// where the values allow it); the destination gets the one performed.
    fn cas(
        &mut self,
        st: &mut SymState,
        ins: &ast::Instr,
        (key, base): (LocKey, Access),
        (cmp, new): (TermId, TermId),
        deps: &Deps,
    ) -> SResult<()> {
        let InstrKind::Atomic { dst, size, ty, .. } = &ins.kind else {
            return Err(Stop::Err(Error::internal("cas on another instruction")));
        };
        let domain = self.ctx.domain(&key);
        let cmps = &self.r.terms.values[cmp];
        let equal = |v: &i64, c: &i64| arith::compare(Cmp::Eq, *v, *c, *ty);
        let can_succeed = domain.iter().any(|v| cmps.iter().any(|c| equal(v, c)));
        let can_fail = domain.iter().any(|v| cmps.iter().any(|c| !equal(v, c)));
        // Where each event is performed, besides the state's guard.
        let (g_ok, g_fail, choice) = if can_succeed && can_fail && self.succeeds_only(st) {
            (TRUE, FALSE, Some(TRUE))
        } else if can_succeed && can_fail {
            let k = self.r.choices;
            self.r.choices += 1;
            let ch = self.r.terms.choice(k).map_err(too_many_terms)?;
            (ch, self.r.terms.not(ch).map_err(too_many_terms)?, Some(ch))
        } else {
            (TRUE, TRUE, None)
        };
        let mut read = Vec::new();
        let mut sub = 0;
        for (ok, possible, g) in [(true, can_succeed, g_ok), (false, can_fail, g_fail)] {
            if !possible {
                continue;
            }
            let mut access = base.clone();
            access.read_not = self.cas_excluded(&key, &access, cmp, *ty, ok);
            let mut written = None;
            if ok {
                let w = self.stored_term(&SVal { v: SV::T(new), deps: Deps::new() }, *ty, *size, ins)?;
                access.writes = true;
                access.write_value = self.r.terms.constant(w).unwrap_or(0);
                written = self.r.terms.constant(w).is_none().then_some(w);
            }
            let idx =
                self.push(st, (sub, g), DraftKind::Mem { key: key.clone(), access: access.clone() }, deps, ins)?;
            sub += 1;
            if let Some(w) = written {
                self.r.write.insert(idx, w);
            }
            let v = self.read_value(idx, &key, &access, ins)?;
            let SV::T(rt) = v.v else { continue };
            let test = if ok { Cmp::Eq } else { Cmp::Ne };
            let holds = self.r.terms.op(SymOp::Compare(test, *ty), vec![rt, cmp]).map_err(|e| term_error(e, ins))?;
            self.assume(st, (idx, g), holds)?;
            if !ok && choice.is_some_and(|ch| ch != TRUE) {
                self.note_failure(st, idx, holds);
            }
            read.push((idx, rt));
        }
        let Some(d) = dst else { return Ok(()) };
        let v = match (choice, read.as_slice()) {
            (Some(ch), [(a, ra), (b, rb)]) => SVal {
                v: SV::T(self.r.terms.ite(ch, *ra, *rb).map_err(too_many_terms)?),
                deps: Deps::from([(*a, TRUE), (*b, TRUE)]),
            },
            (_, [(a, ra), ..]) => SVal { v: SV::T(*ra), deps: Deps::from([(*a, TRUE)]) },
            _ => SVal::zero(),
        };
        st.regs.insert(d.clone(), v);
        Ok(())
    }
}

/// Where two states merge, for a message: the instruction's line, or the end.
/// A meaning that splits a state only where the path builder forks: a
/// symbolic state never splits there (its numbers are terms).
fn one_state(flow: meaning::Flow<SymState>) -> SResult<()> {
    match flow {
        meaning::Flow::Next => Ok(()),
        meaning::Flow::Split(_) => Err(Stop::Err(Error::internal("a symbolic state split on a number"))),
    }
}

fn place(at: Option<&ast::Instr>) -> String {
    at.map_or_else(|| "the end of the thread".to_string(), |i| format!("line {}", i.span.line))
}

fn is_exch(ins: &ast::Instr) -> bool {
    matches!(ins.kind, InstrKind::Atomic { op: AtomOp::Exch, .. })
}
