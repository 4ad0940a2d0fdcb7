//! One concrete execution as explanations see it: every derived relation and
//! every axiom verdict computed by the row evaluator of the model in use
//! ([`crate::model::explain_api`]), plus what presentation needs beyond them:
//! display names, immediate program order, why each synchronization and
//! observation edge holds, and (in [`super::paths`]) shortest paths that
//! justify derived edges.
//!
//! Events are numbered locally `0..n` (initial writes first, then the chosen
//! traces' events in thread and program order), one event per operation under
//! every model (a split read-modify-write is shown as its operation).

pub use super::kinds::{EdgeKind, LPattern, Step, SyncWhy};
pub use super::mat::Mat;
use super::names::event_names;
pub use super::paths::{compress, compress_keeping};
use crate::ast::{FenceSem, Scope};
use crate::model::explain_api::{evaluate, CheckResult};
use crate::model::rows::Model;
use crate::outcome::Execution;
use crate::program::{EventId, EventKind, Program, SyncKind};
use std::collections::BTreeMap;

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
    pub exchange: Mat,
    pub obs: Mat,
    /// For observation edges through atomic operations: the intermediate atomics.
    pub obs_via: BTreeMap<(usize, usize), Vec<usize>>,
    pub sw: Mat,
    pub sw_why: BTreeMap<(usize, usize), SyncWhy>,
    /// The issue and completion orders of asynchronous operations
    /// (the model's `issue` and `async-order`, 8.9.1.1): steps of base causality.
    pub async_steps: Mat,
    /// Base causality (po ∪ sw ∪ the async steps)⁺.
    pub cb: Mat,
    /// Proxy-preserved base causality.
    pub ppcb: Mat,
    /// Causality order.
    pub cause: Mat,
    /// Every check row of the model, in model order, with its verdict.
    pub checks: Vec<CheckResult>,
    /// Every relation the model's rows define, by name (for rows no wording above names).
    pub rows: BTreeMap<String, crate::model::rel::Rel>,
}

impl<'p> View<'p> {
    pub fn new(p: &'p Program, x: &Execution, model: &Model) -> View<'p> {
        let ev: Vec<EventId> = p
            .events
            .iter()
            .filter(|e| x.executes(p, e.id) && (e.thread.is_some() || matches!(e.kind, EventKind::Init)))
            .map(|e| e.id)
            .collect();
        let local: BTreeMap<EventId, usize> = ev.iter().enumerate().map(|(i, &e)| (e, i)).collect();
        let n = ev.len();
        let names = event_names(p, &ev);
        let ev_model = evaluate(model, p, x, &ev);
        // A relation the model does not define is shown empty (a toy model may lack one).
        let rel = |name: &str| ev_model.rels.get(name).map_or_else(|| Mat::new(n), |r| Mat::from_rel(n, r));
        let mut v = View {
            p,
            x: x.clone(),
            ev,
            local,
            names,
            po: rel("po"),
            po_next: Mat::new(n),
            ms: rel("ms"),
            rf: rel("rf"),
            co: rel("co"),
            // RC11 calls from-reads `rb` (rc11.cat "let rb = (rf^-1; mo) \\ id").
            fr: if ev_model.rels.contains_key("fr") { rel("fr") } else { rel("rb") },
            sc: rel("sc"),
            dep: rel("dep"),
            exchange: rel("exchange"),
            obs: rel("obs"),
            obs_via: BTreeMap::new(),
            sw: rel("sw"),
            sw_why: BTreeMap::new(),
            async_steps: Mat::new(n),
            cb: rel("cb"),
            ppcb: rel("ppcb"),
            cause: rel("cause"),
            checks: ev_model.checks,
            rows: ev_model.rels.clone(),
        };
        for (a, b) in v.po.pairs() {
            if v.event(b).po == v.event(a).po + 1 {
                v.po_next.add(a, b);
            }
        }
        for (a, b) in rel("issue").pairs().into_iter().chain(rel("async-order").pairs()) {
            v.async_steps.add(a, b);
        }
        v.obs_via = v.observation_chains();
        v.sw_why = v.sync_reasons(&rel("bar"), &rel("relpat"), &rel("acqpat"));
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

    pub(crate) fn l(&self, e: EventId) -> Option<usize> {
        self.local.get(&e).copied()
    }

    /// For each observation edge W -> R (8.9.2) that is not itself a
    /// reads-from edge: the operations on the reads-from chain between them
    /// (each reads from the one before), found by following R's sources back.
    fn observation_chains(&self) -> BTreeMap<(usize, usize), Vec<usize>> {
        let mut out = BTreeMap::new();
        for (w, r) in self.obs.pairs() {
            let mut via = Vec::new();
            let mut at = r;
            while let Some(src) = self.rf_source(at).filter(|&s| s != w && via.len() < self.n()) {
                via.push(src);
                at = src;
            }
            if !via.is_empty() && self.rf_source(at) == Some(w) {
                via.reverse();
                out.insert((w, r), via);
            }
        }
        out
    }

    /// Which rule of 8.9.4 makes each synchronizes-with edge of the model hold:
    /// Fence-SC order, a barrier matching, or the first release/acquire
    /// pattern pair (in program order) whose write precedes its read in
    /// observation order.
    fn sync_reasons(&self, bar: &Mat, relpat: &Mat, acqpat: &Mat) -> BTreeMap<(usize, usize), SyncWhy> {
        let rels: Vec<LPattern> =
            relpat.pairs().into_iter().map(|(bound, access)| LPattern { bound, access }).collect();
        let mut acqs: Vec<LPattern> =
            acqpat.pairs().into_iter().map(|(access, bound)| LPattern { bound, access }).collect();
        acqs.sort_by_key(|y| (y.bound, y.access));
        let mut out = BTreeMap::new();
        for (a, b) in self.sw.pairs() {
            let why = if self.sc.has(a, b) {
                SyncWhy::FenceSc
            } else if bar.has(a, b) {
                match self.event(a).sync().map(|s| s.key.kind) {
                    Some(SyncKind::ClusterBarrier) => SyncWhy::ClusterBarrier,
                    _ => SyncWhy::Barrier,
                }
            } else {
                let pair = rels.iter().filter(|x| x.bound == a).find_map(|x| {
                    acqs.iter().find(|y| y.bound == b && self.obs.has(x.access, y.access)).map(|y| (*x, *y))
                });
                match pair {
                    Some((rel, acq)) => SyncWhy::Patterns { rel, acq },
                    None => continue,
                }
            };
            out.insert((a, b), why);
        }
        out
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
