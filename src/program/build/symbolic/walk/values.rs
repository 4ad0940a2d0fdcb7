//! The symbolic builder's [`Values`] (issue 40): numbers are terms over the
//! values the thread reads; a branch on a term splits the state's guard, and
//! nothing forks on a value.

use super::*;
use crate::ast::RedOp;
use crate::program::build::meaning::{Branched, Compared, Either, Flow, Read, Values};
use crate::program::{Expected, Sync, SyncKey};

impl Values for Walk<'_, '_> {
    type State = SymState;
    type Val = SVal;
    type Num = TermId;
    type Deps = Deps;
    type Stop = Stop;

    fn operand(&mut self, st: &SymState, op: &Operand) -> SVal {
        Walk::operand(self, st, op)
    }

    fn set(st: &mut SymState, dst: &str, v: SVal) {
        st.regs.insert(dst.to_string(), v);
    }

    fn address(v: &SVal) -> Option<(&str, i64)> {
        match &v.v {
            SV::Addr(name, off) => Some((name, *off)),
            SV::T(_) => None,
        }
    }

    fn deps(v: &SVal) -> &Deps {
        &v.deps
    }

    fn deps_mut(v: &mut SVal) -> &mut Deps {
        &mut v.deps
    }

    fn number_val(n: TermId, deps: Deps) -> SVal {
        SVal { v: SV::T(n), deps }
    }

    fn address_val(name: String, off: i64, deps: Deps) -> SVal {
        SVal { v: SV::Addr(name, off), deps }
    }

    fn number(&mut self, _: &SymState, v: &SVal) -> SResult<TermId> {
        Ok(self.term_of(v))
    }

    fn settle(&mut self, _: &mut SymState, v: &SVal) -> SResult<Either<Self>> {
        Ok(Either::One(self.term_of(v)))
    }

    fn konst(&mut self, v: i64) -> TermId {
        self.r.terms.konst(v)
    }

    fn constant(&self, n: TermId) -> Option<i64> {
        self.r.terms.constant(n)
    }

    fn keeps(&self, _: &SymState, v: &SVal, ty: Option<IntTy>) -> bool {
        Walk::keeps(self, v, ty)
    }

    fn join(&mut self, into: &mut Deps, from: &Deps) -> SResult<()> {
        self.add_deps(into, from)
    }

    fn apply(&mut self, op: SymOp, args: Vec<TermId>, ins: &ast::Instr) -> SResult<TermId> {
        self.r.terms.op(op, args).map_err(|e| term_error(e, ins))
    }

    fn nonzero(&mut self, n: TermId, ins: &ast::Instr) -> SResult<TermId> {
        Walk::nonzero(self, n, ins)
    }

    fn not(&mut self, n: TermId) -> SResult<TermId> {
        self.r.terms.not(n).map_err(too_many_terms)
    }

    fn either(&mut self, _: &mut SymState, a: TermId, b: TermId) -> SResult<Either<Self>> {
        let k = self.r.choices;
        self.r.choices += 1;
        let chosen = self.r.terms.choice(k).map_err(too_many_terms)?;
        // The timer's choice term is 1 where the later value is read (`b`).
        Ok(Either::One(self.r.terms.ite(chosen, b, a).map_err(too_many_terms)?))
    }

    fn sync_uses(st: &SymState, base: &SyncKey, role: Option<SyncRole>) -> usize {
        st.phases.get(&(base.clone(), role)).copied().unwrap_or(0)
    }

    fn count_sync_use(st: &mut SymState, base: &SyncKey, role: Option<SyncRole>) {
        *st.phases.entry((base.clone(), role)).or_insert(0) += 1;
    }

    fn push_other(&mut self, st: &mut SymState, kind: EventKind, ins: &ast::Instr) -> SResult<()> {
        self.push(st, (0, TRUE), DraftKind::Other(kind), &Deps::new(), ins).map(|_| ())
    }

