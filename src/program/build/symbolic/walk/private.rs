//! Private memory (`.local`, `.param`; ISA 5.1.5 "private memory for each
//! thread", 5.1.6) in a symbolic walk: each state keeps its own bytes, as
//! `program::private` keeps a path's (D17, D72): a value read back whole is
//! the value stored (an address stays an address), read back in pieces its
//! bytes compose little-endian. Only constants and addresses are read in
//! pieces; a private byte written on one merged path and not on the other is
//! refused (D182).

use super::*;
use crate::program::private::byte_of;

/// Byte `at` of a `size`-byte store of `val`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Piece {
    val: SVal,
    at: u8,
    size: u8,
}

/// A state's private bytes: (variable, byte offset) -> byte.
pub(super) type Bytes = BTreeMap<(String, i64), Piece>;

impl Walk<'_, '_> {
    /// A store to private memory (`step_store`): the value kept whole, converted
    /// to the store's type where that changes it, with its address's dependencies.
    pub(super) fn private_store(
        &mut self,
        st: &mut SymState,
        ins: &ast::Instr,
        key: &LocKey,
        adeps: Deps,
    ) -> SResult<()> {
        let InstrKind::Store { src, size, ty, .. } = &ins.kind else {
            return Err(Stop::Err(Error::internal("private_store on another instruction")));
        };
        self.ctx.space_of(&key.root, true, ins)?;
        self.ctx.check_private_bounds(key, *size, ins)?;
        let mut v = self.operand(st, src);
        if !self.keeps(&v, *ty) {
            let t = self.term_of(&v);
            v.v = SV::T(self.r.terms.op(SymOp::Convert(*ty), vec![t]).map_err(|e| term_error(e, ins))?);
        }
        self.add_deps(&mut v.deps, &adeps)?;
        for i in 0..*size {
            let piece = Piece { val: v.clone(), at: i, size: *size };
            st.private.insert((key.root.clone(), key.offset + i64::from(i)), piece);
        }
        Ok(())
    }

    /// A load of private memory (`private_load`): the value stored, read
    /// back whole at a type that keeps it; else its bytes, extended by the
    /// load's type. It depends on what the value did, on the address and on
    /// the state's control.
    pub(super) fn private_load(
        &mut self,
        st: &mut SymState,
        ins: &ast::Instr,
        key: &LocKey,
        adeps: Deps,
    ) -> SResult<()> {
        let InstrKind::Load { dst, size, ty, .. } = &ins.kind else {
            return Err(Stop::Err(Error::internal("private_load on another instruction")));
        };
        self.ctx.space_of(&key.root, true, ins)?;
        self.ctx.check_private_bounds(key, *size, ins)?;
        let piece = |i: u8| st.private.get(&(key.root.clone(), key.offset + i64::from(i)));
        let whole = piece(0).filter(|f| {
            f.size == *size
                && (0..*size).all(|i| piece(i).is_some_and(|p| p.at == i && p.size == *size && p.val == f.val))
        });
        let mut v = match whole {
            Some(p) if matches!(p.val.v, SV::Addr(..)) || self.keeps(&p.val, *ty) => p.val.clone(),
            Some(_) => return Err(outside(ins, "it reads a private value back at a type that changes it")),
            None => self.private_bytes(st, ins, key, (*size, *ty))?,
        };
        self.add_deps(&mut v.deps, &adeps)?;
        let ctrl = st.ctrl.clone();
        self.add_deps(&mut v.deps, &ctrl)?;
        st.regs.insert(dst.clone(), v);
        Ok(())
    }

    /// `size` private bytes at `key` composed little-endian (unwritten ones
    /// from the initial value) and extended by `ty` (untyped: signed, D17).
    fn private_bytes(
        &mut self,
        st: &SymState,
        ins: &ast::Instr,
        key: &LocKey,
        (size, ty): (u8, Option<IntTy>),
    ) -> SResult<SVal> {
        let mut raw: i128 = 0;
        let mut deps = Deps::new();
        for i in 0..size {
            let byte = match st.private.get(&(key.root.clone(), key.offset + i64::from(i))) {
                Some(p) => {
                    let pd = p.val.deps.clone();
                    self.add_deps(&mut deps, &pd)?;
                    let whole = match &p.val.v {
                        SV::T(t) => self.r.terms.constant(*t),
                        SV::Addr(..) => Some(self.term_of(&p.val)).and_then(|t| self.r.terms.constant(t)),
                    };
                    let Some(c) = whole else {
                        return Err(outside(ins, "it reads part of a private value computed from a read"));
                    };
                    byte_of(c, p.at)
                }
                None => {
                    // 8.2.6: an unknown byte; the check tries two fills (D71), as for paths.
                    if self.ctx.vars.get(&key.root).is_some_and(|d| d.init.is_none()) {
                        self.ctx.reads_unknown.get_or_insert_with(|| key.root.clone());
                    }
                    self.ctx.init_byte(&key.root, key.offset + i64::from(i))
                }
            };
            raw |= i128::from(byte) << (8 * u32::from(i));
        }
        let read = IntTy { bits: 8 * u32::from(size), signed: ty.is_none_or(|t| t.signed) };
        let value = arith::convert(ty, arith::norm(read, raw));
        Ok(SVal { v: SV::T(self.r.terms.konst(value)), deps })
    }

    /// Two states' private bytes as one: equal bytes stay, a byte both
    /// wrote from values of the same shape merges like a register.
    pub(super) fn merge_private(
        &mut self,
        ga: TermId,
        a: &Bytes,
        b: &Bytes,
        at: Option<&ast::Instr>,
    ) -> SResult<Bytes> {
        let mut out = Bytes::new();
        let keys: BTreeSet<&(String, i64)> = a.keys().chain(b.keys()).collect();
        for k in keys {
            let merged = match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) if x == y => Some(x.clone()),
                (Some(x), Some(y)) if (x.at, x.size) == (y.at, y.size) => {
                    self.merge_value(ga, &x.val, &y.val)?.map(|val| Piece { val, ..x.clone() })
                }
                _ => None,
            };
            let Some(piece) = merged else {
                return Err(Stop::Outside(format!(
                    "{}: private bytes of `{}` hold different kinds of value on two paths that meet, which the symbolic builder does not merge",
                    place(at),
                    crate::module::written_name(&k.0)
                )));
            };
            out.insert(k.clone(), piece);
        }
        Ok(out)
    }
}
