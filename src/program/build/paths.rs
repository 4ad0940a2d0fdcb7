//! The path builder's [`Values`] (issue 40): numbers are concrete; a read not
//! yet known forks the path over the values its location may hold (or, for
//! `==`/`!=` against a constant, into the two outcomes, `fork_compare`).

use super::meaning::{self, Branched, Compared, Either, Flow, Read, Values};
use super::*;
use crate::ast::{AtomOp, Cmp, IntTy, Operand, RedOp};
use crate::program::symbolic::SymOp;
use crate::program::{Expected, Sync, SyncKey, SyncRole};

/// Why the path builder stops an instruction before performing it.
pub(super) enum PathStop {
    /// The path forked: on a read's values, each child running the
    /// instruction again (`Step::Fork`), or into children that each performed
    /// it (`Step::Continue`: a `cas`'s outcomes).
    Fork(Step),
    Err(Error),
}

impl From<Error> for PathStop {
    fn from(e: Error) -> Self {
        PathStop::Err(e)
    }
}

/// The step an instruction's meaning came to: `performed` where it ran to the end.
pub(super) fn step_of(r: std::result::Result<Step, PathStop>) -> Result<Step> {
    match r {
        Ok(step) | Err(PathStop::Fork(step)) => Ok(step),
        Err(PathStop::Err(e)) => Err(e),
    }
}

type PResult<T> = std::result::Result<T, PathStop>;

/// A step that performed the instruction (`Next`), or the fork it stopped at.
fn performed_whole(step: Result<Step>) -> PResult<()> {
    match step? {
        Step::Next => Ok(()),
        fork => Err(PathStop::Fork(fork)),
    }
}

/// The path builder walking thread `t`.
pub(super) struct PathThread<'c, 'a> {
    pub ctx: &'c mut Ctx<'a>,
    pub t: usize,
}

impl<'a> Ctx<'a> {
    /// The path builder's [`Values`] for thread `t`.
    pub(super) fn on(&mut self, t: usize) -> PathThread<'_, 'a> {
        PathThread { ctx: self, t }
    }
}

impl Values for PathThread<'_, '_> {
    type State = PathState;
    type Val = Val;
    type Num = i64;
    type Deps = BTreeSet<usize>;
    type Stop = PathStop;

    fn operand(&mut self, st: &PathState, op: &Operand) -> Val {
        self.ctx.operand(st, op)
    }

    fn set(st: &mut PathState, dst: &str, v: Val) {
        st.regs.insert(dst.to_string(), v);
    }

    fn address(v: &Val) -> Option<(&str, i64)> {
        match &v.v {
            V::Addr(name, off) => Some((name, *off)),
            _ => None,
        }
    }

    fn deps(v: &Val) -> &BTreeSet<usize> {
        &v.deps
    }

    fn deps_mut(v: &mut Val) -> &mut BTreeSet<usize> {
        &mut v.deps
    }

    fn number_val(n: i64, deps: BTreeSet<usize>) -> Val {
        Val { v: V::Const(n), deps }
    }

    fn address_val(name: String, off: i64, deps: BTreeSet<usize>) -> Val {
        Val { v: V::Addr(name, off), deps }
    }

    fn number(&mut self, st: &PathState, v: &Val) -> PResult<i64> {
        match &v.v {
            V::Const(c) => Ok(*c),
            V::Free(i) => Err(PathStop::Fork(self.ctx.fork_read(st, *i))),
            V::Addr(name, off) => {
                let idx = self.ctx.names.keys().position(|n| n == name).unwrap_or(0);
                Ok(address_number(idx, *off))
            }
        }
    }

    fn settle(&mut self, st: &mut PathState, v: &Val) -> PResult<Either<Self>> {
        match &v.v {
            V::Free(i) => Ok(Either::Split(self.ctx.read_values(st, *i))),
            _ => Ok(Either::One(self.number(st, v)?)),
        }
    }

    fn konst(&mut self, v: i64) -> i64 {
        v
    }

    fn constant(&self, n: i64) -> Option<i64> {
        Some(n)
    }

    fn keeps(&self, st: &PathState, v: &Val, ty: Option<IntTy>) -> bool {
        self.ctx.keeps(st, v, ty)
    }

    fn join(&mut self, into: &mut BTreeSet<usize>, from: &BTreeSet<usize>) -> PResult<()> {
        into.extend(from.iter().copied());
        Ok(())
    }

