//! Coherence order (8.9.6), communication order (8.9.7) and Fence-SC order (8.9.3) as choices.

use super::*;

impl Encoding<'_> {
    /// 8.9.6: a partial transitive order on overlapping writes, relating every
    /// morally strong pair; the initial write precedes all others (8.2.6).
    pub(super) fn coherence_order(&mut self) {
        for l in 0..self.p.locations.len() {
            let init = self.p.init_events[l];
            let ws: Vec<EventId> = self.writes_to(l).into_iter().filter(|&w| w != init).collect();
            for &w in &ws {
                let x = self.exec(w);
                crate::budget::before_insert(&self.choices.co);
                self.choices.co.insert((init, w), x);
            }
            for &a in &ws {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &b in &ws {
                    if a != b && self.p.compatible(a, b) && self.axioms_assumed && self.p.po(a, b) && self.ms(a, b) {
                        // 8.10.5: coherence cannot contradict program order between
                        // morally strong writes of one thread (D61); (b, a) stays F.
                        let (xa, xb) = (self.exec(a), self.exec(b));
                        let v = self.f.and(&[xa, xb]);
                        crate::budget::charge(32);
                        crate::budget::before_insert(&self.choices.co);
                        self.choices.co.insert((a, b), v);
                    } else if a != b
                        && self.p.compatible(a, b)
                        && !(self.axioms_assumed && self.p.po(b, a) && self.ms(a, b))
                    {
                        let v = self.f.fresh();
                        self.f.implies(&[v], self.exec(a));
                        self.f.implies(&[v], self.exec(b));
                        crate::budget::before_insert(&self.choices.co);
                        self.choices.co.insert((a, b), v);
                    }
                }
            }
            for (i, &a) in ws.iter().enumerate() {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &b in &ws[i + 1..] {
                    if !self.p.compatible(a, b) {
                        continue;
                    }
                    let (ab, ba) = (get(&self.choices.co, a, b), get(&self.choices.co, b, a));
                    self.f.clause(&[!ab, !ba]);
                    if self.ms(a, b) {
                        let (xa, xb) = (self.exec(a), self.exec(b));
                        self.f.clause(&[!xa, !xb, ab, ba]);
                    }
                }
            }
            // Transitivity, over triples that can be performed together (a pair on
            // different paths of one thread is already excluded by the trace choice).
            let mut succ: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
            for &a in &ws {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &b in &ws {
                    let ab = get(&self.choices.co, a, b);
                    if ab != B::F {
                        succ.entry(a).or_default().push((b, ab));
                    }
                }
            }
            // Only triples with a variable edge need a clause: two constant edges
            // (program order, D61) already imply a constant third one. Iterating
            // the variable edges first keeps one thread's n writes O(n^2).
            let mut var_succ: HashMap<EventId, Vec<(EventId, B)>> = HashMap::default();
            for (&a, v) in &succ {
                var_succ.insert(a, v.iter().copied().filter(|x| x.1 != B::T).collect());
            }
            let none: &[(EventId, B)] = &[];
            for &a in &ws {
                crate::budget::check_time(); // an O(n) row may add no clause (D62)
                for &(b, ab) in succ.get(&a).map(|v| v.as_slice()).unwrap_or(none) {
                    let next = if ab == B::T { var_succ.get(&b) } else { succ.get(&b) };
                    for &(c, bc) in next.map(|v| v.as_slice()).unwrap_or(none) {
                        if c != a && self.p.compatible(a, c) {
                            let ac = get(&self.choices.co, a, c);
                            self.f.implies(&[ab, bc], ac);
                        }
                    }
                }
            }
        }
    }

    /// 8.9.7 (3): R precedes W in communication order when R reads from a write
    /// that precedes W in coherence order ("from-reads").
    /// 8.9.3: an acyclic partial order relating every pair of morally strong fence.sc.
    pub(super) fn fence_sc_order(&mut self) {
        let fences: Vec<EventId> = self.p.events.iter().filter(|e| e.is_fence_sc()).map(|e| e.id).collect();
        for &a in &fences {
            for &b in &fences {
                if a != b && self.p.compatible(a, b) {
                    let v = self.f.fresh();
                    self.f.implies(&[v], self.exec(a));
                    self.f.implies(&[v], self.exec(b));
                    self.choices.sc.insert((a, b), v);
                }
            }
        }
        for (i, &a) in fences.iter().enumerate() {
            for &b in &fences[i + 1..] {
                if !self.p.compatible(a, b) {
                    continue;
                }
                let (ab, ba) = (get(&self.choices.sc, a, b), get(&self.choices.sc, b, a));
                self.f.clause(&[!ab, !ba]);
                if self.ms(a, b) {
                    let (xa, xb) = (self.exec(a), self.exec(b));
                    self.f.clause(&[!xa, !xb, ab, ba]);
                }
            }
        }
        for &a in &fences {
            for &b in &fences {
                for &c in &fences {
                    if a != b && b != c && a != c {
                        let (ab, bc, ac) =
                            (get(&self.choices.sc, a, b), get(&self.choices.sc, b, c), get(&self.choices.sc, a, c));
                        if ab != B::F && bc != B::F {
                            self.f.implies(&[ab, bc], ac);
                        }
                    }
                }
            }
        }
    }
}
