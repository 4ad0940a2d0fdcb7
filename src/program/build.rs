//! Builds a [`Program`] from the AST: places threads, resolves names and aliases,
//! and explores each thread's control-flow paths (loops unrolled to a bound).
//!
//! A read's value stays symbolic until something needs it concretely (a branch,
//! an address, a stored value, arithmetic); then the path forks over the values
//! the read's location can hold. Those value sets are computed as a fixpoint over
//! all writes of the program, so only values some write can produce appear
//! (no value out of thin air can even be guessed).

use super::arith::{self, NoValue};
use super::cells::{self, Cells, Footprint};
use super::private::PrivateMem;
use super::value::{address_number, Val, V};
use super::*;
use crate::ast::{self, AddrBase, AluOp, AtomOp, BarrierCount, BarrierOp, BranchCond, Cmp, InitItem, InstrKind, IntTy, Litmus, Operand, Sem, Span};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Limits on the size of what is built; each has a flag on the command line.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// How many times one instruction may run on a path before the path is cut.
    pub unroll: u32,
    /// Most events (over all traces) a test may have.
    pub max_events: usize,
    /// Most paths per thread.
    pub max_traces: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { unroll: 2, max_events: 20_000, max_traces: 4_096 }
    }
}

/// How a name used as an address resolves.
#[derive(Clone, Debug)]
struct NameInfo {
    /// The root declared location (physical memory).
    root: String,
    /// The virtual address this name denotes.
    vaddr: String,
}

struct Ctx<'a> {
    lit: &'a Litmus,
    /// The first loop the unroll bound cut (see `Program::unroll_cut`).
    unroll_cut: Option<(Span, String)>,
    /// Variables accessed as `.local`/`.param` memory, and as shared or global
    /// memory, with the first access: one variable cannot be both (D17).
    private_roots: BTreeMap<String, Span>,
    global_roots: BTreeMap<String, Span>,
    /// The cells of mixed-size variables, the footprints accessed, and each cell's length (D18).
    cells: Cells,
    foot: BTreeSet<Footprint>,
    cell_len: HashMap<LocKey, u8>,
    opts: &'a BuildOptions,
    names: BTreeMap<String, NameInfo>,
    inits: BTreeMap<String, i64>,
    placements: Vec<Placement>,
    /// Values each physical location key may hold (fixpoint).
    domains: HashMap<LocKey, BTreeSet<i64>>,
}

/// A physical location before numbering: root name, byte offset, cluster for shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct LocKey {
    root: String,
    offset: i64,
    shared_cluster: Option<usize>,
}

impl LocKey {
    fn display(&self) -> String {
        let mut s = self.root.clone();
        if self.offset != 0 {
            s.push_str(&format!("+{}", self.offset));
        }
        if let Some(c) = self.shared_cluster {
            s.push_str(&format!("@cluster{}", c));
        }
        s
    }
}

/// An event of a path under construction.
#[derive(Clone, Debug)]
struct DraftEvent {
    kind: DraftKind,
    /// Locations whose read values the written value depends on (empty: a constant).
    value_srcs: Vec<LocKey>,
    text: String,
    line: usize,
    deps: BTreeSet<usize>,
}

#[derive(Clone, Debug)]
enum DraftKind {
    Mem { key: LocKey, access: Access },
    Other(EventKind),
}

#[derive(Clone, Debug)]
struct PathState {
    pc: usize,
    regs: HashMap<String, Val>,
    events: Vec<DraftEvent>,
    visits: HashMap<usize, u32>,
    ctrl: BTreeSet<usize>,
    bar_gen: HashMap<(i64, Option<i64>), usize>,
    cluster_arrivals: usize,
    cluster_waits: usize,
    /// This path's `.local`/`.param` bytes.
    private: PrivateMem,
}

struct FinishedPath {
    events: Vec<DraftEvent>,
    regs: HashMap<String, Val>,
}

/// For each location, how many value-dependent writes a chain of value flow
/// ending in it can pass through in one execution: the writes (at most one per
/// path and thread, counted per thread's worst path) to locations that can
/// reach it through value dependencies.
fn chain_bounds(paths: &[Vec<FinishedPath>]) -> HashMap<LocKey, usize> {
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
                    .map(|p| p.events.iter().filter(|e| !e.value_srcs.is_empty() && matches!(&e.kind, DraftKind::Mem { key, access } if access.writes && reach.contains(key))).count())
                    .max()
                    .unwrap_or(0)
            })
            .sum();
        out.insert(k.clone(), bound);
    }
    out
}

/// Build the program of a parsed litmus test.
pub fn build_program(lit: &Litmus, opts: &BuildOptions) -> Result<Program> {
    let mut ctx = Ctx::new(lit, opts)?;
    // Cells come from the footprints the paths access, and the paths from the
    // cells (a split load forks over its parts): repeat until every footprint
    // splits the same way under the cells it was explored with (D18).
    for _ in 0..8 {
        ctx.foot.clear();
        let (paths, unroll_hit) = ctx.explore_all()?;
        let cells = Cells::new(&ctx.foot);
        if ctx.foot.iter().all(|(r, c, o, n)| cells.split(r, *c, *o, *n) == ctx.cells.split(r, *c, *o, *n)) {
            return ctx.assemble(paths, unroll_hit);
        }
        ctx.cells = cells;
        ctx.domains.clear();
    }
    Err(Error::limit("the byte ranges the accesses touch keep changing with the values read (mixed-size addresses computed from loaded values)"))
}

