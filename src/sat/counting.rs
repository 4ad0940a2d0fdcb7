//! Counting facts (issue 14, D60): positions in coherence order for chains of
//! identical atomic read-modify-writes on one location, so a counter's final
//! value follows from its position instead of from a pigeonhole argument the
//! solver would otherwise make value by value.
//!
//! The facts are *implied* by the model (paper-notes/encoding.md, "Counting"):
//! every allowed execution extends to an assignment of the new variables (each
//! RMW's true position), and every model of the larger formula is a model of the
//! old one, so verdicts and final states are unchanged.

use super::encode::Encoding;
use super::formula::B;
use crate::model::strong::morally_strong;
use crate::model::Model;
use crate::program::{EventId, LocId, Rmw};

/// Chains longer than this get no facts (n^3 clauses); they stay exact, only slower.
const MAX_CHAIN: usize = 96;

impl Encoding<'_> {
    /// Add the counting facts for every location whose writes form a chain.
    pub(crate) fn counting_facts(&mut self) {
        if self.act.counting.is_none() {
            return;
        }
        for l in 0..self.p.locations.len() {
            if let Some((init, rmw, chain)) = self.rmw_chain(l) {
                self.chain_facts(l, init, &rmw, &chain);
            }
        }
    }

    /// The chain of location `l`: its initial value, the operation and the RMWs,
    /// when every write to `l` besides the initial one (8.2.6) is a
    /// read-modify-write with the same operation, performed on every path, and
    /// every pair of them is morally strong (8.7). Otherwise None: with a plain
    /// write, a conditional RMW or a pair that is not morally strong, the
    /// positions below do not fix the values.
    fn rmw_chain(&self, l: LocId) -> Option<(i64, Rmw, Vec<EventId>)> {
        let p = self.p;
        let init = p.init_events[l];
        let init_val = match self.values.wval[init].as_slice() {
            [(v, B::T)] => *v,
            _ => return None,
        };
        let chain: Vec<EventId> =
            p.events.iter().filter(|e| e.id != init && e.write_loc() == Some(l)).map(|e| e.id).collect();
        if chain.len() < 2 || chain.len() > MAX_CHAIN {
            return None;
        }
        let op = p.events[chain[0]].access()?.rmw.clone()?;
        // Symbolic operands (D185) make `rmw.operands` meaningless: no chain.
        if p.symbolic.as_ref().is_some_and(|s| chain.iter().any(|e| s.operands.contains_key(e))) {
            return None;
        }
        for &e in &chain {
            let a = p.events[e].access()?;
            if !a.atomic || a.rmw.as_ref() != Some(&op) || self.exec(e) != B::T || a.loc != l {
                return None;
            }
        }
        for (i, &a) in chain.iter().enumerate() {
            for &b in &chain[i + 1..] {
                if !p.compatible(a, b) || !morally_strong(p, &p.events[a], &p.events[b]) {
                    return None;
                }
            }
        }
        Some((init_val, op, chain))
    }

    /// Position facts for one chain of n RMWs. `le[i][k]`: the i-th RMW has at
    /// most k-1 RMWs of the chain before it in coherence order (order encoding,
    /// `le[i][0] = F`, `le[i][n] = T`), so "position k" is `le[k] ∧ ¬le[k-1]`.
    fn chain_facts(&mut self, l: LocId, init_val: i64, op: &Rmw, chain: &[EventId]) {
        let n = chain.len();
        let le: Vec<Vec<B>> = chain
            .iter()
            .map(|_| {
                (0..=n)
                    .map(|k| {
                        if k == 0 {
                            B::F
                        } else if k == n {
                            B::T
                        } else {
                            self.f.fresh()
                        }
                    })
                    .collect()
            })
            .collect();
        for row in &le {
            for k in 1..n {
                self.f.implies(&[row[k - 1]], row[k]);
            }
        }
        // Definition (8.9.6: coherence is a transitive order, total on morally
        // strong pairs): a coherence predecessor has a smaller position.
        for (i, &a) in chain.iter().enumerate() {
            for (j, &b) in chain.iter().enumerate() {
                let co = self.choices.co.get(&(a, b)).copied().unwrap_or(B::F);
                if i == j || co == B::F {
                    continue;
                }
                for k in 1..=n {
                    self.f.implies(&[co, le[j][k]], le[i][k - 1]);
                }
            }
        }
        // The final write is coherence-maximal: every other RMW precedes it, so
        // it is at position n (the pigeonhole step, stated once).
        if let Some(fin) = self.choices.fin.get(&l).cloned() {
            for (i, &e) in chain.iter().enumerate() {
                if let Some(&(_, v)) = fin.iter().find(|(w, _)| *w == e) {
                    self.f.implies(&[v], !le[i][n - 1]);
                }
            }
        }
        self.chain_values(init_val, op, chain, &le);
    }

    /// The literals the facts hold under (D221): the activations of the rows
    /// that imply them, Atomicity (8.10.3) and SC-per-Location (8.10.5), when
    /// the model keeps both rows of a built-in PTX model with their meaning
    /// (compared by content: a row that only bears the name proves nothing).
    /// A model without them has the facts only when it keeps every row of a
    /// built-in model (the C models: D131); otherwise none are added (exact, slower).
    pub(super) fn counting_guards(&self, model: &Model) -> Option<[B; 2]> {
        const ROWS: [&str; 2] = ["Atomicity", "SC-per-Location"];
        match (self.act(ROWS[0]), self.act(ROWS[1])) {
            (Some(a), Some(s)) if model.keeps_checks_of_builtin(&ROWS) => Some([a, s]),
            _ if self.axioms_assumed => Some([B::T, B::T]),
            _ => None,
        }
    }

    /// Under Atomicity (8.10.3) and SC-per-Location (8.10.5) every RMW of the
    /// chain reads from its immediate coherence predecessor (the initial write
    /// for position 1), so position k writes op applied k times to the initial
    /// value.
    fn chain_values(&mut self, init_val: i64, op: &Rmw, chain: &[EventId], le: &[Vec<B>]) {
        let n = chain.len();
        let Some(acts) = self.act.counting else { return };
        let init = self.p.init_events[self.p.events[chain[0]].access().map_or(0, |a| a.loc)];
        let mut v = init_val;
        for k in 1..=n {
            v = op.apply(v);
            for (i, &e) in chain.iter().enumerate() {
                let head = self.values.wval[e].iter().find(|x| x.0 == v).map_or(B::F, |x| x.1);
                // position k -> writes v (a value the location cannot hold: no such execution).
                self.f.clause(&[!acts[0], !acts[1], !le[i][k], le[i][k - 1], head]);
            }
        }
        // Reads-from is between neighbours: rf(w, e) <-> pos(w) = pos(e) - 1 (the
        // converse lets positions alone fix reads-from, so the solver searching
        // for an execution chooses an order, not an order and a matching).
        for (i, &e) in chain.iter().enumerate() {
            let from_init = self.choices.rf.get(&(init, e)).copied().unwrap_or(B::F);
            self.f.clause(&[!acts[0], !acts[1], !from_init, le[i][1]]);
            self.f.clause(&[!acts[0], !acts[1], !le[i][1], from_init]);
            for (j, &w) in chain.iter().enumerate() {
                let rf = self.choices.rf.get(&(w, e)).copied().unwrap_or(B::F);
                for k in 2..=n {
                    if i != j {
                        self.f.clause(&[!acts[0], !acts[1], !le[j][k - 1], le[j][k - 2], !le[i][k], le[i][k - 1], rf]);
                    }
                }
            }
            for (j, &w) in chain.iter().enumerate() {
                let rf = self.choices.rf.get(&(w, e)).copied().unwrap_or(B::F);
                if i == j || rf == B::F {
                    continue;
                }
                for k in 0..n {
                    self.f.clause(&[!acts[0], !acts[1], !rf, !le[j][k], le[i][k + 1]]);
                    self.f.clause(&[!acts[0], !acts[1], !rf, !le[i][k + 1], le[j][k]]);
                }
            }
        }
    }
}
