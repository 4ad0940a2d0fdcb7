//! `mbarrier` objects (litmus-format.md section 7, D153): a 64-bit word of
//! `.shared` memory that threads update with atomic read-modify-writes
//! (`mbarrier.arrive`, an `Atomic` with `AtomOp::MbarrierArrive`) and read to
//! test whether a phase completed (`mbarrier.test_wait` / `try_wait`). 8.8
//! names `mbarrier.arrive.release [M]` a release pattern and
//! `mbarrier.test_wait.acquire [M]` an acquire pattern, so observation order
//! through the chain of arrivals synchronizes every arriver with the waiter
//! (8.9.4 rule 4): no new axiom. The word's layout is `program::arith::mbarrier`.

use super::*;
use crate::ast::{self, MbarrierOp};
use crate::error::{Error, Result};
use crate::program::arith::mbarrier;

impl Ctx<'_> {
    /// `mbarrier.init`, `.test_wait` / `.try_wait`, `.pending_count`.
    pub(super) fn step_mbarrier(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Mbarrier { op, dst, addr, operand, sem, scope } = &ins.kind else {
            return Err(Error::internal("step_mbarrier on another instruction"));
        };
        let (value, deps) = match self.concrete(st, operand, ins.span)? {
            Ok(x) => x,
            Err(i) => return Ok(self.fork_read(st, i)),
        };
        match op {
            MbarrierOp::PendingCount => {
                let dst = dst.clone().ok_or_else(|| Error::internal("pending_count without a destination"))?;
                st.regs.insert(dst, Val { v: V::Const(mbarrier::pending(value)), deps });
                Ok(Step::Next)
            }
            MbarrierOp::Init => self.mbarrier_write(t, st, ins, addr, (value, deps)),
            MbarrierOp::Inval => self.mbarrier_write(t, st, ins, addr, (0, deps)),
            MbarrierOp::TestWait { parity } => {
                let access = (*sem, *scope);
                self.mbarrier_test(t, st, ins, (addr, dst), access, (value, *parity), deps)
            }
        }
    }

    /// The object's 8-byte word at `addr` (its location and virtual address;
    /// the address's dependencies join `deps`), or the fork on the read the
    /// address still waits for.
    fn mbarrier_word(
        &mut self,
        t: usize,
        st: &PathState,
        ins: &ast::Instr,
        addr: &Option<ast::Addr>,
        deps: &mut BTreeSet<usize>,
    ) -> Result<std::result::Result<(LocKey, String), Step>> {
        let addr = addr.as_ref().ok_or_else(|| Error::internal("mbarrier without an address"))?;
        let (key, vaddr, adeps) = match self.address(st, t, addr, true, ins)? {
            Ok(x) => x,
            Err(i) => return Ok(Err(self.fork_read(st, i))),
        };
        deps.extend(adeps);
        self.space_of(&key.root, false, ins)?;
        self.mem_cells(&key, 8, ins);
        Ok(Ok((key, vaddr)))
    }

    /// `mbarrier.init [addr], count` ("sets phase 0, expected and pending
    /// count to count (1 to 2^20 - 1)") and `mbarrier.inval [addr]` (count 0:
    /// every count zero): a weak 8-byte store of the object's word.
    fn mbarrier_write(
        &mut self,
        t: usize,
        st: &mut PathState,
        ins: &ast::Instr,
        addr: &Option<ast::Addr>,
        (count, mut deps): (i64, BTreeSet<usize>),
    ) -> Result<Step> {
        if count != 0 && !(1..=mbarrier::MAX_COUNT).contains(&count) {
            let msg = format!("mbarrier.init count {} is out of range (1 to {})", count, mbarrier::MAX_COUNT);
            return Err(Error::input(msg, ins.span));
        }
        let (key, vaddr) = match self.mbarrier_word(t, st, ins, addr, &mut deps)? {
            Ok(x) => x,
            Err(fork) => return Ok(fork),
        };
        if count != 0 {
            self.check_single_init(t, st, &key, ins)?;
        }
        let word = if count == 0 { 0 } else { mbarrier::init(count) };
        let access = Access {
            writes: true,
            write_value: word,
            mbarrier: (count != 0).then_some(crate::program::MbarrierUse::Init),
            ..Access::new(vaddr, ast::Proxy::Generic, 8, MemSem::Weak, Scope::Sys)
        };
        self.push_mem(st, key, access, deps, ins);
        Ok(Step::Next)
    }

    /// D153: initialising a live object again without `mbarrier.inval` is
    /// undefined; a test that inits one object from two instructions (or one
    /// instruction on two loop iterations) and never invalidates it is refused.
    fn check_single_init(&mut self, t: usize, st: &PathState, key: &LocKey, ins: &ast::Instr) -> Result<()> {
        let site = (t, ins.span.line, ins.span.col, st.back_edges);
        let first = self.mbarrier_inits.entry(key.clone()).or_insert(site);
        if *first != site && !self.has_mbarrier_inval {
            let msg = "this mbarrier object is initialised again while it may be live (re-initialising without mbarrier.inval is undefined)";
            return Err(Error::input(msg, ins.span));
        }
        Ok(())
    }

    /// `mbarrier.test_wait{.parity} p, [addr], state|parity`: an acquire (or
    /// relaxed) 8-byte read of the object; `p` is whether the phase the token
    /// names (or the phase of that parity) has completed. One path where it
    /// has, assuming the read returns one of the words saying so, and one
    /// where it has not.
    #[allow(clippy::too_many_arguments)]
    fn mbarrier_test(
        &mut self,
        t: usize,
        st: &mut PathState,
        ins: &ast::Instr,
        (addr, dst): (&Option<ast::Addr>, &Option<String>),
        (sem, scope): (ast::Sem, Option<Scope>),
        (token, parity): (i64, bool),
        mut deps: BTreeSet<usize>,
    ) -> Result<Step> {
        let (key, vaddr) = match self.mbarrier_word(t, st, ins, addr, &mut deps)? {
            Ok(x) => x,
            Err(fork) => return Ok(fork),
        };
        let (msem, mscope) = normalize(sem, scope, Scope::Cta);
        let base = Access {
            reads: true,
            mbarrier: Some(crate::program::MbarrierUse::Wait),
            ..Access::new(vaddr, ast::Proxy::Generic, 8, msem, mscope)
        };
        let done =
            |word: i64| if parity { mbarrier::parity_done(word, token) } else { mbarrier::phase_done(word, token) };
        let domain = self.domain(&key);
        let (yes, no): (Vec<i64>, Vec<i64>) = domain.iter().copied().partition(|&w| done(w));
        let mut children = Vec::new();
        for (outcome, excluded) in [(true, &no), (false, &yes)] {
            if excluded.len() == domain.len() {
                continue;
            }
            let mut c = st.clone();
            let access = Access { read_not: excluded.clone(), ..base.clone() };
            let idx = self.push_mem(&mut c, key.clone(), access, deps.clone(), ins);
            if let Some(d) = dst {
                c.regs.insert(d.clone(), Val { v: V::Const(outcome as i64), deps: BTreeSet::from([idx]) });
            }
            c.pc += 1;
            children.push(c);
        }
        Ok(Step::Continue(children))
    }
}
