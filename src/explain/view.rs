//! One concrete execution with every relation of chapter 8 computed by plain
//! code (independent of the SAT encoding), plus *paths*: for each derived edge
//! (base causality, causality) a shortest chain of basic edges (po, sync, obs)
//! that justifies it, so explanations can show it.
//!
//! Events are numbered locally `0..n` (initial writes first, then the chosen
//! traces' events in thread and program order), like `reference::enumerate::Ctx`.

use super::names::event_names;
use crate::ast::{FenceSem, Scope};
use crate::model::patterns::{acquire_patterns, release_patterns, Pattern};
use crate::model::proxy::{fillings, requirement, ProxyRequirement};
use crate::model::strong::morally_strong;
use crate::outcome::Execution;
use crate::program::{EventId, EventKind, Program};
use std::collections::{BTreeMap, VecDeque};

/// A dense relation over local event numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mat {
    n: usize,
    bits: Vec<bool>,
}

impl Mat {
    pub fn new(n: usize) -> Mat {
        Mat { n, bits: vec![false; n * n] }
    }
    pub fn has(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.n + b]
    }
    pub fn add(&mut self, a: usize, b: usize) {
        self.bits[a * self.n + b] = true;
    }
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for a in 0..self.n {
            for b in 0..self.n {
                if self.has(a, b) {
                    v.push((a, b));
                }
            }
        }
        v
    }
    /// Transitive closure (Warshall).
    pub fn closure(&self) -> Mat {
        let mut r = self.clone();
        for k in 0..self.n {
            for a in 0..self.n {
                if r.has(a, k) {
                    for b in 0..self.n {
                        if r.has(k, b) {
                            r.add(a, b);
                        }
                    }
                }
            }
        }
        r
    }
    /// Transitive reduction of a strict partial order: the edges not implied by two others.
    pub fn reduction(&self) -> Mat {
        let mut r = Mat::new(self.n);
        for (a, b) in self.pairs() {
            if !(0..self.n).any(|c| c != a && c != b && self.has(a, c) && self.has(c, b)) {
                r.add(a, b);
            }
        }
        r
    }
}

/// The kinds of edges explanations, pictures and JSON talk about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Program order (8.9.1); drawn between consecutive events of a thread.
    Po,
    /// Reads-from (8.9.7).
    Rf,
    /// Coherence order (8.9.6).
    Co,
    /// From-reads: a read before a write in communication order (8.9.7).
    Fr,
    /// Fence-SC order (8.9.3).
    Sc,
    /// Synchronizes-with (8.9.4).
    Sync,
    /// Observation order (8.9.2).
    Obs,
    /// Causality order (8.9.5), cross-thread edges only in pictures.
    Cause,
    /// Data, address or control dependency (8.10.4).
    Dep,
}

impl EdgeKind {
    pub fn label(self) -> &'static str {
        match self {
            EdgeKind::Po => "po",
            EdgeKind::Rf => "rf",
            EdgeKind::Co => "co",
            EdgeKind::Fr => "fr",
            EdgeKind::Sc => "sc",
            EdgeKind::Sync => "sync",
            EdgeKind::Obs => "obs",
            EdgeKind::Cause => "cause",
            EdgeKind::Dep => "dep",
        }
    }
}

/// One edge of a path, in local numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Step {
    pub from: usize,
    pub kind: EdgeKind,
    pub to: usize,
}

/// Why one operation synchronizes with another (8.9.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncWhy {
    /// Rule 1: fence.sc X precedes fence.sc Y in Fence-SC order.
    FenceSc,
    /// Rule 2: CTA barrier arrive -> wait.
    Barrier,
    /// Rule 3: barrier.cluster.arrive -> barrier.cluster.wait.
    ClusterBarrier,
    /// Rule 4: release pattern (bound, write) -> acquire pattern (read, bound), the
    /// write preceding the read in observation order.
    Patterns { rel: LPattern, acq: LPattern },
}

/// A release or acquire pattern in local numbers (see `model::patterns::Pattern`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LPattern {
    pub bound: usize,
    pub access: usize,
}

pub struct View<'p> {
    pub p: &'p Program,
    pub x: Execution,
    /// Local number -> event.
    pub ev: Vec<EventId>,
    /// Event -> local number (executed events).
    pub local: BTreeMap<EventId, usize>,
    /// Display names (`W1`, `R2`, `F1`, `W0(x)`), by local number.
    pub names: Vec<String>,
    pub po: Mat,
    /// Immediate program order (consecutive events of a trace).
    pub po_next: Mat,
    pub ms: Mat,
    pub rf: Mat,
    pub co: Mat,
    pub fr: Mat,
    pub sc: Mat,
    pub dep: Mat,
    pub obs: Mat,
    /// For observation edges through atomic operations: the intermediate atomics.
    pub obs_via: BTreeMap<(usize, usize), Vec<usize>>,
    pub sw: Mat,
    pub sw_why: BTreeMap<(usize, usize), SyncWhy>,
    /// Base causality (po ∪ sw)⁺.
    pub cb: Mat,
    /// Proxy-preserved base causality.
    pub ppcb: Mat,
    /// Causality order.
    pub cause: Mat,
}