    fn apply(&mut self, op: SymOp, args: Vec<i64>, ins: &ast::Instr) -> PResult<i64> {
        op.eval(&args).map_err(|e| {
            let why = match e {
                NoValue::DivByZero => "divides by zero on some path, whose result the ISA leaves unspecified",
                NoValue::Overflow => "overflows 64 bits on some path",
                NoValue::Arity => "has the wrong number of operands",
                NoValue::Undefined(why) => why,
            };
            PathStop::Err(Error::input(format!("`{}` {}", ins.text, why), ins.span))
        })
    }

    fn nonzero(&mut self, n: i64, _: &ast::Instr) -> PResult<i64> {
        Ok(i64::from(n != 0))
    }

    fn not(&mut self, n: i64) -> PResult<i64> {
        Ok(i64::from(n == 0))
    }

    fn either(&mut self, st: &mut PathState, a: i64, b: i64) -> PResult<Either<Self>> {
        Ok(Either::Split(vec![(st.clone(), a), (st.clone(), b)]))
    }

    fn sync_uses(st: &PathState, base: &SyncKey, role: Option<SyncRole>) -> usize {
        st.sync_phase.get(&(base.clone(), role)).copied().unwrap_or(0)
    }

    fn count_sync_use(st: &mut PathState, base: &SyncKey, role: Option<SyncRole>) {
        *st.sync_phase.entry((base.clone(), role)).or_insert(0) += 1;
    }

    fn push_other(&mut self, st: &mut PathState, kind: EventKind, ins: &ast::Instr) -> PResult<()> {
        self.ctx.push_other(st, kind, ins);
        Ok(())
    }

    shared_context!();

    fn private_load(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        key: &LocKey,
        adeps: BTreeSet<usize>,
    ) -> PResult<()> {
        performed_whole(self.ctx.private_load(st, ins, key, adeps))
    }

    fn private_store(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        key: &LocKey,
        deps: BTreeSet<usize>,
    ) -> PResult<()> {
        performed_whole(self.ctx.private_store(st, ins, key, deps))
    }

    fn read(
        &mut self,
        st: &mut PathState,
        key: LocKey,
        cells: Vec<(LocKey, i64, u8)>,
        access: Access,
        adeps: BTreeSet<usize>,
        ins: &ast::Instr,
    ) -> PResult<Read<Self>> {
        if cells.len() > 1 {
            return Ok(Read::Split(self.ctx.split_load(st, ins, cells, access, adeps)?));
        }
        Ok(Read::One(Val::free(self.ctx.push_mem(st, key, access, adeps, ins))))
    }

    fn write(
        &mut self,
        st: &mut PathState,
        _: LocKey,
        cells: Vec<(LocKey, i64, u8)>,
        access: Access,
        value: i64,
        deps: BTreeSet<usize>,
        ins: &ast::Instr,
    ) -> PResult<()> {
        // A store over several cells writes each cell its own bytes (D18).
        let whole = cells.len() == 1;
        for (k, at, len) in cells {
            let write_value = if whole { value } else { cells::extract(value, at, len) };
            let vaddr = cell_vaddr(&access.vaddr, k.offset);
            let access = Access { write_value, start: -at, vaddr, ..access.clone() };
            self.ctx.push_mem(st, k, access, deps.clone(), ins);
        }
        Ok(())
    }

    fn test_word(
        &mut self,
        st: &mut PathState,
        key: LocKey,
        access: Access,
        (done, token): (SymOp, i64),
        deps: BTreeSet<usize>,
        ins: &ast::Instr,
    ) -> PResult<Read<Self>> {
        // Two paths, not one per word: where the phase completed (the read
        // returns one of the words saying so) and where it did not.
        let domain = self.ctx.domain(&key);
        let holds = |w: i64| done.eval(&[w, token]).is_ok_and(|d| d != 0);
        let (yes, no): (Vec<i64>, Vec<i64>) = domain.iter().copied().partition(|&w| holds(w));
        let mut parts = Vec::new();
        for (outcome, excluded) in [(1, no), (0, yes)] {
            if excluded.len() == domain.len() {
                continue;
            }
            let mut c = st.clone();
            let access = Access { read_not: excluded, ..access.clone() };
            let idx = self.ctx.push_mem(&mut c, key.clone(), access, deps.clone(), ins);
            parts.push((c, Val { v: V::Const(outcome), deps: BTreeSet::from([idx]) }));
        }
        Ok(Read::Split(parts))
    }

    fn push_halves(&mut self, st: &mut PathState, halves: Vec<Sync>, ins: &ast::Instr) -> PResult<()> {
        for h in halves {
            self.ctx.push_other(st, EventKind::Sync(h), ins);
        }
        Ok(())
    }

