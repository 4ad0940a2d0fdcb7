//! `mbarrier` objects (litmus-format.md section 7, D153): a 64-bit word of
//! `.shared` memory that threads update with atomic read-modify-writes
//! (`mbarrier.arrive`, an `Atomic` with `AtomOp::MbarrierArrive`) and read to
//! test whether a phase completed (`mbarrier.test_wait` / `try_wait`). 8.8
//! names `mbarrier.arrive.release [M]` a release pattern and
//! `mbarrier.test_wait.acquire [M]` an acquire pattern, so observation order
//! through the chain of arrivals synchronizes every arriver with the waiter
//! (8.9.4 rule 4): no new axiom. The word's layout is `program::arith::mbarrier`;
//! the instructions' meaning is `meaning::mbarrier`, read by both builders.

use super::*;
use crate::error::{Error, Result};

impl Ctx<'_> {
    /// D153: initialising a live object again without `mbarrier.inval` is
    /// undefined; a test that inits one object from two instructions (or one
    /// instruction on two loop iterations: `back_edges`) and never
    /// invalidates it is refused.
    pub(super) fn check_single_init(
        &mut self,
        (t, back_edges): (usize, u32),
        key: &LocKey,
        ins: &ast::Instr,
    ) -> Result<()> {
        let site = (t, ins.span.line, ins.span.col, back_edges);
        let first = self.mbarrier_inits.entry(key.clone()).or_insert(site);
        if *first != site && !self.has_mbarrier_inval {
            let msg = "this mbarrier object is initialised again while it may be live (re-initialising without mbarrier.inval is undefined)";
            return Err(Error::input(msg, ins.span));
        }
        Ok(())
    }
}
