//! Each instruction's meaning, written once for both builders (issue 40).
//!
//! The path builder (`step.rs`) holds concrete values and forks a path on a
//! read's candidate values when it needs one; the symbolic builder
//! (`symbolic/walk.rs`) holds terms and splits a state's guard instead. What
//! an instruction does (which registers it writes, with which value and which
//! dependencies, where a branch goes) is the same for both and is written here
//! against [`Values`], the one thing each builder implements: how it holds a
//! value, how a value becomes a number, how numbers combine, and when a state
//! splits. The builders keep what is theirs: the work list, merging, loop cuts.
//! The instructions not yet here are listed in `paper-notes/encoding.md`
//! ("One meaning per instruction").

/// The [`Values`] methods both builders answer alike, from the build
/// context they share (`self.ctx`) for the thread they walk (`self.t`):
/// addresses, locations, state spaces and cells.
macro_rules! shared_context {
    () => {
        fn numeric_address(&self, n: i64) -> Option<(String, i64)> {
            self.ctx.numeric_address(n)
        }

        fn not_an_address(&self, r: &str, ins: &ast::Instr) -> Error {
            self.ctx.not_an_address(r, self.t, ins)
        }

        fn locate(&mut self, name: &str, off: i64, shared: bool, ins: &ast::Instr) -> Result<(LocKey, String)> {
            self.ctx.locate(name, off, shared, self.t, ins)
        }

        fn typed(&mut self, root: &str) {
            self.ctx.typed_roots.insert(root.to_string());
        }

        fn check_space(&mut self, root: &str, private: bool, ins: &ast::Instr) -> Result<()> {
            self.ctx.space_of(root, private, ins)
        }

        fn cells(&mut self, key: &LocKey, size: u8, ins: &ast::Instr) -> Vec<(LocKey, i64, u8)> {
            self.ctx.mem_cells(key, size, ins)
        }

        fn variable_space(&self, name: &str) -> ast::VarSpace {
            self.ctx.space_of_variable(name)
        }

        fn mapped_name(&mut self, name: &str, rank: i64, ins: &ast::Instr) -> Result<String> {
            self.ctx.mapped_name(self.t, name, rank, ins)
        }

        fn rank_of(&mut self, name: &str, ins: &ast::Instr) -> Result<i64> {
            self.ctx.rank_of(self.t, name, ins)
        }

        fn occupied_lanes(&self) -> u32 {
            self.ctx.occupied_lanes(self.t)
        }

        fn cluster_members(&self) -> (usize, Vec<usize>) {
            let places = &self.ctx.placements;
            let cluster = places[self.t].cluster;
            (cluster, (0..places.len()).filter(|&u| places[u].cluster == cluster).collect())
        }

        fn check_single_init(&mut self, st: &Self::State, key: &LocKey, ins: &ast::Instr) -> Result<()> {
            self.ctx.check_single_init((self.t, st.back_edges), key, ins)
        }

        fn cta(&self) -> usize {
            self.ctx.placements[self.t].cta
        }

        fn cta_size(&self) -> usize {
            self.ctx.cta_size(self.t)
        }

        fn warp(&self) -> i64 {
            self.ctx.seats[self.t].0
        }

        fn warp_member_count(&self, mask: i64, ins: &ast::Instr) -> Result<usize> {
            self.ctx.warp_members(self.t, mask, ins).map(|m| m.len())
        }

        fn element_size(&self, root: &str) -> i64 {
            self.ctx.element_size(root)
        }

        fn asyncs(st: &mut Self::State) -> &mut $crate::program::build::meaning::AsyncState {
            &mut st.asyncs
        }
    };
}

mod asyncs;
mod barriers;
mod mbarriers;

pub(super) use asyncs::{async_op, AsyncState};
pub(super) use barriers::{cluster_barrier, cta_barrier, half};
pub(super) use mbarriers::mbarrier;

use super::step::{timer_register, TIMER_LATER};
use super::{mk_rmw, normalize, Access, LocKey, MemSem, Scope};
use crate::ast::{self, AluOp, AtomOp, BranchCond, Cmp, InstrKind, IntTy, Operand, Sem};
use crate::error::Error;
use crate::program::arith;
use crate::program::event::EventKind;
use crate::program::symbolic::SymOp;
use crate::program::{Expected, Sync, SyncKey, SyncRole};

/// A comparison's result as a builder holds it.
pub(super) enum Compared<B: Values + ?Sized> {
    /// A number (0 or 1) and what it depends on.
    Value(B::Num, B::Deps),
    /// The state used up and split in two without enumerating a read's values
    /// (the path builder's `fork_compare`): where the comparison holds, where
    /// it does not, and what it depends on.
    Split(B::State, B::State, B::Deps),
}

