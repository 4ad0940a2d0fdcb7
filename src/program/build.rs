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
use crate::ast::{self, InitItem, InstrKind, Litmus, Sem, Span};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A concrete operand value, or (a read still symbolic) one path per value it
/// may have: the steps of `step.rs` and `warp.rs` (and any submodule declared
/// below) use it.
macro_rules! conc {
    ($self:ident, $st:ident, $ins:ident, $op:expr) => {
        match $self.concrete($st, $op, $ins.span)? {
            Ok(x) => x,
            Err(i) => return Ok($self.fork_read($st, i)),
        }
    };
}

mod access;
mod arrays;
mod assemble;
mod dsmem;
mod explore;
mod mbarrier;
#[macro_use]
mod meaning;
mod paths;
mod rmw;
mod spin_prune;
mod step;
mod symbolic;
mod warp;

use assemble::place_threads;
pub use explore::is_path_limit;
pub(crate) use step::timer_view;
pub use symbolic::{build_symbolic, build_symbolic_leaving_out_spins, evaluate as evaluate_symbolic, SymbolicBuild};

/// Limits on the size of what is built; each has a flag on the command line.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// How many times one instruction may run on a path before the path is cut.
    pub unroll: u32,
    /// Most instruction instances (events of one instance on several paths
    /// count once) a test may have.
    pub max_events: usize,
    /// Most paths per thread.
    pub max_traces: usize,
    /// Every byte of a variable without an initial value (8.2.6: "an unknown
    /// but constant value") starts as this byte; the check tries two (D71).
    pub unknown_fill: u8,
    /// The initial value of a cell of a variable without one, by the cell's
    /// location name (`s`, `s+4`, `s@cta1`): the value the check decides
    /// the test for, one of the few that stand for every value (D311).
    pub unknown_values: BTreeMap<String, i64>,
    /// Give each cell of a variable without an initial value (not private)
    /// a domain wider than its one initial value (1, all ones, the sign bit
    /// and the largest positive value at its width), so that no decision of
    /// the walk on a value set treats a value read from it as narrower than
    /// any value may be: the symbolic walk D311 reads the uses of unknown
    /// values from.
    pub probe_unknown: bool,
    /// Leave out failed spin iterations while exploring (D113); off only to
    /// check that doing so changes no answer.
    pub prune_spins: bool,
    /// With `prune_spins`, also leave out failed iterations whose
    /// read-modify-writes write back the value they read (D116); off where
    /// the program does not let them go (another thread reads the location).
    pub prune_silent_rmws: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            unroll: 2,
            max_events: 20_000,
            max_traces: 4_096,
            unknown_fill: 0,
            unknown_values: BTreeMap::new(),
            probe_unknown: false,
            prune_spins: true,
            prune_silent_rmws: true,
        }
    }
}

/// How a name used as an address resolves.
#[derive(Clone, Debug)]
struct NameInfo {
    /// The root declared location (physical memory).
    root: String,
    /// The virtual address this name denotes.
    vaddr: String,
    /// For a module `.shared` variable reached through `mapa` in another
    /// CTA of the cluster: the CTA whose copy this name denotes (D297).
    cta: Option<usize>,
}

