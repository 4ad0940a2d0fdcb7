//! The instructions of the litmus AST (both spellings, corpus and real PTX,
//! normalised to one form), with their qualifiers and operands.

use super::{Proxy, Span};

/// Memory semantics qualifier as written. `.volatile` and `.mmio` are kept
/// distinct for display; the model treats both as relaxed at `.sys` scope (8.4.1, 8.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sem {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Volatile,
    Mmio,
}

/// Scopes of ISA 8.5, ordered from narrowest to widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

/// A value operand: a register, an integer constant, or a location name (its address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Reg(String),
    Imm(i64),
    /// A bare name that is not a register: the address of a location (`mov.u64 %rd1, x`).
    Sym(String),
}

/// An address operand: `x`, `[x]`, `[x+4]`, `[%rd1]`, `[%rd1+8]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddrBase {
    /// A location name (or alias name).
    Sym(String),
    /// A register holding an address.
    Reg(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr {
    pub base: AddrBase,
    /// Byte offset.
    pub offset: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AtomOp {
    Add,
    Inc,
    Dec,
    Exch,
    Cas,
    And,
    Or,
    Xor,
    Min,
    Max,
    /// `mbarrier.arrive` (D153): the object's word after one arrive-on of
    /// the operand's count (`program::arith::mbarrier::arrive`).
    MbarrierArrive,
    /// `mbarrier.arrive_drop`: as `MbarrierArrive`, and the expected count of
    /// later phases drops by the same count.
    MbarrierArriveDrop,
    /// `atom.add.f32`/`.f64`: a floating-point add (`program::float::atomic_add`).
    FAdd,
    /// `mbarrier.expect_tx` (D259): tx-count += the operand.
    MbarrierExpectTx,
    /// `mbarrier.complete_tx`, and the implicit complete-tx of a bulk copy
    /// (D259): tx-count -= the operand.
    MbarrierCompleteTx,
    /// `mbarrier.arrive.expect_tx` (D259): the expect-tx of the second
    /// operand, then an arrive-on of the first.
    MbarrierArriveExpectTx,
}

impl AtomOp {
    /// An update of an mbarrier object's word (D153, D259).
    pub fn is_mbarrier(self) -> bool {
        matches!(
            self,
            AtomOp::MbarrierArrive
                | AtomOp::MbarrierArriveDrop
                | AtomOp::MbarrierExpectTx
                | AtomOp::MbarrierCompleteTx
                | AtomOp::MbarrierArriveExpectTx
        )
    }

    /// The operation as PTX spells it after `atom.`/`red.` (or the whole
    /// `mbarrier.arrive…` opcode), for the emitters.
    pub fn ptx_name(self) -> &'static str {
        match self {
            AtomOp::Add | AtomOp::FAdd => "add",
            AtomOp::Inc => "inc",
            AtomOp::Dec => "dec",
            AtomOp::Exch => "exch",
            AtomOp::Cas => "cas",
            AtomOp::And => "and",
            AtomOp::Or => "or",
            AtomOp::Xor => "xor",
            AtomOp::Min => "min",
            AtomOp::Max => "max",
            AtomOp::MbarrierArrive => "mbarrier.arrive",
            AtomOp::MbarrierArriveDrop => "mbarrier.arrive_drop",
            AtomOp::MbarrierExpectTx => "mbarrier.expect_tx",
            AtomOp::MbarrierCompleteTx => "mbarrier.complete_tx",
            AtomOp::MbarrierArriveExpectTx => "mbarrier.arrive.expect_tx",
        }
    }
}

/// The state space a `fence.proxy.async` is limited to (D258): without one it
/// covers every state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FenceSpace {
    All,
    /// `.shared::cta`: the executing thread's CTA's shared memory.
    SharedCta,
    /// `.shared::cluster`: the shared memory of the cluster (5.1.7: the
    /// `.shared::cta` window lies inside it).
    SharedCluster,
    Global,
}

