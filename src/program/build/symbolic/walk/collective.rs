//! Warp collectives and `bar.red`'s result (`Values::barrier_reduction`) in
//! a symbolic walk (D210, D211). The path builder forks a collective's result
//! over the values the other lanes may contribute and a reduction's over the
//! results it may have (`build::warp`, `meaning::cta_barrier`); each path's wait
//! assumes its combination and both engines keep the executions whose matched
//! arrivals carry it (`Sync::assumption_holds`, `Sync::result_holds`). Here
//! the thread is not forked: its use of the object is one arrive per value
//! its contribution may have (performed where the contribution has it) and
//! one wait per own value and assumed combination (performed where the own
//! value holds and a free one-hot choice picks the combination), the very
//! events a path of the path builder has. The result register chooses by the
//! same terms. What the engines match is unchanged.

use super::*;
use crate::ast::{RedOp, WarpOp};
use crate::program::build::warp::{combinations, lane_values, lanes_read};
use crate::program::{Expected, Sync, SyncKey, SyncKind, SyncRole};

/// One use of a synchronizing object whose halves carry the thread's value.
struct ValuedUse {
    key: SyncKey,
    expected: Expected,
    orders_memory: bool,
}

/// What one alternative's wait assumes besides its own value: a
/// reduction's result, or each listed thread's contribution.
type Assumes = (Option<(RedOp, i64)>, Vec<(usize, i64)>);

/// A wait pushed by [`Walk::push_valued`]: the own value it carries, its
/// alternative, the 0/1 term "this wait is the one performed" (without the
/// state's guard) and its event.
struct ValuedWait {
    own: i64,
    alt: usize,
    cond: TermId,
    event: usize,
}

impl Walk<'_, '_> {
    /// A warp collective (`step_warp`, D174): the member mask and a
    /// `shfl.sync`'s lane operands must be constants; the lanes the result
    /// reads contribute the values learned round after round (as the path
    /// builder learns them), one wait per combination.
    pub(super) fn warp_collective(&mut self, st: &mut SymState, ins: &ast::Instr) -> SResult<()> {
        let InstrKind::Warp { op, dst, pred, srcs, negated, mask, ty } = &ins.kind else {
            return Err(Stop::Err(Error::internal("warp collective on another instruction")));
        };
        let mask = self.operand(st, mask);
        let m = self.constant_of(&mask, ins, "a member mask")?;
        let sources: Vec<SVal> = srcs.iter().map(|s| self.operand(st, s)).collect();
        let mut vals = vec![0; sources.len()];
        if let WarpOp::Shfl(_) = op {
            for (v, s) in vals.iter_mut().zip(&sources).skip(1) {
                *v = self.constant_of(s, ins, "a `shfl.sync` lane operand")?;
            }
        }
        let members = self.ctx.warp_members(self.t, m, ins)?;
        let lane = self.ctx.seats[self.t].1;
        // `lanes_read` names the sources the result is computed from: here each by its index.
        let by_index: Vec<BTreeSet<usize>> = (0..sources.len()).map(|i| BTreeSet::from([i])).collect();
        let mut used = BTreeSet::new();
        let (reads, pval) = lanes_read(*op, (lane, m), &vals, &by_index, &members, &mut used, ins)?;
        let own = self.contribution(*op, *negated, *ty, lane, sources.first(), ins)?;
        let key = self.warp_key(st, SyncKind::WarpCollective(*op), m);
        let own_deps = sources.first().map(|s| s.deps.clone()).unwrap_or_default();
        self.contribute(&key, own, &own_deps);
        let combos = combinations(&self.ctx.received_domains(&key, &reads, ins)?);
        let alts: Vec<Assumes> =
            combos.iter().map(|c| (None, reads.iter().zip(c).map(|(&(_, u), &v)| (u, v)).collect())).collect();
        let threads = members.iter().map(|x| x.1).collect();
        let u = ValuedUse { key, expected: Expected::Threads(threads), orders_memory: false };
        let waits = self.push_valued(st, ins, &u, (own, &own_deps), &alts)?;
        let mut deps = mask.deps;
        for &i in &used {
            self.add_deps(&mut deps, &sources[i].deps)?;
        }
        if !reads.is_empty() {
            // The result carries other lanes' values: it depends on the wait.
            deps.extend(waits.iter().map(|w| (w.event, TRUE)));
        }
        let (mut results, mut preds) = (Vec::new(), Vec::new());
        for w in &waits {
            let values = lane_values(*op, &members, &reads, &combos[w.alt], (lane, w.own));
            let (d, p) = crate::program::warp::collect(*op, *ty, (lane, m as u32), &values, pval);
            results.push((w.cond, d));
            preds.push((w.cond, p));
        }
        let d = self.chosen(&results)?;
        st.regs.insert(dst.clone(), SVal { v: SV::T(d), deps: deps.clone() });
        if let Some(p) = pred {
            let p_term = self.chosen(&preds)?;
            st.regs.insert(p.clone(), SVal { v: SV::T(p_term), deps });
        }
        Ok(())
    }

