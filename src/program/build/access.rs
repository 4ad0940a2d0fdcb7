//! Addresses, state spaces and the events a path pushes.

use super::*;
use crate::ast::{self, IntTy};
use crate::error::{Error, Result};
use std::collections::BTreeSet;

impl Ctx<'_> {
    /// Record that `root` is accessed as private (`.local`/`.param`) or shared
    /// memory; a variable accessed both ways is refused (D17).
    pub(super) fn space_of(&mut self, root: &str, private: bool, ins: &ast::Instr) -> Result<()> {
        let (mine, other) = if private {
            (&mut self.private_roots, &self.global_roots)
        } else {
            (&mut self.global_roots, &self.private_roots)
        };
        if let Some(sp) = other.get(root) {
            let (a, b) = if private {
                ("thread-private .local/.param", "global or shared")
            } else {
                ("global or shared", "thread-private .local/.param")
            };
            let root = crate::module::written_name(root);
            return Err(Error::input(
                format!("`{}` is accessed here as {} memory but at line {} as {} memory", root, a, sp.line, b),
                ins.span,
            ));
        }
        mine.entry(root.to_string()).or_insert(ins.span);
        Ok(())
    }

    /// Converting `v` to `ty` cannot change it on this path (so a read can stay symbolic).
    pub(super) fn keeps(&self, st: &PathState, v: &Val, ty: Option<IntTy>) -> bool {
        let Some(ty) = ty else { return true };
        match &v.v {
            V::Addr(..) => true,
            V::Const(c) => arith::convert(Some(ty), *c) == *c,
            V::Free(i) => match &st.events[*i].kind {
                DraftKind::Mem { key, access } => {
                    access.conv == Some(ty)
                        || self.domain(key).into_iter().all(|d| {
                            let l = access.loaded(d);
                            arith::convert(Some(ty), l) == l
                        })
                }
                DraftKind::Other(_) => false,
            },
        }
    }

    /// A register that holds a number, not an address, used as an address.
    pub(super) fn not_an_address(&self, r: &str, t: usize, ins: &ast::Instr) -> Error {
        if ins.origin.is_some() {
            let msg = format!(
                "`{}` holds a number here, not an address: the access needs the address of a location",
                crate::module::written_name(r)
            );
            return Error::input(msg, ins.span);
        }
        Error::input(
            format!(
                "register `{}` does not hold an address here (initialise it with `P{}:{} = x` or `mov {}, x`)",
                r, t, r, r
            ),
            ins.span,
        )
    }

    /// The location key and virtual address of `name + off` accessed by
    /// thread `t` (`shared`: through the `.shared` window).
    pub(super) fn locate(
        &mut self,
        name: &str,
        off: i64,
        shared: bool,
        t: usize,
        ins: &ast::Instr,
    ) -> Result<(LocKey, String)> {
        // Byte offsets are 64-bit addresses: the last byte of the widest access
        // must still be one (`[x+9223372036854775807]` is past every variable).
        if off.checked_add(i64::from(u8::MAX)).is_none() {
            return Err(Error::input(format!("the address offset {} leaves the 64-bit address space", off), ins.span));
        }
        let info = self.resolve_name(name);
        // A module's `.shared` variable has one copy per CTA (5.1.7: "shared
        // by all threads in a CTA"), whatever the instruction's window: the
        // thread's own, or the one `mapa` named (D297); a test's own
        // `.shared` access names its cluster's copy (D19).
        let shared_cluster = match self.space(&info.root) {
            ast::VarSpace::Shared => Some(info.cta.unwrap_or(self.placements[t].cta)),
            _ if shared || info.cta.is_some() => Some(self.placements[t].cluster),
            _ => None,
        };
        let key = LocKey { root: info.root.clone(), offset: off, shared_cluster };
        let vaddr = if off == 0 { info.vaddr.clone() } else { format!("{}+{}", info.vaddr, off) };
        Ok((key, vaddr))
    }

    pub(super) fn push_mem(
        &self,
        st: &mut PathState,
        key: LocKey,
        access: Access,
        mut deps: BTreeSet<usize>,
        ins: &ast::Instr,
    ) -> usize {
        let mut value_srcs = self.value_sources(st, &deps);
        if access.atomic && (access.read_value.is_some() || access.rmw.is_some()) {
            value_srcs.push(key.clone());
        }
        deps.extend(st.ctrl.iter().copied());
        // Dependencies grow with the path (control dependencies accumulate), so
        // a long unrolled loop is quadratic here: charge them (issue 11).
        crate::budget::charge(96 + 16 * deps.len() as u64 + ins.text.len() as u64);
        st.events.push(DraftEvent {
            kind: DraftKind::Mem { key, access },
            value_srcs,
            text: ins.text.clone(),
            line: ins.span.line,
            deps,
            at: instance(st),
        });
        st.events.len() - 1
    }

    /// The locations whose read values a value with dependencies `deps`
    /// depends on: those of its reads, and through the wait of a warp
    /// collective those the other lanes' contributions depend on (D164).
    pub(super) fn value_sources(&self, st: &PathState, deps: &BTreeSet<usize>) -> Vec<LocKey> {
        let mut keys = BTreeSet::new();
        for &i in deps {
            match &st.events[i].kind {
                DraftKind::Mem { key, .. } => {
                    keys.insert(key.clone());
                }
                DraftKind::Other(EventKind::Sync(wait)) => {
                    for &(u, _) in &wait.assumed {
                        keys.extend(self.exchanged_srcs.get(&(wait.key.clone(), u)).into_iter().flatten().cloned());
                    }
                }
                DraftKind::Other(_) => {}
            }
        }
        keys.into_iter().collect()
    }

    pub(super) fn push_other(&self, st: &mut PathState, kind: EventKind, ins: &ast::Instr) {
        let deps = st.ctrl.clone();
        crate::budget::charge(96 + 16 * deps.len() as u64 + ins.text.len() as u64);
        st.events.push(DraftEvent {
            kind: DraftKind::Other(kind),
            value_srcs: Vec::new(),
            text: ins.text.clone(),
            line: ins.span.line,
            deps,
            at: instance(st),
        });
    }

    pub(super) fn cta_size(&self, t: usize) -> usize {
        let cta = self.placements[t].cta;
        self.placements.iter().filter(|p| p.cta == cta).count()
    }
}

/// The instruction instance of the next event `st` pushes.
fn instance(st: &PathState) -> Instance {
    Instance { back_edges: st.back_edges, pc: st.pc, sub: st.events.len() - st.issued }
}