/// A number chosen by nothing in the program, as a builder holds it.
pub(super) enum Either<B: Values + ?Sized> {
    One(B::Num),
    /// The state used up and split: each part with its number.
    Split(Vec<(B::State, B::Num)>),
}

/// What a load reads, as a builder holds it.
pub(super) enum Read<B: Values + ?Sized> {
    /// The value (a read not yet known, or a term).
    One(B::Val),
    /// The state used up and split: each part with its value (the path
    /// builder's load over several cells, one path per combination of bytes).
    Split(Vec<(B::State, B::Val)>),
}

/// Where a branch sends a state.
pub(super) enum Branched<S> {
    /// The state goes on: `true` to the target, `false` to the next instruction.
    Goes(bool),
    /// The state used up and split: each part with whether it goes to the target.
    Split(Vec<(S, bool)>),
}

/// What became of a state after an instruction that writes registers.
pub(super) enum Flow<S> {
    /// The state performed it and goes on.
    Next,
    /// The state was used up: these states each performed it.
    Split(Vec<S>),
}

/// How a builder holds values: the policy the meanings below are read with.
pub(super) trait Values {
    /// One path (paths) or one guarded state (symbolic) of a thread.
    type State;
    /// A register's value with its dependencies.
    type Val: Clone;
    /// A number: concrete, or a term.
    type Num: Copy;
    /// The reads a value depends on (8.10.4).
    type Deps: Clone + Default;
    /// Why an instruction stops before it is performed: an error, a construct
    /// the builder does not cover, or (paths) a fork on a read's values, after
    /// which the instruction runs again on each path.
    type Stop: From<Error>;

