//! Random tests inside the fragment the symbolic encoding covers (issue 27):
//! global scalars `x`, `y` at static addresses; `ld`/`st`, `atom` (`add`,
//! `exch`, `cas` with register or constant operands, `add.f32`),
//! `add`/`and`/`xor`, floating-point `add`/`mul`/`cvt`/`setp` (D204),
//! `setp`/`selp`, `@p` guards, forward branches (if-then with a join) and at
//! most one bounded back-edge loop per test (a spin loop, a `cas` loop, or a
//! timed wait that reads `%globaltimer` through a module function, D81, D204,
//! which the unroll bound cuts), and in some tests a synchronizing
//! instruction in every thread (D196, D210, D211): `bar.sync`, a warp
//! collective over the lanes `activemask` gives (`vote.sync`, `shfl.sync`,
//! `redux.sync`, `match.any.sync`), `bar.warp.sync`, `bar.red`, or an
//! arrive on and a test of an mbarrier (D305), or an asynchronous copy into
//! the thread's `.shared` words and its wait (D308). Register
//! values flow into stores, operands and predicates, so reads fork the path
//! builder's paths and the symbolic builder's terms carry data, control and
//! `Ite` dependencies.

#![allow(dead_code)]

use proptest::prelude::*;

pub const REGS: usize = 3;
pub const PREDS: usize = 2;