impl<'p> View<'p> {
    pub fn new(p: &'p Program, x: &Execution) -> View<'p> {
        let ev: Vec<EventId> = p.events.iter().filter(|e| x.executes(p, e.id) && (e.thread.is_some() || matches!(e.kind, EventKind::Init))).map(|e| e.id).collect();
        let local: BTreeMap<EventId, usize> = ev.iter().enumerate().map(|(i, &e)| (e, i)).collect();
        let n = ev.len();
        let names = event_names(p, &ev);
        let mut v = View {
            p,
            x: x.clone(),
            ev,
            local,
            names,
            po: Mat::new(n),
            po_next: Mat::new(n),
            ms: Mat::new(n),
            rf: Mat::new(n),
            co: Mat::new(n),
            fr: Mat::new(n),
            sc: Mat::new(n),
            dep: Mat::new(n),
            obs: Mat::new(n),
            obs_via: BTreeMap::new(),
            sw: Mat::new(n),
            sw_why: BTreeMap::new(),
            cb: Mat::new(n),
            ppcb: Mat::new(n),
            cause: Mat::new(n),
        };
        v.compute();
        v
    }

    pub fn n(&self) -> usize {
        self.ev.len()
    }

    pub fn event(&self, i: usize) -> &'p crate::program::Event {
        &self.p.events[self.ev[i]]
    }

    pub fn is_init(&self, i: usize) -> bool {
        self.event(i).thread.is_none()
    }

    pub fn is_write(&self, i: usize) -> bool {
        self.event(i).write_loc().is_some()
    }

    pub fn is_read(&self, i: usize) -> bool {
        self.event(i).read_loc().is_some()
    }

    /// The location a memory operation or initial write touches.
    pub fn loc(&self, i: usize) -> Option<usize> {
        let e = self.event(i);
        match &e.kind {
            EventKind::Init => e.init_loc,
            EventKind::Mem(a) => Some(a.loc),
            _ => None,
        }
    }

    pub fn loc_name(&self, i: usize) -> String {
        self.loc(i).map(|l| self.p.locations[l].name.clone()).unwrap_or_default()
    }

    /// The write `r` reads from.
    pub fn rf_source(&self, r: usize) -> Option<usize> {
        (0..self.n()).find(|&w| self.rf.has(w, r))
    }

    /// The value a read returns in this execution.
    pub fn read_value(&self, r: usize) -> Option<i64> {
        self.rf_source(r).and_then(|w| self.write_value(w))
    }

    /// The value a write writes in this execution.
    pub fn write_value(&self, w: usize) -> Option<i64> {
        self.x.value_written(self.p, self.ev[w])
    }

    fn l(&self, e: EventId) -> Option<usize> {
        self.local.get(&e).copied()
    }

    fn compute(&mut self) {
        let p = self.p;
        let n = self.n();
        for a in 0..n {
            for b in 0..n {
                let (ea, eb) = (self.event(a), self.event(b));
                if p.po(ea.id, eb.id) {
                    self.po.add(a, b);
                    if eb.po == ea.po + 1 {
                        self.po_next.add(a, b);
                    }
                }
                if a != b && morally_strong(p, ea, eb) {
                    self.ms.add(a, b);
                }
            }
        }
        for (&r, &w) in &self.x.rf.clone() {
            if let (Some(lw), Some(lr)) = (self.l(w), self.l(r)) {
                self.rf.add(lw, lr);
            }
        }
        for &(a, b) in &self.x.co.clone() {
            if let (Some(la), Some(lb)) = (self.l(a), self.l(b)) {
                self.co.add(la, lb);
            }
        }
        for &(a, b) in &self.x.sc.clone() {
            if let (Some(la), Some(lb)) = (self.l(a), self.l(b)) {
                self.sc.add(la, lb);
            }
        }
        // 8.9.7 (3): fr = rf⁻¹; co.
        for r in 0..n {
            if let Some(w0) = self.rf_source(r) {
                for w in 0..n {
                    if w != r && self.co.has(w0, w) {
                        self.fr.add(r, w);
                    }
                }
            }
        }
        for &t in &self.x.traces.clone() {
            for &(r, e) in &p.traces[t].deps {
                if let (Some(lr), Some(le)) = (self.l(r), self.l(e)) {
                    if self.event(le).access().is_some() {
                        self.dep.add(lr, le);
                    }
                }
            }
        }
        self.observation();
        self.synchronizes();
        // 8.9.5 base causality: (po ∪ sw)⁺.
        let mut step = self.po.clone();
        for (a, b) in self.sw.pairs() {
            step.add(a, b);
        }
        self.cb = step.closure();
        // Proxy-preserved base causality and causality.
        for a in 0..n {
            for b in 0..n {
                if self.proxy_preserved(a, b) {
                    self.ppcb.add(a, b);
                }
            }
        }
        for a in 0..n {
            for b in 0..n {
                if self.ppcb.has(a, b) || (0..n).any(|z| self.obs.has(a, z) && self.ppcb.has(z, b)) {
                    self.cause.add(a, b);
                }
            }
        }
    }

