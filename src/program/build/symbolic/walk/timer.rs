//! Timer reads in a symbolic walk (D81, D204): the path builder forks a `mov`
//! from `%clock`, `%clock64`, `%globaltimer`, `_lo` or `_hi` into a path where
//! no time passed since the thread's previous read of that counter and one
//! where it is `TIMER_LATER` later (`step_timer`). Here the counter's new
//! value is `Ite(Choice(k), last + TIMER_LATER, last)` under a fresh choice
//! that nothing constrains, kept in the same hidden register the path builder
//! keeps it in, and the destination its `TimerView`: on each value of the
//! choice, the register values of one of the two paths.

use super::*;
use crate::program::build::step::{timer_register, TIMER_LATER};

impl Walk<'_, '_> {
    /// `mov d, %timer` (`step_timer`): no event, two possible readings.
    pub(super) fn timer(&mut self, st: &mut SymState, ins: &ast::Instr) -> SResult<()> {
        let InstrKind::Timer { dst, timer, shift, bits } = &ins.kind else {
            return Err(Stop::Err(Error::internal("timer on another instruction")));
        };
        let hidden = timer_register(timer);
        // The path builder reads a counter not read before as 0.
        let last = match st.regs.get(&hidden).map(|v| &v.v) {
            Some(SV::T(t)) => *t,
            _ => FALSE,
        };
        let later_by = self.r.terms.konst(TIMER_LATER);
        let add = SymOp::Alu(AluOp::Add, None, None);
        let later = self.r.terms.op(add, vec![last, later_by]).map_err(|e| term_error(e, ins))?;
        let k = self.r.choices;
        self.r.choices += 1;
        let passed = self.r.terms.choice(k).map_err(too_many_terms)?;
        let now = self.r.terms.ite(passed, later, last).map_err(too_many_terms)?;
        let view = self.r.terms.op(SymOp::TimerView(*shift, *bits), vec![now]).map_err(|e| term_error(e, ins))?;
        st.regs.insert(hidden, SVal { v: SV::T(now), deps: Deps::new() });
        st.regs.insert(dst.clone(), SVal { v: SV::T(view), deps: Deps::new() });
        Ok(())
    }
}
