//! Numbering the explored paths into a `Program`, and checks on observables.

use super::*;
use crate::ast::{self, Litmus};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};

impl Ctx<'_> {
    /// Variables whose widest access at offset 0 spans several cells: a
    /// condition sees their bytes composed (see `Program::loc_parts`).
    pub(super) fn loc_parts(&self, key_index: &HashMap<LocKey, usize>) -> BTreeMap<String, Vec<(LocId, u32, u32)>> {
        let mut out = BTreeMap::new();
        for (name, info) in &self.names {
            let widest = self.foot.iter().filter(|(r, c, o, _)| *r == info.root && c.is_none() && *o == 0).map(|f| f.3).max();
            let Some(w) = widest else { continue };
            let parts = self.cells.split(&info.root, None, 0, w);
            if parts.len() > 1 {
                let ids = parts
                    .iter()
                    .filter_map(|(off, len)| key_index.get(&LocKey { root: info.root.clone(), offset: *off, shared_cluster: None }).map(|&l| (l, *off as u32, *len as u32)));
                out.insert(name.clone(), ids.collect());
            }
        }
        out
    }

    /// A condition cannot observe `.local`/`.param` memory: each thread has its own.
    pub(super) fn check_private_observed(&self, observables: &[Observable]) -> Result<()> {
        for o in observables {
            if let Observable::Loc(name) = o {
                let root = self.names.get(name).map_or(name.as_str(), |i| i.root.as_str());
                if let Some(sp) = self.private_roots.get(root) {
                    return Err(Error::input(format!("`{}` is thread-private .local/.param memory, so the condition cannot observe it", name), *sp));
                }
            }
        }
        Ok(())
    }

    /// Number everything and produce the program.
    pub(super) fn assemble(self, paths: Vec<Vec<FinishedPath>>, unroll_hit: bool) -> Result<Program> {
        let lit = self.lit;
        // Locations: every key seen, plus declared variables never accessed.
        let mut keys: BTreeSet<LocKey> = BTreeSet::new();
        for name in self.inits.keys() {
            keys.insert(LocKey { root: name.clone(), offset: 0, shared_cluster: None });
        }
        let elements = self.arrays.elements();
        keys.extend(elements.iter().map(|(k, _)| k.clone()));
        for tp in &paths {
            for p in tp {
                for e in &p.events {
                    if let DraftKind::Mem { key, .. } = &e.kind {
                        keys.insert(key.clone());
                    }
                }
            }
        }
        let keys: Vec<LocKey> = keys.into_iter().collect();
        let key_index: HashMap<LocKey, usize> = keys.iter().cloned().enumerate().map(|(i, k)| (k, i)).collect();
        let mut locations: Vec<Location> = keys
            .iter()
            .map(|k| Location { name: self.arrays.name_of(k).unwrap_or_else(|| k.display()), init: self.key_init(k), sizes: Vec::new(), values: self.domain(k) })
            .collect();
        let mut events = Vec::new();
        let mut init_events = Vec::new();
        for (l, loc) in locations.iter().enumerate() {
            init_events.push(events.len());
            events.push(Event {
                id: events.len(),
                thread: None,
                trace: None,
                paths: Vec::new(),
                po: 0,
                instance: None,
                init_loc: Some(l),
                kind: EventKind::Init,
                text: format!("init {} = {}", loc.name, loc.init),
                line: 0,
            });
        }
        let mut traces = Vec::new();
        let mut threads = Vec::new();
        for (t, tp) in paths.into_iter().enumerate() {
            let mut tids = Vec::new();
            // Paths share the events of their common prefix: an event is keyed on
            // its predecessor and its content.
            let mut shared: HashMap<(Option<EventId>, String), EventId> = HashMap::new();
            for p in tp {
                let tid = traces.len();
                let mut evs: Vec<EventId> = Vec::new();
                let mut deps = Vec::new();
                for (i, d) in p.events.into_iter().enumerate() {
                    let instance = d.at;
                    // Each trace lists its own dependency pairs: quadratic in a long
                    // unrolled loop, times the number of paths (issue 11).
                    crate::budget::charge(64 + 24 * d.deps.len() as u64);
                    let key = (evs.last().copied(), format!("{:?}|{:?}|{:?}", d.kind, d.deps, d.text));
                    if let Some(&id) = shared.get(&key) {
                        events[id].paths.push(tid);
                        for &r in &d.deps {
                            if r != i {
                                deps.push((evs[r], id));
                            }
                        }
                        evs.push(id);
                        continue;
                    }
                    let id = events.len();
                    shared.insert(key, id);
                    let kind = match d.kind {
                        DraftKind::Mem { key, mut access } => {
                            access.loc = key_index[&key];
                            let sizes = &mut locations[access.loc].sizes;
                            if !sizes.contains(&access.size) {
                                sizes.push(access.size);
                            }
                            EventKind::Mem(access)
                        }
                        DraftKind::Other(k) => k,
                    };
                    for r in d.deps {
                        if r != i {
                            deps.push((evs[r], id));
                        }
                    }
                    events.push(Event {
                        id,
                        thread: Some(t),
                        trace: Some(tid),
                        paths: vec![tid],
                        po: i,
                        instance: Some(instance),
                        init_loc: None,
                        kind,
                        text: d.text,
                        line: d.line,
                    });
                    if events.len() > self.opts.max_events {
                        return Err(too_many_events(self.opts.max_events));
                    }
                    evs.push(id);
                }
                let mut regs = BTreeMap::new();
                for (r, v) in p.regs {
                    let rv = match v.v {
                        V::Const(c) => RegValue::Const(c),
                        V::Free(i) => RegValue::ReadOf(evs[i]),
                        V::Addr(name, off) => {
                            let idx = self.names.keys().position(|n| *n == name).unwrap_or(0);
                            RegValue::Const(address_number(idx, off))
                        }
                    };
                    regs.insert(r, rv);
                }
                traces.push(Trace { id: tid, thread: t, events: evs, regs, deps });
                tids.push(tid);
            }
            if tids.is_empty() {
                let mut e = Error::limit(format!("every path of thread P{} runs past the unroll bound ({}); raise --unroll", t, self.opts.unroll));
                if let Some((span, what)) = &self.unroll_cut {
                    e.message = format!("every path of thread P{} runs past the unroll bound ({}) in the loop at {}; raise --unroll", t, self.opts.unroll, what);
                    e.span = Some(*span);
                }
                return Err(e);
            }
            let h = &self.lit.threads[t];
            let written = WrittenPlacement { cta: h.cta, cluster: h.cluster, gpu: h.gpu };
            threads.push(Thread { id: t, placement: self.placements[t], written, traces: tids });
        }
        if events.len() > self.opts.max_events {
            return Err(Error::limit(format!("the test has {} events over all paths, more than --max-events {}", events.len(), self.opts.max_events)));
        }
        let mixed_size = detect_mixed_size(&self.foot);
        let loc_parts = self.loc_parts(&key_index);
        let mut loc_names = BTreeMap::new();
        for (name, info) in &self.names {
            if let Some(&i) = key_index.get(&LocKey { root: info.root.clone(), offset: 0, shared_cluster: None }) {
                loc_names.insert(name.clone(), i);
            }
        }
        for (k, name) in &elements {
            loc_names.insert(name.clone(), key_index[k]);
        }
        for (i, l) in locations.iter().enumerate() {
            loc_names.entry(l.name.clone()).or_insert(i);
        }
        let ncta = self.placements.iter().map(|p| p.cta).max().map_or(0, |m| m + 1);
        let ncl = self.placements.iter().map(|p| p.cluster).max().map_or(0, |m| m + 1);
        let mut cta_sizes = vec![0; ncta];
        let mut cluster_sizes = vec![0; ncl];
        for p in &self.placements {
            cta_sizes[p.cta] += 1;
            cluster_sizes[p.cluster] += 1;
        }
        let observables = observables_of(lit);
        check_observables(lit, &loc_names)?;
        self.check_private_observed(&observables)?;
        let proxy_fences = events.iter().filter(|e| matches!(e.kind, EventKind::ProxyFence { .. })).map(|e| e.id).collect();
        Ok(Program {
            proxy_fences,
            name: lit.name.clone(),
            threads,
            traces,
            events,
            locations,
            loc_names,
            init_events,
            cta_sizes,
            cluster_sizes,
            quantifier: lit.condition.quantifier,
            condition: lit.condition.prop.clone(),
            condition_text: lit.condition.text.clone(),
            condition_given: lit.condition.given,
            filter: lit.filter.clone(),
            observables,
            flags: BuildFlags { unroll_bound_hit: unroll_hit, mixed_size },
            unroll_cut: self.unroll_cut.clone(),
            loc_parts,
            guards: None,
        })
    }
}