    fn operand(&mut self, st: &Self::State, op: &Operand) -> Self::Val;
    fn set(st: &mut Self::State, dst: &str, v: Self::Val);
    /// The static address a value holds, if it is one (a name and an offset).
    fn address(v: &Self::Val) -> Option<(&str, i64)>;
    fn deps(v: &Self::Val) -> &Self::Deps;
    fn deps_mut(v: &mut Self::Val) -> &mut Self::Deps;
    fn number_val(n: Self::Num, deps: Self::Deps) -> Self::Val;
    fn address_val(name: String, off: i64, deps: Self::Deps) -> Self::Val;
    /// The value as a number (an address as its synthetic number); the path
    /// builder forks here on a read not yet known.
    fn number(&mut self, st: &Self::State, v: &Self::Val) -> Result<Self::Num, Self::Stop>;
    /// The number `v`.
    fn konst(&mut self, v: i64) -> Self::Num;
    /// The number's value where it has one value.
    fn constant(&self, n: Self::Num) -> Option<i64>;
    /// Converting `v` to `ty` changes none of the values it may have.
    fn keeps(&self, st: &Self::State, v: &Self::Val, ty: Option<IntTy>) -> bool;
    /// Add `from` to `into`.
    fn join(&mut self, into: &mut Self::Deps, from: &Self::Deps) -> Result<(), Self::Stop>;
    /// `op` on the numbers: `SymOp::eval` on concrete ones, a term on terms
    /// (`SymOp` is the one vocabulary of register arithmetic).
    fn apply(&mut self, op: SymOp, args: Vec<Self::Num>, ins: &ast::Instr) -> Result<Self::Num, Self::Stop>;
    /// The 0/1 number "`n` is not 0".
    fn nonzero(&mut self, n: Self::Num, ins: &ast::Instr) -> Result<Self::Num, Self::Stop>;
    /// The 0/1 number "`n` is 0", for `n` 0/1.
    fn not(&mut self, n: Self::Num) -> Result<Self::Num, Self::Stop>;
    /// A number that is `a` or `b`, neither decided by the program (a timer
    /// read): one number (a term) or the state split, each part with its number.
    fn either(&mut self, st: &mut Self::State, a: Self::Num, b: Self::Num) -> Result<Either<Self>, Self::Stop>;
    /// The state space of the variable `name` (or of the variable it aliases).
    fn variable_space(&self, name: &str) -> ast::VarSpace;
    /// The state performs an event that is neither a read nor a write (a fence).
    fn push_other(&mut self, st: &mut Self::State, kind: EventKind, ins: &ast::Instr) -> Result<(), Self::Stop>;
    /// The variable and offset a number is the synthetic address of, if any.
    fn numeric_address(&self, n: i64) -> Option<(String, i64)>;
    /// The input error for register `r`, used as an address, holding a number.
    fn not_an_address(&self, r: &str, ins: &ast::Instr) -> Error;
    /// The location and virtual address of `name + off` for this thread
    /// (`shared`: through the `.shared` window).
    fn locate(&mut self, name: &str, off: i64, shared: bool, ins: &ast::Instr) -> Result<(LocKey, String), Error>;
    /// An access of `root` at a type (the variable is typed).
    fn typed(&mut self, root: &str);
    /// `root` is accessed as private (`.local`, `.param`) or as global or
    /// shared memory; one variable cannot be both (D17).
    fn check_space(&mut self, root: &str, private: bool, ins: &ast::Instr) -> Result<(), Error>;
    /// The cells an access of `size` bytes at `key` covers (D18).
    fn cells(&mut self, key: &LocKey, size: u8, ins: &ast::Instr) -> Vec<(LocKey, i64, u8)>;
    /// The name `mapa` of variable `name` to CTA rank `rank` gives (D292, D297).
    fn mapped_name(&mut self, name: &str, rank: i64, ins: &ast::Instr) -> Result<String, Error>;
    /// The CTA rank `getctarank` of variable `name` gives (D298).
    fn rank_of(&mut self, name: &str, ins: &ast::Instr) -> Result<i64, Error>;
    /// The lanes of the thread's warp that a thread of the test occupies.
    fn occupied_lanes(&self) -> u32;
    /// A load of the thread's private bytes: the destination is written.
    fn private_load(
        &mut self,
        st: &mut Self::State,
        ins: &ast::Instr,
        key: &LocKey,
        adeps: Self::Deps,
    ) -> Result<(), Self::Stop>;
    /// A store to the thread's private bytes.
    fn private_store(
        &mut self,
        st: &mut Self::State,
        ins: &ast::Instr,
        key: &LocKey,
        deps: Self::Deps,
    ) -> Result<(), Self::Stop>;
    /// The read events of `access` over `cells`, and the value read.
    fn read(
        &mut self,
        st: &mut Self::State,
        key: LocKey,
        cells: Vec<(LocKey, i64, u8)>,
        access: Access,
        adeps: Self::Deps,
        ins: &ast::Instr,
    ) -> Result<Read<Self>, Self::Stop>;
    /// The write events of `access` over `cells`, writing the bit pattern `value`.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        st: &mut Self::State,
        key: LocKey,
        cells: Vec<(LocKey, i64, u8)>,
        access: Access,
        value: Self::Num,
        deps: Self::Deps,
        ins: &ast::Instr,
    ) -> Result<(), Self::Stop>;
    /// `mbarrier.test_wait`: a read of the object's word (`access`) and
    /// whether `done` (a `SymOp::MbarrierDone`) holds of the word read and
    /// the token, 0 or 1, depending on the read.
    #[allow(clippy::too_many_arguments)]
    fn test_word(
        &mut self,
        st: &mut Self::State,
        key: LocKey,
        access: Access,
        done: (SymOp, Self::Num),
        deps: Self::Deps,
        ins: &ast::Instr,
    ) -> Result<Read<Self>, Self::Stop>;
    /// D153: an `mbarrier.init` of the object at `key` from another
    /// instruction instance than the first (another instruction, or the same
    /// one on a later loop iteration) in a test without `mbarrier.inval` is
    /// refused: re-initialising a live object is undefined.
    fn check_single_init(&mut self, st: &Self::State, key: &LocKey, ins: &ast::Instr) -> Result<(), Error>;
    /// The thread's CTA (its number in the test).
    fn cta(&self) -> usize;
    /// The threads of the test in the thread's CTA.
    fn cta_size(&self) -> usize;
    /// The thread's warp (its number in its CTA).
    fn warp(&self) -> i64;
    /// The lanes of member mask `mask` of the thread's warp, each a thread of
    /// the test (an input error otherwise, D174).
    fn warp_member_count(&self, mask: i64, ins: &ast::Instr) -> Result<usize, Error>;
    /// The state performs the halves of one use of a barrier (events of one
    /// instruction instance).
    fn push_halves(&mut self, st: &mut Self::State, halves: Vec<Sync>, ins: &ast::Instr) -> Result<(), Self::Stop>;
    /// `bar.red.op` (9.7.13.3): one use of the reduction barrier `key` whose
    /// halves carry the thread's contribution `own` (0 or 1), and `dst` the
    /// operation over every participant's, depending on `deps` (the barrier's
    /// operands), `own`'s and the wait (8.10.4, D165). Each builder makes the
    /// result its own way: one path per result, or terms per combination.
    #[allow(clippy::too_many_arguments)]
    fn barrier_reduction(
        &mut self,
        st: &mut Self::State,
        ins: &ast::Instr,
        at: (SyncKey, Expected),
        result: (ast::RedOp, &str),
        own: (Self::Num, Self::Deps),
        deps: Self::Deps,
    ) -> Result<Flow<Self::State>, Self::Stop>;
    /// The bytes of one element of variable `root`: its array's element
    /// size, else its width where that is 8, else 4 (D261).
    fn element_size(&self, root: &str) -> i64;
    /// The state's asynchronous operations and their groups (D260).
    fn asyncs(st: &mut Self::State) -> &mut AsyncState;
    /// The value as a number now, inside an instruction that goes on with
    /// it (a copy writes what it read): one number (a term), or the state
    /// used up and split (paths: one part per value an unknown read may
    /// return, each part assuming it).
    fn settle(&mut self, st: &mut Self::State, v: &Self::Val) -> Result<Either<Self>, Self::Stop>;
    /// The thread's cluster and the threads of the test in it.
    fn cluster_members(&self) -> (usize, Vec<usize>);
    /// How many uses of the synchronizing object `base` (at phase 0) the
    /// state performed, counting only those of `role` where it is given.
    fn sync_uses(st: &Self::State, base: &SyncKey, role: Option<SyncRole>) -> usize;
    /// The state performs one more such use.
    fn count_sync_use(st: &mut Self::State, base: &SyncKey, role: Option<SyncRole>);
    /// A read-modify-write event: `base` with the bit pattern `value`
    /// written whatever it reads (`exch`); `dst` gets what it reads.
    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &mut self,
        st: &mut Self::State,
        key: LocKey,
        base: Access,
        value: Self::Num,
        deps: Self::Deps,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> Result<(), Self::Stop>;
    /// `atom.cas`: `base` writes `new` where it reads `cmp` at its type, and
    /// nothing elsewhere; `dst` gets what it reads.
    #[allow(clippy::too_many_arguments)]
    fn compare_and_swap(
        &mut self,
        st: &mut Self::State,
        key: LocKey,
        base: Access,
        operands: (Self::Num, Self::Num),
        deps: Self::Deps,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> Result<(), Self::Stop>;
    /// Any other read-modify-write: `base` writes `op` of what it reads and
    /// the operands (`arith::rmw`, computed by the engines); `dst` gets what
    /// it reads.
    #[allow(clippy::too_many_arguments)]
    fn modify(
        &mut self,
        st: &mut Self::State,
        key: LocKey,
        base: Access,
        operation: (AtomOp, Vec<Self::Num>),
        deps: Self::Deps,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> Result<(), Self::Stop>;
    /// `c ? a : b` where `c` has both values.
    fn choose(&mut self, c: Self::Num, a: Self::Val, b: Self::Val, ins: &ast::Instr) -> Result<Self::Val, Self::Stop>;
    /// `a cmp b` at type `ty`, as a 0/1 number or a split of the state.
    #[allow(clippy::too_many_arguments)]
    fn compare(
        &mut self,
        st: &mut Self::State,
        cmp: Cmp,
        a: &Operand,
        b: &Operand,
        ty: Option<IntTy>,
        ins: &ast::Instr,
    ) -> Result<Compared<Self>, Self::Stop>;
    /// The state's later events depend on `deps` by control (8.10.4).
    fn add_ctrl(&mut self, st: &mut Self::State, deps: &Self::Deps) -> Result<(), Self::Stop>;
    /// Where a branch on the 0/1 number `c` sends the state.
    fn decide(&mut self, st: &mut Self::State, c: Self::Num) -> Result<Branched<Self::State>, Self::Stop>;
    /// `ins` is outside what the builder covers, because `why`.
    fn outside(&self, ins: &ast::Instr, why: &str) -> Self::Stop;
    /// A meaning was handed an instruction of another kind.
    fn internal(&self, what: &str) -> Self::Stop;
}

/// `Alu` instructions (9.7.1-9.7.9: `add`, `mov`, `cvt`, `and`, `shl`, ...):
/// the destination gets the operation on the sources, converted to the
/// instruction's type, depending on every source.
pub(super) fn alu<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::Alu { op, dst, srcs, ty, src_ty } = &ins.kind else {
        return Err(b.internal("alu on another instruction"));
    };
    if *op == AluOp::Mov && srcs.len() == 1 {
        let v = b.operand(st, &srcs[0]);
        // A copy that cannot change the value keeps a read as it is; an
        // address converted at 32 bits or wider stays the address (D90:
        // nvcc's `mov.u32 %r, sym; cvt.u64.u32; cvta.shared.u64`).
        let address_kept = B::address(&v).is_some() && [*ty, *src_ty].iter().flatten().all(|t| t.bits >= 32);
        if b.keeps(st, &v, *ty) && (src_ty == ty || src_ty.is_none() || address_kept) {
            B::set(st, dst, v);
            return Ok(());
        }
    }
    // Address arithmetic: an address plus a constant stays an address.
    if matches!(op, AluOp::Add | AluOp::Sub) && srcs.len() == 2 {
        let a = b.operand(st, &srcs[0]);
        if let Some((name, off)) = B::address(&a) {
            let name = name.to_string();
            let by = b.operand(st, &srcs[1]);
            let n = b.number(st, &by)?;
            let Some(k) = b.constant(n) else {
                return Err(b.outside(ins, "it computes an address from a value read"));
            };
            let off = if *op == AluOp::Add { off.wrapping_add(k) } else { off.wrapping_sub(k) };
            let mut deps = B::deps(&a).clone();
            b.join(&mut deps, B::deps(&by))?;
            B::set(st, dst, B::address_val(name, off, deps));
            return Ok(());
        }
    }
    let mut args = Vec::new();
    let mut deps = B::Deps::default();
    for s in srcs {
        let v = b.operand(st, s);
        args.push(b.number(st, &v)?);
        b.join(&mut deps, B::deps(&v))?;
    }
    let n = b.apply(SymOp::Alu(*op, *ty, *src_ty), args, ins)?;
    B::set(st, dst, B::number_val(n, deps));
    Ok(())
}

