//! Path exploration of one thread: the work list, forks over read values.

use super::*;
use crate::ast::{Cmp, InstrKind, IntTy, Operand, Span};
use crate::error::{Error, Result};
use std::collections::{BTreeSet, HashMap, HashSet};

/// How the limit of paths per thread ends its message: what tells it from
/// every other limit ([`is_path_limit`]).
const PATH_LIMIT_ADVICE: &str = " paths (lower --unroll or simplify the test)";

/// `e` is the path builder's refusal of a thread with more paths than
/// `BuildOptions::max_traces` (where `--encoding auto` tries the symbolic
/// builder, D188).
pub fn is_path_limit(e: &Error) -> bool {
    e.kind == crate::error::ErrorKind::Limit
        && e.message.starts_with("thread P")
        && e.message.ends_with(PATH_LIMIT_ADVICE)
}

/// The most spin prefixes a thread keeps for a proof that it spins for ever (D299).
const MAX_SPIN_PREFIXES: usize = 256;

impl Ctx<'_> {
    /// Every thread's paths, with the value domains of the locations at a fixpoint.
    pub(super) fn explore_all(&mut self) -> Result<(Vec<Vec<FinishedPath>>, bool)> {
        let ctx = self;
        let mut unroll_hit;
        let mut paths: Vec<Vec<FinishedPath>> = Vec::new();
        // Values each location may hold: a value read in an execution comes from a
        // chain of distinct writes of that execution, so as many rounds as an
        // execution has writes reach every readable value.
        let mut rounds = 0;
        // The last round that added a constant: a chain of k value-dependent
        // writes from it is complete k rounds later.
        let mut last_new_constant = 0;
        // The value-dependent writes met so far, by thread and instance: one met
        // first in a round past its location's window (its path needs values
        // other threads' later paths write, as a handshake on two mbarriers
        // does) makes every value-dependent write of its location add its
        // values in that round (D287).
        let mut first_seen: HashSet<(usize, crate::program::Instance)> = HashSet::new();
        // The round a value-dependent write of each location was first met
        // in: its chains start there, not at round 1, when the paths that
        // write it need other locations' values first (the arrive.expect_tx
        // and the copy's complete-tx past a wait, D289).
        let mut chain_start: HashMap<LocKey, usize> = HashMap::new();
        let mut late_start: HashMap<LocKey, usize> = HashMap::new();
        loop {
            let exchanged_before = exchanged_count(ctx);
            // The last round's paths are dropped.
            crate::budget::credit(paths_bytes(&paths));
            // Per thread, its finished paths followed by the writes of the paths
            // the unroll bound cut (see `explore_thread`); `finished[t]` counts the former.
            let finished;
            (paths, finished, unroll_hit) = ctx.explore_until_exchanges_settle(rounds)?;
            let bounds = chain_bounds(&paths);
            // RMWs extend the values known at the start of the round, so that a
            // round adds one link to every chain, as for the other writes.
            let before = ctx.domains.clone();
            let mut changed = exchanged_count(ctx) != exchanged_before;
            let mut new_constant = false;
            for (t, tp) in paths.iter().enumerate() {
                for p in tp {
                    for e in &p.events {
                        if let DraftKind::Mem { key, access } = &e.kind {
                            let bound = bounds.get(key).copied().unwrap_or(0);
                            let dependent_write = access.writes && !e.value_srcs.is_empty();
                            if dependent_write {
                                chain_start.entry(key.clone()).or_insert(rounds);
                            }
                            let start = chain_start.get(key).copied().unwrap_or(0).max(last_new_constant);
                            if dependent_write && first_seen.insert((t, e.at)) && rounds > start + bound {
                                late_start.insert(key.clone(), rounds);
                            }
                            let late = late_start.get(key) == Some(&rounds);
                            // Every round collects constant writes (a constant write's
                            // path may exist only once other writes' values are known);
                            // the rounds after the last new constant extend value
                            // chains by their k-th value-dependent write.
                            let constant = e.value_srcs.is_empty() && access.rmw.is_none();
                            let this_round = if e.value_srcs.is_empty() {
                                constant || rounds == 0
                            } else {
                                late || (1..=start + bound).contains(&rounds)
                            };
                            if access.writes && this_round {
                                let init = BTreeSet::from([ctx.key_init(key)]);
                                let d = ctx.domains.entry(key.clone()).or_insert_with(|| init.clone());
                                match &access.rmw {
                                    None if constant => {
                                        changed |= d.insert(access.write_value);
                                        if ctx.new_constant(key, access.write_value) {
                                            changed = true;
                                            new_constant = true;
                                        }
                                    }
                                    None => changed |= d.insert(access.write_value),
                                    Some(op) => {
                                        let known = before.get(key).cloned().unwrap_or(init);
                                        for v in known {
                                            changed |= d.insert(op.apply(v));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if new_constant {
                last_new_constant = rounds;
            }
            rounds += 1;
            paths.iter_mut().zip(&finished).for_each(|(p, &n)| p.truncate(n));
            if !changed && rounds > 1 {
                break;
            }
            if ctx.domains.values().any(|d| d.len() > 64) {
                return Err(Error::limit(
                    "a location can hold more than 64 distinct values; the test computes too many values to enumerate",
                ));
            }
        }
        ctx.spinning_forever = ctx.prove_spins_forever(&mut paths);
        Ok((paths, unroll_hit))
    }

    /// The threads with no complete path that provably never leave their spin
    /// loops (D299): every path of theirs was left out at a loop head after a
    /// failed iteration (D113: reads only, the same live registers), and no
    /// path of any thread was cut at the unroll bound, so every value any
    /// execution writes is in the domains the spins were explored with, and
    /// none ends them. Such a thread's paths are its prefixes up to the spin.
    fn prove_spins_forever(&mut self, paths: &mut [Vec<FinishedPath>]) -> Vec<usize> {
        if self.spin_proof_lost {
            return Vec::new();
        }
        let mut proven = Vec::new();
        for (t, p) in paths.iter_mut().enumerate() {
            if p.is_empty() && !self.spin_prefixes[t].is_empty() {
                *p = std::mem::take(&mut self.spin_prefixes[t]);
                proven.push(t);
            }
        }
        proven
    }

    /// Keep the events of `st` before the loop head it is left out at
    /// (`from`), while thread `t` has no complete path (only then can it be
    /// proven to spin for ever). Past [`MAX_SPIN_PREFIXES`] no proof is
    /// attempted: the limit stands, as without D299. Two equal prefixes are
    /// two equal traces, which the assembly shares.
    fn keep_spin_prefix(&mut self, t: usize, st: &PathState, from: usize) {
        if self.spin_prefixes[t].len() >= MAX_SPIN_PREFIXES {
            self.spin_proof_lost = true;
            return;
        }
        let events = st.events[..from].to_vec();
        crate::budget::charge(path_bytes(&events));
        // No final state shows a spinning thread's registers: keep those the
        // prefix defines (a read after the head is not in it).
        let mut regs = st.regs.clone();
        regs.retain(|_, v| !matches!(v.v, V::Free(i) if i >= from));
        self.spin_prefixes[t].push(FinishedPath { events, regs });
    }

    /// All complete paths of thread `t`, the writes of each path the unroll
    /// bound cut, and whether it cut some. A cut path's writes are writes of an
    /// execution that runs longer than the bound: the values they write belong
    /// in the locations' value domains (an over-approximation), or a thread
    /// that writes and then spins until another write of its own shows (a
    /// libcu++ `cuda::barrier` arrival: fetch_add, then a phase-flipping
    /// fetch_add, then a poll) never sees the value that ends its loop.
    pub(super) fn explore_thread(&mut self, t: usize) -> Result<(Vec<FinishedPath>, Vec<FinishedPath>, bool)> {
        let code = &self.lit.code[t];
        let labels = self.labels(t)?;
        let heads = self.loop_heads(t, &labels);
        let start = PathState {
            pc: 0,
            regs: self.initial_regs(t),
            events: Vec::new(),
            visits: HashMap::new(),
            back_edges: 0,
            issued: 0,
            ctrl: BTreeSet::new(),
            spin_heads: HashMap::new(),
            sync_phase: HashMap::new(),
            private: PrivateMem::default(),
            asyncs: Default::default(),
        };
        let mut work = vec![start];
        let mut done = Vec::new();
        let mut cut_writes = Vec::new();
        let mut cut = false;
        let mut steps: usize = 0;
        while let Some(mut st) = work.pop() {
            steps += 1;
            if steps > 1_000_000 {
                return Err(Error::limit(format!(
                    "thread P{} has too many paths to explore (over 1,000,000 steps)",
                    t
                )));
            }
            // One path's events are distinct events of the program: a path this
            // long already exceeds --max-events, so stop before unrolling further.
            if st.events.len() > self.opts.max_events {
                return Err(too_many_events(self.opts.max_events));
            }
            if st.pc >= code.len() {
                done.push(FinishedPath { events: st.events, regs: st.regs });
                if done.len() > self.opts.max_traces {
                    return Err(Error::limit(format!(
                        "thread P{} has more than {}{}",
                        t, self.opts.max_traces, PATH_LIMIT_ADVICE
                    )));
                }
                continue;
            }
            if heads.is_head(st.pc) {
                let failed =
                    |s: &&spin_prune::HeadSnapshot| heads.only_failed_iteration(&st, s, |e| self.leaves_no_trace(e));
                if let Some(snap) = st.spin_heads.get(&st.pc).filter(failed) {
                    // Only a failed spin iteration since the last visit: the state
                    // then explores every continuation of this one (D113). It
                    // could have failed until the unroll bound cut it.
                    let from = snap.events();
                    self.leave_out(t, &st.events[..from], &st.events[from..]);
                    if done.is_empty() {
                        self.keep_spin_prefix(t, &st, from);
                    }
                    cut = true;
                    let at = &code[st.pc];
                    cut_writes.extend(self.cut_path(st, at, t));
                    continue;
                }
                let snap = heads.snapshot(&st);
                st.spin_heads.insert(st.pc, snap);
            }
            let visits = st.visits.entry(st.pc).or_insert(0);
            *visits += 1;
            if *visits > self.opts.unroll + 1 {
                cut = true;
                self.spin_proof_lost = true;
                let at = &code[st.pc];
                cut_writes.extend(self.cut_path(st, at, t));
                continue;
            }
            let ins = &code[st.pc];
            let from = st.pc;
            st.issued = st.events.len();
            // A jump to this or an earlier instruction starts a new loop iteration:
            // (back edges, pc) then grows strictly along every path (Instance).
            let jumped = |c: &mut PathState| c.back_edges += u32::from(c.pc <= from);
            // An instruction inlined from a PTX module: its errors point into the module.
            match self.step(t, &mut st, ins).map_err(|e| e.in_origin(&ins.origin))? {
                Step::Next => {
                    st.pc += 1;
                    work.push(st);
                }
                Step::Jump(label) => {
                    st.pc = labels[&label];
                    jumped(&mut st);
                    work.push(st);
                }
                Step::Continue(children) => {
                    // Each child is a copy of the path so far (events and registers),
                    // which is dropped (what it still holds, if it was moved into one).
                    children.iter().for_each(charge_copy);
                    crate::budget::credit(path_bytes(&st.events));
                    for mut c in children {
                        jumped(&mut c);
                        work.push(c);
                    }
                }
                Step::Fork(children) => {
                    children.iter().for_each(charge_copy);
                    crate::budget::credit(path_bytes(&st.events));
                    // Re-run the same instruction with the read made concrete.
                    for mut c in children {
                        if let Some(v) = c.visits.get_mut(&c.pc) {
                            *v -= 1;
                        }
                        work.push(c);
                    }
                }
            }
        }
        done.reverse();
        Ok((done, cut_writes, cut))
    }

    /// Thread `t`'s labels and their instruction indices; a label defined
    /// twice or a branch to an undefined one is an input error.
    pub(super) fn labels(&self, t: usize) -> Result<HashMap<String, usize>> {
        let code = &self.lit.code[t];
        let mut labels = HashMap::new();
        for (i, ins) in code.iter().enumerate() {
            if let InstrKind::Label(l) = &ins.kind {
                if labels.insert(l.clone(), i).is_some() {
                    return Err(Error::input(format!("label `{}` is defined twice in thread P{}", l, t), ins.span)
                        .in_origin(&ins.origin));
                }
            }
        }
        for ins in code {
            if let InstrKind::Branch { target, .. } = &ins.kind {
                if !labels.contains_key(target) {
                    return Err(Error::input(
                        format!(
                            "branch to undefined label `{}` in thread P{}",
                            target.split('#').next().unwrap_or(target),
                            t
                        ),
                        ins.span,
                    )
                    .in_origin(&ins.origin));
                }
            }
        }
        Ok(labels)
    }

    /// A path the unroll bound cuts (or that D113 leaves out, which it would
    /// have cut) at `ins` of thread `t`: the first such loop is named, and the
    /// writes it made so far, if any, are returned to feed the value domains.
    fn cut_path(&mut self, st: PathState, ins: &crate::ast::Instr, t: usize) -> Option<FinishedPath> {
        crate::budget::credit(path_bytes(&st.events));
        self.unroll_cuts.entry(t).or_insert_with(|| loop_name(ins, t));
        let writes: Vec<DraftEvent> = st.events.into_iter().filter(is_write).collect();
        (!writes.is_empty()).then(|| FinishedPath { events: writes, regs: HashMap::new() })
    }

    /// Fork `st` over the values of the free read `i`.
    pub(super) fn fork_read(&self, st: &PathState, i: usize) -> Step {
        Step::Fork(self.read_values(st, i).into_iter().map(|(c, _)| c).collect())
    }

    /// `st` once per value the free read `i` may return, each assuming it,
    /// with the value its destination sees.
    pub(super) fn read_values(&self, st: &PathState, i: usize) -> Vec<(PathState, i64)> {
        let key = match &st.events[i].kind {
            DraftKind::Mem { key, .. } => key.clone(),
            DraftKind::Other(_) => unreachable_key(),
        };
        let mut children = Vec::new();
        let excluded = match &st.events[i].kind {
            DraftKind::Mem { access, .. } => access.read_not.clone(),
            DraftKind::Other(_) => Vec::new(),
        };
        for d in self.domain(&key).into_iter().filter(|d| !excluded.contains(d)) {
            let mut c = st.clone();
            let mut loaded = d;
            if let DraftKind::Mem { access, .. } = &mut c.events[i].kind {
                access.read_value = Some(d);
                loaded = access.loaded(d);
            }
            c.assume_read(i, loaded);
            children.push((c, loaded));
        }
        children
    }

    /// `a cmp b` where one side is a symbolic read and the other a constant, for
    /// `==`/`!=`: the two paths (comparison true, false), each assuming what the
    /// read returns, without enumerating its values; and what the comparison's
    /// result depends on (the read and both operands' sources). A branch makes
    /// them control dependencies; a `setp` only the predicate's data
    /// dependencies (8.10.4: a predicate no branch reads orders nothing).
    /// On `Some`, `st` is used up (left empty: the caller goes on with the two paths).
    pub(super) fn fork_compare(
        &self,
        st: &mut PathState,
        cmp: Cmp,
        a: &Operand,
        b: &Operand,
        ty: Option<IntTy>,
    ) -> Option<(PathState, PathState, BTreeSet<usize>)> {
        if !matches!(cmp, Cmp::Eq | Cmp::Ne) {
            return None;
        }
        let (va, vb) = (self.operand(st, a), self.operand(st, b));
        let (read, konst) = match (&va.v, &vb.v) {
            (V::Free(i), V::Const(c)) => (*i, *c),
            (V::Const(c), V::Free(i)) => (*i, *c),
            _ => return None,
        };
        // The shortcut assumes the read returns exactly `konst`: only sound when
        // neither the load's nor the comparison's type changes any value here.
        let DraftKind::Mem { key, access } = &st.events[read].kind else { return None };
        let same = |v: i64| access.loaded(v) == v && arith::convert(ty, v) == v;
        if !same(konst) || !self.domain(key).into_iter().all(same) {
            return None;
        }
        let mut deps: BTreeSet<usize> = va.deps.union(&vb.deps).copied().collect();
        deps.insert(read);
        let mut eq = st.clone();
        let mut ne = std::mem::take(st);
        if let DraftKind::Mem { access, .. } = &mut eq.events[read].kind {
            access.read_value = Some(konst);
        }
        eq.assume_read(read, konst);
        if let DraftKind::Mem { access, .. } = &mut ne.events[read].kind {
            access.read_not.push(konst);
        }
        Some(if cmp == Cmp::Eq { (eq, ne, deps) } else { (ne, eq, deps) })
    }

    /// `p` and `q` both hold values of reads not yet known, `p`'s the older.
    pub(super) fn older_read(&self, st: &PathState, p: &Operand, q: &Operand) -> bool {
        matches!((self.operand(st, p).v, self.operand(st, q).v), (V::Free(i), V::Free(j)) if i < j)
    }

    pub(super) fn label_index(&self, t: usize, label: &str) -> usize {
        self.lit.code[t].iter().position(|i| matches!(&i.kind, InstrKind::Label(l) if l == label)).unwrap_or(usize::MAX)
    }

    pub(super) fn operand(&self, st: &PathState, op: &Operand) -> Val {
        match op {
            Operand::Imm(c) => Val::konst(*c),
            Operand::Reg(r) => st.regs.get(r).cloned().unwrap_or_else(|| Val::konst(0)),
            Operand::Sym(s) => Val { v: V::Addr(s.clone(), 0), deps: BTreeSet::new() },
        }
    }

    /// The operand as an integer, or the read to fork on.
    pub(super) fn concrete(
        &self,
        st: &PathState,
        op: &Operand,
        span: Span,
    ) -> Result<std::result::Result<(i64, BTreeSet<usize>), usize>> {
        let v = self.operand(st, op);
        match v.v {
            V::Const(c) => Ok(Ok((c, v.deps))),
            V::Free(i) => Ok(Err(i)),
            V::Addr(name, off) => {
                let idx = self.names.keys().position(|n| *n == name).unwrap_or(0);
                let _ = span;
                Ok(Ok((address_number(idx, off), v.deps)))
            }
        }
    }
}

/// For each location, how many value-dependent writes a chain of value flow
/// ending in it can pass through in one execution: the writes (at most one per
/// path and thread, counted per thread's worst path) to locations that can
/// reach it through value dependencies.
fn is_write(e: &DraftEvent) -> bool {
    matches!(&e.kind, DraftKind::Mem { access, .. } if access.writes)
}

impl Ctx<'_> {
    /// Every thread's paths with the round's domains (per thread: the
    /// finished paths, then the cut paths' writes; how many finished; whether
    /// the unroll bound cut some). A warp collective's lanes contribute values
    /// learned while the threads are walked, so a thread walked before another
    /// used the other's contributions of the last walk: the threads are walked
    /// again until the contributions settle, so that every exchange of the
    /// round sees the round's domains and a chain of writes through exchanges
    /// is complete within the rounds it counts (D212).
    #[allow(clippy::type_complexity)]
    fn explore_until_exchanges_settle(&mut self, round: usize) -> Result<(Vec<Vec<FinishedPath>>, Vec<usize>, bool)> {
        loop {
            let walk_start = exchanged_count(self);
            let (mut paths, mut finished, mut unroll_hit) = (Vec::new(), Vec::new(), false);
            self.spin_left_out.clear();
            self.spin_prefixes = (0..self.lit.threads.len()).map(|_| Vec::new()).collect();
            self.spin_proof_lost = false;
            for t in 0..self.lit.threads.len() {
                let t0 = std::time::Instant::now();
                let (mut p, cut_writes, hit) = self.explore_thread(t)?;
                if crate::out::tracing() {
                    eprintln!(
                        "explore round {} P{}: {} paths, {} cut writes, {:?}",
                        round,
                        t,
                        p.len(),
                        cut_writes.len(),
                        t0.elapsed()
                    );
                }
                unroll_hit |= hit;
                finished.push(p.len());
                p.extend(cut_writes);
                paths.push(p);
            }
            if exchanged_count(self) == walk_start {
                return Ok((paths, finished, unroll_hit));
            }
            crate::budget::credit(paths_bytes(&paths));
        }
    }
}

/// How many values the warp collectives' lanes contributed so far, over all uses.
pub(super) fn exchanged_count(ctx: &Ctx) -> usize {
    ctx.exchanged.values().map(|d| d.len()).sum()
}

pub(super) fn chain_bounds(paths: &[Vec<FinishedPath>]) -> HashMap<LocKey, usize> {
    let mut feeds: HashMap<LocKey, BTreeSet<LocKey>> = HashMap::new();
    let mut keys: BTreeSet<LocKey> = BTreeSet::new();
    for p in paths.iter().flatten() {
        for e in &p.events {
            if let DraftKind::Mem { key, .. } = &e.kind {
                keys.insert(key.clone());
                for src in &e.value_srcs {
                    feeds.entry(key.clone()).or_default().insert(src.clone());
                }
            }
        }
    }
    let mut out = HashMap::new();
    for k in &keys {
        // Locations that reach k (k included).
        let mut reach: BTreeSet<LocKey> = BTreeSet::new();
        let mut todo = vec![k.clone()];
        while let Some(x) = todo.pop() {
            if reach.insert(x.clone()) {
                todo.extend(feeds.get(&x).into_iter().flatten().cloned());
            }
        }
        let bound: usize = paths
            .iter()
            .map(|tp| {
                tp.iter()
                    .map(|p| {
                        p.events.iter().filter(|e| !e.value_srcs.is_empty() && matches!(&e.kind, DraftKind::Mem { key, access } if access.writes && reach.contains(key))).count()
                    })
                    .max()
                    .unwrap_or(0)
            })
            .sum();
        out.insert(k.clone(), bound);
    }
    out
}
