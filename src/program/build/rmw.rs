//! Read-modify-writes (`atom`, `red`, `cas`) and loads split over cells.

use super::*;
use crate::ast::{self, Cmp, InstrKind, IntTy};
use crate::error::{Error, Result};
use crate::program::access::stored;
use std::collections::BTreeSet;

impl Ctx<'_> {
    /// Push a read-modify-write's one event; `atom`'s destination register
    /// gets the value it reads (`red` has none).
    pub(super) fn push_rmw(
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
    /// combination of the values the cells can hold, each with the value of
    /// their bytes composed little-endian and extended by the load's type.
    pub(super) fn split_load(
        &self,
        st: &mut PathState,
        ins: &ast::Instr,
        parts: Vec<(LocKey, i64, u8)>,
        access: Access,
        adeps: BTreeSet<usize>,
    ) -> Result<Vec<(PathState, Val)>> {
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
            children.push((c, Val { v: V::Const(v), deps: deps.clone() }));
        }
        Ok(children)
    }
}