/// `setp` (9.7.3.x, 9.7.7.x): the predicate is 1 where `a cmp b` holds, else
/// 0, depending on both operands (a predicate no branch reads orders nothing:
/// these are data dependencies, 8.10.4).
pub(super) fn setp<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<Flow<B::State>, B::Stop> {
    let InstrKind::Setp { cmp, dst, a, b: other, ty } = &ins.kind else {
        return Err(b.internal("setp on another instruction"));
    };
    match b.compare(st, *cmp, a, other, *ty, ins)? {
        Compared::Value(c, deps) => {
            B::set(st, dst, B::number_val(c, deps));
            Ok(Flow::Next)
        }
        Compared::Split(holds, fails, deps) => {
            let mut out = Vec::new();
            for (mut s, v) in [(holds, 1), (fails, 0)] {
                let n = b.konst(v);
                B::set(&mut s, dst, B::number_val(n, deps.clone()));
                out.push(s);
            }
            Ok(Flow::Split(out))
        }
    }
}

/// `selp d, a, b, p` (9.7.7.x): `p ? a : b`, converted to the instruction's
/// type where that changes it; the chosen operand's dependencies (under the
/// condition that it is chosen) and the predicate's.
pub(super) fn selp<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::Selp { dst, a, b: other, pred, ty } = &ins.kind else {
        return Err(b.internal("selp on another instruction"));
    };
    let p = b.operand(st, pred);
    let pn = b.number(st, &p)?;
    let c = b.nonzero(pn, ins)?;
    let mut v = match b.constant(c) {
        Some(k) => side(b, st, if k != 0 { a } else { other }, *ty, ins)?,
        None => {
            let va = side(b, st, a, *ty, ins)?;
            let vb = side(b, st, other, *ty, ins)?;
            b.choose(c, va, vb, ins)?
        }
    };
    b.join(B::deps_mut(&mut v), B::deps(&p))?;
    B::set(st, dst, v);
    Ok(())
}