struct Ctx<'a> {
    lit: &'a Litmus,
    /// Per thread, the first loop the unroll bound cut (see `Program::unroll_cuts`).
    unroll_cuts: BTreeMap<usize, (Span, String)>,
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
    /// The values constant writes (and the initial value) wrote to each key
    /// so far: a constant starts new chains of value-dependent writes even
    /// when such a write put the same value into the domain first (D197).
    constants: HashMap<LocKey, BTreeSet<i64>>,
    /// `u32 out[4];` arrays of the init block.
    arrays: arrays::Arrays,
    /// Variables of PTX modules and of the calls inlined from them (D71-D73).
    vars: BTreeMap<String, ast::VarDecl>,
    /// Variables some typed access reaches: their bytes hold bit patterns (D74).
    typed_roots: BTreeSet<String>,
    /// A variable without an initial value whose bytes some path reads (D71).
    reads_unknown: Option<String>,
    /// The widest access at offset 0 of each variable (its width, D74).
    widest0: HashMap<String, u8>,
    /// Where each footprint was first accessed, for messages.
    foot_at: HashMap<Footprint, (Span, Option<std::sync::Arc<crate::error::Origin>>)>,
    /// The first `mbarrier.init` of each object: thread, line, column, loop
    /// iterations (D153), and whether the test has an `mbarrier.inval`.
    mbarrier_inits: HashMap<LocKey, (usize, usize, usize, u32)>,
    has_mbarrier_inval: bool,
    /// The reads of the failed spin iterations left out while exploring (D113),
    /// one per thread, location and access profile: checked after the build.
    spin_left_out: BTreeMap<String, spin_prune::LeftOut>,
    /// Per thread, in the last walk: each path D113 left out at a loop head,
    /// up to that head (what the thread did before it spun).
    spin_prefixes: Vec<Vec<FinishedPath>>,
    /// Whether the last walk cut a path at the unroll bound (not D113), whose
    /// later iterations' writes are then missing from the domains, or kept
    /// too many spin prefixes: no thread is then proven to spin for ever.
    spin_proof_lost: bool,
    /// The threads proven to spin forever (D299).
    spinning_forever: Vec<usize>,
    /// Each thread's warp and lane in its CTA (D92, D174).
    seats: Vec<(i64, u32)>,
    /// The values each thread contributes to each use of a warp collective
    /// (an over-approximation, learned round after round as `domains` are).
    exchanged: HashMap<(SyncKey, usize), BTreeSet<i64>>,
    /// The locations whose read values those contributions depend on: a value
    /// a lane receives is value-dependent on them (`value_srcs`, D164).
    exchanged_srcs: HashMap<(SyncKey, usize), BTreeSet<LocKey>>,
}

/// A physical location before numbering: root name, byte offset, and for
/// shared memory whose copy: the cluster's for a test's own `.shared`
/// accesses (D19), the CTA's for a module's `.shared` variable (5.1.7, D75).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct LocKey {
    root: String,
    offset: i64,
    shared_cluster: Option<usize>,
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
    /// (back edges taken so far, pc, index among the events of this execution
    /// of the instruction): its instruction instance (see [`Instance`]).
    at: Instance,
}

#[derive(Clone, Debug)]
enum DraftKind {
    Mem { key: LocKey, access: Access },
    Other(EventKind),
}

#[derive(Clone, Debug, Default)]
struct PathState {
    pc: usize,
    regs: HashMap<String, Val>,
    events: Vec<DraftEvent>,
    visits: HashMap<usize, u32>,
    /// Jumps to this or an earlier instruction taken so far (loop iterations).
    back_edges: u32,
    /// `events.len()` when the current instruction started executing.
    issued: usize,
    ctrl: BTreeSet<usize>,
    /// The state at each loop head the last time this path stood there (D113).
    spin_heads: HashMap<usize, spin_prune::HeadSnapshot>,
    /// Uses so far of each synchronizing object (its next phase), by role
    /// where arrive and wait are counted apart (`Values::sync_uses`).
    sync_phase: HashMap<(SyncKey, Option<SyncRole>), usize>,
    /// This path's `.local`/`.param` bytes.
    private: PrivateMem,
    /// This path's asynchronous operations and their groups (D260).
    asyncs: meaning::AsyncState,
}

struct FinishedPath {
    events: Vec<DraftEvent>,
    regs: HashMap<String, Val>,
}

/// Build the program of a parsed litmus test, every failed spin iteration
/// explored (the builder alone cannot tell whether leaving one out is exact:
/// the pipeline's `check::build` can, and leaves them out, D113).
pub fn build_program(lit: &Litmus, opts: &BuildOptions) -> Result<Program> {
    Ok(build_leaving_out_spins(lit, &BuildOptions { prune_spins: false, ..opts.clone() })?.0)
}