    shared_context!();

    fn private_load(&mut self, st: &mut SymState, ins: &ast::Instr, key: &LocKey, adeps: Deps) -> SResult<()> {
        Walk::private_load(self, st, ins, key, adeps)
    }

    fn private_store(&mut self, st: &mut SymState, ins: &ast::Instr, key: &LocKey, deps: Deps) -> SResult<()> {
        Walk::private_store(self, st, ins, key, deps)
    }

    fn push_halves(&mut self, st: &mut SymState, halves: Vec<Sync>, ins: &ast::Instr) -> SResult<()> {
        for (sub, h) in halves.into_iter().enumerate() {
            self.push(st, (sub, TRUE), DraftKind::Other(EventKind::Sync(h)), &Deps::new(), ins)?;
        }
        Ok(())
    }

    fn barrier_reduction(
        &mut self,
        st: &mut SymState,
        ins: &ast::Instr,
        at: (SyncKey, Expected),
        result: (RedOp, &str),
        own: (TermId, Deps),
        deps: Deps,
    ) -> SResult<Flow<SymState>> {
        self.reduction(st, ins, at, result, own, deps)
    }

    /// One read event (a load over several cells is refused before the walk, as mixed-size).
    fn read(
        &mut self,
        st: &mut SymState,
        key: LocKey,
        _: Vec<(LocKey, i64, u8)>,
        access: Access,
        adeps: Deps,
        ins: &ast::Instr,
    ) -> SResult<Read<Self>> {
        let kind = DraftKind::Mem { key: key.clone(), access: access.clone() };
        let idx = self.push(st, (0, TRUE), kind, &adeps, ins)?;
        Ok(Read::One(self.read_value(idx, &key, &access, ins)?))
    }

    /// One read event; the result is the term `done(word read, token)`, no
    /// split (the engines give the read its values).
    fn test_word(
        &mut self,
        st: &mut SymState,
        key: LocKey,
        access: Access,
        (done, token): (SymOp, TermId),
        deps: Deps,
        ins: &ast::Instr,
    ) -> SResult<Read<Self>> {
        let kind = DraftKind::Mem { key: key.clone(), access: access.clone() };
        let idx = self.push(st, (0, TRUE), kind, &deps, ins)?;
        let word = self.read_value(idx, &key, &access, ins)?;
        let w = self.term_of(&word);
        let outcome = self.r.terms.op(done, vec![w, token]).map_err(|e| term_error(e, ins))?;
        Ok(Read::One(SVal { v: SV::T(outcome), deps: word.deps }))
    }

    /// One write event; a value that is not a constant is a term whose value
    /// set is exact over its reads (it feeds the domains, D184).
    fn write(
        &mut self,
        st: &mut SymState,
        key: LocKey,
        _: Vec<(LocKey, i64, u8)>,
        access: Access,
        value: TermId,
        deps: Deps,
        ins: &ast::Instr,
    ) -> SResult<()> {
        self.r.terms.refine(value);
        let constant = self.r.terms.constant(value);
        let access = Access { write_value: constant.unwrap_or(0), ..access };
        let idx = self.push(st, (0, TRUE), DraftKind::Mem { key, access }, &deps, ins)?;
        if constant.is_none() {
            self.r.write.insert(idx, value);
            self.r.write_conds.insert(idx, deps.values().copied().collect());
        }
        Ok(())
    }

