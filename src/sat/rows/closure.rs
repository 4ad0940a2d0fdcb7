//! Transitive closure, cycle checks and proxy-preserved base causality over
//! literal relations.
//!
//! A closure literal `c(x,y)` is only *forced* by paths (`edge -> c`,
//! `c(x,y) & edge(y,z) -> c(x,z)`): every axiom forbids pairs of a relation
//! built from it, so a solver never gains by setting one it need not, and its
//! least model is the closure of the performed edges (paper-notes/encoding.md,
//! "Compiled rows").

use super::val::{LRel, Pol};
use super::Compiler;
use crate::model::proxy::{fillings, requirement, ProxyRequirement};
use crate::sat::formula::B;
use rustc_hash::FxHashSet as HashSet;
use std::collections::VecDeque;

impl Compiler<'_, '_> {
    /// The closure literals of `edges`, for the pairs a path of edges can join
    /// (and whose nodes may both be performed). `live`: only these nodes.
    pub(super) fn horn_closure(&mut self, edges: &[(usize, usize, B)], live: Option<&HashSet<usize>>) -> LRel {
        self.seeded_closure(edges, edges, live)
    }

    /// `seed; edges*` in positive polarity: `seed(x,y) -> c(x,y)` and
    /// `c(x,y) & edge(y,z) -> c(x,z)`, whose least model is `seed; edges*`
    /// (with `seed = edges`: the transitive closure).
    pub(super) fn seeded_closure(
        &mut self,
        seed: &[(usize, usize, B)],
        edges: &[(usize, usize, B)],
        live: Option<&HashSet<usize>>,
    ) -> LRel {
        let n = self.nodes.n;
        let inside = |x: usize| live.is_none_or(|l| l.contains(&x));
        let adjacency = |pairs: &[(usize, usize, B)]| {
            let mut succ: Vec<Vec<(usize, B)>> = vec![Vec::new(); n];
            for &(a, b, v) in pairs {
                if v != B::F && inside(a) && inside(b) {
                    succ[a].push((b, v));
                }
            }
            succ
        };
        let (first, succ) = (adjacency(seed), adjacency(edges));
        let p = self.enc.p;
        let mut c = LRel::default();
        for (x, firsts) in first.iter().enumerate() {
            if firsts.is_empty() {
                continue;
            }
            // A row may add no clause for a while (D62).
            crate::budget::check_time();
            // The nodes reachable from x: one seed step, then edges.
            let mut seen = vec![false; n];
            let mut queue: VecDeque<usize> = firsts.iter().map(|s| s.0).collect();
            let mut order = Vec::new();
            while let Some(y) = queue.pop_front() {
                if seen[y] {
                    continue;
                }
                seen[y] = true;
                if self.nodes.compatible(p, x, y) {
                    order.push(y);
                    queue.extend(succ[y].iter().map(|s| s.0));
                }
            }
            for &y in &order {
                let v = self.enc.f.fresh();
                c.insert(x, y, v);
            }
            for &(y, e) in firsts {
                if let Some(&cxy) = c.pairs.get(&(x, y)) {
                    self.enc.f.implies(&[e], cxy);
                }
            }
            for &y in &order {
                let cxy = c.pairs[&(x, y)];
                for &(z, e) in &succ[y] {
                    if let Some(&cxz) = c.pairs.get(&(x, z)) {
                        self.enc.f.implies(&[cxy, e], cxz);
                    }
                }
            }
        }
        c
    }

    /// `acyclic E` when `act` holds: only nodes with an incoming and an
    /// outgoing edge (repeatedly) can lie on a cycle; a cycle is a closure pair
    /// `c(x,x)`.
    pub(super) fn forbid_cycles(&mut self, edges: &[(usize, usize, B)], act: B) {
        let live = on_cycles(edges.iter().map(|e| (e.0, e.1, e.2)), edges.iter().flat_map(|e| [e.0, e.1]).collect());
        if live.is_empty() {
            return;
        }
        let c = self.horn_closure(edges, Some(&live));
        for ((x, y), v) in c.sorted() {
            if x == y {
                self.enc.f.clause(&[!act, !v]);
            }
        }
    }

    /// 8.9.5 proxy-preserved base causality (`prims::proxy_preserved`) over the
    /// literal base causality `cb`: same location; no requirement, or one chain
    /// of `cb` steps through proxy fences (litmus-format.md 4.1).
    pub(super) fn proxy_preserved(&mut self, cb: &LRel, pol: Pol, cumulative: bool) -> LRel {
        let p = self.enc.p;
        let mut out = LRel::default();
        for ((x, y), v) in cb.sorted() {
            let (Some(ex), Some(ey)) = (self.nodes.event[x], self.nodes.event[y]) else { continue };
            match requirement(p, &p.events[ex], &p.events[ey], cumulative) {
                ProxyRequirement::Impossible => {}
                ProxyRequirement::Nothing => out.insert(x, y, v),
                ProxyRequirement::Chain(slots) => {
                    let mut chains: Vec<Vec<B>> = Vec::new();
                    for fences in fillings(&slots) {
                        let mut steps = Vec::with_capacity(fences.len() + 1);
                        let mut at = x;
                        for &f in &fences {
                            let node = self.nodes.of(p, f, false);
                            steps.push(cb.get(at, node));
                            at = node;
                        }
                        steps.push(cb.get(at, y));
                        if !steps.contains(&B::F) {
                            chains.push(steps);
                        }
                    }
                    let mut terms = rustc_hash::FxHashMap::default();
                    if !chains.is_empty() {
                        terms.insert((x, y), chains);
                    }
                    for (k, l) in self.or_of_ands(terms, pol).pairs {
                        out.insert(k.0, k.1, l);
                    }
                }
            }
        }
        out
    }
}

/// The nodes of `live` that may lie on a cycle of `edges`: only nodes with an
/// incoming and an outgoing edge among them, repeatedly.
pub(crate) fn on_cycles(
    edges: impl Iterator<Item = (usize, usize, B)> + Clone,
    mut live: HashSet<usize>,
) -> HashSet<usize> {
    loop {
        let (mut has_in, mut has_out) = (HashSet::default(), HashSet::default());
        for (a, b, v) in edges.clone() {
            if v != B::F && live.contains(&a) && live.contains(&b) {
                has_out.insert(a);
                has_in.insert(b);
            }
        }
        let before = live.len();
        live.retain(|x| has_in.contains(x) && has_out.contains(x));
        if live.len() == before {
            return live;
        }
    }
}