/// Build the program of a parsed litmus test; with `opts.prune_spins`, leave
/// out failed spin iterations while exploring (D113) and return their reads
/// (`None`: one reads a location the program lacks), which the caller must
/// check race with nothing before using the program.
pub fn build_leaving_out_spins(
    lit: &Litmus,
    opts: &BuildOptions,
) -> Result<(Program, Option<Vec<super::LeftOutEvent>>)> {
    let mut ctx = Ctx::new(lit, opts)?;
    // Cells come from the footprints the paths access, and the paths from the
    // cells (a split load forks over its parts): repeat until every footprint
    // splits the same way under the cells it was explored with (D18).
    for _ in 0..8 {
        ctx.foot.clear();
        ctx.widest0.clear();
        let typed = ctx.typed_roots.clone();
        let (paths, unroll_hit) = ctx.explore_all()?;
        let all: BTreeSet<Footprint> = ctx.foot.iter().cloned().chain(ctx.extents()).collect();
        let cells = Cells::new(&all);
        // A scalar whose initial value a typed access turns into another bit
        // pattern (x = -1 read as a u32) needs its domains again (D74).
        let retyped = ctx
            .typed_roots
            .difference(&typed)
            .any(|r| ctx.inits.get(r).is_some_and(|&v| v != cells::extract(v, 0, ctx.width(r).min(8) as u8)));
        // The paths are consumed by the assembly or dropped here.
        let held = paths_bytes(&paths);
        if !retyped && all.iter().all(|(r, c, o, n)| cells.split(r, *c, *o, *n) == ctx.cells.split(r, *c, *o, *n)) {
            let (p, left_out) = ctx.assemble(paths, unroll_hit)?;
            crate::budget::credit(held);
            if crate::out::tracing() {
                // What one event per instruction instance would leave (issue 14).
                eprintln!("build: {} events, {} instruction instances", p.events.len(), p.instance_count());
            }
            return Ok((p, left_out));
        }
        crate::budget::credit(held);
        ctx.cells = cells;
        ctx.domains.clear();
        ctx.constants.clear();
    }
    Err(Error::limit("the byte ranges the accesses touch keep changing with the values read (mixed-size addresses computed from loaded values)"))
}

impl<'a> Ctx<'a> {
    fn new(lit: &'a Litmus, opts: &'a BuildOptions) -> Result<Self> {
        let mut names = BTreeMap::new();
        let mut inits = BTreeMap::new();
        for item in &lit.init {
            if let InitItem::Location { name, value, .. } = item {
                inits.insert(name.clone(), *value);
                names.insert(name.clone(), NameInfo { root: name.clone(), vaddr: name.clone(), cta: None });
            }
        }
        for item in &lit.init {
            if let InitItem::Alias { name, proxy, target, span } = item {
                let tinfo = names.get(target).cloned().unwrap_or_else(|| {
                    inits.entry(target.clone()).or_insert(0);
                    NameInfo { root: target.clone(), vaddr: target.clone(), cta: None }
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
                names.insert(name.clone(), NameInfo { root: tinfo.root.clone(), vaddr, cta: tinfo.cta });
            }
        }
        let placements = place_threads(lit);
        let arrays = arrays::Arrays::new(lit)?;
        for name in arrays.decl.keys() {
            inits.entry(name.clone()).or_insert(0);
            names.insert(name.clone(), NameInfo { root: name.clone(), vaddr: name.clone(), cta: None });
        }
        let mut vars = BTreeMap::new();
        for item in &lit.init {
            if let InitItem::Var(d) = item {
                names.entry(d.name.clone()).or_insert_with(|| NameInfo {
                    root: d.name.clone(),
                    vaddr: d.name.clone(),
                    cta: None,
                });
                vars.insert(d.name.clone(), d.clone());
            }
        }
        let mut ctx = Ctx {
            lit,
            opts,
            names,
            inits,
            placements,
            domains: HashMap::new(),
            constants: HashMap::new(),
            unroll_cuts: BTreeMap::new(),
            private_roots: BTreeMap::new(),
            global_roots: BTreeMap::new(),
            cells: Cells::default(),
            foot: BTreeSet::new(),
            cell_len: HashMap::new(),
            arrays,
            vars,
            typed_roots: BTreeSet::new(),
            reads_unknown: None,
            widest0: HashMap::new(),
            foot_at: HashMap::new(),
            mbarrier_inits: HashMap::new(),
            spin_left_out: BTreeMap::new(),
            spin_prefixes: Vec::new(),
            spin_proof_lost: false,
            spinning_forever: Vec::new(),
            seats: warp::seats(lit),
            exchanged: HashMap::new(),
            exchanged_srcs: HashMap::new(),
            has_mbarrier_inval: lit
                .code
                .iter()
                .flatten()
                .any(|i| matches!(i.kind, InstrKind::Mbarrier { op: ast::MbarrierOp::Inval, .. })),
        };
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
                self.names.insert(name.clone(), NameInfo { root: name.clone(), vaddr: name.clone(), cta: None });
            }
        }
    }

