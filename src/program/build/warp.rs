//! Warp collectives and `bar.warp.sync` on one path (D92, D164, D174, D175): the
//! lanes a member mask names, and the values a path assumes they exchange.

use super::step::SyncUse;
use super::*;
use crate::ast::{self, InstrKind, WarpOp};
use crate::error::{Error, Result};
use crate::program::warp;

/// Most combinations of other lanes' values one collective forks over.
const MAX_EXCHANGES: usize = 4096;

/// Where a thread sits in its CTA: its warp (`%tid.x / 32`) and lane (`%tid.x % 32`), ISA 10.2, 10.3.
pub(super) fn seats(lit: &Litmus) -> Vec<(i64, u32)> {
    crate::module::thread_ids(lit).into_iter().map(|tid| (tid / 32, (tid % 32) as u32)).collect()
}

impl Ctx<'_> {
    /// The grid workspace's address as the number a module rebuilt from
    /// `%envreg1`/`%envreg2` (D177): a number inside the workspace named by
    /// the harness's `envreg = &ws;` is that address again.
    pub(super) fn numeric_address(&self, number: i64) -> Option<(String, i64)> {
        let ws = self.lit.init.iter().find_map(|i| match i {
            ast::InitItem::LocationAddress { name, target, .. } if name == crate::module::ENVREG => Some(target),
            _ => None,
        })?;
        let idx = self.names.keys().position(|n| n == ws)?;
        let off = number.checked_sub(address_number(idx, 0))?;
        (0..self.width(ws).max(1) as i64).contains(&off).then(|| (ws.clone(), off))
    }

    /// The lanes of `t`'s warp that the test's threads occupy, as a mask.
    pub(super) fn occupied_lanes(&self, t: usize) -> u32 {
        let (warp, _) = self.seats[t];
        (0..self.seats.len())
            .filter(|&u| self.placements[u].cta == self.placements[t].cta && self.seats[u].0 == warp)
            .fold(0, |m, u| m | 1 << self.seats[u].1)
    }

    /// The lanes of `t`'s warp that hold a thread of the launch: those whose
    /// `%tid.x` is below the CTA's `%ntid.x` (D164). The lanes past it do not
    /// exist in a partial warp.
    fn launched_lanes(&self, t: usize) -> u32 {
        let ntid = crate::module::cta_thread_counts(self.lit)[t];
        let first = self.seats[t].0 * 32;
        (0..32).filter(|l| first + l < ntid).fold(0, |m, l| m | 1 << l)
    }

    /// The (lane, thread) pairs a member mask names in `t`'s warp, in lane
    /// order. The mask must name `t`'s own lane ("undefined if the executing
    /// thread is not in the membermask"). A collective waits for "every
    /// non-exited thread of the mask": a lane past the CTA's `%ntid.x` holds
    /// no thread of the launch, so nothing is waited for there (D164); a lane
    /// of the launch that no thread of the test occupies runs code the test
    /// does not give, so waiting for it would be a silent hang or a guess (D92).
    pub(super) fn warp_members(&self, t: usize, mask: i64, ins: &ast::Instr) -> Result<Vec<(u32, usize)>> {
        let (warp, lane) = self.seats[t];
        let mask = mask as u32;
        if mask & 1 << lane == 0 {
            let msg = format!("the member mask {:#x} does not name this thread's lane {}", mask, lane);
            return Err(Error::input(msg, ins.span));
        }
        let missing = mask & !self.occupied_lanes(t) & self.launched_lanes(t);
        if missing != 0 {
            let msg = format!(
                "the member mask {:#x} names lane {} of warp {}, which no thread of the test occupies \
                 (the CTA has {} threads, %ntid.x: give that lane a thread, or name only the test's lanes)",
                mask,
                missing.trailing_zeros(),
                warp,
                crate::module::cta_thread_counts(self.lit)[t]
            );
            return Err(Error::input(msg, ins.span));
        }
        let cta = self.placements[t].cta;
        let at = |l: u32| (0..self.seats.len()).find(|&u| self.placements[u].cta == cta && self.seats[u] == (warp, l));
        Ok((0..32).filter(|l| mask & 1 << l != 0).filter_map(|l| Some((l, at(l)?))).collect())
    }

    /// A warp collective (D174): its halves meet those of the other lanes of
    /// the mask at the same use of the same operation with the same mask; the
    /// arrive carries this lane's value and orders no memory. The path forks
    /// over the values the lanes its result reads may contribute (learned
    /// round after round, as location values are), each child assuming one
    /// combination on its wait and computing its result from it.
    pub(super) fn step_warp(&mut self, t: usize, st: &mut PathState, ins: &ast::Instr) -> Result<Step> {
        let InstrKind::Warp { op, dst, pred, srcs, negated, mask, ty } = &ins.kind else {
            return Err(Error::internal("step_warp on another instruction"));
        };
        let (m, mut deps) = conc!(self, st, ins, mask);
        let mut vals = Vec::new();
        let mut src_deps = Vec::new();
        for s in srcs {
            let (v, d) = conc!(self, st, ins, s);
            vals.push(v);
            src_deps.push(d);
        }
        let members = self.warp_members(t, m, ins)?;
        let lane = self.seats[t].1;
        let own = match op {
            WarpOp::Vote(_) => ((vals[0] != 0) != *negated) as i64,
            // `elect.sync` has no source: each member contributes its lane (D166).
            WarpOp::Elect => i64::from(lane),
            _ => arith::convert(Some(*ty), vals[0]),
        };
        let (reads, pval) = lanes_read(*op, (lane, m), &vals, &src_deps, &members, &mut deps, ins)?;
        let threads = members.iter().map(|x| x.1).collect();
        let object =
            (SyncKind::WarpCollective(*op), self.placements[t].cta, -1 - self.seats[t].0, Some(m as u32 as i64));
        let at = SyncUse { expected: Expected::Threads(threads), orders_memory: false, value: Some(own) };
        self.push_sync(st, ins, object, &[SyncRole::Arrive, SyncRole::Wait], at);
        let (key, wait) = self.contribute(t, st, own, src_deps.first().cloned().unwrap_or_default())?;
        if !reads.is_empty() {
            deps.insert(wait); // the result carries other lanes' values
        }
        let domains = self.received_domains(&key, &reads, ins)?;
        let mut children = Vec::new();
        for combo in combinations(&domains) {
            let values = lane_values(*op, &members, &reads, &combo, (lane, own));
            let (d, p) = warp::collect(*op, *ty, (lane, m as u32), &values, pval);
            let mut c = st.clone();
            if let Some(DraftKind::Other(EventKind::Sync(wait))) = c.events.last_mut().map(|e| &mut e.kind) {
                wait.assumed = reads.iter().zip(&combo).map(|(&(_, u), &v)| (u, v)).collect();
            }
            c.regs.insert(dst.clone(), Val { v: V::Const(d), deps: deps.clone() });
            if let Some(p_reg) = pred {
                c.regs.insert(p_reg.clone(), Val { v: V::Const(p), deps: deps.clone() });
            }
            c.pc += 1;
            children.push(c);
        }
        Ok(Step::Continue(children))
    }

    /// The collective just pushed: its arrive carries `own`, so it depends on
    /// what `own` was computed from (8.10.4 "chains of instruction
    /// dependencies", D164), and `own` with the locations it was read from is
    /// what `t` contributes at this use. Returns the use's key and its wait.
    fn contribute(
        &mut self,
        t: usize,
        st: &mut PathState,
        own: i64,
        own_deps: BTreeSet<usize>,
    ) -> Result<(SyncKey, usize)> {
        let Some(DraftKind::Other(EventKind::Sync(wait))) = st.events.last().map(|e| &e.kind) else {
            return Err(Error::internal("a warp collective without its wait"));
        };
        let key = wait.key.clone();
        let (arrive, wait) = (st.events.len() - 2, st.events.len() - 1);
        st.events[arrive].deps.extend(own_deps.iter().copied());
        let srcs = self.value_sources(st, &own_deps);
        self.exchanged_srcs.entry((key.clone(), t)).or_default().extend(srcs);
        self.exchanged.entry((key.clone(), t)).or_default().insert(own);
        Ok((key, wait))
    }

    /// The values each lane of `reads` may contribute at the use `key`: those
    /// learned so far (0 before any); more than `MAX_EXCHANGES` combinations
    /// is a limit.
    pub(super) fn received_domains(
        &self,
        key: &SyncKey,
        reads: &[(u32, usize)],
        ins: &ast::Instr,
    ) -> Result<Vec<Vec<i64>>> {
        let domains: Vec<Vec<i64>> = reads
            .iter()
            .map(|&(_, u)| self.exchanged.get(&(key.clone(), u)).map_or(vec![0], |d| d.iter().copied().collect()))
            .collect();
        if domains.iter().try_fold(1usize, |n, d| n.checked_mul(d.len()).filter(|&n| n <= MAX_EXCHANGES)).is_none() {
            let msg = format!("`{}` can receive more than {} combinations of values", ins.text, MAX_EXCHANGES);
            return Err(Error::limit(msg));
        }
        Ok(domains)
    }
}

