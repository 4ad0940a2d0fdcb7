//! Shortest paths that justify derived edges, for explanations: for a base
//! causality, proxy-preserved base causality or causality edge the model's
//! evaluator computed, a chain of basic edges (po, sync, obs) that shows it.
//! Presentation only: which pairs are related is the model's answer.

use super::kinds::{EdgeKind, Step};
use super::view::View;
use crate::model::proxy::{fillings, requirement, ProxyRequirement};
use std::collections::VecDeque;

impl View<'_> {
    /// The fences a proxy-preserved path from `x` to `y` passes, in order.
    pub(crate) fn proxy_waypoints(&self, x: usize, y: usize) -> Option<Vec<usize>> {
        match requirement(self.p, self.event(x), self.event(y), false) {
            ProxyRequirement::Impossible => None,
            ProxyRequirement::Nothing => Some(Vec::new()),
            ProxyRequirement::Chain(slots) => fillings(&slots).into_iter().find_map(|fences| {
                // Fences of this execution only (a fence on another path is no event here).
                let way: Vec<usize> = fences.iter().map(|&f| self.l(f)).collect::<Option<_>>()?;
                let mut pts = vec![x];
                pts.extend(&way);
                pts.push(y);
                pts.windows(2).all(|w| self.cb.has(w[0], w[1])).then_some(way)
            }),
        }
    }

    /// Breadth-first shortest path from `a` to `b` over the given successor
    /// function (a shortest cycle through `a` when `b == a`).
    pub(crate) fn bfs(&self, a: usize, b: usize, succ: &dyn Fn(usize) -> Vec<(usize, EdgeKind)>) -> Option<Vec<Step>> {
        let n = self.n();
        let mut prev: Vec<Option<(usize, EdgeKind)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut q = VecDeque::new();
        seen[a] = true;
        q.push_back(a);
        while let Some(u) = q.pop_front() {
            for (v, k) in succ(u) {
                if v == b {
                    let mut path = vec![Step { from: u, kind: k, to: v }];
                    let mut at = u;
                    while at != a {
                        let (pu, pk) = prev[at]?;
                        path.push(Step { from: pu, kind: pk, to: at });
                        at = pu;
                    }
                    path.reverse();
                    return Some(path);
                }
                if !seen[v] {
                    seen[v] = true;
                    prev[v] = Some((u, k));
                    q.push_back(v);
                }
            }
        }
        None
    }

    /// Basic steps of base causality: the next event in program order, a sync
    /// edge, or an asynchronous operation's issue or completion order.
    fn cb_succ(&self, u: usize) -> Vec<(usize, EdgeKind)> {
        let mut v = Vec::new();
        for w in 0..self.n() {
            if self.po_next.has(u, w) {
                v.push((w, EdgeKind::Po));
            }
        }
        for w in 0..self.n() {
            if self.sw.has(u, w) {
                v.push((w, EdgeKind::Sync));
            }
        }
        for w in 0..self.n() {
            if self.async_steps.has(u, w) {
                v.push((w, EdgeKind::Async));
            }
        }
        v
    }

    /// A shortest base-causality path (po and sync steps) from `a` to `b`.
    pub fn cb_path(&self, a: usize, b: usize) -> Option<Vec<Step>> {
        if a == b {
            return Some(Vec::new());
        }
        self.bfs(a, b, &|u| self.cb_succ(u))
    }

    /// A proxy-preserved base-causality path (through the proxy fences it needs).
    pub fn ppcb_path(&self, x: usize, y: usize) -> Option<Vec<Step>> {
        if !self.ppcb.has(x, y) {
            return None;
        }
        let way = self.proxy_waypoints(x, y)?;
        let mut pts = vec![x];
        pts.extend(way);
        pts.push(y);
        let mut path = Vec::new();
        for w in pts.windows(2) {
            path.extend(self.cb_path(w[0], w[1])?);
        }
        Some(path)
    }

    /// A shortest causality path from `x` to `y` (8.9.5): proxy-preserved base
    /// causality, or an observation edge followed by it.
    pub fn cause_path(&self, x: usize, y: usize) -> Option<Vec<Step>> {
        if !self.cause.has(x, y) {
            return None;
        }
        let mut best = self.ppcb_path(x, y);
        for z in 0..self.n() {
            if self.obs.has(x, z) && self.ppcb.has(z, y) {
                if let Some(rest) = self.ppcb_path(z, y) {
                    let mut path = vec![Step { from: x, kind: EdgeKind::Obs, to: z }];
                    path.extend(rest);
                    if best.as_ref().is_none_or(|b| compress(&path).len() < compress(b).len()) {
                        best = Some(path);
                    }
                }
            }
        }
        // A model that splits read-modify-writes (ptx-alloy) can order W before
        // the write part of atomic Y by observing Y's read part: shown as W -obs-> Y.
        best.or_else(|| self.obs.has(x, y).then(|| vec![Step { from: x, kind: EdgeKind::Obs, to: y }]))
    }
}

/// Merge runs of program-order steps into one step (`W1 -po-> F1` for a run).
pub fn compress(path: &[Step]) -> Vec<Step> {
    compress_keeping(path, |_| false)
}

/// [`compress`], keeping the events for which `keep` holds (proxy fences a
/// path must pass) visible.
pub fn compress_keeping(path: &[Step], keep: impl Fn(usize) -> bool) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for s in path {
        if let Some(last) = out.last_mut() {
            if last.kind == EdgeKind::Po && s.kind == EdgeKind::Po && !keep(last.to) {
                last.to = s.to;
                continue;
            }
        }
        out.push(*s);
    }
    out
}