/// Globally unique CTA and cluster numbers. Without `cluster`, each CTA is its own cluster.
pub(super) fn place_threads(lit: &Litmus) -> Vec<Placement> {
    let mut ctas: BTreeMap<(u32, Option<u32>, u32), usize> = BTreeMap::new();
    let mut clusters: BTreeMap<(u32, Option<u32>, Option<u32>), usize> = BTreeMap::new();
    lit.threads
        .iter()
        .map(|h| {
            let n = ctas.len();
            let cta = *ctas.entry((h.gpu, h.cluster, h.cta)).or_insert(n);
            let ckey = match h.cluster {
                Some(k) => (h.gpu, Some(k), None),
                None => (h.gpu, None, Some(h.cta)),
            };
            let n = clusters.len();
            let cluster = *clusters.entry(ckey).or_insert(n);
            Placement { cta, cluster, gpu: h.gpu }
        })
        .collect()
}

/// Two accesses of one variable overlap without covering the same bytes
/// (8.7.2: a mixed-size race is possible, the axioms may not apply).
pub(super) fn detect_mixed_size(foot: &BTreeSet<Footprint>) -> bool {
    let all: Vec<&Footprint> = foot.iter().collect();
    all.iter().enumerate().any(|(i, a)| all[i + 1..].iter().any(|b| a.0 == b.0 && a.1 == b.1 && (a.2, a.3) != (b.2, b.3) && a.2 < b.2 + b.3 as i64 && b.2 < a.2 + a.3 as i64))
}