/// A register or a constant operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Const(i64),
    Reg(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ins {
    /// `ld.{weak,relaxed.gpu,acquire.gpu}`.
    Ld { sem: usize, reg: usize, loc: usize },
    /// `st.{weak,relaxed.gpu,release.gpu}`.
    St { sem: usize, loc: usize, val: Val },
    /// `atom.{relaxed,acquire,release,acq_rel}.gpu.{add,exch,cas,add.f32}`; `b` is the cas's new value.
    Atom { sem: usize, op: usize, reg: usize, loc: usize, a: Val, b: Val },
    /// `add`/`and`/`xor` at `.u32`/`.b32`.
    Alu { op: usize, dst: usize, a: usize, b: Val },
    /// `add.f32`, `mul.f32` (`dst`, `a`, `b`), `cvt.rn.f32.u32` (`dst`, `a`)
    /// or `setp.lt.f32` (predicate `dst % PREDS`, `a`, `b`): IEEE 754 on the
    /// registers' bit patterns.
    Float { op: usize, dst: usize, a: usize, b: Val },
    /// `setp.{eq,ne,lt}.u32`.
    Setp { cmp: usize, pred: usize, a: usize, b: Val },
    /// `selp.u32 dst, a, b, pred`.
    Selp { dst: usize, a: Val, b: Val, pred: usize },
    /// `@p` or `@!p` in front of a plain instruction.
    Guarded { pred: usize, negated: bool, ins: Box<Ins> },
    /// `@p bra SKIPn; body; SKIPn:` (a forward branch and its join).
    IfThen { pred: usize, negated: bool, body: Vec<Ins> },
}

/// What every thread of a test performs at its synchronization point: the
/// same instruction in every thread, so the warp collectives meet (each
/// CTA's threads are one warp, their lanes their `tid`s).
#[derive(Clone, Debug, PartialEq)]
pub enum SyncOp {
    /// `bar.sync 0`.
    BarSync,
    /// `vote.sync.ballot.b32 r{dst}, p{pred}, r9`.
    Ballot { dst: usize, pred: usize },
    /// `vote.sync.{all,any,uni}.pred p{dst}, {!}p{pred}, r9`.
    Vote { mode: usize, dst: usize, pred: usize, negated: bool },
    /// `shfl.sync.idx.b32 r{dst}, r{src}, L, 31, r9`: the value of the lowest lane of the CTA.
    ShflFirst { dst: usize, src: usize },
    /// `redux.sync.{add,max}.u32 r{dst}, r{src}, r9`.
    Redux { max: bool, dst: usize, src: usize },
    /// `match.any.sync.b32 r{dst}, r{src}, r9`.
    MatchAny { dst: usize, src: usize },
    /// `bar.warp.sync r9`.
    WarpSync,
    /// `bar.red.popc.u32 r{dst}, 1, p{pred}`.
    RedPopc { dst: usize, pred: usize },
    /// `bar.red.{and,or}.pred p{dst}, 1, {!}p{pred}`.
    RedPred { or: bool, dst: usize, pred: usize, negated: bool },
    /// An arrive on the CTA's mbarrier `M` (`.release` or `.relaxed`) into
    /// the token `r8`, then `mbarrier.test_wait` (`.acquire` or `.relaxed`)
    /// into `p{pred}` of that token or (`parity`) of phase 0's parity, and
    /// with `pending` `mbarrier.pending_count r{dst}, r8`. The first thread
    /// of each CTA initialises `M` for its CTA's threads, before a
    /// `bar.sync 0` every thread performs first (D305).
    Mbarrier { release: bool, acquire: bool, parity: bool, pred: usize, pending: Option<usize> },
    /// In P0 only, an asynchronous copy of `x` or `y` (`src`) into its own
    /// `.shared` words `S0` (`cp.async.ca.shared.global`, 4 bytes), committed
    /// to a group, then (`wait`) 0: no wait, 1: `cp.async.wait_group 0`, 2:
    /// `cp.async.wait_all`, 3: a second copy of the other location into
    /// `S0+4` committed and `cp.async.wait_group 1`, so only the first is
    /// complete; then `ld.shared.u32 r{reg}, [S0]` (D257-D261, D308).
    Copy { src: usize, wait: usize, reg: usize },
}

fn sync_op() -> impl Strategy<Value = SyncOp> {
    prop_oneof![
        3 => Just(SyncOp::BarSync),
        1 => (0..REGS, 0..PREDS).prop_map(|(dst, pred)| SyncOp::Ballot { dst, pred }),
        1 => (0..3usize, 0..PREDS, 0..PREDS, any::<bool>())
            .prop_map(|(mode, dst, pred, negated)| SyncOp::Vote { mode, dst, pred, negated }),
        1 => (0..REGS, 0..REGS).prop_map(|(dst, src)| SyncOp::ShflFirst { dst, src }),
        1 => (any::<bool>(), 0..REGS, 0..REGS).prop_map(|(max, dst, src)| SyncOp::Redux { max, dst, src }),
        1 => (0..REGS, 0..REGS).prop_map(|(dst, src)| SyncOp::MatchAny { dst, src }),
        1 => Just(SyncOp::WarpSync),
        1 => (0..REGS, 0..PREDS).prop_map(|(dst, pred)| SyncOp::RedPopc { dst, pred }),
        1 => (any::<bool>(), 0..PREDS, 0..PREDS, any::<bool>())
            .prop_map(|(or, dst, pred, negated)| SyncOp::RedPred { or, dst, pred, negated }),
        2 => (any::<bool>(), any::<bool>(), any::<bool>(), 0..PREDS, proptest::option::of(0..REGS))
            .prop_map(|(release, acquire, parity, pred, pending)| SyncOp::Mbarrier { release, acquire, parity, pred, pending }),
        2 => (0..2usize, 0..4usize, 0..REGS).prop_map(|(src, wait, reg)| SyncOp::Copy { src, wait, reg }),
    ]
}

/// The one back-edge loop of a test: spin until a read of `loc` is not 0
/// (`cas == false`), or a `cas` loop incrementing `loc` (`cas == true`); a
/// spin loop is `timed` in some tests: `try_wait` of
/// `litmus/regressions/special-registers.ptx`, which polls `loc` until it
/// is 1 or the `%globaltimer` deadline passes, storing 1 or 2 to the other
/// location.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub thread: usize,
    pub at: usize,
    pub loc: usize,
    pub sem: usize,
    pub cas: bool,
    pub timed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FragmentTest {
    pub threads: Vec<Vec<Ins>>,
    /// Each thread's CTA (threads in one CTA share it).
    pub ctas: Vec<u32>,
    pub back_edge: Option<Loop>,
    /// In some tests every thread performs `sync_op` (over its CTA's
    /// threads), each before its instruction of this index (at its end past
    /// the last): after a loop it is performed under the loop's exit (D196).
    pub barrier_at: Option<Vec<usize>>,
    /// What the threads perform there.
    pub sync_op: SyncOp,
}

fn val() -> impl Strategy<Value = Val> {
    prop_oneof![(0..3i64).prop_map(Val::Const), (0..REGS).prop_map(Val::Reg)]
}

fn plain() -> impl Strategy<Value = Ins> {
    prop_oneof![
        3 => (0..3usize, 0..REGS, 0..2usize).prop_map(|(sem, reg, loc)| Ins::Ld { sem, reg, loc }),
        3 => (0..3usize, 0..2usize, val()).prop_map(|(sem, loc, val)| Ins::St { sem, loc, val }),
        2 => (0..4usize, 0..4usize, 0..REGS, 0..2usize, val(), val())
            .prop_map(|(sem, op, reg, loc, a, b)| Ins::Atom { sem, op, reg, loc, a, b }),
        2 => (0..3usize, 0..REGS, 0..REGS, val()).prop_map(|(op, dst, a, b)| Ins::Alu { op, dst, a, b }),
        2 => (0..3usize, 0..PREDS, 0..REGS, val()).prop_map(|(cmp, pred, a, b)| Ins::Setp { cmp, pred, a, b }),
        1 => (0..REGS, val(), val(), 0..PREDS).prop_map(|(dst, a, b, pred)| Ins::Selp { dst, a, b, pred }),
        1 => (0..4usize, 0..REGS, 0..REGS, val()).prop_map(|(op, dst, a, b)| Ins::Float { op, dst, a, b }),
    ]
}

fn ins() -> impl Strategy<Value = Ins> {
    prop_oneof![
        6 => plain(),
        1 => (0..PREDS, any::<bool>(), plain())
            .prop_map(|(pred, negated, ins)| Ins::Guarded { pred, negated, ins: Box::new(ins) }),
        1 => (0..PREDS, any::<bool>(), proptest::collection::vec(plain(), 1..=2))
            .prop_map(|(pred, negated, body)| Ins::IfThen { pred, negated, body }),
    ]
}

/// 2 or 3 threads of a load and 1 to `more` further instructions, and in half the tests one loop.
pub fn fragment_strategy(more: usize) -> impl Strategy<Value = FragmentTest> {
    strategy(more, 0.3)
}

/// [`fragment_strategy`] where every test has a synchronization point that
/// is a warp collective, `bar.warp.sync` or `bar.red` (D210, D211).
pub fn collective_strategy(more: usize) -> impl Strategy<Value = FragmentTest> {
    let synced = |t: &FragmentTest| t.barrier_at.is_some() && t.sync_op != SyncOp::BarSync;
    strategy(more, 0.99).prop_filter("a warp operation or a reduction", synced)
}

/// The tests, with a synchronization point in a `synced` fraction of them.
fn strategy(more: usize, synced: f64) -> impl Strategy<Value = FragmentTest> {
    // Each thread starts with a load, so the registers its later instructions
    // read (predicates, operands, stored values) mostly hold read values.
    let load = (0..3usize, 0..REGS, 0..2usize).prop_map(|(sem, reg, loc)| Ins::Ld { sem, reg, loc });
    let thread = (load, proptest::collection::vec(ins(), 1..=more)).prop_map(|(l, mut rest)| {
        rest.insert(0, l);
        rest
    });
    let threads = proptest::collection::vec(thread, 2..=3);
    let ctas = proptest::collection::vec(0..2u32, 3);
    let back_edge = proptest::option::of((0..3usize, 0..5usize, 0..2usize, 0..3usize, any::<bool>(), 0..4u8));
    let barrier_at = proptest::option::weighted(synced, proptest::collection::vec(0..8usize, 3));
    (threads, ctas, back_edge, barrier_at, sync_op()).prop_map(|(threads, ctas, back_edge, barrier_at, sync_op)| {
        let n = threads.len();
        let back_edge = back_edge.map(|(thread, at, loc, sem, cas, timed)| Loop {
            thread: thread % n,
            at: at.min(threads[thread % n].len()),
            loc,
            sem,
            cas,
            timed: !cas && timed == 0,
        });
        let barrier_at = barrier_at.map(|at| (0..n).map(|t| at[t].min(threads[t].len())).collect());
        FragmentTest { ctas: ctas[..n].to_vec(), threads, back_edge, barrier_at, sync_op }
    })
}

const LOCS: [&str; 2] = ["x", "y"];

/// The module whose `try_wait` a timed loop calls.
pub const TIMED_WAIT_MODULE: &str = "litmus/regressions/special-registers.ptx";

fn val_text(v: &Val) -> String {
    match v {
        Val::Const(c) => c.to_string(),
        Val::Reg(r) => format!("r{}", r),
    }
}

/// One instruction's lines (labels of an if-then numbered by `label`).
fn ins_lines(i: &Ins, label: &mut usize) -> Vec<String> {
    match i {
        Ins::Ld { sem, reg, loc } => {
            vec![format!("ld.{}.u32 r{}, [{}]", ["weak", "relaxed.gpu", "acquire.gpu"][*sem], reg, LOCS[*loc])]
        }
        Ins::St { sem, loc, val } => {
            vec![format!("st.{}.u32 [{}], {}", ["weak", "relaxed.gpu", "release.gpu"][*sem], LOCS[*loc], val_text(val))]
        }
        Ins::Atom { sem, op, reg, loc, a, b } => {
            let sem = ["relaxed", "acquire", "release", "acq_rel"][*sem];
            let (op, ty) = [("add", "u32"), ("exch", "b32"), ("cas", "b32"), ("add", "f32")][*op];
            let operands = if op == "cas" { format!("{}, {}", val_text(a), val_text(b)) } else { val_text(a) };
            vec![format!("atom.{}.gpu.{}.{} r{}, [{}], {}", sem, op, ty, reg, LOCS[*loc], operands)]
        }
        Ins::Alu { op, dst, a, b } => {
            let op = ["add.u32", "and.b32", "xor.b32"][*op];
            vec![format!("{} r{}, r{}, {}", op, dst, a, val_text(b))]
        }
        Ins::Float { op, dst, a, b } => vec![match op {
            0 => format!("add.f32 r{}, r{}, {}", dst, a, val_text(b)),
            1 => format!("mul.f32 r{}, r{}, {}", dst, a, val_text(b)),
            2 => format!("cvt.rn.f32.u32 r{}, r{}", dst, a),
            _ => format!("setp.lt.f32 p{}, r{}, {}", dst % PREDS, a, val_text(b)),
        }],
        Ins::Setp { cmp, pred, a, b } => {
            vec![format!("setp.{}.u32 p{}, r{}, {}", ["eq", "ne", "lt"][*cmp], pred, a, val_text(b))]
        }
        Ins::Selp { dst, a, b, pred } => {
            vec![format!("selp.u32 r{}, {}, {}, p{}", dst, val_text(a), val_text(b), pred)]
        }
        Ins::Guarded { pred, negated, ins } => {
            let guard = format!("@{}p{} ", if *negated { "!" } else { "" }, pred);
            ins_lines(ins, label).into_iter().map(|l| format!("{}{}", guard, l)).collect()
        }
        Ins::IfThen { pred, negated, body } => {
            *label += 1;
            let skip = format!("SKIP{}", label);
            // The branch skips the body when the guard holds: `@!p bra` runs the body when p.
            let mut v = vec![format!("@{}p{} bra {}", if *negated { "" } else { "!" }, pred, skip)];
            v.extend(body.iter().flat_map(|b| ins_lines(b, label)));
            v.push(format!("{}:", skip));
            v
        }
    }
}

fn loop_lines(l: &Loop) -> Vec<String> {
    let x = LOCS[l.loc];
    if l.timed {
        return vec![format!("call try_wait, ({}, {})", x, LOCS[1 - l.loc])];
    }
    if l.cas {
        vec![
            "CAS:".into(),
            format!("ld.relaxed.gpu.u32 r0, [{}]", x),
            "add.u32 r1, r0, 1".into(),
            format!("atom.{}.gpu.cas.b32 r2, [{}], r0, r1", ["relaxed", "acquire", "acq_rel"][l.sem], x),
            "setp.ne.u32 p1, r2, r0".into(),
            "@p1 bra CAS".into(),
        ]
    } else {
        vec![
            "SPIN:".into(),
            format!("ld.{}.u32 r0, [{}]", ["weak", "relaxed.gpu", "acquire.gpu"][l.sem], x),
            "setp.eq.u32 p1, r0, 0".into(),
            "@p1 bra SPIN".into(),
        ]
    }
}

impl FragmentTest {
    fn cells(&self, t: usize) -> Vec<String> {
        let mut label = 0;
        let mut v = Vec::new();
        let len = self.threads[t].len();
        // The next thread stores 1 where a spin loop waits, so the loop can end
        // (a test whose every execution the unroll bound cuts is a limit): at
        // its end, or before its barrier, which the spinning thread may pass
        // only after the loop.
        let release = self.back_edge.as_ref().filter(|l| !l.cas && (l.thread + 1) % self.threads.len() == t);
        let release = release.map(|l| format!("st.relaxed.gpu.u32 [{}], 1", LOCS[l.loc]));
        let barrier = self.barrier_at.as_ref().map(|at| at[t]);
        if barrier.is_some() {
            v.extend(self.mbarrier_prelude(t));
        }
        for i in 0..=len {
            if barrier == Some(i) {
                v.extend(release.clone());
                v.extend(self.sync_lines(t));
            }
            if let Some(l) = self.back_edge.as_ref().filter(|l| l.thread == t && l.at.min(len) == i) {
                v.extend(loop_lines(l));
            }
            if let Some(ins) = self.threads[t].get(i) {
                v.extend(ins_lines(ins, &mut label));
            }
        }
        if barrier.is_none() {
            v.extend(release);
        }
        v
    }

    /// With an mbarrier synchronization point: the first thread of `t`'s CTA
    /// initialises `M` for the CTA's threads, and every thread then waits at
    /// `bar.sync 0`, which orders the initialisation before every arrive.
    fn mbarrier_prelude(&self, t: usize) -> Vec<String> {
        if !matches!(self.sync_op, SyncOp::Mbarrier { .. }) {
            return Vec::new();
        }
        let mates: Vec<usize> = (0..self.threads.len()).filter(|&u| self.ctas[u] == self.ctas[t]).collect();
        let mut v = Vec::new();
        if mates.first() == Some(&t) {
            v.push(format!("mbarrier.init.shared.b64 [M], {}", mates.len()));
        }
        v.push("bar.sync 0".to_string());
        v
    }

    /// Thread `t`'s synchronization point: a warp operation's member mask is
    /// the lanes of its CTA's threads (`activemask`, into `r9`, which nothing observes).
    fn sync_lines(&self, t: usize) -> Vec<String> {
        let not = |n: bool| if n { "!" } else { "" };
        let line = match &self.sync_op {
            SyncOp::BarSync => return vec!["bar.sync 0".to_string()],
            SyncOp::Mbarrier { release, acquire, parity, pred, pending } => {
                let arrive = if *release { "release" } else { "relaxed" };
                let wait = if *acquire { "acquire" } else { "relaxed" };
                let mut v = vec![format!("mbarrier.arrive.{}.cta.shared.b64 r8, [M]", arrive)];
                v.push(match parity {
                    true => format!("mbarrier.test_wait.parity.{}.cta.shared.b64 p{}, [M], 0", wait, pred),
                    false => format!("mbarrier.test_wait.{}.cta.shared.b64 p{}, [M], r8", wait, pred),
                });
                v.extend(pending.map(|d| format!("mbarrier.pending_count.b64 r{}, r8", d)));
                return v;
            }
            // One thread copies: a copy in every thread multiplies the
            // reference engine's candidates past its budget in too many tests.
            SyncOp::Copy { src, wait, reg } if t == 0 => return copy_lines(t, *src, *wait, *reg),
            SyncOp::Copy { .. } => return Vec::new(),
            SyncOp::RedPopc { dst, pred } => return vec![format!("bar.red.popc.u32 r{}, 1, p{}", dst, pred)],
            SyncOp::RedPred { or, dst, pred, negated } => {
                let op = if *or { "or" } else { "and" };
                return vec![format!("bar.red.{}.pred p{}, 1, {}p{}", op, dst, not(*negated), pred)];
            }
            SyncOp::Ballot { dst, pred } => format!("vote.sync.ballot.b32 r{}, p{}, r9", dst, pred),
            SyncOp::Vote { mode, dst, pred, negated } => {
                let mode = ["all", "any", "uni"][*mode];
                format!("vote.sync.{}.pred p{}, {}p{}, r9", mode, dst, not(*negated), pred)
            }
            SyncOp::ShflFirst { dst, src } => {
                let first = (0..self.threads.len()).find(|&u| self.ctas[u] == self.ctas[t]).unwrap_or(t);
                format!("shfl.sync.idx.b32 r{}, r{}, {}, 31, r9", dst, src, first)
            }
            SyncOp::Redux { max, dst, src } => {
                format!("redux.sync.{}.u32 r{}, r{}, r9", if *max { "max" } else { "add" }, dst, src)
            }
            SyncOp::MatchAny { dst, src } => format!("match.any.sync.b32 r{}, r{}, r9", dst, src),
            SyncOp::WarpSync => "bar.warp.sync r9".to_string(),
        };
        vec!["activemask.b32 r9".to_string(), line]
    }

    /// The test in litmus syntax; every register and location is observed.
    pub fn render(&self, name: &str) -> String {
        let cells: Vec<Vec<String>> = (0..self.threads.len()).map(|t| self.cells(t)).collect();
        render_cells(name, &cells, &self.ctas)
    }

    /// The test with `copies` more threads running thread `which`'s code
    /// (thread `which % n`), placed in its CTA, or with every thread in a CTA
    /// of its own when `apart`: the copies have the same code and the same
    /// placement relations to every other thread, so the copies (and `which`
    /// unless it is P0, which the condition names) are interchangeable.
    pub fn render_with_copies(&self, name: &str, which: usize, copies: usize, apart: bool) -> String {
        // Copies move threads to other lanes and CTAs: a warp operation's
        // mask and lanes would name other threads, so the copies' tests
        // synchronize with `bar.sync` there instead.
        if !matches!(self.sync_op, SyncOp::BarSync | SyncOp::RedPopc { .. } | SyncOp::RedPred { .. }) {
            let barrier = FragmentTest { sync_op: SyncOp::BarSync, ..self.clone() };
            return barrier.render_with_copies(name, which, copies, apart);
        }
        let which = which % self.threads.len();
        let mut cells: Vec<Vec<String>> = (0..self.threads.len()).map(|t| self.cells(t)).collect();
        let mut ctas = self.ctas.clone();
        for _ in 0..copies {
            cells.push(self.cells(which));
            ctas.push(self.ctas[which]);
        }
        if apart {
            ctas = (0..cells.len() as u32).collect();
        }
        render_cells(name, &cells, &ctas)
    }
}

/// Thread `t`'s lines of [`SyncOp::Copy`].
fn copy_lines(t: usize, src: usize, wait: usize, reg: usize) -> Vec<String> {
    let copy = |off: usize, loc: usize| {
        let at = if off == 0 { String::new() } else { format!("+{}", off) };
        format!("cp.async.ca.shared.global [S{}{}], [{}], 4", t, at, LOCS[loc])
    };
    let mut v = vec![copy(0, src), "cp.async.commit_group".to_string()];
    match wait {
        1 => v.push("cp.async.wait_group 0".into()),
        2 => v.push("cp.async.wait_all".into()),
        3 => v.extend([copy(4, 1 - src), "cp.async.commit_group".into(), "cp.async.wait_group 1".into()]),
        _ => {}
    }
    v.push(format!("ld.shared.u32 r{}, [S{}]", reg, t));
    v
}

/// A test of the threads `cells` (lines per thread) placed in `ctas`, every
/// register and location observed.
fn render_cells(name: &str, cells: &[Vec<String>], ctas: &[u32]) -> String {
    let n = cells.len();
    let mut s = format!("PTX {}\n{{\nx = 0; y = 0;\n", name);
    if cells.iter().flatten().any(|l| l.contains("[M]")) {
        s.push_str("M = 0;\n");
    }
    for (t, lines) in cells.iter().enumerate() {
        if lines.iter().any(|l| l.contains(&format!("[S{}]", t))) {
            s.push_str(&format!("u32 S{}[2]; S{}[0] = 0; S{}[1] = 0;\n", t, t, t));
        }
    }
    for i in 0..n {
        let regs: Vec<String> = (0..REGS).map(|r| format!("P{}:r{} = 0;", i, r)).collect();
        s.push_str(&format!("{}\n", regs.join(" ")));
    }
    s.push_str("}\n");
    if cells.iter().flatten().any(|l| l.starts_with("call ")) {
        // Relative to the repository root, where the tests run.
        s.push_str(&format!("ptx \"{}\";\n", TIMED_WAIT_MODULE));
    }
    let header: Vec<String> =
        ctas.iter().enumerate().map(|(i, c)| format!("P{}@cta {},gpu 0,tid {}", i, c, i)).collect();
    s.push_str(&format!(" {} ;\n", header.join(" | ")));
    let rows = cells.iter().map(Vec::len).max().unwrap_or(0);
    for r in 0..rows {
        let row: Vec<String> = cells.iter().map(|c| c.get(r).cloned().unwrap_or_default()).collect();
        s.push_str(&format!(" {} ;\n", row.join(" | ")));
    }
    let mut obs = vec!["x".to_string(), "y".to_string()];
    obs.extend((0..n).flat_map(|i| (0..REGS).map(move |r| format!("P{}:r{}", i, r))));
    s.push_str(&format!("locations [{};]\n", obs.join("; ")));
    s.push_str("exists (x == 1 /\\ P0:r0 == 0)\n");
    s
}