impl FenceSpace {
    /// D258: the space covers a location in shared memory (`shared`) or in
    /// global memory; none covers both, and the `.shared::cta` window lies
    /// inside `.shared::cluster` (5.1.7).
    pub fn covers(self, shared: bool) -> bool {
        match self {
            FenceSpace::All => true,
            FenceSpace::SharedCta | FenceSpace::SharedCluster => shared,
            FenceSpace::Global => !shared,
        }
    }

    /// The `fence.proxy.async` instruction with this space.
    pub fn async_fence(self) -> &'static str {
        match self {
            FenceSpace::All => "fence.proxy.async",
            FenceSpace::SharedCta => "fence.proxy.async.shared::cta",
            FenceSpace::SharedCluster => "fence.proxy.async.shared::cluster",
            FenceSpace::Global => "fence.proxy.async.global",
        }
    }

    /// The narrowest space covering a location (D313): shared memory is per
    /// cluster in the program (D258), so `.shared::cta` only where every
    /// thread is in one CTA.
    pub fn narrowest(shared: bool, one_cta: bool) -> FenceSpace {
        match (shared, one_cta) {
            (true, true) => FenceSpace::SharedCta,
            (true, false) => FenceSpace::SharedCluster,
            (false, _) => FenceSpace::Global,
        }
    }
}

/// Asynchronous copies and their completion mechanisms (ISA 8.9.1.1,
/// 9.7.9.25; issue 41, D257-D262).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsyncInstr {
    /// `cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}`
    /// (`bulk` false) or `cp.async.bulk.dst.src.completion [dst], [src],
    /// size{, [mbar]}` (`bulk` true; `mbar` for `.mbarrier::complete_tx::bytes`,
    /// none for `.bulk_group`).
    /// `reduce`: `cp.reduce.async.bulk…` (9.7.10.28.4.2), each element of
    /// the destination combined with the source's by this operation and type.
    Copy {
        bulk: bool,
        dst: Addr,
        src: Addr,
        size: Operand,
        src_size: Option<Operand>,
        mbar: Option<Addr>,
        reduce: Option<(AtomOp, IntTy)>,
        /// Whether the (destination, source) are shared memory.
        shared: (bool, bool),
        /// `.multicast::cluster`'s ctaMask: bit `r` sends the data and the
        /// mbarrier signal to the CTA of cluster rank `r` (D312).
        multicast: Option<Operand>,
    },
    /// `st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar]`
    /// (`red`: None) and `red.async.relaxed.cluster….op.type [a], b, [mbar]`
    /// (9.7.10.12, 9.7.15.7): a store (or reduction) of `values`, each of
    /// `ty`, into another CTA's shared memory, then a complete-tx of their
    /// bytes on `mbar` (D293).
    Store { dst: Addr, values: Vec<Operand>, ty: IntTy, mbar: Addr, red: Option<AtomOp> },
    /// `cp.async.commit_group` / `cp.async.bulk.commit_group`.
    Commit { bulk: bool },
    /// `cp.async.wait_group N` / `cp.async.wait_all` (N = 0) /
    /// `cp.async.bulk.wait_group{.read} N`.
    Wait { bulk: bool, pending: Operand, read: bool },
    /// `cp.async.mbarrier.arrive{.noinc}.shared.b64 [addr]`.
    MbarrierArrive { addr: Addr, noinc: bool },
}