    /// 8.9.2: W precedes R if they are morally strong and R reads W's value, or
    /// W precedes an atomic Z (that writes) which precedes R.
    fn observation(&mut self) {
        let n = self.n();
        for (w, r) in self.rf.pairs() {
            if !self.is_init(w) && self.ms.has(w, r) {
                self.obs.add(w, r);
            }
        }
        loop {
            let mut added = false;
            for w in 0..n {
                for z in 0..n {
                    if !self.obs.has(w, z) || !self.event(z).access().is_some_and(|a| a.atomic && a.writes) {
                        continue;
                    }
                    for r in 0..n {
                        if r != w && self.obs.has(z, r) && !self.obs.has(w, r) {
                            self.obs.add(w, r);
                            let mut via = self.obs_via.get(&(w, z)).cloned().unwrap_or_default();
                            via.push(z);
                            via.extend(self.obs_via.get(&(z, r)).cloned().unwrap_or_default());
                            self.obs_via.insert((w, r), via);
                            added = true;
                        }
                    }
                }
            }
            if !added {
                break;
            }
        }
    }

    /// 8.9.4, rules 1-4.
    fn synchronizes(&mut self) {
        let p = self.p;
        for (a, b) in self.sc.pairs() {
            self.add_sw(a, b, SyncWhy::FenceSc);
        }
        for &(a, b) in &self.x.barrier_sync.clone() {
            let (Some(la), Some(lb)) = (self.l(a), self.l(b)) else { continue };
            match self.event(la).kind {
                EventKind::ClusterArrive { relaxed: true, .. } => {}
                EventKind::ClusterArrive { .. } => self.add_sw(la, lb, SyncWhy::ClusterBarrier),
                _ => self.add_sw(la, lb, SyncWhy::Barrier),
            }
        }
        let lp = |v: &View, pat: &Pattern| -> Option<LPattern> { Some(LPattern { bound: v.l(pat.bound)?, access: v.l(pat.access)? }) };
        let rels: Vec<LPattern> = release_patterns(p).iter().filter_map(|x| lp(self, x)).collect();
        let acqs: Vec<LPattern> = acquire_patterns(p).iter().filter_map(|x| lp(self, x)).collect();
        for x in &rels {
            for y in &acqs {
                if self.event(x.bound).thread != self.event(y.bound).thread && self.obs.has(x.access, y.access) && self.ms.has(x.bound, y.bound) {
                    self.add_sw(x.bound, y.bound, SyncWhy::Patterns { rel: *x, acq: *y });
                }
            }
        }
    }

    fn add_sw(&mut self, a: usize, b: usize, why: SyncWhy) {
        if a != b && !self.sw.has(a, b) {
            self.sw.add(a, b);
            self.sw_why.insert((a, b), why);
        }
    }

    /// 8.9.5 proxy-preserved base causality, with the rules of `model::proxy`.
    fn proxy_preserved(&self, x: usize, y: usize) -> bool {
        if x == y || !self.cb.has(x, y) {
            return false;
        }
        self.proxy_waypoints(x, y).is_some()
    }

    /// The fences a proxy-preserved path from `x` to `y` passes, in order.
    fn proxy_waypoints(&self, x: usize, y: usize) -> Option<Vec<usize>> {
        match requirement(self.p, self.event(x), self.event(y)) {
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

    /// Basic steps of base causality: the next event in program order, or a sync edge.
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
        best
    }

    /// Is `i` a fence.sc?
    pub fn is_fence_sc(&self, i: usize) -> bool {
        matches!(self.event(i).kind, EventKind::Fence { sem: FenceSem::Sc, .. })
    }

    /// The scope of a strong operation.
    pub fn scope(&self, i: usize) -> Option<Scope> {
        match &self.event(i).kind {
            EventKind::Fence { scope, .. } => Some(*scope),
            EventKind::Mem(a) if a.sem.is_strong() => Some(a.scope),
            _ => None,
        }
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
