//! `atom.cas` in the symbolic walk: what its events assume, stated
//! statically too, and failures that only cut executions (D198).
//!
//! A cas whose value may match or not gets two events under a fresh choice:
//! the success side (reads a value equal to its operand, writes) and the
//! failure side (reads another value, writes nothing). Where the failure
//! sends the thread back to its loop, the walk drops the state that comes
//! back (D189) or the unroll bound cuts it, so every execution performing
//! the failure is cut; the choice stays free all the same, and the solver
//! has to learn per thread that it must be 1 (caslock-16: 9.4 s for the
//! first query). After a thread's walk, each cas instance whose failure
//! event, wherever it is performed, makes the thread's cut term hold
//! (`Terms::where_none_holds`, on every assignment of values to the reads
//! and choices they mention) is marked, and the thread is walked again
//! with those instances succeeding only: the choice is the constant 1, the
//! failure event stays with the guard 0 (its read is still a left-out read
//! of the walk, D189). Exact: the executions the second walk loses are those
//! performing a marked failure, which the first walk's program cuts, so they
//! are no candidates of either (paper-notes/encoding.md, "Symbolic threads").

use super::*;

/// Where a thread's walk started in the round: what undoing it goes back to.
pub(super) struct Mark {
    events: usize,
    terms: usize,
    assume: usize,
    deps: usize,
    instances: usize,
    choices: usize,
    charged: u64,
}

impl Walk<'_, '_> {
    /// The values of `key`'s domain that event `ok` (the success side when
    /// true, else the failure side) of a cas comparing with `cmp` assumes
    /// it does not read: those whose loaded view makes its assumption
    /// (`Compare(Eq)` or `Compare(Ne)` with `cmp` at `ty`) false. The path
    /// builder's `cas` states the same as its paths' `read_value` and
    /// `read_not`, which prune reads-from before any clause is made. Empty
    /// when `cmp` is not a constant (the assumption is a term only).
    pub(super) fn cas_excluded(
        &self,
        key: &LocKey,
        access: &Access,
        cmp: TermId,
        ty: Option<IntTy>,
        ok: bool,
    ) -> Vec<i64> {
        let Some(c) = self.r.terms.constant(cmp) else { return Vec::new() };
        let domain = self.ctx.domain(key);
        domain.into_iter().filter(|&v| arith::compare(Cmp::Eq, access.loaded(v), c, ty) != ok).collect()
    }

    /// The cas at `st` was marked: it succeeds only.
    pub(super) fn succeeds_only(&self, st: &SymState) -> bool {
        self.r.success_only.contains(&(self.t, st.back_edges, st.pc))
    }

    /// The cas at `st` chose, its failure being event `idx`, which assumes `holds`.
    pub(super) fn note_failure(&mut self, st: &SymState, idx: usize, holds: TermId) {
        self.r.failures.push((st.back_edges, st.pc, self.r.guard[idx], holds));
    }

    /// Where the thread's walk starts.
    pub(super) fn mark(&mut self) -> Mark {
        self.r.failures.clear();
        let r = &self.r;
        Mark {
            events: r.events.len(),
            terms: r.terms.terms.len(),
            assume: r.assume.len(),
            deps: r.deps.len(),
            instances: r.instances,
            choices: r.choices,
            charged: r.charged,
        }
    }

    /// After a walk whose cut term is `cut`: mark each cas instance whose
    /// failure, where performed (its guard and what it assumes hold), makes
    /// `cut` hold. Whether one was marked.
    pub(super) fn failures_cut(&mut self, cut: TermId) -> SResult<bool> {
        let failures = std::mem::take(&mut self.r.failures);
        if failures.is_empty() {
            return Ok(false);
        }
        let uncut = self.r.terms.not(cut).map_err(too_many_terms)?;
        let mut marked = false;
        for (back_edges, pc, guard, holds) in failures {
            if self.r.terms.never_all_hold(&[guard, holds, uncut]) {
                marked |= self.r.success_only.insert((self.t, back_edges, pc));
            }
        }
        // The unroll bound's flag says a cut may hold (`finish`): the first walk's stands.
        self.r.cut_walked_again |= marked && self.r.terms.may_hold(cut);
        Ok(marked)
    }

    /// Undo the walk since `mark` and walk again with the marked instances.
    /// The first walk's left-out reads (D189) must be among the second's,
    /// as the argument for leaving them out holds for the first walk's
    /// program: where they are not, the thread is walked as the first time.
    pub(super) fn walk_again(&mut self, mark: Mark) -> SResult<(Finished, TermId)> {
        let first = self.left_out_kinds(mark.events);
        self.undo(&mark);
        let again = self.walk()?;
        let second = self.left_out_kinds(mark.events);
        if first.is_subset(&second) {
            return Ok(again);
        }
        let t = self.t;
        self.r.success_only.retain(|x| x.0 != t);
        self.undo(&mark);
        self.r.failures.clear();
        self.walk()
    }

    /// The kinds of the left-out reads of the walk since event `from`.
    fn left_out_kinds(&self, from: usize) -> BTreeSet<String> {
        self.r.left_out.range(from..).map(|&g| format!("{:?}", self.r.events[g].kind)).collect()
    }

    /// Forget what the walk since `m` put into the round.
    fn undo(&mut self, m: &Mark) {
        let r = &mut *self.r;
        r.events.truncate(m.events);
        r.thread_of.truncate(m.events);
        r.guard.truncate(m.events);
        let _ = (r.write.split_off(&m.events), r.write_conds.split_off(&m.events));
        let _ = (r.operands.split_off(&m.events), r.left_out.split_off(&m.events));
        r.assume.truncate(m.assume);
        r.deps.truncate(m.deps);
        (r.instances, r.choices) = (m.instances, m.choices);
        crate::budget::credit(r.charged.saturating_sub(m.charged));
        r.charged = m.charged;
        r.terms.truncate(m.terms);
    }
}