/// An operand of `selp` converted to its type where that changes it.
fn side<B: Values>(
    b: &mut B,
    st: &B::State,
    op: &Operand,
    ty: Option<IntTy>,
    ins: &ast::Instr,
) -> Result<B::Val, B::Stop> {
    let v = b.operand(st, op);
    if b.keeps(st, &v, ty) {
        return Ok(v);
    }
    let n = b.number(st, &v)?;
    let converted = b.apply(SymOp::Convert(ty), vec![n], ins)?;
    Ok(B::number_val(converted, B::deps(&v).clone()))
}

/// `bra` (9.7.8.x), with its guard: where the state goes. What the
/// condition depends on becomes a control dependency of everything after
/// (8.10.4), on both continuations.
pub(super) fn branch<B: Values>(
    b: &mut B,
    st: &mut B::State,
    cond: &BranchCond,
    ins: &ast::Instr,
) -> Result<Branched<B::State>, B::Stop> {
    match cond {
        BranchCond::Always => Ok(Branched::Goes(true)),
        BranchCond::Pred { reg, negated } => {
            let p = b.operand(st, &Operand::Reg(reg.clone()));
            let n = b.number(st, &p)?;
            b.add_ctrl(st, B::deps(&p))?;
            let mut c = b.nonzero(n, ins)?;
            if *negated {
                c = b.not(c)?;
            }
            b.decide(st, c)
        }
        BranchCond::Compare { cmp, a, b: other } => match b.compare(st, *cmp, a, other, None, ins)? {
            Compared::Value(c, deps) => {
                b.add_ctrl(st, &deps)?;
                b.decide(st, c)
            }
            Compared::Split(mut holds, mut fails, deps) => {
                b.add_ctrl(&mut holds, &deps)?;
                b.add_ctrl(&mut fails, &deps)?;
                Ok(Branched::Split(vec![(holds, true), (fails, false)]))
            }
        },
    }
}

