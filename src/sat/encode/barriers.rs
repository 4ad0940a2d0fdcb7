//! Barrier matching (8.9.4 (2), (3)), barrier progress, and the cycle check the progress uses.

use super::*;

impl Encoding<'_> {
    /// 8.9.4 (2, 3): barrier operations synchronize with the waits of the same
    /// barrier instance. A wait completes once the expected number of threads
    /// arrived; executions where it cannot (too few arrivals, or a cycle of waits)
    /// deadlock and end in no final state (paper-notes/barriers.md).
    pub(super) fn barriers(&mut self) {
        let p = self.p;
        let mut groups: BTreeMap<(u8, String), (Vec<EventId>, Vec<EventId>)> = BTreeMap::new();
        for e in &p.events {
            let (key, arrive) = match &e.kind {
                EventKind::BarrierArrive { key, .. } => ((0u8, format!("{:?}", key)), true),
                EventKind::BarrierWait { key, .. } => ((0u8, format!("{:?}", key)), false),
                EventKind::ClusterArrive { cluster, generation, .. } => {
                    ((1u8, format!("{}/{}", cluster, generation)), true)
                }
                EventKind::ClusterWait { cluster, generation } => ((1u8, format!("{}/{}", cluster, generation)), false),
                _ => continue,
            };
            let g = groups.entry(key).or_default();
            if arrive {
                g.0.push(e.id)
            } else {
                g.1.push(e.id)
            }
        }
        for ((kind, _), (arrives, waits)) in groups {
            if kind == 0 {
                self.hub_for(&arrives, &waits);
            }
            for &w in &waits {
                let tw = p.events[w].thread;
                let others: Vec<EventId> = arrives.iter().copied().filter(|&a| p.events[a].thread != tw).collect();
                let mut lits = Vec::new();
                for &a in &others {
                    let v = self.f.fresh();
                    self.f.implies(&[v], self.exec(a));
                    self.f.implies(&[v], self.exec(w));
                    if kind == 0 {
                        self.bar_sync.insert((a, w), v);
                    } else {
                        self.cluster_sync.insert((a, w), v);
                    }
                    lits.push((a, v));
                }
                let xw = self.exec(w);
                let guard = self.f.and(&[xw, self.act_progress]);
                match &p.events[w].kind {
                    EventKind::BarrierWait { expected: Expected::Arrivals, .. } => {
                        for &(a, v) in &lits {
                            let xa = self.exec(a);
                            self.f.implies(&[xa, guard], v);
                        }
                    }
                    EventKind::BarrierWait { expected: Expected::Count(n), .. } => {
                        let vs: Vec<B> = lits.iter().map(|x| x.1).collect();
                        self.f.at_least(guard, &vs, n.saturating_sub(1));
                    }
                    EventKind::ClusterWait { cluster, .. } => {
                        // Every other thread of the cluster must arrive.
                        for t in p.threads.iter().filter(|t| t.placement.cluster == *cluster && Some(t.id) != tw) {
                            let mine: Vec<B> =
                                lits.iter().filter(|(a, _)| p.events[*a].thread == Some(t.id)).map(|x| x.1).collect();
                            let mut c = mine.clone();
                            c.push(!guard);
                            self.f.clause(&c);
                            for &(a, v) in lits.iter().filter(|(a, _)| p.events[*a].thread == Some(t.id)) {
                                let xa = self.exec(a);
                                self.f.implies(&[xa, guard], v);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        self.hub_rel = self.hub_edges();
        self.progress();
    }

    /// No execution where waits form a cycle with program order is a final state.
    pub(super) fn progress(&mut self) {
        let p = self.p;
        let nodes: Vec<EventId> = p
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::BarrierArrive { .. }
                        | EventKind::BarrierWait { .. }
                        | EventKind::ClusterArrive { .. }
                        | EventKind::ClusterWait { .. }
                )
            })
            .map(|e| e.id)
            .collect();
        if nodes.is_empty() {
            return;
        }
        let hubbed = self.hub_waits();
        let mut edges = self.hub_rel.clone();
        for (&k, &v) in self.bar_sync.iter().chain(self.cluster_sync.iter()) {
            if !hubbed.contains(&k.1) || self.cluster_sync.contains_key(&k) {
                edges.insert(k, v);
            }
        }
        let mut nodes = nodes;
        nodes.extend(self.hub_nodes());
        for &a in &nodes {
            for &b in &nodes {
                if self.is_event(a) && self.is_event(b) && p.po(a, b) {
                    edges.insert((a, b), self.exec(a));
                }
            }
        }
        let act = self.act_progress;
        self.acyclic(&nodes, &edges, act);
    }

    /// Forbid cycles in `edges` over `nodes` (when `act` holds), via a closure relation.
    pub(super) fn acyclic(&mut self, nodes: &[EventId], edges: &Rel, act: B) {
        let live =
            crate::sat::rows::on_cycles(edges.iter().map(|(k, v)| (k.0, k.1, *v)), nodes.iter().copied().collect());
        let nodes: Vec<EventId> = nodes.iter().copied().filter(|n| live.contains(n)).collect();
        let edges: Rel =
            edges.iter().filter(|((a, b), _)| live.contains(a) && live.contains(b)).map(|(k, v)| (*k, *v)).collect();
        let (nodes, edges) = (&nodes[..], &edges);
        let mut succ: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
        for (&(a, b), &v) in edges {
            if v != B::F {
                succ.entry(a).or_default().push((b, v));
            }
        }
        let mut reach = Rel::default();
        for &x in nodes {
            crate::budget::check_time(); // an O(n) row may add no clause (D62)
            for &y in nodes {
                if x != y && self.compatible_node(x, y) {
                    let v = self.f.fresh();
                    reach.insert((x, y), v);
                }
            }
        }
        for (&(a, b), &v) in edges {
            if let Some(&r) = reach.get(&(a, b)) {
                self.f.implies(&[v], r);
            }
        }
        for &x in nodes {
            crate::budget::check_time(); // an O(n) row may add no clause (D62)
            for &y in nodes {
                let Some(&rxy) = reach.get(&(x, y)) else { continue };
                for &(z, e) in succ.get(&y).map(|v| v.as_slice()).unwrap_or(&[]) {
                    if z == x {
                        // A cycle x -> ... -> y -> x.
                        self.f.clause(&[!act, !rxy, !e]);
                    } else if let Some(&rxz) = reach.get(&(x, z)) {
                        self.f.implies(&[rxy, e], rxz);
                    }
                }
            }
        }
    }
}