/// The `mbarrier` operations that are not an atomic arrive (D153).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarrierOp {
    /// `mbarrier.init [addr], count`.
    Init,
    /// `mbarrier.inval [addr]`.
    Inval,
    /// `mbarrier.test_wait{.parity}` / `try_wait{.parity}` `p, [addr], state|parity`.
    TestWait { parity: bool },
    /// `mbarrier.pending_count d, state`.
    PendingCount,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FenceSem {
    Sc,
    AcqRel,
    Acquire,
    Release,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierOp {
    /// `bar.sync` / `barrier.sync` / `bar.cta.sync`: arrive and wait.
    Sync,
    /// `bar.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red.{popc,and,or}`: arrive, wait, and reduce a predicate.
    Red(RedOp),
    /// `bar.warp.sync mask` (PTX modules): the lanes of the mask meet; `id`
    /// is the warp (`%tid.x / 32`), `logical` the mask (D92).
    Warp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RedOp {
    Popc,
    And,
    Or,
}

/// How the expected number of arriving threads of a CTA barrier is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BarrierCount {
    /// Real PTX without `b`: every thread of the CTA (ISA 9.7.13.1).
    AllThreadsInCta,
    /// Real PTX `bar.sync a, b` or the corpus third operand: this many threads.
    Count(Operand),
    /// Corpus spelling `bar.cta.sync a` / `bar.cta.sync a, b`: the threads that
    /// arrive at this barrier in the execution (see paper-notes/barriers.md).
    Arrivals,
}

/// The integer type of an instruction (ISA 5.2.1): `.bN`/`.uN` are unsigned,
/// `.sN` signed, `.pred` one bit. A floating-point type on a load, store, `mov`
/// or `selp` is its bit pattern; floating-point arithmetic is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct IntTy {
    pub bits: u32,
    pub signed: bool,
}

/// The value of `v` read as a `ty`: its low `ty.bits` bits, zero- or sign-extended.
pub fn widen(ty: IntTy, v: i64) -> i128 {
    let v = v as i128;
    if ty.bits >= 64 {
        return if ty.signed { v } else { (v as u64) as i128 };
    }
    let mask = (1i128 << ty.bits) - 1;
    let low = v & mask;
    if ty.signed && ty.bits > 0 && low >> (ty.bits - 1) & 1 == 1 {
        low - (1i128 << ty.bits)
    } else {
        low
    }
}

/// `v` truncated to `ty` and stored as a register value (`program::arith`'s
/// module comment: zero- or sign-extended from its width).
pub fn norm(ty: IntTy, v: i128) -> i64 {
    // The low 64 bits first; `widen` keeps the low `ty.bits` of those.
    widen(ty, v as i64) as i64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    Mov,
    Add,
    Sub,
    Mul,
    /// `mul.hi`: the upper half of the double-width product.
    MulHi,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Not,
    Neg,
    Min,
    Max,
    /// The bit operations (ISA 9.7.1 `popc`, `clz`, `bfind`, `brev`, `bfe`,
    /// `bfi`, 9.7.8 `prmt`, `lop3`, `shf`): see `program::bits`.
    Bits(BitOp),
    /// Floating-point arithmetic, comparison and conversion on IEEE 754 bit
    /// patterns: see `program::float` (D168).
    Float(FloatOp),
}

/// A floating-point operation; its definition is `program::float::eval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatOp {
    /// `add{.rn}{.ftz}.fN d, a, b`.
    Add { ftz: bool },
    /// `sub{.rn}{.ftz}.fN d, a, b`.
    Sub { ftz: bool },
    /// `mul{.rn}{.ftz}.fN d, a, b`.
    Mul { ftz: bool },
    /// `setp.CMP{.ftz}.fN p, a, b`; `unordered`: the `u` forms (`ltu`, ...).
    Setp { cmp: Cmp, unordered: bool, ftz: bool },
    /// `cvt.rn.fN.{u,s}M d, a`: an integer to the nearest float.
    FromInt,
    /// `cvt{.rn}.fN.fM d, a`: a float to another width.
    Resize,
}

/// A bit operation; its definition is `program::bits::eval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    /// `popc d, a`: the number of one bits.
    Popc,
    /// `cnot d, a`: 1 if `a` is zero, else 0.
    Cnot,
    /// `clz d, a`: the number of leading zeros.
    Clz,
    /// `brev d, a`: the bits in reverse order.
    Brev,
    /// `bfind{.shiftamt} d, a`: the position of the most significant non-sign bit.
    Bfind { shiftamt: bool },
    /// `bfe d, a, pos, len`: a bit field, zero- or sign-extended.
    Bfe,
    /// `bfi f, a, b, pos, len`: `a`'s low bits inserted into `b`.
    Bfi,
    /// `fns.b32 d, mask, base, offset`: the position of the offset-th set bit
    /// of `mask` counted from bit `base` (D302).
    Fns,
    /// `prmt.b32{.mode} d, a, b, c`: bytes of {b, a} picked by `c`.
    Prmt(PrmtMode),
    /// `lop3.b32 d, a, b, c, lut`: any logic function of three inputs.
    Lop3,
    /// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`: a funnel shift of {b, a}.
    Shf { left: bool, clamp: bool },
}