/// A timer read (D81): the counter is where the thread last read it, or far
/// later (past any deadline a loop may set); it never goes back along the
/// thread. The destination shows the counter's bits (`%globaltimer_hi`: the
/// high 32), and depends on nothing.
pub(super) fn timer<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<Flow<B::State>, B::Stop> {
    let InstrKind::Timer { dst, timer, shift, bits } = &ins.kind else {
        return Err(b.internal("timer on another instruction"));
    };
    let hidden = timer_register(timer);
    // A counter not read before reads as 0 (an unwritten register).
    let last = b.operand(st, &Operand::Reg(hidden.clone()));
    let last = b.number(st, &last)?;
    let by = b.konst(TIMER_LATER);
    let later = b.apply(SymOp::Alu(AluOp::Add, None, None), vec![last, by], ins)?;
    let read = |b: &mut B, s: &mut B::State, now: B::Num| -> Result<(), B::Stop> {
        let view = b.apply(SymOp::TimerView(*shift, *bits), vec![now], ins)?;
        B::set(s, &hidden, B::number_val(now, B::Deps::default()));
        B::set(s, dst, B::number_val(view, B::Deps::default()));
        Ok(())
    };
    match b.either(st, last, later)? {
        Either::One(now) => {
            read(b, st, now)?;
            Ok(Flow::Next)
        }
        Either::Split(parts) => {
            let mut out = Vec::new();
            for (mut s, now) in parts {
                read(b, &mut s, now)?;
                out.push(s);
            }
            Ok(Flow::Split(out))
        }
    }
}

/// `isspacep.space d, a` (9.7.9.x, D42): 1 when `a` is the address of a
/// variable of `space` (6.4.1.1: a generic address lies in one state space's
/// window), with `a`'s dependencies. A number that is no variable's address
/// is an input error (a value read is made a number first, then refused).
pub(super) fn isspace<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::IsSpace { dst, addr, space } = &ins.kind else {
        return Err(b.internal("isspace on another instruction"));
    };
    let v = b.operand(st, addr);
    let what = "`isspacep` of a number that is not the address of a variable: its state space is unknown";
    let (name, _) = address_operand(b, st, &v, what, ins)?;
    let inside = b.variable_space(&name) == *space;
    let n = b.konst(i64::from(inside));
    let deps = B::deps(&v).clone();
    B::set(st, dst, B::number_val(n, deps));
    Ok(())
}

/// A fence (9.7.13.4 `fence`/`membar`, `.sync_restrict`, `fence.proxy`, `fence.mbarrier_init`):
/// one event of its kind, ordered by the model's rows.
pub(super) fn fence<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let kind = match &ins.kind {
        InstrKind::Fence { sem, scope } => {
            EventKind::Fence { sem: *sem, scope: *scope, shared_only: false, to_async: false }
        }
        InstrKind::SharedFence { sem, to_async } => {
            EventKind::Fence { sem: *sem, scope: Scope::Cluster, shared_only: true, to_async: *to_async }
        }
        InstrKind::ProxyFence { proxy, space } => EventKind::ProxyFence { proxy: *proxy, space: *space },
        InstrKind::InitFence => EventKind::InitFence,
        _ => return Err(b.internal("fence on another instruction")),
    };
    b.push_other(st, kind, ins)
}

/// The location an address operand names (6.4.1: `[var+off]`, `[reg+off]`),
/// its virtual address, and what the address depends on. A register holds an
/// address, or a number that is one (a test's address numbers); a value
/// read is made a number first (the path builder forks on it).
pub(super) fn location<B: Values>(
    b: &mut B,
    st: &B::State,
    addr: &ast::Addr,
    shared: bool,
    ins: &ast::Instr,
) -> Result<(LocKey, String, B::Deps), B::Stop> {
    let (name, off, deps) = address(b, st, addr, ins)?;
    let (key, vaddr) = b.locate(&name, off, shared, ins)?;
    Ok((key, vaddr, deps))
}

