//! Failed spin iterations left out of the symbolic walk (D189): the path
//! builder's D113 (`spin_prune`) on states instead of paths.
//!
//! A state standing at a loop head records a snapshot of what every later
//! step reads there: the registers that matter at the head (D115,
//! `LoopHeads`), its control dependencies and its private bytes. Its
//! descendants carry the snapshot with what their paths did since: their
//! guard relative to the snapshot's (`rel`: the state's guard is the
//! snapshot state's guard and `rel`), where they performed an event other
//! than a read that writes nothing or an exchange that writes back the value
//! it read (D116: `effects`), what the events they performed assume
//! (`assumed`, a cas's read equal or not to its operand) and the reads (and
//! such exchanges) they performed. A state about to come back to the head
//! (before it merges with anything there) whose registers, dependencies and
//! private bytes are the snapshot's on the slice, and none of whose
//! executions performed anything but such reads since (`rel ∧ effects ∧
//! assumed` holds for no values of the reads and choices it mentions), is
//! dropped: its guard goes into the thread's cut term, so the encoding admits
//! none of its executions. Each of them is D113's dropped path: deleting the
//! failed iteration's reads gives an execution of the snapshot state's own
//! continuation (whose guard, the snapshot's, is weaker) with the same final
//! state, provided the reads race with nothing, which the pipeline checks on
//! the whole program after the build (`check::build_encoded`, the reads are
//! returned in `Round::left_out`) and builds again without this reduction
//! where it fails.

use super::*;
use crate::program::build::spin_prune::LoopHeads;

/// Per loop head, the snapshot its paths took there last.
pub(super) type Snapshots = BTreeMap<usize, Snapshot>;

/// A state at a loop head, and what its descendants did since.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Snapshot {
    /// The back edges of the state that took it: with the head, its key, so
    /// two snapshots of one head and one key are of one state.
    back_edges: u32,
    live: Vec<Option<SVal>>,
    ctrl: Deps,
    private: private::Bytes,
    rel: TermId,
    effects: TermId,
    assumed: TermId,
    reads: BTreeSet<usize>,
}

impl Walk<'_, '_> {
    /// `st` stands at a loop head: remember its state there (the last one).
    pub(super) fn snapshot(&mut self, heads: &LoopHeads, st: &mut SymState) {
        let live = heads.live_at(st.pc).iter().map(|r| st.regs.get(r).cloned()).collect();
        let snap = Snapshot {
            back_edges: st.back_edges,
            live,
            ctrl: st.ctrl.clone(),
            private: st.private.clone(),
            rel: TRUE,
            effects: FALSE,
            assumed: TRUE,
            reads: BTreeSet::new(),
        };
        st.spins.insert(st.pc, snap);
    }

    /// Narrow `st`'s guard by `c` (a branch side, the unroll bound).
    pub(super) fn restrict(&mut self, st: &mut SymState, c: TermId) -> SResult<()> {
        st.guard = self.r.terms.and(&[st.guard, c]).map_err(too_many_terms)?;
        for snap in st.spins.values_mut() {
            snap.rel = self.r.terms.and(&[snap.rel, c]).map_err(too_many_terms)?;
        }
        Ok(())
    }

    /// `st` performs event `at.0` of `kind` where its guard and `at.1` hold:
    /// a read that writes nothing may be a failed iteration's; so may an
    /// exchange of the constant `exchanged` where it reads that value (a
    /// silent read-modify-write, D116, unless `prune_silent_rmws` is off);
    /// anything else is an effect its snapshots must see.
    pub(super) fn note_event(
        &mut self,
        st: &mut SymState,
        at: (usize, TermId),
        kind: &DraftKind,
        exchanged: Option<i64>,
        ins: &ast::Instr,
    ) -> SResult<()> {
        if st.spins.is_empty() {
            return Ok(());
        }
        let DraftKind::Mem { key, access } = kind else { return self.note_effect(st, at.1) };
        if access.reads && !access.writes {
            for snap in st.spins.values_mut() {
                snap.reads.insert(at.0);
            }
            return Ok(());
        }
        let Some(c) = exchanged.filter(|_| self.ctx.opts.prune_silent_rmws && access.reads) else {
            return self.note_effect(st, at.1);
        };
        // Its read's value as the register sees it: compared with `c` only where that is the value read.
        if self.ctx.domain(key).into_iter().any(|v| access.loaded(v) != v) {
            return self.note_effect(st, at.1);
        }
        let read = self.read_value(at.0, key, access, ins)?;
        let konst = self.r.terms.konst(c);
        let args = vec![self.term_of(&read), konst];
        let other = self.r.terms.op(SymOp::Compare(Cmp::Ne, None), args).map_err(|e| term_error(e, ins))?;
        let noisy = self.r.terms.and(&[at.1, other]).map_err(too_many_terms)?;
        for snap in st.spins.values_mut() {
            snap.reads.insert(at.0);
        }
        self.note_effect(st, noisy)
    }

