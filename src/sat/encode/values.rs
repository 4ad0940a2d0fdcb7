//! The values each write writes and the reads-from choices (8.9.7).

use super::*;

impl Encoding<'_> {
    /// The values each write may write: its constant, or for a read-modify-write
    /// its operation applied to each value the location can hold.
    pub(super) fn write_values(&mut self) {
        let p = self.p;
        self.values.wval = vec![Vec::new(); p.events.len()];
        for e in &p.events {
            if let Some(&t) = p.symbolic.as_ref().and_then(|s| s.write.get(&e.id)) {
                // A symbolic plain write (D185) writes the value of its term.
                self.values.wval[e.id] = self.term_lits(t);
            } else if let Some(c) = e.written_value(p) {
                self.values.wval[e.id] = vec![(c, B::T)];
            } else if let Some(per_path) = p.path_writes(e.id) {
                // A merged plain write (D65) writes the constant of the chosen path.
                self.values.wval[e.id] = per_path.iter().map(|(v, paths)| (*v, self.any_trace(paths))).collect();
            } else if let Some(op) = e.access().and_then(|a| a.rmw.as_ref()) {
                let loc = &p.locations[e.access().map(|a| a.loc).unwrap_or(0)];
                let vals: std::collections::BTreeSet<i64> = match self.symbolic_operands(e.id) {
                    // Symbolic operands: the result is one of the location's values (else no execution).
                    Some(_) => loc.values.iter().copied().collect(),
                    None => loc.values.iter().map(|&v| op.apply(v)).collect(),
                };
                self.values.wval[e.id] = vals.into_iter().map(|v| (v, self.f.fresh())).collect();
            }
        }
    }

    /// A read-modify-write writes its operation applied to the value of the write
    /// it reads from (least fixpoint: the literals are only ever forced).
    pub(super) fn rmw_values(&mut self) {
        let p = self.p;
        for e in &p.events {
            let Some(op) = e.access().and_then(|a| a.rmw.as_ref()) else { continue };
            // Per combination of operand values (one, of no literal, when they are constants).
            let operands: Vec<(crate::program::Rmw, Vec<B>)> = match self.symbolic_operands(e.id) {
                Some(combos) => combos
                    .into_iter()
                    .map(|(vals, ls)| (crate::program::Rmw { operands: vals, ..op.clone() }, ls))
                    .collect(),
                None => vec![(op.clone(), Vec::new())],
            };
            for &s in self.choices.rf_cands.get(&e.id).map(|v| v.as_slice()).unwrap_or(&[]) {
                let rf = get(&self.choices.rf, s, e.id);
                for (v, ls) in self.values.wval[s].clone() {
                    for (op, given) in &operands {
                        let new = op.apply(v);
                        let premises: Vec<B> = [rf, ls].into_iter().chain(given.iter().copied()).collect();
                        match self.values.wval[e.id].iter().find(|x| x.0 == new) {
                            Some(&(_, le)) => self.f.implies(&premises, le),
                            // Beyond every value the location can hold: no such execution.
                            None => self.f.clause(&premises.iter().map(|&b| !b).collect::<Vec<B>>()),
                        }
                    }
                }
            }
        }
    }

    /// Candidate executions (axioms off) must still give every read a value. A
    /// read-modify-write's value is defined along its reads-from chain back to
    /// a plain write; a cycle of read-modify-writes reading each other defines
    /// none (the axioms forbid it: 8.10.4 No-Thin-Air, as rf is a cycle). With
    /// n read-modify-writes on a location, `ground[k][e]` means "e's chain
    /// reaches a plain write within k steps"; an executed one needs k = n.
    pub(crate) fn ground_rmw_chains(&mut self) {
        let p = self.p;
        for l in 0..p.locations.len() {
            let rmws: Vec<EventId> = self
                .writes_to(l)
                .into_iter()
                .filter(|&w| p.events[w].access().is_some_and(|a| a.rmw.is_some()))
                .collect();
            if rmws.len() < 2 {
                continue;
            }
            let is_rmw = |w: EventId| rmws.contains(&w);
            let cands = |e: EventId| self.choices.rf_cands.get(&e).cloned().unwrap_or_default();
            // Level 0: reads from a plain write.
            let mut ground: BTreeMap<EventId, B> = BTreeMap::new();
            for &e in &rmws {
                let plain: Vec<B> =
                    cands(e).into_iter().filter(|&s| !is_rmw(s)).map(|s| get(&self.choices.rf, s, e)).collect();
                let g = self.f.or(&plain);
                ground.insert(e, g);
            }
            for _ in 1..rmws.len() {
                let mut next = BTreeMap::new();
                for &e in &rmws {
                    let mut ways = vec![ground[&e]];
                    for s in cands(e).into_iter().filter(|&s| is_rmw(s)) {
                        let step = self.f.and(&[get(&self.choices.rf, s, e), ground[&s]]);
                        ways.push(step);
                    }
                    let g = self.f.or(&ways);
                    next.insert(e, g);
                }
                ground = next;
            }
            for &e in &rmws {
                let ex = self.exec(e);
                self.f.implies(&[ex], ground[&e]);
            }
        }
    }

    /// One of the traces `paths` (of one thread) is chosen.
    pub(super) fn any_trace(&mut self, paths: &[crate::program::TraceId]) -> B {
        let lits: Vec<B> = paths.iter().map(|&t| self.choices.trace[t]).collect();
        self.f.or(&lits)
    }

    /// 8 (intro): each read returns the value of some write to the same location;
    /// a trace that assumed a value can only read from writes of that value.
    pub(super) fn reads_from(&mut self) {
        for l in 0..self.p.locations.len() {
            let writes = self.writes_to(l);
            for r in self.reads_of(l) {
                let p = self.p;
                // A merged read (D65): per group of its paths, the assumption made there.
                let groups: Vec<(B, &crate::program::merge::Assumption)> = match p.assumptions(r) {
                    Some(g) => g.iter().map(|a| (self.any_trace(&a.paths), a)).collect(),
                    None => Vec::new(),
                };
                let mut lits = Vec::new();
                let mut cands = Vec::new();
                for &w in &writes {
                    if w == r || !p.compatible(w, r) {
                        continue;
                    }
                    if !self.values.wval[w].iter().any(|&(v, _)| p.may_read(r, v)) {
                        continue;
                    }
                    let v = self.f.fresh();
                    for (val, lit) in self.values.wval[w].clone() {
                        if !p.may_read(r, val) {
                            self.f.clause(&[!v, !lit]);
                            continue;
                        }
                        // Allowed on some paths only: not on the others.
                        for (g, a) in &groups {
                            if !a.allows(val) {
                                self.f.clause(&[!v, !lit, !*g]);
                            }
                        }
                    }
                    self.f.implies(&[v], self.exec(w));
                    self.f.implies(&[v], self.exec(r));
                    self.choices.rf.insert((w, r), v);
                    lits.push(v);
                    cands.push(w);
                }
                let mut c = lits.clone();
                c.push(!self.exec(r));
                self.f.clause(&c);
                self.f.at_most_one(&lits);
                self.choices.rf_cands.insert(r, cands);
            }
        }
    }
}