/// The name and offset an address operand names, and what it depends on
/// (see [`location`]).
pub(super) fn address<B: Values>(
    b: &mut B,
    st: &B::State,
    addr: &ast::Addr,
    ins: &ast::Instr,
) -> Result<(String, i64, B::Deps), B::Stop> {
    Ok(match &addr.base {
        ast::AddrBase::Sym(s) => (s.clone(), addr.offset, B::Deps::default()),
        ast::AddrBase::Reg(r) => {
            let v = b.operand(st, &Operand::Reg(r.clone()));
            let (name, off) = match B::address(&v) {
                Some((name, off)) => (name.to_string(), off),
                None => {
                    let n = b.number(st, &v)?;
                    let Some(c) = b.constant(n) else {
                        return Err(b.outside(ins, "its address is computed from a value read"));
                    };
                    b.numeric_address(c).ok_or_else(|| b.not_an_address(r, ins))?
                }
            };
            (name, off.checked_add(addr.offset).unwrap_or(i64::MAX), B::deps(&v).clone())
        }
    })
}

/// `ld` (9.7.9.8): a read of `size` bytes at the address, its value
/// extended by the load's type; `.local`/`.param` memory is private however
/// it is reached (a generic address from `cvta.local`, 5.1.5; a parameter's
/// address, 5.1.6.1), and read back from the thread's own bytes.
pub(super) fn load<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<Flow<B::State>, B::Stop> {
    let InstrKind::Load { sem, scope, proxy, dst, addr, size, ty, shared, private } = &ins.kind else {
        return Err(b.internal("load on another instruction"));
    };
    let (key, vaddr, adeps) = location(b, st, addr, *shared, ins)?;
    if ty.is_some() {
        b.typed(&key.root);
    }
    let private = *private || b.variable_space(&key.root).is_private();
    b.check_space(&key.root, private, ins)?;
    if private {
        b.private_load(st, ins, &key, adeps)?;
        return Ok(Flow::Next);
    }
    let cells = b.cells(&key, *size, ins);
    let (msem, mscope) = normalize(*sem, *scope, Scope::Sys);
    let access = Access { reads: true, conv: *ty, ..Access::new(vaddr, *proxy, *size, msem, mscope) };
    match b.read(st, key, cells, access, adeps, ins)? {
        Read::One(v) => {
            B::set(st, dst, v);
            Ok(Flow::Next)
        }
        Read::Split(parts) => Ok(Flow::Split(
            parts
                .into_iter()
                .map(|(mut s, v)| {
                    B::set(&mut s, dst, v);
                    s
                })
                .collect(),
        )),
    }
}

/// `st` (9.7.9.9): a write of `size` bytes at the address. A typed store
/// leaves its bit pattern (`st.u8` of 300 is 44; `st.s32` of -1 is
/// 0xffffffff, D74), an untyped one its value (D15); the write depends on
/// the address and the value (8.10.4).
pub(super) fn store<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::Store { sem, scope, proxy, addr, src, size, ty, shared, private } = &ins.kind else {
        return Err(b.internal("store on another instruction"));
    };
    let (key, vaddr, mut deps) = location(b, st, addr, *shared, ins)?;
    if ty.is_some() {
        b.typed(&key.root);
    }
    let private = *private || b.variable_space(&key.root).is_private();
    b.check_space(&key.root, private, ins)?;
    if private {
        return b.private_store(st, ins, &key, deps);
    }
    let v = b.operand(st, src);
    let n = b.number(st, &v)?;
    b.join(&mut deps, B::deps(&v))?;
    let value = if ty.is_some() { b.apply(SymOp::Stored(*ty, *size), vec![n], ins)? } else { n };
    let cells = b.cells(&key, *size, ins);
    let (msem, mscope) = normalize(*sem, *scope, Scope::Sys);
    let access = Access { writes: true, ..Access::new(vaddr, *proxy, *size, msem, mscope) };
    b.write(st, key, cells, access, value, deps, ins)
}

/// `atom` and `red` (9.7.13.5, 9.7.13.6): one read-modify-write of `.global`
/// or `.shared` memory, depending on its operands and its address (8.10.4);
/// without `.sem` it is `.relaxed`, without `.scope` `.gpu`. `exch` writes
/// its operand's bit pattern (D74) whatever it reads, `cas` writes only
/// where it reads the compared value, the others a function of what they
/// read. `atom`'s destination gets the value read (`red` has none).
pub(super) fn atomic<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::Atomic { sem, scope, proxy, op, dst, addr, operands, size, ty, shared } = &ins.kind else {
        return Err(b.internal("atomic on another instruction"));
    };
    let mut args = Vec::new();
    let mut deps = B::Deps::default();
    for o in operands {
        let v = b.operand(st, o);
        args.push(b.number(st, &v)?);
        b.join(&mut deps, B::deps(&v))?;
    }
    let (key, vaddr, adeps) = location(b, st, addr, *shared, ins)?;
    b.join(&mut deps, &adeps)?;
    atomic_location(b, &key, *size, *ty, ins)?;
    let sem = if *sem == Sem::Weak { Sem::Relaxed } else { *sem };
    let (msem, mscope) = normalize(sem, *scope, Scope::Gpu);
    let base = Access { conv: *ty, ..mk_rmw(vaddr, *proxy, *size, msem, mscope, dst.is_none(), None) };
    if *op == AtomOp::Exch {
        let n = *args.first().ok_or_else(|| Error::input("exch needs a value operand", ins.span))?;
        let value = if ty.is_some() { b.apply(SymOp::Stored(*ty, *size), vec![n], ins)? } else { n };
        return b.exchange(st, key, base, value, deps, dst, ins);
    }
    if arith::rmw(*op, 0, &vec![0; args.len()], *ty).is_none() {
        let message = format!("`{}`: wrong number of operands for atom.{:?}", ins.text, op).to_lowercase();
        return Err(Error::input(message, ins.span).into());
    }
    if *op == AtomOp::Cas {
        return b.compare_and_swap(st, key, base, (args[0], args[1]), deps, dst, ins);
    }
    b.modify(st, key, base, (*op, args), deps, dst, ins)
}

