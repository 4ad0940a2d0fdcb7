//! `isspacep` in a symbolic walk: decided from the variable a static address
//! points into, as the path builder decides it (`step_isspace`, D42).

use super::*;

impl Walk<'_, '_> {
    /// `isspacep.space d, a` (`step_isspace`): 1 when `a` is the address of a
    /// variable of `space` (ISA 6.4.1.1: a generic address lies in one state
    /// space's window), with `a`'s dependencies. A number is the path
    /// builder's input error: every path that reaches the instruction holds
    /// one there (a value read is made concrete first, then refused).
    pub(super) fn isspace(&mut self, st: &mut SymState, ins: &ast::Instr) -> SResult<()> {
        let InstrKind::IsSpace { dst, addr, space } = &ins.kind else {
            return Err(Stop::Err(Error::internal("isspace on another instruction")));
        };
        let v = self.operand(st, addr);
        let SV::Addr(name, _) = &v.v else {
            return Err(Stop::Err(Error::input(
                "`isspacep` of a number that is not the address of a variable: its state space is unknown",
                ins.span,
            )));
        };
        let root = self.ctx.names.get(name).map_or(name.clone(), |i| i.root.clone());
        let inside = self.r.terms.konst(i64::from(self.ctx.space(&root) == *space));
        st.regs.insert(dst.clone(), SVal { v: SV::T(inside), deps: v.deps });
        Ok(())
    }
}
