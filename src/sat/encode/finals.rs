//! Final values of locations and observables.

use super::*;

impl Encoding<'_> {
    /// The final value of a location is that of a coherence-maximal write (any one
    /// of them when several are maximal); observable values as literals.
    pub(super) fn final_values(&mut self) {
        let p = self.p;
        for o in &p.observables {
            // (value, premises): the observable has the value when all premises hold.
            let mut vals: Vec<(i64, Vec<B>)> = Vec::new();
            match o {
                crate::ast::Observable::Loc(name) if p.loc_parts.contains_key(name) => {
                    vals = self.composed_final(&p.loc_parts[name])
                }
                crate::ast::Observable::Loc(name) => {
                    let Some(&l) = p.loc_names.get(name) else {
                        self.values.obs_val.push(vec![(0, B::T)]);
                        continue;
                    };
                    let cands = self.final_choice(l);
                    for (w, v) in cands {
                        for &(val, lit) in &self.values.wval[w] {
                            vals.push((val, vec![v, lit]));
                        }
                    }
                }
                crate::ast::Observable::Reg { thread, reg } if p.symbolic.is_some() => {
                    // A symbolic thread (D185): the final value's term, 0 for a register never written.
                    match p.symbolic.as_ref().and_then(|s| s.regs[*thread].get(reg)) {
                        Some(&t) => vals.extend(self.term_lits(t).into_iter().map(|(v, l)| (v, vec![l]))),
                        None => vals.push((0, Vec::new())),
                    }
                }
                crate::ast::Observable::Reg { thread, reg } => {
                    for &t in &p.threads[*thread].traces {
                        match p.traces[t].regs.get(reg) {
                            Some(crate::program::RegValue::Const(c)) => vals.push((*c, vec![self.choices.trace[t]])),
                            // The read may lie on a prefix shared with other traces, where
                            // the register is later overwritten: the trace is a premise.
                            Some(crate::program::RegValue::ReadOf(r)) => {
                                let read = p.events[*r].access();
                                for &w in self.choices.rf_cands.get(r).map(|v| v.as_slice()).unwrap_or(&[]) {
                                    for &(val, lit) in &self.values.wval[w] {
                                        let val = read.map_or(val, |a| a.loaded(val));
                                        vals.push((
                                            val,
                                            vec![self.choices.trace[t], get(&self.choices.rf, w, *r), lit],
                                        ));
                                    }
                                }
                            }
                            None => vals.push((0, vec![self.choices.trace[t]])),
                        }
                    }
                }
            }
            // One literal per distinct value.
            let mut by_val: BTreeMap<i64, B> = BTreeMap::new();
            for (val, premises) in vals {
                let val = p.shown(o, val);
                let lit = *by_val.entry(val).or_insert_with(|| self.f.fresh());
                self.f.implies(&premises, lit);
            }
            self.values.obs_val.push(by_val.into_iter().collect());
        }
    }

    /// The final values of a variable made of several cells (D18): every
    /// combination of the cells' final writes and values, bytes composed.
    pub(super) fn composed_final(&mut self, parts: &[(LocId, u32, u32)]) -> Vec<(i64, Vec<B>)> {
        let mut combos: Vec<(Vec<i64>, Vec<B>)> = vec![(Vec::new(), Vec::new())];
        for &(l, _, _) in parts {
            let mut opts = Vec::new();
            for (w, v) in self.final_choice(l) {
                for &(val, lit) in &self.values.wval[w] {
                    opts.push((val, [v, lit]));
                }
            }
            combos = combos
                .into_iter()
                .flat_map(|(vs, ps)| {
                    opts.iter()
                        .map(move |(val, pr)| ([vs.clone(), vec![*val]].concat(), [ps.clone(), pr.to_vec()].concat()))
                })
                .collect();
        }
        combos
            .into_iter()
            .map(|(vs, ps)| {
                let v = |l: LocId| parts.iter().position(|x| x.0 == l).map_or(0, |i| vs[i]);
                (Program::compose_parts(parts, &v), ps)
            })
            .collect()
    }

    pub(super) fn final_choice(&mut self, l: LocId) -> Vec<(EventId, B)> {
        if let Some(c) = self.choices.fin.get(&l) {
            return c.clone();
        }
        let ws = self.writes_to(l);
        let lits: Vec<(EventId, B)> = ws.iter().map(|&w| (w, self.f.fresh())).collect();
        let all: Vec<B> = lits.iter().map(|x| x.1).collect();
        self.f.clause(&all);
        self.f.at_most_one(&all);
        for &(w, v) in &lits {
            let x = self.exec(w);
            self.f.implies(&[v], x);
            for &w2 in &ws {
                let co = get(&self.choices.co, w, w2);
                if co != B::F {
                    self.f.clause(&[!v, !co]);
                }
            }
        }
        self.choices.fin.insert(l, lits.clone());
        lits
    }
}