    fn resolve_name(&mut self, name: &str) -> NameInfo {
        if let Some(i) = self.names.get(name) {
            return i.clone();
        }
        // A location used without declaration starts at 0, as in herd.
        self.inits.entry(name.to_string()).or_insert(0);
        let info = NameInfo { root: name.to_string(), vaddr: name.to_string(), cta: None };
        self.names.insert(name.to_string(), info.clone());
        info
    }

    /// The initial value of a cell (8.2.6: W0 writes each byte's initial
    /// value). A test's own scalar read whole keeps its value as written (the
    /// untyped corpus convention, D15) unless typed accesses make it a bit
    /// pattern; every other cell holds its bytes, unsigned (D18, D74).
    /// Record that a constant write (on some path) writes `v` to `key`:
    /// whether `v` is a constant new to `key` (D197). Whether the domain
    /// already holds `v` does not matter: a value-dependent write may have
    /// put it there in the same or an earlier round, and the chains of
    /// value-dependent writes that start from the constant still need their
    /// rounds.
    fn new_constant(&mut self, key: &LocKey, v: i64) -> bool {
        let init = self.key_init(key);
        self.constants.entry(key.clone()).or_insert_with(|| BTreeSet::from([init])).insert(v)
    }

    fn key_init(&self, key: &LocKey) -> i64 {
        if !self.opts.unknown_values.is_empty() && self.is_unknown(key) {
            let name = self.arrays.name_of(key).unwrap_or_else(|| self.key_name(key));
            if let Some(&v) = self.opts.unknown_values.get(&name) {
                return v;
            }
        }
        let len = self.cell_len.get(key).copied().unwrap_or(8);
        let scalar = !self.vars.contains_key(&key.root) && !self.arrays.decl.contains_key(&key.root);
        if scalar && key.offset == 0 && !self.typed_roots.contains(&key.root) && u64::from(len) >= self.width(&key.root)
        {
            return self.inits.get(&key.root).copied().unwrap_or(0);
        }
        let bytes: Vec<(i64, i64, u8)> =
            (0..len as i64).map(|i| (self.init_byte(&key.root, key.offset + i) as i64, i, 1)).collect();
        cells::compose(&bytes) as u64 as i64
    }

    /// Byte `i` of the initial value of variable `root` (8.2.6): a module
    /// variable's initializer (0 past it; 5.4.4 for `.global`/`.const`), an
    /// array's elements, a scalar's 64-bit value (0 past it).
    fn init_byte(&self, root: &str, i: i64) -> u8 {
        if let Some(d) = self.vars.get(root) {
            if let Some(v) = self.inits.get(root).filter(|_| !d.space.is_private()) {
                return cells::extract(*v, i, 1) as u8;
            }
            return match &d.init {
                Some(b) => usize::try_from(i).ok().and_then(|i| b.get(i)).copied().unwrap_or(0),
                None => self.opts.unknown_fill,
            };
        }
        if let Some(b) = self.arrays.init_byte(root, i) {
            return b;
        }
        let init = self.inits.get(root).copied().unwrap_or(0);
        if (0..8).contains(&i) {
            cells::extract(init, i, 1) as u8
        } else {
            0
        }
    }

    /// The size of variable `root` in bytes: declared (module variables,
    /// arrays), or for a test's own scalar its widest access at offset 0,
    /// at least 4 bytes (an untyped access, D15).
    fn width(&self, root: &str) -> u64 {
        if let Some(d) = self.vars.get(root) {
            return d.size;
        }
        if let Some(&(size, len)) = self.arrays.decl.get(root) {
            return u64::from(size) * u64::from(len);
        }
        self.widest0.get(root).map_or(4, |&w| u64::from(w).max(4))
    }