    /// What this lane contributes to a collective (`step_warp`'s `own`): a
    /// vote its predicate (negated with `!`), `elect.sync` its lane, the
    /// others their source at the operation's type.
    fn contribution(
        &mut self,
        op: WarpOp,
        negated: bool,
        ty: IntTy,
        lane: u32,
        source: Option<&SVal>,
        ins: &ast::Instr,
    ) -> SResult<TermId> {
        let src = source.map_or(FALSE, |s| self.term_of(s));
        match op {
            WarpOp::Vote(_) => {
                let c = self.nonzero(src, ins)?;
                if negated {
                    self.r.terms.not(c).map_err(too_many_terms)
                } else {
                    Ok(c)
                }
            }
            WarpOp::Elect => Ok(self.r.terms.konst(i64::from(lane))),
            _ => self.r.terms.op(SymOp::Convert(Some(ty)), vec![src]).map_err(|e| term_error(e, ins)),
        }
    }

    /// Record what this thread may contribute at `key` and the locations
    /// those values come from (`Ctx::contribute`).
    fn contribute(&mut self, key: &SyncKey, own: TermId, own_deps: &Deps) {
        let srcs = self.value_sources(own_deps);
        self.ctx.exchanged_srcs.entry((key.clone(), self.t)).or_default().extend(srcs);
        let values = self.r.terms.values[own].clone();
        self.ctx.exchanged.entry((key.clone(), self.t)).or_default().extend(values);
    }

    /// `bar.red`'s use (`Values::barrier_reduction`; the path builder's
    /// `fork_reduction`): the arrive carries the predicate; one wait per result the reduction may have (`.popc`: 0 to
    /// the CTA's size; `.and`, `.or`: 0 or 1). The result depends on the
    /// predicate, the barrier's operands and the wait (8.10.4, D165).
    pub(super) fn reduction(
        &mut self,
        st: &mut SymState,
        ins: &ast::Instr,
        (key, expected): (SyncKey, Expected),
        (op, dst): (RedOp, &str),
        (own, own_deps): (TermId, Deps),
        mut deps: Deps,
    ) -> SResult<meaning::Flow<SymState>> {
        let most = if op == RedOp::Popc { self.ctx.cta_size(self.t) as i64 } else { 1 };
        let alts: Vec<Assumes> = (0..=most).map(|v| (Some((op, v)), Vec::new())).collect();
        let u = ValuedUse { key, expected, orders_memory: true };
        let waits = self.push_valued(st, ins, &u, (own, &own_deps), &alts)?;
        self.add_deps(&mut deps, &own_deps)?;
        deps.extend(waits.iter().map(|w| (w.event, TRUE)));
        let results: Vec<(TermId, i64)> = waits.iter().map(|w| (w.cond, w.alt as i64)).collect();
        let d = self.chosen(&results)?;
        st.regs.insert(dst.to_string(), SVal { v: SV::T(d), deps });
        Ok(meaning::Flow::Next)
    }

    /// Push one valued use: an arrive per value `own` may have, performed
    /// where it has it (depending on `own_deps`, as the path builder's arrive
    /// does), then a wait per own value and alternative of `alts`, performed
    /// where the own value holds and a one-hot choice picks the alternative.
    fn push_valued(
        &mut self,
        st: &mut SymState,
        ins: &ast::Instr,
        u: &ValuedUse,
        (own, own_deps): (TermId, &Deps),
        alts: &[Assumes],
    ) -> SResult<Vec<ValuedWait>> {
        let mut owns = self.r.terms.values[own].clone();
        if owns.is_empty() {
            owns.push(0); // a contribution without a value: its state is never performed
        }
        let sync = |role, value, (result, assumed): Assumes| Sync {
            key: u.key.clone(),
            role,
            expected: u.expected.clone(),
            orders_memory: u.orders_memory,
            value: Some(value),
            result,
            assumed,
        };
        let mut has = Vec::new();
        for (sub, &v) in owns.iter().enumerate() {
            let eq = if owns.len() == 1 {
                TRUE
            } else {
                let c = self.r.terms.konst(v);
                self.r.terms.op(SymOp::Compare(Cmp::Eq, None), vec![own, c]).map_err(|e| term_error(e, ins))?
            };
            let kind = DraftKind::Other(EventKind::Sync(sync(SyncRole::Arrive, v, (None, Vec::new()))));
            self.push(st, (sub, eq), kind, own_deps, ins)?;
            has.push(eq);
        }
        let picks = self.one_hot(alts.len())?;
        let mut waits = Vec::new();
        for (i, (&v, &eq)) in owns.iter().zip(&has).enumerate() {
            for (alt, (assumes, &pick)) in alts.iter().zip(&picks).enumerate() {
                let cond = self.r.terms.and(&[eq, pick]).map_err(too_many_terms)?;
                let kind = DraftKind::Other(EventKind::Sync(sync(SyncRole::Wait, v, assumes.clone())));
                let sub = owns.len() + i * alts.len() + alt;
                let event = self.push(st, (sub, cond), kind, &Deps::new(), ins)?;
                waits.push(ValuedWait { own: v, alt, cond, event });
            }
        }
        Ok(waits)
    }