/// `prmt`'s modes: the generic selector (`Index`) or one of the six
/// specialised ones driven by the two low bits of `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    Index,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// A warp collective (litmus-format.md section 7; D174): the lanes of a
/// member mask meet and exchange register values. Its definition is
/// `program::warp::collect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarpOp {
    /// `shfl.sync.MODE.b32 d{|p}, a, b, c, membermask`: another lane's `a`.
    Shfl(ShflMode),
    /// `vote.sync.MODE d, {!}a, membermask`: a reduction of a predicate.
    Vote(VoteMode),
    /// `match.{any,all}.sync.TYPE d{|p}, a, membermask`: the lanes holding the same value.
    Match { all: bool },
    /// `redux.sync.OP.TYPE d, a, membermask`: a reduction of every lane's `a`.
    Redux(ReduxOp),
    /// `elect.sync d|p, membermask`: one leader lane of the mask (D166).
    Elect,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The condition of a branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BranchCond {
    /// `bra L` / `goto L`.
    Always,
    /// `@%p bra L` (negated: `@!%p bra L`).
    Pred { reg: String, negated: bool },
    /// Corpus `beq r1, r2, L`, `bne r1, 0, L`, ...
    Compare { cmp: Cmp, a: Operand, b: Operand },
}

/// One instruction (or label) of one thread, with its source span and text.
#[derive(Clone, Debug)]
pub struct Instr {
    pub kind: InstrKind,
    pub span: Span,
    /// The instruction text as written (trimmed), for reports.
    pub text: String,
    /// Set when the instruction comes from a PTX module: errors point there.
    pub origin: Option<std::sync::Arc<crate::error::Origin>>,
}