/// The (lane, thread) pairs whose values a collective's result reads, other
/// than the executing `lane`, and the predicate value a `shfl.sync` gives
/// (true for the other operations). `deps` gains the dependencies of the
/// sources the result is computed from. A `shfl.sync` reading a lane that the
/// mask `m` does not name or the launch does not hold is refused.
pub(super) fn lanes_read(
    op: WarpOp,
    (lane, m): (u32, i64),
    vals: &[i64],
    src_deps: &[BTreeSet<usize>],
    members: &[(u32, usize)],
    deps: &mut BTreeSet<usize>,
    ins: &ast::Instr,
) -> Result<(Vec<(u32, usize)>, bool)> {
    match op {
        WarpOp::Shfl(mode) => {
            let (j, pval) = warp::shfl_source(mode, lane, vals[1], vals[2]);
            src_deps[1..].iter().for_each(|d| deps.extend(d.iter().copied()));
            if j == lane {
                deps.extend(src_deps[0].iter().copied());
            }
            let Some(&source) = members.iter().find(|(l, _)| *l == j) else {
                let why = if m as u32 & 1 << j == 0 {
                    format!("which the member mask {:#x} does not name", m as u32)
                } else {
                    "which holds no thread of the launch (past %ntid.x, D164)".to_string()
                };
                let msg = format!("`shfl.sync` reads lane {}, {}: the ISA leaves that value undefined", j, why);
                return Err(Error::input(msg, ins.span));
            };
            Ok((if j == lane { vec![] } else { vec![source] }, pval))
        }
        // The leader depends on which lanes are members, which the path
        // knows: no other lane's register value is read.
        WarpOp::Elect => Ok((Vec::new(), true)),
        _ => {
            src_deps.iter().for_each(|d| deps.extend(d.iter().copied()));
            Ok((members.iter().copied().filter(|&(l, _)| l != lane).collect(), true))
        }
    }
}

/// The (lane, value) pairs one combination `combo` of the values of `reads`
/// gives the collective, in lane order: with this lane's `own` value unless a
/// `shfl.sync` reads another lane; `elect.sync` sees each member's lane.
pub(super) fn lane_values(
    op: WarpOp,
    members: &[(u32, usize)],
    reads: &[(u32, usize)],
    combo: &[i64],
    (lane, own): (u32, i64),
) -> Vec<(u32, i64)> {
    let mut values: Vec<(u32, i64)> = reads.iter().zip(combo).map(|(&(l, _), &v)| (l, v)).collect();
    if let WarpOp::Elect = op {
        values = members.iter().map(|&(l, _)| (l, i64::from(l))).collect();
    } else if !matches!(op, WarpOp::Shfl(_)) || reads.is_empty() {
        values.push((lane, own));
    }
    values.sort_unstable();
    values
}

/// Every choice of one value from each domain, the first domain varying slowest.
pub(super) fn combinations(domains: &[Vec<i64>]) -> Vec<Vec<i64>> {
    domains.iter().fold(vec![Vec::new()], |acc, d| {
        acc.iter().flat_map(|prefix| d.iter().map(move |&v| [prefix.as_slice(), &[v]].concat())).collect()
    })
}