    fn barrier_reduction(
        &mut self,
        st: &mut PathState,
        ins: &ast::Instr,
        (key, expected): (SyncKey, Expected),
        (op, dst): (RedOp, &str),
        (own, own_deps): (i64, BTreeSet<usize>),
        mut deps: BTreeSet<usize>,
    ) -> PResult<Flow<PathState>> {
        // Both halves carry the contribution (`Sync::value`).
        let half = |role| Sync { value: Some(own), ..meaning::half(&key, role, &expected, true) };
        self.push_halves(st, vec![half(SyncRole::Arrive), half(SyncRole::Wait)], ins)?;
        // The arrive carries the predicate, the result reduces every
        // participant's: both are dependencies (8.10.4, D165).
        let (arrive, wait) = (st.events.len() - 2, st.events.len() - 1);
        st.events[arrive].deps.extend(own_deps.iter().copied());
        deps.extend(own_deps);
        deps.insert(wait);
        Ok(Flow::Split(self.ctx.fork_reduction(self.t, st, (op, dst), deps)))
    }

    fn exchange(
        &mut self,
        st: &mut PathState,
        key: LocKey,
        base: Access,
        value: i64,
        deps: BTreeSet<usize>,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> PResult<()> {
        // The read can stay unknown: what is written does not depend on it.
        let access = Access { writes: true, write_value: value, ..base };
        self.ctx.push_rmw(st, key, access, deps, ins, dst);
        Ok(())
    }

    fn compare_and_swap(
        &mut self,
        st: &mut PathState,
        key: LocKey,
        base: Access,
        (cmp, new): (i64, i64),
        deps: BTreeSet<usize>,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> PResult<()> {
        let ty = base.conv;
        Err(PathStop::Fork(self.ctx.cas(self.t, st, ins, base, key, (cmp, new, ty), deps, dst)))
    }

    fn modify(
        &mut self,
        st: &mut PathState,
        key: LocKey,
        base: Access,
        (op, operands): (AtomOp, Vec<i64>),
        deps: BTreeSet<usize>,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> PResult<()> {
        // One event whose written value the engines compute from reads-from.
        let access = Access { writes: true, rmw: Some(Rmw { op, operands, ty: base.conv }), ..base };
        self.ctx.push_rmw(st, key, access, deps, ins, dst);
        Ok(())
    }

    fn choose(&mut self, _: i64, _: Val, _: Val, _: &ast::Instr) -> PResult<Val> {
        Err(PathStop::Err(Error::internal("a path's number has one value")))
    }

    fn compare(
        &mut self,
        st: &mut PathState,
        cmp: Cmp,
        a: &Operand,
        b: &Operand,
        ty: Option<IntTy>,
        _: &ast::Instr,
    ) -> PResult<Compared<Self>> {
        if let Some((holds, fails, deps)) = self.ctx.fork_compare(st, cmp, a, b, ty) {
            return Ok(Compared::Split(holds, fails, deps));
        }
        // Two unknown reads: fork on the older (a ticket, an expected value)
        // first; the comparison shortcut (`fork_compare`) then splits the newer
        // one into two paths instead of one per value (issue 27).
        let swap = self.ctx.older_read(st, b, a);
        let (first, second) = if swap { (b, a) } else { (a, b) };
        let (v1, v2) = (self.ctx.operand(st, first), self.ctx.operand(st, second));
        let (x1, x2) = (self.number(st, &v1)?, self.number(st, &v2)?);
        let (x, y) = if swap { (x2, x1) } else { (x1, x2) };
        let deps = v1.deps.union(&v2.deps).copied().collect();
        Ok(Compared::Value(i64::from(arith::compare(cmp, x, y, ty)), deps))
    }

    fn add_ctrl(&mut self, st: &mut PathState, deps: &BTreeSet<usize>) -> PResult<()> {
        st.ctrl.extend(deps.iter().copied());
        Ok(())
    }

    fn decide(&mut self, _: &mut PathState, c: i64) -> PResult<Branched<PathState>> {
        Ok(Branched::Goes(c != 0))
    }

    fn outside(&self, ins: &ast::Instr, why: &str) -> PathStop {
        PathStop::Err(Error::internal(format!("the path builder stopped at `{}`: {}", ins.text, why)))
    }

    fn internal(&self, what: &str) -> PathStop {
        PathStop::Err(Error::internal(what))
    }
}