#[derive(Clone, Debug)]
pub enum InstrKind {
    /// `ld`, `tld` (texture), `suld` (surface), `cold`/`ldc` (constant).
    Load {
        sem: Sem,
        scope: Option<Scope>,
        proxy: Proxy,
        dst: String,
        addr: Addr,
        /// Access size in bytes (from the type suffix; 4 when absent).
        size: u8,
        /// The type: how the bytes read become the register value; `None`
        /// (corpus spelling): the value as written.
        ty: Option<IntTy>,
        /// `.shared` state space qualifier present (shared memory is per cluster, ISA 8.3).
        shared: bool,
        /// `.local` or `.param`: memory private to the thread (ISA 5.1.5, 5.1.6).
        private: bool,
    },
    /// `st`, `sust` (surface).
    Store {
        sem: Sem,
        scope: Option<Scope>,
        proxy: Proxy,
        addr: Addr,
        src: Operand,
        size: u8,
        /// The type: the value is truncated to it; `None`: stored as given.
        ty: Option<IntTy>,
        /// `.shared` state space qualifier present.
        shared: bool,
        /// `.local` or `.param`: memory private to the thread.
        private: bool,
    },
    /// `atom` (dst = Some) and `red` (dst = None); `suatom`/`sured` through the surface proxy.
    /// `operands` holds the value operand(s): one, or two for `cas` (compare, new).
    Atomic {
        sem: Sem,
        scope: Option<Scope>,
        proxy: Proxy,
        op: AtomOp,
        dst: Option<String>,
        addr: Addr,
        operands: Vec<Operand>,
        size: u8,
        /// The operation's type (wrap-around, signed or unsigned min/max).
        ty: Option<IntTy>,
        /// `.shared` state space qualifier present.
        shared: bool,
    },
    /// `fence.sc`, `fence.acq_rel`, `fence.acquire`, `fence.release`, `membar.*`.
    Fence {
        sem: FenceSem,
        scope: Scope,
    },
    /// 9.7.13.4 `.sync_restrict` (D316): `fence.release.sync_restrict::shared::cta.cluster`
    /// and `fence.acquire.sync_restrict::shared::cluster.cluster`, a release
    /// or acquire fence at `.cluster` scope whose "effect ... only applies to
    /// operations performed on objects in" shared memory; `to_async`: the
    /// `fence.proxy.async::generic.…` forms, which add the "uni-directional
    /// proxy ordering" from the generic to the async proxy.
    SharedFence {
        sem: FenceSem,
        to_async: bool,
    },
    /// `fence.proxy.alias` / `.texture` / `.surface` / `.constant` /
    /// `.async{.space}` (and `membar.proxy.*`). `Generic` here stands for
    /// `fence.proxy.alias`; `space` is `All` but for `fence.proxy.async.SPACE`.
    ProxyFence {
        proxy: Proxy,
        space: FenceSpace,
    },
    /// An asynchronous copy or one of its completion mechanisms (issue 41).
    Async(AsyncInstr),
    /// CTA barriers. `id` is the barrier (0-15); `logical` is the second operand
    /// of the corpus form `bar.cta.sync a, b{, n}`, which must match too.
    Barrier {
        op: BarrierOp,
        id: Operand,
        logical: Option<Operand>,
        count: BarrierCount,
        /// `bar.red` destination register and predicate operand.
        red: Option<(String, Operand, bool)>,
    },
    /// `mbarrier.init`, `.inval`, `.test_wait` / `.try_wait`, `.pending_count`
    /// (D153; an arrive is an `Atomic`). `operand` is the count, the state
    /// token or parity, or (inval) 0.
    Mbarrier {
        op: MbarrierOp,
        dst: Option<String>,
        addr: Option<Addr>,
        operand: Operand,
        sem: Sem,
        scope: Option<Scope>,
    },
    /// A warp collective (`shfl.sync`, `vote.sync`, `match.sync`,
    /// `redux.sync`): `srcs` are `a` (`shfl`: `a, b, c`), `negated` the `!a`
    /// of `vote`, `ty` the operation's type, `pred` the `|p` output.
    Warp {
        op: WarpOp,
        dst: String,
        pred: Option<String>,
        srcs: Vec<Operand>,
        negated: bool,
        mask: Operand,
        ty: IntTy,
    },
    /// `activemask.b32 d`: the lanes of the thread's warp that the test's
    /// threads occupy (D175).
    ActiveMask {
        dst: String,
    },
    /// `fence.mbarrier_init.release.cluster` (9.7.13.4, D291): a release
    /// fence at cluster scope whose synchronizing effect "only applies to the
    /// prior mbarrier.init operations executed by the same thread".
    InitFence,
    /// `mapa{.shared::cluster}.type dst, a, rank` (9.7.10.26, D292): `dst` is
    /// the address of `a`'s variable in the cluster's CTA of that rank.
    Mapa {
        dst: String,
        src: Operand,
        rank: Operand,
    },
    /// `getctarank{.shared::cluster}.u32 dst, a` (9.7.10.27, D298): `dst` is
    /// the rank of the CTA whose shared memory holds address `a`.
    CtaRank {
        dst: String,
        src: Operand,
    },
    /// `barrier.cluster.arrive{.release,.relaxed}` (arrive = true) / `barrier.cluster.wait{.acquire}`.
    ClusterBarrier {
        arrive: bool,
        relaxed: bool,
    },
    /// Register arithmetic: `dst = op(srcs)`, computed on the sources read as
    /// `src_ty` and truncated to `ty` (`cvt.u16.u32`: ty u16, src_ty u32;
    /// `mul.wide.s32`: ty s64, src_ty s32). `None`: the corpus spelling,
    /// 64-bit two's complement (paper-notes/decisions.md D15).
    Alu {
        op: AluOp,
        dst: String,
        srcs: Vec<Operand>,
        ty: Option<IntTy>,
        src_ty: Option<IntTy>,
    },
    /// `setp.cmp.type dst, a, b`: the comparison is signed or unsigned by `ty`.
    Setp {
        cmp: Cmp,
        dst: String,
        a: Operand,
        b: Operand,
        ty: Option<IntTy>,
    },
    /// `selp dst, a, b, p`: dst = p ? a : b.
    Selp {
        dst: String,
        a: Operand,
        b: Operand,
        pred: Operand,
        ty: Option<IntTy>,
    },
    Branch {
        cond: BranchCond,
        target: String,
    },
    Label(String),
    Nop,
    /// Each path continues at one of these offsets past this instruction: the
    /// orders in which a strong vector access performs its elements (8.2.4).
    Choose(Vec<usize>),
    /// Continue this many instructions further (the end of one such order).
    Skip(usize),
    /// An instruction the model does not support (`trap`, an unknown or
    /// unsupported instruction in a PTX module): an input error with this
    /// message on every path that reaches it, nothing on paths that do not
    /// (a fallback branch decided never taken does not block the test).
    Refused(String),
    /// A read of a timer (`mov dst, %globaltimer`, D81): the thread's previous
    /// read of `timer`, or a much later value; `dst` gets `bits` bits of it
    /// from bit `shift` (`%globaltimer_hi` is bits 32-63 of `%globaltimer`).
    Timer {
        dst: String,
        timer: String,
        shift: u8,
        bits: u8,
    },
    /// `isspacep.SPACE dst, a` (ISA 6.4.1.1 windows): 1 when the generic
    /// address `a` lies in `space`, decided from the variable it points into.
    IsSpace {
        dst: String,
        addr: Operand,
        space: super::VarSpace,
    },
    /// `call NAME, (ARGS);` in a cell: replaced by the function's body
    /// (`module::expand`) before the program is built.
    Call {
        name: String,
        /// Each argument: one operand, or the 8-byte words of an aggregate
        /// parameter (`{x, 0}`, D301).
        args: Vec<Vec<Operand>>,
    },
}

