//! Barrier instances as hub nodes (issue 14 "bounded memory", D63).
//!
//! A CTA barrier instance where every wait needs every other thread's arrival
//! (`bar.sync 0` by all threads of a CTA) synchronizes each arrival with each
//! wait (8.9.4 (2)): N threads give N^2 synchronizes-with pairs, and closing
//! base causality and the progress cycle check over them costs N^3 clauses
//! (400 threads: past 2 GB). Here such an instance gets one synthetic node H
//! (an id past the program's events): `arrive -> H -> wait`, with the same
//! paths as the pairs: a -> H holds when a is performed (and barrier progress
//! is on, as the pair literals are only forced then) and H -> w when w is
//! performed, so `a -> H -> w` holds exactly when the pair literal is forced.
//! The pair literals stay (decoding and the self-check read them); only
//! causality and the progress check go through H.

use super::encode::{Encoding, Rel};
use crate::program::{EventId, Expected};
use rustc_hash::FxHashSet as HashSet;

/// One barrier instance routed through a hub node.
#[derive(Clone, Debug)]
pub(crate) struct Hub {
    /// The synthetic node id (`>= p.events.len()`).
    pub id: EventId,
    pub arrives: Vec<EventId>,
    pub waits: Vec<EventId>,
}

impl Encoding<'_> {
    /// Is this a node id of the program (not a hub)?
    pub(crate) fn is_event(&self, x: EventId) -> bool {
        x < self.p.events.len()
    }

    /// `Program::compatible`, with hub nodes compatible with everything.
    pub(crate) fn compatible_node(&self, x: EventId, y: EventId) -> bool {
        !self.is_event(x) || !self.is_event(y) || self.p.compatible(x, y)
    }

    /// Does a CTA barrier group qualify for a hub? Only when every query assumes
    /// the axioms (explanations keep the pairs for `can_synchronize`), and every
    /// wait needs every other thread's arrival: `Arrivals`, or a count equal to
    /// the number of threads arriving.
    pub(crate) fn hub_for(&mut self, arrives: &[EventId], waits: &[EventId]) -> bool {
        let p = self.p;
        if !self.axioms_assumed || waits.is_empty() || arrives.is_empty() {
            return false;
        }
        let all = waits.iter().all(|&w| {
            let others = arrives.iter().filter(|&&a| p.events[a].thread != p.events[w].thread).count();
            match p.events[w].sync().map(|s| &s.expected) {
                Some(Expected::Arrivals) => true,
                Some(Expected::Count(n)) => n.saturating_sub(1) == others,
                _ => false,
            }
        });
        if all {
            let id = p.events.len() + self.sync.hubs.len();
            self.sync.hubs.push(Hub { id, arrives: arrives.to_vec(), waits: waits.to_vec() });
        }
        all
    }

    /// Waits whose synchronization goes through a hub (their pairs are not
    /// synchronizes-with edges of their own).
    pub(crate) fn hub_waits(&self) -> HashSet<EventId> {
        self.sync.hubs.iter().flat_map(|h| h.waits.iter().copied()).collect()
    }

    /// The hub edges: `a -> H` (a performed, progress on) and `H -> w` (w performed).
    pub(crate) fn hub_edges(&mut self) -> Rel {
        let mut edges = Rel::default();
        for h in self.sync.hubs.clone() {
            for &a in &h.arrives {
                let xa = self.exec(a);
                let lit = self.f.and(&[xa, self.act.progress]);
                edges.insert((a, h.id), lit);
            }
            for &w in &h.waits {
                edges.insert((h.id, w), self.exec(w));
            }
        }
        edges
    }

    /// Hub node ids.
    pub(crate) fn hub_nodes(&self) -> Vec<EventId> {
        self.sync.hubs.iter().map(|h| h.id).collect()
    }
}