/// An atomic operation's location: `.global` or `.shared` memory, not a
/// thread's private variable, and not bytes that differently-sized accesses
/// also touch (mixed-size, not supported). A typed operation marks its
/// variable typed.
fn atomic_location<B: Values>(
    b: &mut B,
    key: &LocKey,
    size: u8,
    ty: Option<IntTy>,
    ins: &ast::Instr,
) -> Result<(), B::Stop> {
    if b.variable_space(&key.root).is_private() {
        return Err(Error::input(
            "atomic operations take .global or .shared memory, not a thread's private .local/.param memory",
            ins.span,
        )
        .into());
    }
    b.check_space(&key.root, false, ins)?;
    if ty.is_some() {
        b.typed(&key.root);
    }
    if b.cells(key, size, ins).len() > 1 {
        return Err(Error::input(
            "an atomic operation over bytes that differently-sized accesses also touch (mixed-size) is not supported",
            ins.span,
        )
        .into());
    }
    Ok(())
}

/// The variable and offset an address operand holds; a number that is no
/// variable's address is an input error, `what` (a value read is made a
/// number first: the path builder forks on it).
fn address_operand<B: Values>(
    b: &mut B,
    st: &B::State,
    v: &B::Val,
    what: &str,
    ins: &ast::Instr,
) -> Result<(String, i64), B::Stop> {
    if let Some((name, off)) = B::address(v) {
        return Ok((name.to_string(), off));
    }
    b.number(st, v)?;
    Err(Error::input(what, ins.span).into())
}

/// `mapa dst, a, rank` (9.7.10.26): the address of `a`'s variable in the
/// CTA of that rank in the cluster (`Values::mapped_name`), depending on both
/// operands.
pub(super) fn mapa<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::Mapa { dst, src, rank } = &ins.kind else {
        return Err(b.internal("mapa on another instruction"));
    };
    let r = b.operand(st, rank);
    let n = b.number(st, &r)?;
    let Some(k) = b.constant(n) else {
        return Err(b.outside(ins, "its CTA rank is computed from a value read"));
    };
    let a = b.operand(st, src);
    let what = "`mapa` maps the address of a .shared variable, and this operand holds a number";
    let (name, off) = address_operand(b, st, &a, what, ins)?;
    let mapped = b.mapped_name(&name, k, ins)?;
    let mut deps = B::deps(&r).clone();
    b.join(&mut deps, B::deps(&a))?;
    B::set(st, dst, B::address_val(mapped, off, deps));
    Ok(())
}

/// `getctarank dst, a` (9.7.10.27): the rank of the CTA whose shared memory
/// holds `a` (`Values::rank_of`), depending on `a`.
pub(super) fn ctarank<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::CtaRank { dst, src } = &ins.kind else {
        return Err(b.internal("getctarank on another instruction"));
    };
    let a = b.operand(st, src);
    let what = "`getctarank` takes the address of a .shared variable, and this operand holds a number";
    let (name, _) = address_operand(b, st, &a, what, ins)?;
    let rank = b.rank_of(&name, ins)?;
    let n = b.konst(rank);
    B::set(st, dst, B::number_val(n, B::deps(&a).clone()));
    Ok(())
}

/// `activemask.b32 d` (9.7.13.x, D175): the lanes of the warp its threads occupy
/// (every thread of a test runs each instruction), depending on nothing.
pub(super) fn activemask<B: Values>(b: &mut B, st: &mut B::State, ins: &ast::Instr) -> Result<(), B::Stop> {
    let InstrKind::ActiveMask { dst } = &ins.kind else {
        return Err(b.internal("activemask on another instruction"));
    };
    let n = b.konst(i64::from(b.occupied_lanes()));
    B::set(st, dst, B::number_val(n, B::Deps::default()));
    Ok(())
}