    /// `st` performs an effect where its guard and `extra` hold.
    fn note_effect(&mut self, st: &mut SymState, extra: TermId) -> SResult<()> {
        for snap in st.spins.values_mut() {
            let here = self.r.terms.and(&[snap.rel, extra]).map_err(too_many_terms)?;
            snap.effects = self.r.terms.or(&[snap.effects, here]).map_err(too_many_terms)?;
        }
        Ok(())
    }

    /// Event `at.0`, performed where `st`'s guard and `at.1` hold, assumes
    /// `holds` (a cas's read compared with its operand).
    pub(super) fn assume(&mut self, st: &mut SymState, at: (usize, TermId), holds: TermId) -> SResult<()> {
        self.r.assume.push((at.0, holds));
        for snap in st.spins.values_mut() {
            let performed = self.r.terms.and(&[snap.rel, at.1]).map_err(too_many_terms)?;
            let not_performed = self.r.terms.not(performed).map_err(too_many_terms)?;
            let implied = self.r.terms.or(&[not_performed, holds]).map_err(too_many_terms)?;
            snap.assumed = self.r.terms.and(&[snap.assumed, implied]).map_err(too_many_terms)?;
        }
        Ok(())
    }

    /// The snapshots two merging states both carry from one state (the
    /// others are forgotten: a later visit takes new ones), with what either
    /// did since.
    pub(super) fn merge_snapshots(&mut self, a: &Snapshots, b: &Snapshots) -> SResult<Snapshots> {
        let mut out = Snapshots::new();
        for (&head, sa) in a {
            let Some(sb) = b.get(&head) else { continue };
            let same =
                (sa.back_edges, &sa.live, &sa.ctrl, &sa.private) == (sb.back_edges, &sb.live, &sb.ctrl, &sb.private);
            if !same {
                continue;
            }
            let t = &mut self.r.terms;
            let snap = Snapshot {
                rel: t.or(&[sa.rel, sb.rel]).map_err(too_many_terms)?,
                effects: t.or(&[sa.effects, sb.effects]).map_err(too_many_terms)?,
                assumed: t.and(&[sa.assumed, sb.assumed]).map_err(too_many_terms)?,
                reads: sa.reads.union(&sb.reads).copied().collect(),
                ..sa.clone()
            };
            out.insert(head, snap);
        }
        Ok(out)
    }

    /// `st` comes back to a loop head having only failed a spin iteration
    /// since its last visit (see the module's comment): then it is dropped,
    /// its guard cut as the unroll bound would have cut it had it failed on,
    /// and the reads it left out are remembered. Whether it was dropped.
    pub(super) fn only_failed_iteration(
        &mut self,
        heads: &LoopHeads,
        st: &SymState,
        code: &[ast::Instr],
        cut: &mut TermId,
    ) -> SResult<bool> {
        let Some(snap) = st.spins.get(&st.pc).filter(|_| heads.is_head(st.pc)) else { return Ok(false) };
        let live = heads.live_at(st.pc).iter().map(|r| st.regs.get(r));
        let same_live = live.zip(&snap.live).all(|(now, was)| match (now, was) {
            (Some(now), Some(was)) => now.v == was.v && carries_all(&now.deps, &was.deps),
            (None, None) => true,
            _ => false,
        });
        if !same_live || !carries_all(&st.ctrl, &snap.ctrl) || st.private != snap.private {
            return Ok(false);
        }
        if snap.effects != FALSE && !self.r.terms.never_all_hold(&[snap.rel, snap.effects, snap.assumed]) {
            return Ok(false);
        }
        *cut = self.r.terms.or(&[*cut, st.guard]).map_err(too_many_terms)?;
        if self.r.terms.may_hold(st.guard) {
            self.ctx.unroll_cuts.entry(self.t).or_insert_with(|| loop_name(&code[st.pc], self.t));
        }
        self.r.left_out.extend(snap.reads.iter().copied());
        Ok(true)
    }
}

/// `now` carries every dependency `was` does, under the same condition or
/// always (the later path may depend on more reads, D113).
fn carries_all(now: &Deps, was: &Deps) -> bool {
    was.iter().all(|(read, c)| now.get(read).is_some_and(|d| d == c || *d == TRUE))
}
