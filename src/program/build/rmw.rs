//! Read-modify-writes (`atom`, `red`, `cas`) and loads split over cells.

use super::*;
use crate::ast::{self, AtomOp, Cmp, InstrKind, IntTy, Operand, Sem};
use crate::error::{Error, Result};
use crate::program::access::stored;
use std::collections::BTreeSet;

impl Ctx<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
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
        self.check_atomic_location(&key, size, ty, ins)?;
        // atom/red without .sem are .relaxed, without .scope are .gpu.
        let sem = if sem == Sem::Weak { Sem::Relaxed } else { sem };
        let (msem, mscope) = normalize(sem, scope, Scope::Gpu);
        let is_red = dst.is_none();
        // exch writes its operand whatever it reads: the read can stay symbolic.
        if op == AtomOp::Exch {
            let value = *vals.first().ok_or_else(|| Error::input("exch needs a value operand", ins.span))?;
            let mut access = mk_rmw(vaddr, proxy, size, msem, mscope, is_red, Some(stored(ty, size, value)));
            access.conv = ty;
            return Ok(self.push_rmw(st, key, access, deps, ins, dst));
        }
        if arith::rmw(op, 0, &vals, ty).is_none() {
            return Err(Error::input(
                format!("`{}`: wrong number of operands for atom.{:?}", ins.text, op).to_lowercase(),
                ins.span,
            ));
        }
        // cas writes a constant when it succeeds and nothing when it fails: two
        // paths, one assuming the read returns the compared value, one that it does not.
        if op == AtomOp::Cas {
            return Ok(self.cas(
                t,
                st,
                ins,
                mk_rmw(vaddr, proxy, size, msem, mscope, is_red, None),
                key,
                (vals[0], vals[1], ty),
                deps,
                dst,
            ));
        }
        // The other operations write a function of the value read: one event whose
        // written value the engines compute from reads-from.
        // `Some(0)`: it writes; the value itself comes from `rmw`.
        let mut access = mk_rmw(vaddr, proxy, size, msem, mscope, is_red, Some(0));
        access.rmw = Some(Rmw { op, operands: vals, ty });
        access.conv = ty;
        Ok(self.push_rmw(st, key, access, deps, ins, dst))
    }

    /// An atomic operation's location: in `.global` or `.shared` memory, not
    /// one of a thread's private variables, and not a byte range that
    /// differently-sized accesses also touch (mixed-size, not supported). A
    /// typed operation marks its root as typed.
    fn check_atomic_location(&mut self, key: &LocKey, size: u8, ty: Option<IntTy>, ins: &ast::Instr) -> Result<()> {
        if self.space(&key.root).is_private() {
            return Err(Error::input(
                "atomic operations take .global or .shared memory, not a thread's private .local/.param memory",
                ins.span,
            ));
        }
        if ty.is_some() {
            self.typed_roots.insert(key.root.clone());
        }
        if self.mem_cells(key, size, ins).len() > 1 {
            return Err(Error::input("an atomic operation over bytes that differently-sized accesses also touch (mixed-size) is not supported", ins.span));
        }
        Ok(())
    }

    /// Push a read-modify-write's one event; `atom`'s destination register
    /// gets the value it reads (`red` has none).
    fn push_rmw(
        &mut self,
        st: &mut PathState,
        key: LocKey,
        access: Access,
        deps: BTreeSet<usize>,
        ins: &ast::Instr,
        dst: &Option<String>,
    ) -> Step {
        let idx = self.push_mem(st, key, access, deps, ins);
        if let Some(d) = dst {
            st.regs.insert(d.clone(), Val::free(idx));
        }
        Step::Next
    }

    /// `atom.cas`: it writes only when it succeeds. One path per stored value
    /// that equals `cmp` at the operation's type (reading it, writing `new`),
    /// and one path reading any other value and writing nothing. A C weak
    /// compare-exchange may also fail reading an equal value (D143); a C
    /// compare-exchange sets its success register.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cas(
        &self,
        t: usize,
        st: &PathState,
        ins: &ast::Instr,
        base: Access,
        key: LocKey,
        q: (i64, i64, Option<IntTy>),
        deps: BTreeSet<usize>,
        dst: &Option<String>,
    ) -> Step {
        let (cmp, new, ty) = q;
        let base = Access { conv: ty, ..base };
        let domain = self.domain(&key);
        let matching: Vec<i64> = domain.iter().copied().filter(|&v| arith::compare(Cmp::Eq, v, cmp, ty)).collect();
        let mut children = Vec::new();
        // A C weak compare-exchange's spurious failure: its boolean (the `setp`
        // after it) is 0 whatever the value read (D143).
        let spurious = self.spurious_failure(t, st.pc);
        let mut outcomes: Vec<Option<i64>> = matching.iter().map(|&v| Some(v)).collect();
        if domain.len() > matching.len() || spurious.is_some() {
            outcomes.push(None);
        }
        for read in outcomes {
            let mut c = st.clone();
            let mut access = base.clone();
            match read {
                Some(v) => {
                    access.writes = true;
                    access.write_value = stored(ty, access.size, new);
                    access.read_value = Some(v);
                }
                None if spurious.is_some() => {}
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
            if let (None, Some(ok)) = (read, &spurious) {
                c.regs.insert(ok.clone(), Val { v: V::Const(0), deps: BTreeSet::from([idx]) });
                c.pc += 1;
            }
            c.pc += 1;
            children.push(c);
        }
        Step::Continue(children)
    }

    /// The register of a C weak compare-exchange's boolean (the `setp` after
    /// its `atom.cas` at `pc`), when the instruction is one: it may fail
    /// whatever it reads, its boolean 0 (D143).
    fn spurious_failure(&self, t: usize, pc: usize) -> Option<String> {
        let cx = self.lit.c11.as_ref()?.compare_exchange(t, pc)?;
        match &self.lit.code.get(t)?.get(pc + 1)?.kind {
            InstrKind::Setp { dst, .. } if cx.weak => Some(dst.clone()),
            _ => None,
        }
    }

    /// A load over several cells: one read per cell, then one path per
    /// combination of the values the cells can hold, the register holding
    /// their bytes composed little-endian and extended by the load's type.
    pub(super) fn split_load(
        &self,
        st: &mut PathState,
        ins: &ast::Instr,
        parts: Vec<(LocKey, i64, u8)>,
        access: Access,
        adeps: BTreeSet<usize>,
        dst: &str,
    ) -> Result<Step> {
        let (ty, size) = (access.conv, access.size);
        let mut idx = Vec::new();
        for (k, at, _) in &parts {
            let a = Access { conv: None, start: -at, vaddr: cell_vaddr(&access.vaddr, k.offset), ..access.clone() };
            idx.push(self.push_mem(st, k.clone(), a, adeps.clone(), ins));
        }
        let mut combos: Vec<Vec<i64>> = vec![Vec::new()];
        for (k, _, _) in &parts {
            combos = combos
                .into_iter()
                .flat_map(|c| self.domain(k).into_iter().map(move |v| [c.clone(), vec![v]].concat()))
                .collect();
            if combos.len() > 4096 {
                return Err(Error::limit(format!(
                    "the mixed-size load `{}` can read more than 4096 combinations of byte values",
                    ins.text
                )));
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
}