impl Ctx<'_> {
/// Every thread's paths, with the value domains of the locations at a fixpoint.
fn explore_all(&mut self) -> Result<(Vec<Vec<FinishedPath>>, bool)> {
    let ctx = self;
    let lit = ctx.lit;
    let mut unroll_hit;
    let mut paths: Vec<Vec<FinishedPath>>;
    // Values each location may hold: a value read in an execution comes from a
    // chain of distinct writes of that execution, so as many rounds as an
    // execution has writes reach every readable value.
    let mut rounds = 0;
    loop {
        paths = Vec::new();
        unroll_hit = false;
        for t in 0..lit.threads.len() {
            let (p, hit) = ctx.explore_thread(t)?;
            unroll_hit |= hit;
            paths.push(p);
        }
        let bounds = chain_bounds(&paths);
        // RMWs extend the values known at the start of the round, so that a
        // round adds one link to every chain, as for the other writes.
        let before = ctx.domains.clone();
        let mut changed = false;
        for tp in &paths {
            for p in tp {
                for e in &p.events {
                    if let DraftKind::Mem { key, access } = &e.kind {
                        // Round 0 collects constant writes; round k >= 1 extends
                        // value chains by their k-th value-dependent write.
                        let bound = bounds.get(key).copied().unwrap_or(0);
                        let this_round = if e.value_srcs.is_empty() { rounds == 0 } else { (1..=bound).contains(&rounds) };
                        if access.writes && this_round {
                            let init = BTreeSet::from([ctx.key_init(key)]);
                            let d = ctx.domains.entry(key.clone()).or_insert_with(|| init.clone());
                            match &access.rmw {
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
        rounds += 1;
        if !changed && rounds > 1 {
            break;
        }
        if ctx.domains.values().any(|d| d.len() > 64) {
            return Err(Error::limit(
                "a location can hold more than 64 distinct values; the test computes too many values to enumerate",
            ));
        }
    }
    Ok((paths, unroll_hit))
}
}

impl<'a> Ctx<'a> {
    fn new(lit: &'a Litmus, opts: &'a BuildOptions) -> Result<Self> {
        let mut names = BTreeMap::new();
        let mut inits = BTreeMap::new();
        for item in &lit.init {
            if let InitItem::Location { name, value, .. } = item {
                inits.insert(name.clone(), *value);
                names.insert(name.clone(), NameInfo { root: name.clone(), vaddr: name.clone() });
            }
        }
        for item in &lit.init {
            if let InitItem::Alias { name, proxy, target, span } = item {
                let tinfo = names.get(target).cloned().unwrap_or_else(|| {
                    inits.entry(target.clone()).or_insert(0);
                    NameInfo { root: target.clone(), vaddr: target.clone() }
                });
                if !names.contains_key(target) {
                    names.insert(target.clone(), tinfo.clone());
                }
                if names.contains_key(name) && name != target {
                    return Err(Error::input(format!("`{}` is declared twice", name), *span));
                }
                // A generic alias is a distinct virtual address of the same location;
                // a texture/surface/constant alias reaches the same address by another proxy.
                let vaddr = if *proxy == Proxy::Generic { name.clone() } else { tinfo.vaddr.clone() };
                names.insert(name.clone(), NameInfo { root: tinfo.root.clone(), vaddr });
            }
        }
        let placements = place_threads(lit);
        let mut ctx = Ctx { lit, opts, names, inits, placements, domains: HashMap::new(), unroll_cut: None, private_roots: BTreeMap::new(), global_roots: BTreeMap::new(), cells: Cells::default(), foot: BTreeSet::new(), cell_len: HashMap::new() };
        ctx.address_inits();
        Ok(ctx)
    }

    /// herd's `x = &y;`: x starts with the synthetic address number of y (the
    /// number a register holding y's address shows in a final state).
    fn address_inits(&mut self) {
        for item in &self.lit.init {
            if let InitItem::LocationAddress { name, target, .. } = item {
                self.resolve_name(target);
                let idx = self.names.keys().position(|n| n == target).unwrap_or(0);
                self.inits.insert(name.clone(), address_number(idx, 0));
                self.names.insert(name.clone(), NameInfo { root: name.clone(), vaddr: name.clone() });
            }
        }
    }

    fn resolve_name(&mut self, name: &str) -> NameInfo {
        if let Some(i) = self.names.get(name) {
            return i.clone();
        }
        // A location used without declaration starts at 0, as in herd.
        self.inits.entry(name.to_string()).or_insert(0);
        let info = NameInfo { root: name.to_string(), vaddr: name.to_string() };
        self.names.insert(name.to_string(), info.clone());
        info
    }

    /// The initial value of a cell (see `cells::init_of`).
    fn key_init(&self, key: &LocKey) -> i64 {
        let init = self.inits.get(&key.root).copied().unwrap_or(0);
        let len = self.cell_len.get(key).copied().unwrap_or(8);
        cells::init_of(init, key.offset, len)
    }

    /// The cells an access of `size` bytes at `key` covers, recording its footprint.
    fn mem_cells(&mut self, key: &LocKey, size: u8) -> Vec<(LocKey, i64, u8)> {
        self.foot.insert((key.root.clone(), key.shared_cluster, key.offset, size));
        let parts = self.cells.split(&key.root, key.shared_cluster, key.offset, size);
        parts
            .into_iter()
            .map(|(off, len)| {
                let k = LocKey { offset: off, ..key.clone() };
                self.cell_len.insert(k.clone(), len);
                (k, off - key.offset, len)
            })
            .collect()
    }

    fn domain(&self, key: &LocKey) -> Vec<i64> {
        match self.domains.get(key) {
            Some(d) => d.iter().copied().collect(),
            None => vec![self.key_init(key)],
        }
    }

    fn initial_regs(&mut self, t: usize) -> HashMap<String, Val> {
        let mut regs = HashMap::new();
        let items: Vec<InitItem> = self.lit.init.clone();
        for item in &items {
            match item {
                InitItem::Register { thread, reg, value, .. } if *thread == t => {
                    regs.insert(reg.clone(), Val::konst(*value));
                }
                InitItem::RegisterAddress { thread, reg, location, .. } if *thread == t => {
                    self.resolve_name(location);
                    regs.insert(reg.clone(), Val { v: V::Addr(location.clone(), 0), deps: BTreeSet::new() });
                }
                _ => {}
            }
        }
        regs
    }

    /// All complete paths of thread `t`, and whether the unroll bound cut some.
    fn explore_thread(&mut self, t: usize) -> Result<(Vec<FinishedPath>, bool)> {
        let code = &self.lit.code[t];
        let mut labels = HashMap::new();
        for (i, ins) in code.iter().enumerate() {
            if let InstrKind::Label(l) = &ins.kind {
                if labels.insert(l.clone(), i).is_some() {
                    return Err(Error::input(format!("label `{}` is defined twice in thread P{}", l, t), ins.span));
                }
            }
        }
        for ins in code {
            if let InstrKind::Branch { target, .. } = &ins.kind {
                if !labels.contains_key(target) {
                    return Err(Error::input(format!("branch to undefined label `{}` in thread P{}", target, t), ins.span));
                }
            }
        }
        let start = PathState {
            pc: 0,
            regs: self.initial_regs(t),
            events: Vec::new(),
            visits: HashMap::new(),
            ctrl: BTreeSet::new(),
            bar_gen: HashMap::new(),
            cluster_arrivals: 0,
            cluster_waits: 0,
            private: PrivateMem::default(),
        };
        let mut work = vec![start];
        let mut done = Vec::new();
        let mut cut = false;
        let mut steps: usize = 0;
        while let Some(mut st) = work.pop() {
            steps += 1;
            if steps > 1_000_000 {
                return Err(Error::limit(format!("thread P{} has too many paths to explore (over 1,000,000 steps)", t)));
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
                        "thread P{} has more than {} paths (lower --unroll or simplify the test)",
                        t, self.opts.max_traces
                    )));
                }
                continue;
            }
            let visits = st.visits.entry(st.pc).or_insert(0);
            *visits += 1;
            if *visits > self.opts.unroll + 1 {
                cut = true;
                if self.unroll_cut.is_none() {
                    self.unroll_cut = Some(loop_name(&code[st.pc], t));
                }
                continue;
            }
            let ins = &code[st.pc];
            match self.step(t, &mut st, ins)? {
                Step::Next => {
                    st.pc += 1;
                    work.push(st);
                }
                Step::Jump(label) => {
                    st.pc = labels[&label];
                    work.push(st);
                }
                Step::Continue(children) => {
                    // Each child is a copy of the path so far (events and registers).
                    children.iter().for_each(charge_copy);
                    work.extend(children)
                }
                Step::Fork(children) => {
                    children.iter().for_each(charge_copy);
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
        Ok((done, cut))
    }

    /// Fork `st` over the values of the free read `i`.
    fn fork_read(&self, st: &PathState, i: usize) -> Step {
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
            for val in c.regs.values_mut() {
                if val.v == V::Free(i) {
                    val.v = V::Const(loaded);
                }
            }
            children.push(c);
        }
        Step::Fork(children)
    }

    /// `a cmp b` where one side is a symbolic read and the other a constant, for
    /// `==`/`!=`: the two paths (comparison true, false), each assuming what the
    /// read returns, without enumerating its values. The read joins the control
    /// dependencies of both paths.
    fn fork_compare(&self, st: &PathState, cmp: Cmp, a: &Operand, b: &Operand, ty: Option<IntTy>) -> Option<(PathState, PathState)> {
        if !matches!(cmp, Cmp::Eq | Cmp::Ne) {
            return None;
        }
        let (va, vb) = (self.operand(st, a), self.operand(st, b));
        let (read, konst, kdeps) = match (&va.v, &vb.v) {
            (V::Free(i), V::Const(c)) => (*i, *c, vb.deps.clone()),
            (V::Const(c), V::Free(i)) => (*i, *c, va.deps.clone()),
            _ => return None,
        };
        // The shortcut assumes the read returns exactly `konst`: only sound when
        // neither the load's nor the comparison's type changes any value here.
        let DraftKind::Mem { key, access } = &st.events[read].kind else { return None };
        let same = |v: i64| access.loaded(v) == v && arith::convert(ty, v) == v;
        if !same(konst) || !self.domain(key).into_iter().all(same) {
            return None;
        }
        let mut eq = st.clone();
        let mut ne = st.clone();
        for c in [&mut eq, &mut ne] {
            c.ctrl.insert(read);
            c.ctrl.extend(kdeps.iter().copied());
        }
        if let DraftKind::Mem { access, .. } = &mut eq.events[read].kind {
            access.read_value = Some(konst);
        }
        for val in eq.regs.values_mut() {
            if val.v == V::Free(read) {
                val.v = V::Const(konst);
            }
        }
        if let DraftKind::Mem { access, .. } = &mut ne.events[read].kind {
            access.read_not.push(konst);
        }
        Some(if cmp == Cmp::Eq { (eq, ne) } else { (ne, eq) })
    }

    fn label_index(&self, t: usize, label: &str) -> usize {
        self.lit.code[t].iter().position(|i| matches!(&i.kind, InstrKind::Label(l) if l == label)).unwrap_or(usize::MAX)
    }

    fn operand(&self, st: &PathState, op: &Operand) -> Val {
        match op {
            Operand::Imm(c) => Val::konst(*c),
            Operand::Reg(r) => st.regs.get(r).cloned().unwrap_or_else(|| Val::konst(0)),
            Operand::Sym(s) => Val { v: V::Addr(s.clone(), 0), deps: BTreeSet::new() },
        }
    }

    /// The operand as an integer, or the read to fork on.
    fn concrete(&self, st: &PathState, op: &Operand, span: Span) -> Result<std::result::Result<(i64, BTreeSet<usize>), usize>> {
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

    fn step(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        macro_rules! conc {
            ($op:expr) => {
                match self.concrete(st, $op, ins.span)? {
                    Ok(x) => x,
                    Err(i) => return Ok(self.fork_read(st, i)),
                }
            };
        }
        // Both operands made concrete: the comparison and its dependencies.
        macro_rules! compared {
            ($cmp:expr, $a:expr, $b:expr, $ty:expr) => {{
                let (x, mut d) = conc!($a);
                let (y, d2) = conc!($b);
                d.extend(d2);
                (arith::compare($cmp, x, y, $ty), d)
            }};
        }
        match &ins.kind {
            InstrKind::Label(_) | InstrKind::Nop => Ok(Step::Next),
            InstrKind::Alu { op, dst, srcs, ty, src_ty } => {
                if *op == AluOp::Mov && srcs.len() == 1 {
                    let v = self.operand(st, &srcs[0]);
                    // A copy that cannot change the value keeps a read symbolic.
                    if self.keeps(st, &v, *ty) && (src_ty == ty || src_ty.is_none()) {
                        st.regs.insert(dst.clone(), v);
                        return Ok(Step::Next);
                    }
                }
                // Address arithmetic: address + constant stays an address.
                if matches!(op, AluOp::Add | AluOp::Sub) && srcs.len() == 2 {
                    let a = self.operand(st, &srcs[0]);
                    if let V::Addr(name, off) = a.v.clone() {
                        let (b, bdeps) = conc!(&srcs[1]);
                        let mut deps = a.deps.clone();
                        deps.extend(bdeps);
                        let off = if *op == AluOp::Add { off.wrapping_add(b) } else { off.wrapping_sub(b) };
                        st.regs.insert(dst.clone(), Val { v: V::Addr(name, off), deps });
                        return Ok(Step::Next);
                    }
                }
                let mut vals = Vec::new();
                let mut deps = BTreeSet::new();
                for s in srcs {
                    let (c, d) = conc!(s);
                    vals.push(c);
                    deps.extend(d);
                }
                let r = arith::alu(*op, &vals, *ty, *src_ty).map_err(|e| {
                    let why = match e {
                        NoValue::DivByZero => "divides by zero on some path, whose result the ISA leaves unspecified",
                        NoValue::Overflow => "overflows 64 bits on some path",
                        NoValue::Arity => "has the wrong number of operands",
                    };
                    Error::input(format!("`{}` {}", ins.text, why), ins.span)
                })?;
                st.regs.insert(dst.clone(), Val { v: V::Const(r), deps });
                Ok(Step::Next)
            }
            InstrKind::Setp { cmp, dst, a, b, ty } => {
                if let Some((yes, no)) = self.fork_compare(st, *cmp, a, b, *ty) {
                    let mut out = Vec::new();
                    for (mut c, v) in [(yes, 1), (no, 0)] {
                        let deps = c.ctrl.clone();
                        c.regs.insert(dst.clone(), Val { v: V::Const(v), deps });
                        c.pc += 1;
                        out.push(c);
                    }
                    return Ok(Step::Continue(out));
                }
                let (c, d) = compared!(*cmp, a, b, *ty);
                st.regs.insert(dst.clone(), Val { v: V::Const(c as i64), deps: d });
                Ok(Step::Next)
            }
            InstrKind::Selp { dst, a, b, pred, ty } => {
                let (p, pd) = conc!(pred);
                let chosen = if p != 0 { a } else { b };
                let mut v = self.operand(st, chosen);
                if !self.keeps(st, &v, *ty) {
                    let (c, d) = conc!(chosen);
                    v = Val { v: V::Const(arith::convert(*ty, c)), deps: d };
                }
                v.deps.extend(pd);
                st.regs.insert(dst.clone(), v);
                Ok(Step::Next)
            }
            InstrKind::Branch { cond, target } => {
                let taken = match cond {
                    BranchCond::Always => true,
                    BranchCond::Pred { reg, negated } => {
                        let (p, d) = conc!(&Operand::Reg(reg.clone()));
                        st.ctrl.extend(d);
                        (p != 0) != *negated
                    }
                    BranchCond::Compare { cmp, a, b } => {
                        if let Some((yes, no)) = self.fork_compare(st, *cmp, a, b, None) {
                            // Keep the read symbolic: one path per outcome.
                            let mut out = Vec::new();
                            for (mut c, taken) in [(yes, true), (no, false)] {
                                if taken {
                                    c.pc = self.label_index(t, target);
                                } else {
                                    c.pc += 1;
                                }
                                out.push(c);
                            }
                            return Ok(Step::Continue(out));
                        }
                        let (c, d) = compared!(*cmp, a, b, None);
                        st.ctrl.extend(d);
                        c
                    }
                };
                Ok(if taken { Step::Jump(target.clone()) } else { Step::Next })
            }
            InstrKind::Load { sem, scope, proxy, dst, addr, size, ty, shared, private } => {
                let (key, vaddr, adeps) = match self.address(st, t, addr, *shared, ins)? {
                    Ok(x) => x,
                    Err(i) => return Ok(self.fork_read(st, i)),
                };
                self.space_of(&key.root, *private, ins)?;
                if *private {
                    let init = self.inits.get(&key.root).copied().unwrap_or(0);
                    let (v, mut deps) = st.private.load(&key.root, key.offset, *size, init, *ty);
                    deps.extend(adeps);
                    deps.extend(st.ctrl.iter().copied());
                    st.regs.insert(dst.clone(), Val { v: V::Const(v), deps });
                    return Ok(Step::Next);
                }
                let parts = self.mem_cells(&key, *size);
                let (msem, mscope) = normalize(*sem, *scope, Scope::Sys);
                let access = Access { reads: true, conv: *ty, ..Access::new(vaddr, *proxy, *size, msem, mscope) };
                if parts.len() > 1 {
                    return self.split_load(st, ins, parts, access, adeps, dst);
                }
                let idx = self.push_mem(st, key, access, adeps, ins);
                st.regs.insert(dst.clone(), Val::free(idx));
                Ok(Step::Next)
            }
            InstrKind::Store { sem, scope, proxy, addr, src, size, ty, shared, private } => {
                let (value, vdeps) = conc!(src);
                // A typed store writes the value truncated to its type (st.u8 of 300 is 44).
                let value = arith::convert(*ty, value);
                let (key, vaddr, mut deps) = match self.address(st, t, addr, *shared, ins)? {
                    Ok(x) => x,
                    Err(i) => return Ok(self.fork_read(st, i)),
                };
                deps.extend(vdeps);
                self.space_of(&key.root, *private, ins)?;
                if *private {
                    st.private.store(&key.root, key.offset, *size, value, &deps);
                    return Ok(Step::Next);
                }
                let parts = self.mem_cells(&key, *size);
                let (msem, mscope) = normalize(*sem, *scope, Scope::Sys);
                // A store over several cells writes each cell its own bytes (D18).
                let whole = parts.len() == 1;
                for (k, at, len) in parts {
                    let v = if whole { value } else { cells::extract(value, at, len) };
                    let va = cell_vaddr(&vaddr, k.offset);
                    let access = Access { writes: true, write_value: v, start: -at, ..Access::new(va, *proxy, *size, msem, mscope) };
                    self.push_mem(st, k, access, deps.clone(), ins);
                }
                Ok(Step::Next)
            }
            InstrKind::Atomic { sem, scope, proxy, op, dst, addr, operands, size, ty, shared } => {
                self.atomic(t, st, ins, (*sem, *scope, *proxy, *op, *size, *shared, *ty), dst, addr, operands)
            }
            InstrKind::Fence { sem, scope } => {
                self.push_other(st, EventKind::Fence { sem: *sem, scope: *scope }, ins);
                Ok(Step::Next)
            }
            InstrKind::ProxyFence { proxy } => {
                self.push_other(st, EventKind::ProxyFence { proxy: *proxy }, ins);
                Ok(Step::Next)
            }
            InstrKind::Barrier { op, id, logical, count, red } => {
                let (idv, mut deps) = conc!(id);
                let logical_v = match logical {
                    Some(l) => {
                        let (v, d) = conc!(l);
                        deps.extend(d);
                        Some(v)
                    }
                    None => None,
                };
                let expected = match count {
                    BarrierCount::AllThreadsInCta => Expected::Count(self.cta_size(t)),
                    BarrierCount::Arrivals => Expected::Arrivals,
                    BarrierCount::Count(n) => {
                        let (v, _) = conc!(n);
                        if !(1..=1024).contains(&v) {
                            return Err(Error::input(format!("barrier thread count {} is out of range (1 to 1024)", v), ins.span));
                        }
                        Expected::Count(v as usize)
                    }
                };
                if !(0..=15).contains(&idv) {
                    return Err(Error::input(format!("barrier id {} is out of range (0 to 15)", idv), ins.span));
                }
                if red.is_some() {
                    return Err(Error::input("bar.red is not supported: its result depends on other threads' predicates, which this checker does not model", ins.span));
                }
                let _ = deps;
                let gen = st.bar_gen.entry((idv, logical_v)).or_insert(0);
                let key = BarrierKey { cta: self.placements[t].cta, id: idv, logical: logical_v, generation: *gen };
                *gen += 1;
                self.push_other(st, EventKind::BarrierArrive { key: key.clone(), expected }, ins);
                if *op != BarrierOp::Arrive {
                    self.push_other(st, EventKind::BarrierWait { key, expected }, ins);
                }
                Ok(Step::Next)
            }
            InstrKind::ClusterBarrier { arrive, relaxed } => {
                let cluster = self.placements[t].cluster;
                if *arrive {
                    let generation = st.cluster_arrivals;
                    st.cluster_arrivals += 1;
                    self.push_other(st, EventKind::ClusterArrive { cluster, generation, relaxed: *relaxed }, ins);
                } else {
                    let generation = st.cluster_waits;
                    st.cluster_waits += 1;
                    if st.cluster_waits > st.cluster_arrivals {
                        return Err(Error::input("barrier.cluster.wait without a preceding barrier.cluster.arrive in this thread", ins.span));
                    }
                    self.push_other(st, EventKind::ClusterWait { cluster, generation }, ins);
                }
                Ok(Step::Next)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        t: usize,
        st: &mut PathState,
        ins: &ast::Instr,
        q: (Sem, Option<Scope>, Proxy, AtomOp, u8, bool, Option<IntTy>),
        dst: &Option<String>,
        addr: &ast::Addr,
        operands: &[Operand],
    ) -> Result<Step> {
        let (sem, scope, proxy, op, size, shared, ty) = q;
        let mut vals = Vec::new();
        let mut deps = BTreeSet::new();
        for o in operands {
            match self.concrete(st, o, ins.span)? {
                Ok((c, d)) => {
                    vals.push(c);
                    deps.extend(d);
                }
                Err(i) => return Ok(self.fork_read(st, i)),
            }
        }
        let (key, vaddr, adeps) = match self.address(st, t, addr, shared, ins)? {
            Ok(x) => x,
            Err(i) => return Ok(self.fork_read(st, i)),
        };
        deps.extend(adeps);
        if self.mem_cells(&key, size).len() > 1 {
            return Err(Error::input("an atomic operation over bytes that differently-sized accesses also touch (mixed-size) is not supported", ins.span));
        }
        // atom/red without .sem are .relaxed, without .scope are .gpu.
        let sem = if sem == Sem::Weak { Sem::Relaxed } else { sem };
        let (msem, mscope) = normalize(sem, scope, Scope::Gpu);
        let is_red = dst.is_none();
        // exch writes its operand whatever it reads: the read can stay symbolic.
        if op == AtomOp::Exch {
            let value = *vals.first().ok_or_else(|| Error::input("exch needs a value operand", ins.span))?;
            let mut access = mk_rmw(vaddr, proxy, size, msem, mscope, is_red, Some(arith::convert(ty, value)));
            access.conv = ty;
            let idx = self.push_mem(st, key, access, deps, ins);
            if let Some(d) = dst {
                st.regs.insert(d.clone(), Val::free(idx));
            }
            return Ok(Step::Next);
        }
        if arith::rmw(op, 0, &vals, ty).is_none() {
            return Err(Error::input(format!("`{}`: wrong number of operands for atom.{:?}", ins.text, op).to_lowercase(), ins.span));
        }
        // cas writes a constant when it succeeds and nothing when it fails: two
        // paths, one assuming the read returns the compared value, one that it does not.
        if op == AtomOp::Cas {
            return Ok(self.cas(st, ins, mk_rmw(vaddr, proxy, size, msem, mscope, is_red, None), key, (vals[0], vals[1], ty), deps, dst));
        }
        // The other operations write a function of the value read: one event whose
        // written value the engines compute from reads-from.
        // `Some(0)`: it writes; the value itself comes from `rmw`.
        let mut access = mk_rmw(vaddr, proxy, size, msem, mscope, is_red, Some(0));
        access.rmw = Some(Rmw { op, operands: vals, ty });
        access.conv = ty;
        let idx = self.push_mem(st, key, access, deps, ins);
        if let Some(d) = dst {
            st.regs.insert(d.clone(), Val::free(idx));
        }
        Ok(Step::Next)
    }

    /// `atom.cas`: it writes only when it succeeds. One path per stored value
    /// that equals `cmp` at the operation's type (reading it, writing `new`),
    /// and one path reading any other value and writing nothing.
    #[allow(clippy::too_many_arguments)]
    fn cas(&self, st: &PathState, ins: &ast::Instr, base: Access, key: LocKey, q: (i64, i64, Option<IntTy>), deps: BTreeSet<usize>, dst: &Option<String>) -> Step {
        let (cmp, new, ty) = q;
        let base = Access { conv: ty, ..base };
        let domain = self.domain(&key);
        let matching: Vec<i64> = domain.iter().copied().filter(|&v| arith::compare(Cmp::Eq, v, cmp, ty)).collect();
        let mut children = Vec::new();
        let mut outcomes: Vec<Option<i64>> = matching.iter().map(|&v| Some(v)).collect();
        if domain.len() > matching.len() {
            outcomes.push(None);
        }
        for read in outcomes {
            let mut c = st.clone();
            let mut access = base.clone();
            match read {
                Some(v) => {
                    access.writes = true;
                    access.write_value = arith::convert(ty, new);
                    access.read_value = Some(v);
                }
                None => access.read_not = matching.clone(),
            }
            let idx = self.push_mem(&mut c, key.clone(), access.clone(), deps.clone(), ins);
            if let Some(d) = dst {
                let v = match read {
                    Some(v) => Val { v: V::Const(access.loaded(v)), deps: BTreeSet::from([idx]) },
                    None => Val::free(idx),
                };
                c.regs.insert(d.clone(), v);
            }
            c.pc += 1;
            children.push(c);
        }
        Step::Continue(children)
    }

    /// A load over several cells: one read per cell, then one path per
    /// combination of the values the cells can hold, the register holding
    /// their bytes composed little-endian and extended by the load's type.
    fn split_load(&self, st: &mut PathState, ins: &ast::Instr, parts: Vec<(LocKey, i64, u8)>, access: Access, adeps: BTreeSet<usize>, dst: &str) -> Result<Step> {
        let (ty, size) = (access.conv, access.size);
        let mut idx = Vec::new();
        for (k, at, _) in &parts {
            let a = Access { conv: None, start: -at, vaddr: cell_vaddr(&access.vaddr, k.offset), ..access.clone() };
            idx.push(self.push_mem(st, k.clone(), a, adeps.clone(), ins));
        }
        let mut combos: Vec<Vec<i64>> = vec![Vec::new()];
        for (k, _, _) in &parts {
            combos = combos.into_iter().flat_map(|c| self.domain(k).into_iter().map(move |v| [c.clone(), vec![v]].concat())).collect();
            if combos.len() > 4096 {
                return Err(Error::limit(format!("the mixed-size load `{}` can read more than 4096 combinations of byte values", ins.text)));
            }
        }
        let deps: BTreeSet<usize> = idx.iter().copied().collect();
        let read = IntTy { bits: 8 * size as u32, signed: ty.is_none_or(|t| t.signed) };
        let mut children = Vec::new();
        for combo in combos {
            let mut c = st.clone();
            let mut bytes = Vec::new();
            for (j, &v) in combo.iter().enumerate() {
                if let DraftKind::Mem { access, .. } = &mut c.events[idx[j]].kind {
                    access.read_value = Some(v);
                }
                bytes.push((v, parts[j].1, parts[j].2));
            }
            let v = arith::convert(ty, arith::norm(read, cells::compose(&bytes)));
            c.regs.insert(dst.to_string(), Val { v: V::Const(v), deps: deps.clone() });
            c.pc += 1;
            children.push(c);
        }
        Ok(Step::Continue(children))
    }

    /// Record that `root` is accessed as private (`.local`/`.param`) or shared
    /// memory; a variable accessed both ways is refused (D17).
    fn space_of(&mut self, root: &str, private: bool, ins: &ast::Instr) -> Result<()> {
        let (mine, other) = if private { (&mut self.private_roots, &self.global_roots) } else { (&mut self.global_roots, &self.private_roots) };
        if let Some(sp) = other.get(root) {
            let (a, b) = if private { ("thread-private .local/.param", "global or shared") } else { ("global or shared", "thread-private .local/.param") };
            return Err(Error::input(format!("`{}` is accessed here as {} memory but at line {} as {} memory", root, a, sp.line, b), ins.span));
        }
        mine.entry(root.to_string()).or_insert(ins.span);
        Ok(())
    }

    /// Converting `v` to `ty` cannot change it on this path (so a read can stay symbolic).
    fn keeps(&self, st: &PathState, v: &Val, ty: Option<IntTy>) -> bool {
        let Some(ty) = ty else { return true };
        match &v.v {
            V::Addr(..) => true,
            V::Const(c) => arith::convert(Some(ty), *c) == *c,
            V::Free(i) => match &st.events[*i].kind {
                DraftKind::Mem { key, access } => access.conv == Some(ty) || self.domain(key).into_iter().all(|d| {
                    let l = access.loaded(d);
                    arith::convert(Some(ty), l) == l
                }),
                DraftKind::Other(_) => false,
            },
        }
    }

    /// Resolve an address operand to a location key and virtual address.
    #[allow(clippy::type_complexity)]
    fn address(
        &mut self,
        st: &PathState,
        t: usize,
        addr: &ast::Addr,
        shared: bool,
        ins: &ast::Instr,
    ) -> Result<std::result::Result<(LocKey, String, BTreeSet<usize>), usize>> {
        let (name, off, deps) = match &addr.base {
            AddrBase::Sym(s) => (s.clone(), addr.offset, BTreeSet::new()),
            AddrBase::Reg(r) => {
                let v = st.regs.get(r).cloned().unwrap_or_else(|| Val::konst(0));
                match v.v {
                    V::Addr(name, o) => (name, o + addr.offset, v.deps),
                    V::Free(i) => return Ok(Err(i)),
                    V::Const(_) => {
                        return Err(Error::input(
                            format!("register `{}` does not hold an address here (initialise it with `P{}:{} = x` or `mov {}, x`)", r, t, r, r),
                            ins.span,
                        ))
                    }
                }
            }
        };
        let info = self.resolve_name(&name);
        let shared_cluster = if shared { Some(self.placements[t].cluster) } else { None };
        let key = LocKey { root: info.root.clone(), offset: off, shared_cluster };
        let vaddr = if off == 0 { info.vaddr.clone() } else { format!("{}+{}", info.vaddr, off) };
        Ok(Ok((key, vaddr, deps)))
    }

    fn push_mem(&self, st: &mut PathState, key: LocKey, access: Access, mut deps: BTreeSet<usize>, ins: &ast::Instr) -> usize {
        let mut value_srcs: Vec<LocKey> = deps
            .iter()
            .filter_map(|&i| match &st.events[i].kind {
                DraftKind::Mem { key, .. } => Some(key.clone()),
                DraftKind::Other(_) => None,
            })
            .collect();
        if access.atomic && (access.read_value.is_some() || access.rmw.is_some()) {
            value_srcs.push(key.clone());
        }
        deps.extend(st.ctrl.iter().copied());
        // Dependencies grow with the path (control dependencies accumulate), so
        // a long unrolled loop is quadratic here: charge them (issue 11).
        crate::budget::charge(96 + 16 * deps.len() as u64 + ins.text.len() as u64);
        st.events.push(DraftEvent { kind: DraftKind::Mem { key, access }, value_srcs, text: ins.text.clone(), line: ins.span.line, deps });
        st.events.len() - 1
    }

    fn push_other(&self, st: &mut PathState, kind: EventKind, ins: &ast::Instr) {
        let deps = st.ctrl.clone();
        crate::budget::charge(96 + 16 * deps.len() as u64 + ins.text.len() as u64);
        st.events.push(DraftEvent { kind: DraftKind::Other(kind), value_srcs: Vec::new(), text: ins.text.clone(), line: ins.span.line, deps });
    }

    fn cta_size(&self, t: usize) -> usize {
        let cta = self.placements[t].cta;
        self.placements.iter().filter(|p| p.cta == cta).count()
    }

    /// Variables whose widest access at offset 0 spans several cells: a
    /// condition sees their bytes composed (see `Program::loc_parts`).
    fn loc_parts(&self, key_index: &HashMap<LocKey, usize>) -> BTreeMap<String, Vec<(LocId, u32, u32)>> {
        let mut out = BTreeMap::new();
        for (name, info) in &self.names {
            let widest = self.foot.iter().filter(|(r, c, o, _)| *r == info.root && c.is_none() && *o == 0).map(|f| f.3).max();
            let Some(w) = widest else { continue };
            let parts = self.cells.split(&info.root, None, 0, w);
            if parts.len() > 1 {
                let ids = parts.iter().filter_map(|(off, len)| key_index.get(&LocKey { root: info.root.clone(), offset: *off, shared_cluster: None }).map(|&l| (l, *off as u32, *len as u32)));
                out.insert(name.clone(), ids.collect());
            }
        }
        out
    }

    /// A condition cannot observe `.local`/`.param` memory: each thread has its own.
    fn check_private_observed(&self, observables: &[Observable]) -> Result<()> {
        for o in observables {
            if let Observable::Loc(name) = o {
                let root = self.names.get(name).map_or(name.as_str(), |i| i.root.as_str());
                if let Some(sp) = self.private_roots.get(root) {
                    return Err(Error::input(format!("`{}` is thread-private .local/.param memory, so the condition cannot observe it", name), *sp));
                }
            }
        }
        Ok(())
    }

    /// Number everything and produce the program.
    fn assemble(self, paths: Vec<Vec<FinishedPath>>, unroll_hit: bool) -> Result<Program> {
        let lit = self.lit;
        // Locations: every key seen, plus declared variables never accessed.
        let mut keys: BTreeSet<LocKey> = BTreeSet::new();
        for name in self.inits.keys() {
            keys.insert(LocKey { root: name.clone(), offset: 0, shared_cluster: None });
        }
        for tp in &paths {
            for p in tp {
                for e in &p.events {
                    if let DraftKind::Mem { key, .. } = &e.kind {
                        keys.insert(key.clone());
                    }
                }
            }
        }
        let keys: Vec<LocKey> = keys.into_iter().collect();
        let key_index: HashMap<LocKey, usize> = keys.iter().cloned().enumerate().map(|(i, k)| (k, i)).collect();
        let mut locations: Vec<Location> = keys
            .iter()
            .map(|k| Location { name: k.display(), init: self.key_init(k), sizes: Vec::new(), values: self.domain(k) })
            .collect();
        let mut events = Vec::new();
        let mut init_events = Vec::new();
        for (l, loc) in locations.iter().enumerate() {
            init_events.push(events.len());
            events.push(Event {
                id: events.len(),
                thread: None,
                trace: None,
                paths: Vec::new(),
                po: 0,
                init_loc: Some(l),
                kind: EventKind::Init,
                text: format!("init {} = {}", loc.name, loc.init),
                line: 0,
            });
        }
        let mut traces = Vec::new();
        let mut threads = Vec::new();
        for (t, tp) in paths.into_iter().enumerate() {
            let mut tids = Vec::new();
            // Paths share the events of their common prefix: an event is keyed on
            // its predecessor and its content.
            let mut shared: HashMap<(Option<EventId>, String), EventId> = HashMap::new();
            for p in tp {
                let tid = traces.len();
                let mut evs: Vec<EventId> = Vec::new();
                let mut deps = Vec::new();
                for (i, d) in p.events.into_iter().enumerate() {
                    // Each trace lists its own dependency pairs: quadratic in a long
                    // unrolled loop, times the number of paths (issue 11).
                    crate::budget::charge(64 + 24 * d.deps.len() as u64);
                    let key = (evs.last().copied(), format!("{:?}|{:?}|{:?}", d.kind, d.deps, d.text));
                    if let Some(&id) = shared.get(&key) {
                        events[id].paths.push(tid);
                        for &r in &d.deps {
                            if r != i {
                                deps.push((evs[r], id));
                            }
                        }
                        evs.push(id);
                        continue;
                    }
                    let id = events.len();
                    shared.insert(key, id);
                    let kind = match d.kind {
                        DraftKind::Mem { key, mut access } => {
                            access.loc = key_index[&key];
                            let sizes = &mut locations[access.loc].sizes;
                            if !sizes.contains(&access.size) {
                                sizes.push(access.size);
                            }
                            EventKind::Mem(access)
                        }
                        DraftKind::Other(k) => k,
                    };
                    for r in d.deps {
                        if r != i {
                            deps.push((evs[r], id));
                        }
                    }
                    events.push(Event { id, thread: Some(t), trace: Some(tid), paths: vec![tid], po: i, init_loc: None, kind, text: d.text, line: d.line });
                    if events.len() > self.opts.max_events {
                        return Err(too_many_events(self.opts.max_events));
                    }
                    evs.push(id);
                }
                let mut regs = BTreeMap::new();
                for (r, v) in p.regs {
                    let rv = match v.v {
                        V::Const(c) => RegValue::Const(c),
                        V::Free(i) => RegValue::ReadOf(evs[i]),
                        V::Addr(name, off) => {
                            let idx = self.names.keys().position(|n| *n == name).unwrap_or(0);
                            RegValue::Const(address_number(idx, off))
                        }
                    };
                    regs.insert(r, rv);
                }
                traces.push(Trace { id: tid, thread: t, events: evs, regs, deps });
                tids.push(tid);
            }
            if tids.is_empty() {
                let mut e = Error::limit(format!("every path of thread P{} runs past the unroll bound ({}); raise --unroll", t, self.opts.unroll));
                if let Some((span, what)) = &self.unroll_cut {
                    e.message = format!("every path of thread P{} runs past the unroll bound ({}) in the loop at {}; raise --unroll", t, self.opts.unroll, what);
                    e.span = Some(*span);
                }
                return Err(e);
            }
            threads.push(Thread { id: t, placement: self.placements[t], traces: tids });
        }
        if events.len() > self.opts.max_events {
            return Err(Error::limit(format!(
                "the test has {} events over all paths, more than --max-events {}",
                events.len(),
                self.opts.max_events
            )));
        }
        let mixed_size = detect_mixed_size(&self.foot);
        let loc_parts = self.loc_parts(&key_index);
        let mut loc_names = BTreeMap::new();
        for (name, info) in &self.names {
            if let Some(&i) = key_index.get(&LocKey { root: info.root.clone(), offset: 0, shared_cluster: None }) {
                loc_names.insert(name.clone(), i);
            }
        }
        for (i, l) in locations.iter().enumerate() {
            loc_names.entry(l.name.clone()).or_insert(i);
        }
        let ncta = self.placements.iter().map(|p| p.cta).max().map_or(0, |m| m + 1);
        let ncl = self.placements.iter().map(|p| p.cluster).max().map_or(0, |m| m + 1);
        let mut cta_sizes = vec![0; ncta];
        let mut cluster_sizes = vec![0; ncl];
        for p in &self.placements {
            cta_sizes[p.cta] += 1;
            cluster_sizes[p.cluster] += 1;
        }
        let observables = observables_of(lit);
        check_observables(lit, &loc_names)?;
        self.check_private_observed(&observables)?;
        let proxy_fences = events.iter().filter(|e| matches!(e.kind, EventKind::ProxyFence { .. })).map(|e| e.id).collect();
        Ok(Program {
            proxy_fences,
            name: lit.name.clone(),
            threads,
            traces,
            events,
            locations,
            loc_names,
            init_events,
            cta_sizes,
            cluster_sizes,
            quantifier: lit.condition.quantifier,
            condition: lit.condition.prop.clone(),
            condition_text: lit.condition.text.clone(),
            condition_given: lit.condition.given,
            filter: lit.filter.clone(),
            observables,
            flags: BuildFlags { unroll_bound_hit: unroll_hit, mixed_size },
            unroll_cut: self.unroll_cut.clone(),
            loc_parts,
        })
    }
}

enum Step {
    Next,
    Jump(String),
    /// Continue with these states (each re-runs the instruction at its pc).
    Fork(Vec<PathState>),
    /// Continue with these states, which already executed the instruction.
    Continue(Vec<PathState>),
}

/// Charge the memory budget for a copy of a path: its events with their
/// dependency sets, which grow along the path.
fn charge_copy(st: &PathState) {
    crate::budget::charge(256 + st.events.iter().map(|e| 96 + 16 * e.deps.len() as u64).sum::<u64>());
}

fn too_many_events(max: usize) -> Error {
    Error::limit(format!("the test has more than {} events over all paths (--max-events {})", max, max))
}

/// The virtual address of a cell of an access through `vaddr` (`x`, `x+4`,
/// `alias+2`): the same base name at the cell's offset.
fn cell_vaddr(vaddr: &str, cell_off: i64) -> String {
    let base = vaddr.split('+').next().unwrap_or(vaddr);
    if cell_off == 0 {
        base.to_string()
    } else {
        format!("{}+{}", base, cell_off)
    }
}

/// How a message names the loop whose head is `ins`: its label, or its line.
fn loop_name(ins: &ast::Instr, t: usize) -> (Span, String) {
    match &ins.kind {
        InstrKind::Label(l) => (ins.span, format!("`{}` (line {}, thread P{})", l, ins.span.line, t)),
        _ => (ins.span, format!("line {} (`{}`, thread P{})", ins.span.line, ins.text, t)),
    }
}

fn unreachable_key() -> LocKey {
    LocKey { root: String::new(), offset: 0, shared_cluster: None }
}

/// An atomic access that reads, and writes `new` when it is `Some`.
fn mk_rmw(vaddr: String, proxy: Proxy, size: u8, sem: MemSem, scope: Scope, is_red: bool, new: Option<i64>) -> Access {
    Access { reads: true, writes: new.is_some(), atomic: true, is_red, write_value: new.unwrap_or(0), ..Access::new(vaddr, proxy, size, sem, scope) }
}

/// `.volatile` and `.mmio` are relaxed at system scope (8.4.1, 8.4.2); a strong
/// operation without a scope gets `default`.
fn normalize(sem: Sem, scope: Option<Scope>, default: Scope) -> (MemSem, Scope) {
    match sem {
        Sem::Weak => (MemSem::Weak, scope.unwrap_or(Scope::Sys)),
        Sem::Volatile | Sem::Mmio => (MemSem::Relaxed, Scope::Sys),
        Sem::Relaxed => (MemSem::Relaxed, scope.unwrap_or(default)),
        Sem::Acquire => (MemSem::Acquire, scope.unwrap_or(default)),
        Sem::Release => (MemSem::Release, scope.unwrap_or(default)),
        Sem::AcqRel => (MemSem::AcqRel, scope.unwrap_or(default)),
    }
}

/// Globally unique CTA and cluster numbers. Without `cluster`, each CTA is its own cluster.
fn place_threads(lit: &Litmus) -> Vec<Placement> {
    let mut ctas: BTreeMap<(u32, Option<u32>, u32), usize> = BTreeMap::new();
    let mut clusters: BTreeMap<(u32, Option<u32>, Option<u32>), usize> = BTreeMap::new();
    lit.threads
        .iter()
        .map(|h| {
            let n = ctas.len();
            let cta = *ctas.entry((h.gpu, h.cluster, h.cta)).or_insert(n);
            let ckey = match h.cluster {
                Some(k) => (h.gpu, Some(k), None),
                None => (h.gpu, None, Some(h.cta)),
            };
            let n = clusters.len();
            let cluster = *clusters.entry(ckey).or_insert(n);
            Placement { cta, cluster, gpu: h.gpu }
        })
        .collect()
}

/// Two accesses of one variable overlap without covering the same bytes
/// (8.7.2: a mixed-size race is possible, the axioms may not apply).
fn detect_mixed_size(foot: &BTreeSet<Footprint>) -> bool {
    let all: Vec<&Footprint> = foot.iter().collect();
    all.iter().enumerate().any(|(i, a)| {
        all[i + 1..].iter().any(|b| a.0 == b.0 && a.1 == b.1 && (a.2, a.3) != (b.2, b.3) && a.2 < b.2 + b.3 as i64 && b.2 < a.2 + a.3 as i64)
    })
}

/// The observables of the final states: condition, filter and `locations`, in order of appearance.
fn observables_of(lit: &Litmus) -> Vec<Observable> {
    let mut out: Vec<Observable> = Vec::new();
    for o in &lit.locations {
        if !out.contains(o) {
            out.push(o.clone());
        }
    }
    fn walk(p: &Prop, out: &mut Vec<Observable>) {
        match p {
            Prop::True | Prop::False => {}
            Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
                for t in [a, b] {
                    if let ast::Term::Obs(o, _) = t {
                        if !out.contains(o) {
                            out.push(o.clone());
                        }
                    }
                }
            }
            Prop::Not(a) => walk(a, out),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                walk(a, out);
                walk(b, out);
            }
        }
    }
    walk(&lit.condition.prop, &mut out);
    if let Some(f) = &lit.filter {
        walk(f, &mut out);
    }
    out
}

/// Locations named in the condition must exist in the test.
fn check_observables(lit: &Litmus, loc_names: &BTreeMap<String, LocId>) -> Result<()> {
    fn walk(p: &Prop, names: &BTreeMap<String, LocId>) -> Result<()> {
        match p {
            Prop::True | Prop::False => Ok(()),
            Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
                for t in [a, b] {
                    if let ast::Term::Obs(Observable::Loc(l), sp) = t {
                        if !names.contains_key(l) {
                            return Err(Error::input(format!("location `{}` is neither declared nor used by any thread", l), *sp));
                        }
                    }
                }
                Ok(())
            }
            Prop::Not(a) => walk(a, names),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                walk(a, names)?;
                walk(b, names)
            }
        }
    }
    walk(&lit.condition.prop, loc_names)?;
    if let Some(f) = &lit.filter {
        walk(f, loc_names)?;
    }
    Ok(())
}