    /// `n` 0/1 terms exactly one of which is 1, from `n - 1` fresh choices:
    /// the first where its choice is 1, each next where the earlier ones are
    /// 0 and its own is 1, the last where all are 0.
    pub(super) fn one_hot(&mut self, n: usize) -> SResult<Vec<TermId>> {
        let mut out = Vec::with_capacity(n);
        let mut rest = TRUE;
        for _ in 1..n {
            let k = self.r.choices;
            self.r.choices += 1;
            let ch = self.r.terms.choice(k).map_err(too_many_terms)?;
            out.push(self.r.terms.and(&[rest, ch]).map_err(too_many_terms)?);
            let not_ch = self.r.terms.not(ch).map_err(too_many_terms)?;
            rest = self.r.terms.and(&[rest, not_ch]).map_err(too_many_terms)?;
        }
        if n > 0 {
            out.push(rest);
        }
        Ok(out)
    }

    /// The value of the first `(cond, value)` whose condition holds (the
    /// conditions are exclusive; the last is the default).
    fn chosen(&mut self, options: &[(TermId, i64)]) -> SResult<TermId> {
        let Some(&(_, last)) = options.last() else { return Ok(FALSE) };
        let mut acc = self.r.terms.konst(last);
        for &(cond, v) in options.iter().rev().skip(1) {
            let k = self.r.terms.konst(v);
            acc = self.r.terms.ite(cond, k, acc).map_err(too_many_terms)?;
        }
        Ok(acc)
    }

    /// The key of the state's next use of warp object `kind` with member mask `m`.
    fn warp_key(&mut self, st: &mut SymState, kind: SyncKind, m: i64) -> SyncKey {
        let (cta, warp) = (self.ctx.placements[self.t].cta, self.ctx.seats[self.t].0);
        let base = SyncKey { kind, unit: cta, id: -1 - warp, logical: Some(m as u32 as i64), phase: 0 };
        next_use(st, base)
    }

    /// The value of an operand that must not depend on what the thread read
    /// (`what` names it in the refusal).
    pub(super) fn constant_of(&mut self, v: &SVal, ins: &ast::Instr, what: &str) -> SResult<i64> {
        let t = self.term_of(v);
        self.r.terms.constant(t).ok_or_else(|| {
            outside(ins, &format!("{} computed from a value read is outside the symbolic builder", what))
        })
    }

    /// The locations whose read values a value with dependencies `deps`
    /// depends on (`Ctx::value_sources`): those of its reads, and through the
    /// wait of a warp collective those the other lanes' contributions depend on.
    pub(super) fn value_sources(&self, deps: &Deps) -> BTreeSet<LocKey> {
        let mut keys = BTreeSet::new();
        for &i in deps.keys() {
            match &self.r.events[i].kind {
                DraftKind::Mem { key, .. } => {
                    keys.insert(key.clone());
                }
                DraftKind::Other(EventKind::Sync(wait)) => {
                    for &(u, _) in &wait.assumed {
                        let srcs = self.ctx.exchanged_srcs.get(&(wait.key.clone(), u));
                        keys.extend(srcs.into_iter().flatten().cloned());
                    }
                }
                DraftKind::Other(_) => {}
            }
        }
        keys
    }
}

/// The key of the next use of the synchronizing object `base` (phase 0) on
/// the state's paths: the number of its earlier uses is the phase.
pub(super) fn next_use(st: &mut SymState, base: SyncKey) -> SyncKey {
    let uses = st.phases.entry((base.clone(), None)).or_insert(0);
    let key = SyncKey { phase: *uses, ..base };
    *uses += 1;
    key
}