    /// A constant written makes the exchange silent where it reads that value (D116).
    fn exchange(
        &mut self,
        st: &mut SymState,
        key: LocKey,
        base: Access,
        value: TermId,
        deps: Deps,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> SResult<()> {
        self.r.terms.refine(value);
        let constant = self.r.terms.constant(value);
        let access = Access { writes: true, write_value: constant.unwrap_or(0), ..base };
        let kind = DraftKind::Mem { key: key.clone(), access: access.clone() };
        let idx = self.push_event(st, (0, TRUE), kind, &deps, ins, constant)?;
        if constant.is_none() {
            self.r.write.insert(idx, value);
            self.r.write_conds.insert(idx, deps.values().copied().collect());
        }
        self.set_read(st, dst, idx, &key, &access, ins)
    }

    fn compare_and_swap(
        &mut self,
        st: &mut SymState,
        key: LocKey,
        base: Access,
        operands: (TermId, TermId),
        deps: Deps,
        _: &Option<String>,
        ins: &ast::Instr,
    ) -> SResult<()> {
        self.cas(st, ins, (key, base), operands, &deps)
    }

    /// Operands that are not all constants are kept as terms the engines read.
    fn modify(
        &mut self,
        st: &mut SymState,
        key: LocKey,
        base: Access,
        (op, terms): (AtomOp, Vec<TermId>),
        deps: Deps,
        dst: &Option<String>,
        ins: &ast::Instr,
    ) -> SResult<()> {
        let consts: Option<Vec<i64>> = terms.iter().map(|&t| self.r.terms.constant(t)).collect();
        let rmw = Rmw { op, operands: consts.clone().unwrap_or_else(|| vec![0; terms.len()]), ty: base.conv };
        let access = Access { writes: true, rmw: Some(rmw), ..base };
        let idx = self.push(st, (0, TRUE), DraftKind::Mem { key: key.clone(), access: access.clone() }, &deps, ins)?;
        if consts.is_none() {
            terms.iter().for_each(|&t| self.r.terms.refine(t));
            self.r.operands.insert(idx, terms);
        }
        self.set_read(st, dst, idx, &key, &access, ins)
    }

    fn choose(&mut self, c: TermId, a: SVal, b: SVal, ins: &ast::Instr) -> SResult<SVal> {
        let v = match (&a.v, &b.v) {
            (x, y) if x == y => x.clone(),
            (SV::T(x), SV::T(y)) => SV::T(self.r.terms.ite(c, *x, *y).map_err(too_many_terms)?),
            _ => return Err(outside(ins, "it chooses between an address and another value by a value read")),
        };
        Ok(SVal { v, deps: self.merge_deps(c, &a.deps, &b.deps)? })
    }

    fn compare(
        &mut self,
        st: &mut SymState,
        cmp: Cmp,
        a: &Operand,
        b: &Operand,
        ty: Option<IntTy>,
        ins: &ast::Instr,
    ) -> SResult<Compared<Self>> {
        let (va, vb) = (Walk::operand(self, st, a), Walk::operand(self, st, b));
        let args = vec![self.term_of(&va), self.term_of(&vb)];
        let c = self.r.terms.op(SymOp::Compare(cmp, ty), args).map_err(|e| term_error(e, ins))?;
        let mut deps = va.deps;
        self.add_deps(&mut deps, &vb.deps)?;
        Ok(Compared::Value(c, deps))
    }

    fn add_ctrl(&mut self, st: &mut SymState, deps: &Deps) -> SResult<()> {
        let mut ctrl = std::mem::take(&mut st.ctrl);
        self.add_deps(&mut ctrl, deps)?;
        st.ctrl = ctrl;
        Ok(())
    }

    fn decide(&mut self, st: &mut SymState, c: TermId) -> SResult<Branched<SymState>> {
        if let Some(k) = self.r.terms.constant(c) {
            return Ok(Branched::Goes(k != 0));
        }
        let (mut taken, mut fails) = (st.clone(), st.clone());
        let not_c = self.r.terms.not(c).map_err(too_many_terms)?;
        self.restrict(&mut taken, c)?;
        self.restrict(&mut fails, not_c)?;
        Ok(Branched::Split(vec![(taken, true), (fails, false)]))
    }

    fn outside(&self, ins: &ast::Instr, why: &str) -> Stop {
        outside(ins, why)
    }

    fn internal(&self, what: &str) -> Stop {
        Stop::Err(Error::internal(what))
    }
}