impl InstrKind {
    /// The registers this instruction reads and those it writes (predicates
    /// included), for liveness (`program::build::liveness`). Every variant is
    /// listed in both halves, with no catch-all: a new instruction must say
    /// what it touches.
    pub fn register_effects(&self) -> (Vec<&str>, Vec<&str>) {
        (self.registers_read(), self.registers_written())
    }

    /// The registers read: sources, address bases, predicates, barrier ids and counts.
    fn registers_read(&self) -> Vec<&str> {
        let mut reads = Vec::new();
        let r = &mut reads;
        match self {
            InstrKind::Load { addr, .. } => base_reg(addr, r),
            InstrKind::Store { addr, src, .. } => {
                base_reg(addr, r);
                reg(src, r);
            }
            InstrKind::Atomic { addr, operands, .. } => {
                base_reg(addr, r);
                operands.iter().for_each(|o| reg(o, r));
            }
            InstrKind::Barrier { id, logical, count, red, .. } => {
                reg(id, r);
                logical.iter().for_each(|o| reg(o, r));
                if let BarrierCount::Count(c) = count {
                    reg(c, r);
                }
                if let Some((_, pred, _)) = red {
                    reg(pred, r);
                }
            }
            InstrKind::Mbarrier { addr, operand, .. } => {
                addr.iter().for_each(|a| base_reg(a, r));
                reg(operand, r);
            }
            InstrKind::Alu { srcs, .. } => srcs.iter().for_each(|o| reg(o, r)),
            InstrKind::Setp { a, b, .. } => {
                reg(a, r);
                reg(b, r);
            }
            InstrKind::Selp { a, b, pred, .. } => [a, b, pred].into_iter().for_each(|o| reg(o, r)),
            InstrKind::Branch { cond, .. } => match cond {
                BranchCond::Always => {}
                BranchCond::Pred { reg: p, .. } => r.push(p),
                BranchCond::Compare { a, b, .. } => {
                    reg(a, r);
                    reg(b, r);
                }
            },
            InstrKind::Warp { srcs, mask, .. } => {
                srcs.iter().for_each(|o| reg(o, r));
                reg(mask, r);
            }
            InstrKind::IsSpace { addr, .. } => reg(addr, r),
            InstrKind::CtaRank { src, .. } => reg(src, r),
            InstrKind::Mapa { src, rank, .. } => {
                reg(src, r);
                reg(rank, r);
            }
            InstrKind::Async(a) => a.registers_read(r),
            InstrKind::Call { args, .. } => args.iter().flatten().for_each(|o| reg(o, r)),
            InstrKind::ActiveMask { .. }
            | InstrKind::Timer { .. }
            | InstrKind::Fence { .. }
            | InstrKind::SharedFence { .. }
            | InstrKind::ProxyFence { .. }
            | InstrKind::InitFence
            | InstrKind::ClusterBarrier { .. }
            | InstrKind::Label(_)
            | InstrKind::Nop
            | InstrKind::Choose(_)
            | InstrKind::Skip(_)
            | InstrKind::Refused(_) => {}
        }
        reads
    }