    /// The bytes of every variable a condition can name, as footprints, so
    /// that its cells cover it whole (D18, D44): each array element, and the
    /// whole of each scalar some access reaches (an access of part of it cuts
    /// the rest into cells of their own, which keep their initial bytes).
    fn extents(&self) -> Vec<Footprint> {
        let mut out = self.arrays.extents();
        let reached: BTreeSet<(String, Option<usize>)> = self.foot.iter().map(|f| (f.0.clone(), f.1)).collect();
        for (root, cl) in reached {
            if self.arrays.decl.contains_key(&root) {
                continue;
            }
            let w = self.width(&root);
            if (1..=8).contains(&w) {
                out.push((root, cl, 0, w as u8));
            }
        }
        out
    }

    /// How reports name a location: `x`, `x+4`, `x@cluster1`, `s@cta0`.
    fn key_name(&self, k: &LocKey) -> String {
        let mut s = k.root.clone();
        if k.offset != 0 {
            s.push_str(&format!("+{}", k.offset));
        }
        if let Some(c) = k.shared_cluster {
            let per = if self.space(&k.root) == ast::VarSpace::Shared { "cta" } else { "cluster" };
            s.push_str(&format!("@{}{}", per, c));
        }
        s
    }

    /// The state space of variable `root`: declared, or global for the
    /// test's own locations (litmus-format 5).
    /// The state space of variable `name`, or of the variable it aliases.
    fn space_of_variable(&self, name: &str) -> ast::VarSpace {
        self.space(self.names.get(name).map_or(name, |i| i.root.as_str()))
    }

    fn space(&self, root: &str) -> ast::VarSpace {
        self.vars.get(root).map_or(ast::VarSpace::Global, |d| d.space)
    }

    /// The cells an access of `size` bytes at `key` covers, recording its footprint.
    fn mem_cells(&mut self, key: &LocKey, size: u8, ins: &ast::Instr) -> Vec<(LocKey, i64, u8)> {
        let f = (key.root.clone(), key.shared_cluster, key.offset, size);
        self.foot_at.entry(f.clone()).or_insert_with(|| (ins.span, ins.origin.clone()));
        if key.offset == 0 {
            let w = self.widest0.entry(key.root.clone()).or_insert(size);
            *w = (*w).max(size);
        }
        self.foot.insert(f);
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
        let mut d = match self.domains.get(key) {
            Some(d) => d.iter().copied().collect(),
            None => vec![self.key_init(key)],
        };
        if self.opts.probe_unknown && self.is_unknown(key) {
            let bits = 8 * u32::from(self.cell_len.get(key).copied().unwrap_or(8)).clamp(1, 8);
            let ones = (u64::MAX >> (64 - bits)) as i64;
            let sign = (1u64 << (bits - 1)) as i64;
            d.extend([1, ones, sign, sign - 1]);
            d.sort_unstable();
            d.dedup();
        }
        d
    }

    /// A cell of a variable the ISA gives no initial value (8.2.6; a
    /// `.shared` variable, `.extern` memory no module defines), not private,
    /// and not given one by the test's init block.
    fn is_unknown(&self, key: &LocKey) -> bool {
        self.has_no_initial_value(&key.root) && !self.vars.get(&key.root).is_some_and(|d| d.space.is_private())
    }

    /// Variable `root` has no initial value: no initializer (8.2.6) and
    /// none from the test's init block (private memory takes none there).
    fn has_no_initial_value(&self, root: &str) -> bool {
        self.vars
            .get(root)
            .is_some_and(|d| d.init.is_none() && (d.space.is_private() || !self.inits.contains_key(root)))
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
    crate::budget::charge(path_bytes(&st.events));
}

/// What the budget counts for a path of `events`: each event with its
/// dependency set, and the path's own state. Credited back when the path is
/// dropped, so that the estimate follows what the builder holds (D117).
fn path_bytes(events: &[DraftEvent]) -> u64 {
    256 + events.iter().map(|e| 96 + 16 * e.deps.len() as u64).sum::<u64>()
}

/// [`path_bytes`] of every path of every thread.
fn paths_bytes(paths: &[Vec<FinishedPath>]) -> u64 {
    paths.iter().flatten().map(|p| path_bytes(&p.events)).sum()
}

fn too_many_events(max: usize) -> Error {
    Error::limit(format!("the test has more than {} instruction instances (--max-events {})", max, max))
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
    Access {
        reads: true,
        writes: new.is_some(),
        atomic: true,
        is_red,
        write_value: new.unwrap_or(0),
        ..Access::new(vaddr, proxy, size, sem, scope)
    }
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
