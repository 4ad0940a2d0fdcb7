//! Barrier matching (8.9.4 (2), (3)), barrier progress, and the cycle check the progress uses.

use super::*;

impl Encoding<'_> {
    /// 8.9.4 (2, 3): barrier operations synchronize with the waits of the same
    /// barrier instance. A wait completes once the expected number of threads
    /// arrived; executions where it cannot (too few arrivals, or a cycle of waits)
    /// deadlock and end in no final state (paper-notes/barriers.md).
    pub(super) fn barriers(&mut self) {
        let p = self.p;
        let mut groups: BTreeMap<&SyncKey, (Vec<EventId>, Vec<EventId>)> = BTreeMap::new();
        for e in &p.events {
            let Some(sync) = e.sync() else { continue };
            let g = groups.entry(&sync.key).or_default();
            match sync.role {
                SyncRole::Arrive => g.0.push(e.id),
                SyncRole::Wait => g.1.push(e.id),
            }
        }
        for (key, (arrives, waits)) in groups {
            if key.kind != SyncKind::ClusterBarrier {
                self.hub_for(&arrives, &waits);
            }
            for &w in &waits {
                self.match_wait(w, &arrives);
            }
        }
        self.sync.hub_rel = self.hub_edges();
        self.progress();
    }

    /// The pair literals of wait `w` with the `arrives` of other threads at its
    /// key, and what it expects ([`Expected`]) when it is performed and barrier
    /// progress is on: every performed arrival; at least `n - 1` of them; or
    /// one of each listed thread other than the waiter, each performed one.
    fn match_wait(&mut self, w: EventId, arrives: &[EventId]) {
        let p = self.p;
        let tw = p.events[w].thread;
        let mut lits = Vec::new();
        for &a in arrives.iter().filter(|&&a| p.events[a].thread != tw) {
            let v = self.f.fresh();
            self.f.implies(&[v], self.exec(a));
            self.f.implies(&[v], self.exec(w));
            self.sync.sync_pairs.insert((a, w), v);
            lits.push((a, v));
        }
        let xw = self.exec(w);
        let guard = self.f.and(&[xw, self.act.progress]);
        let Some(sync) = p.events[w].sync() else { return };
        match &sync.expected {
            Expected::Arrivals => {
                for &(a, v) in &lits {
                    let xa = self.exec(a);
                    self.f.implies(&[xa, guard], v);
                }
            }
            Expected::Count(n) => {
                let vs: Vec<B> = lits.iter().map(|x| x.1).collect();
                self.f.at_least(guard, &vs, n.saturating_sub(1));
            }
            Expected::Threads(threads) => {
                for &t in threads.iter().filter(|&&t| Some(t) != tw) {
                    let mine: Vec<(EventId, B)> =
                        lits.iter().copied().filter(|(a, _)| p.events[*a].thread == Some(t)).collect();
                    let mut c: Vec<B> = mine.iter().map(|x| x.1).collect();
                    c.push(!guard);
                    self.f.clause(&c);
                    for (a, v) in mine {
                        let xa = self.exec(a);
                        self.f.implies(&[xa, guard], v);
                    }
                }
            }
        }
        if let (Some((op, result)), Some(own)) = (sync.result, sync.value) {
            let guard = self.f.and(&[xw, self.act.values]);
            self.reduction(guard, (op, result, own), &lits);
        }
        // A warp collective's wait is matched only with arrivals carrying the
        // values its path assumes (D174).
        if !sync.assumed.is_empty() {
            let guard = self.f.and(&[xw, self.act.values]);
            for &(a, v) in &lits {
                let arrive = &p.events[a];
                if !sync.assumption_holds(arrive.thread, arrive.sync().and_then(|s| s.value)) {
                    self.f.clause(&[!guard, !v]);
                }
            }
        }
    }

    /// The wait's assumed `result` is [`reduce`](crate::program::reduce) of its `own` value and those
    /// of its matched arrivals (pair literals `lits`), under `guard`. Values
    /// are 0 or 1 (predicates): `.popc` needs exactly `result - own` matched
    /// ones; `.and` a matched zero exactly when the result is 0 and its own
    /// value 1; `.or` a matched one exactly when the result is 1 and its own 0.
    fn reduction(&mut self, guard: B, (op, result, own): (RedOp, i64, i64), lits: &[(EventId, B)]) {
        let p = self.p;
        let value = |a: EventId| p.events[a].sync().and_then(|s| s.value).unwrap_or(0);
        let ones: Vec<B> = lits.iter().filter(|x| value(x.0) != 0).map(|x| x.1).collect();
        let zeros: Vec<B> = lits.iter().filter(|x| value(x.0) == 0).map(|x| x.1).collect();
        // (matched literals, how many at least, how many at most) that `result` needs.
        let need: Option<(&[B], usize, usize)> = match (op, result != 0, own != 0) {
            (RedOp::Popc, ..) => match usize::try_from(result - own) {
                Ok(k) => Some((&ones, k, k)),
                Err(_) => Some((&[], 1, 0)),
            },
            (RedOp::And, true, true) | (RedOp::Or, false, false) => {
                Some((if op == RedOp::And { &zeros } else { &ones }, 0, 0))
            }
            (RedOp::And, true, false) | (RedOp::Or, false, true) => Some((&[], 1, 0)),
            (RedOp::And, false, true) => Some((&zeros, 1, usize::MAX)),
            (RedOp::Or, true, false) => Some((&ones, 1, usize::MAX)),
            (RedOp::And, false, false) | (RedOp::Or, true, true) => None,
        };
        let Some((xs, least, most)) = need else { return };
        if least > most {
            self.f.clause(&[!guard]);
            return;
        }
        self.f.at_least(guard, xs, least);
        if most < xs.len() {
            let negated: Vec<B> = xs.iter().map(|&x| !x).collect();
            self.f.at_least(guard, &negated, xs.len() - most);
        }
    }

    /// No execution where waits form a cycle with program order is a final state.
    pub(super) fn progress(&mut self) {
        let p = self.p;
        let nodes: Vec<EventId> = p.events.iter().filter(|e| e.sync().is_some()).map(|e| e.id).collect();
        if nodes.is_empty() {
            return;
        }
        let hubbed = self.hub_waits();
        let mut edges = self.sync.hub_rel.clone();
        for (&k, &v) in self.sync.sync_pairs.iter() {
            if !hubbed.contains(&k.1) {
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
        let act = self.act.progress;
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