    /// The registers written: destinations, and the predicates that
    /// `bar.red`, `shfl.sync`/`match.sync` and `elect.sync` set.
    fn registers_written(&self) -> Vec<&str> {
        match self {
            InstrKind::Load { dst, .. }
            | InstrKind::Alu { dst, .. }
            | InstrKind::Setp { dst, .. }
            | InstrKind::Selp { dst, .. }
            | InstrKind::ActiveMask { dst }
            | InstrKind::Timer { dst, .. }
            | InstrKind::IsSpace { dst, .. }
            | InstrKind::Mapa { dst, .. }
            | InstrKind::CtaRank { dst, .. } => vec![dst.as_str()],
            InstrKind::Atomic { dst, .. } | InstrKind::Mbarrier { dst, .. } => dst.iter().map(String::as_str).collect(),
            InstrKind::Barrier { red, .. } => red.iter().map(|(dst, _, _)| dst.as_str()).collect(),
            InstrKind::Warp { dst, pred, .. } => std::iter::once(dst).chain(pred).map(String::as_str).collect(),
            InstrKind::Store { .. }
            | InstrKind::Async(_)
            | InstrKind::Branch { .. }
            | InstrKind::Call { .. }
            | InstrKind::Fence { .. }
            | InstrKind::SharedFence { .. }
            | InstrKind::ProxyFence { .. }
            | InstrKind::InitFence
            | InstrKind::ClusterBarrier { .. }
            | InstrKind::Label(_)
            | InstrKind::Nop
            | InstrKind::Choose(_)
            | InstrKind::Skip(_)
            | InstrKind::Refused(_) => Vec::new(),
        }
    }
}

impl AsyncInstr {
    /// The registers an asynchronous instruction reads (it writes none).
    fn registers_read<'a>(&'a self, r: &mut Vec<&'a str>) {
        match self {
            AsyncInstr::Copy { dst, src, size, src_size, mbar, multicast, .. } => {
                base_reg(dst, r);
                base_reg(src, r);
                reg(size, r);
                src_size.iter().for_each(|o| reg(o, r));
                mbar.iter().for_each(|a| base_reg(a, r));
                multicast.iter().for_each(|o| reg(o, r));
            }
            AsyncInstr::Store { dst, values, mbar, .. } => {
                base_reg(dst, r);
                values.iter().for_each(|o| reg(o, r));
                base_reg(mbar, r);
            }
            AsyncInstr::Wait { pending, .. } => reg(pending, r),
            AsyncInstr::MbarrierArrive { addr, .. } => base_reg(addr, r),
            AsyncInstr::Commit { .. } => {}
        }
    }
}

/// `o`'s register, if it is one, into `into`.
fn reg<'a>(o: &'a Operand, into: &mut Vec<&'a str>) {
    if let Operand::Reg(r) = o {
        into.push(r);
    }
}

/// `a`'s base register, if it has one, into `into`.
fn base_reg<'a>(a: &'a Addr, into: &mut Vec<&'a str>) {
    if let AddrBase::Reg(r) = &a.base {
        into.push(r);
    }
}