/// The observables of the final states: condition, filter and `locations`, in order of appearance.
pub(super) fn observables_of(lit: &Litmus) -> Vec<Observable> {
    let mut out: Vec<Observable> = Vec::new();
    for o in &lit.locations {
        if !out.contains(o) {
            out.push(o.clone());
        }
    }
    pub(super) fn walk(p: &Prop, out: &mut Vec<Observable>) {
        match p {
            Prop::True | Prop::False => {}
            Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
                for t in [a, b] {
                    if let ast::Term::Obs(o, _) = t {
                        if !out.contains(o) {
                            out.push(o.clone());
                        }
                    }
                }
            }
            Prop::Not(a) => walk(a, out),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                walk(a, out);
                walk(b, out);
            }
        }
    }
    walk(&lit.condition.prop, &mut out);
    if let Some(f) = &lit.filter {
        walk(f, &mut out);
    }
    out
}

/// Locations named in the condition must exist in the test.
pub(super) fn check_observables(lit: &Litmus, loc_names: &BTreeMap<String, LocId>) -> Result<()> {
    pub(super) fn walk(p: &Prop, names: &BTreeMap<String, LocId>) -> Result<()> {
        match p {
            Prop::True | Prop::False => Ok(()),
            Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
                for t in [a, b] {
                    if let ast::Term::Obs(Observable::Loc(l), sp) = t {
                        if !names.contains_key(l) {
                            return Err(Error::input(format!("location `{}` is neither declared nor used by any thread", l), *sp));
                        }
                    }
                }
                Ok(())
            }
            Prop::Not(a) => walk(a, names),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                walk(a, names)?;
                walk(b, names)
            }
        }
    }
    walk(&lit.condition.prop, loc_names)?;
    if let Some(f) = &lit.filter {
        walk(f, loc_names)?;
    }
    Ok(())
}
