//! Numbering the explored paths into a `Program`, and checks on observables.

use super::*;
use crate::ast::{self, Litmus};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

impl Ctx<'_> {
    /// Names a condition sees as several cells (mixed-size, D18): a variable
    /// whose bytes (its extent) span several cells, and an array element
    /// (`out[1]`) that accesses of other sizes cut (D44).
    pub(super) fn loc_parts(&self, key_index: &HashMap<LocKey, usize>) -> BTreeMap<String, Vec<(LocId, u32, u32)>> {
        let mut wanted: Vec<(String, String, i64, u8)> = Vec::new();
        for (name, info) in &self.names {
            let w = self.width(&info.root);
            if (1..=8).contains(&w) && !self.arrays.decl.contains_key(&info.root) {
                wanted.push((name.clone(), info.root.clone(), 0, w as u8));
            }
        }
        for (root, _, off, size) in self.arrays.extents() {
            let name = self
                .arrays
                .name_of(&LocKey { root: root.clone(), offset: off, shared_cluster: None })
                .unwrap_or_default();
            wanted.push((name, root, off, size));
        }
        let mut out = BTreeMap::new();
        for (name, root, start, size) in wanted {
            let parts = self.cells.split(&root, None, start, size);
            if parts.len() > 1 {
                let ids: Option<Vec<(LocId, u32, u32)>> = parts
                    .iter()
                    .map(|(off, len)| {
                        key_index
                            .get(&LocKey { root: root.clone(), offset: *off, shared_cluster: None })
                            .map(|&l| (l, (*off - start) as u32, *len as u32))
                    })
                    .collect();
                if let Some(ids) = ids {
                    out.insert(name, ids);
                }
            }
        }
        out
    }

    /// Memory outside a variable's bytes is no location: an access past the
    /// end of a variable is an input error (ISA 8.2: a location is bytes of a
    /// variable). A test's own scalar is as wide as its widest access at
    /// offset 0, at least 4 bytes.
    pub(super) fn check_bounds(&self) -> Result<()> {
        for f in &self.foot {
            let (root, _, off, size) = f;
            let w = self.width(root);
            let unsized_var = self.vars.get(root).is_some_and(|d| d.size == 0);
            if unsized_var || (*off >= 0 && (*off as u64) + u64::from(*size) <= w) {
                continue;
            }
            let (span, origin) = self.foot_at.get(f).cloned().unwrap_or_default();
            let end = off + i64::from(*size);
            let mut msg =
                format!("this access of bytes {}..{} lies outside `{}`, which is {} bytes", off, end, root, w);
            if !self.arrays.decl.contains_key(root) && !self.vars.contains_key(root) && *off >= 0 {
                // A scalar used as an array: suggest the declaration that makes it one.
                let n = (end as u64).div_ceil(w);
                msg.push_str(&format!("; declare an array (`u{} {}[{}];`) to give it more elements", 8 * w, root, n));
            }
            return Err(Error::input(msg, span).in_origin(&origin));
        }
        Ok(())
    }

    /// A condition compares a location as the bytes it holds (D74): a
    /// constant compared with a location whose bytes are a bit pattern (a
    /// typed or declared variable) is reduced to that location's width, two's
    /// complement, so `z == -1` holds for a 4-byte `z` holding 0xffffffff; a
    /// signed C location's constant is reduced to that type instead (D285).
    pub(super) fn at_location_width(&self, lit: &Litmus, p: &Prop, widths: &BTreeMap<String, u8>) -> Prop {
        let reduce = |a: &ast::Term, b: &ast::Term| -> (ast::Term, ast::Term) {
            let fit = |o: &ast::Term, c: &ast::Term| match (o, c) {
                (ast::Term::Obs(Observable::Loc(l), _), ast::Term::Const(v)) => widths.get(l).map(|&w| {
                    let raw = cells::extract(*v, 0, w);
                    ast::Term::Const(lit.c11.as_ref().map_or(raw, |c| c.as_declared(l, raw)))
                }),
                _ => None,
            };
            (fit(b, a).unwrap_or_else(|| a.clone()), fit(a, b).unwrap_or_else(|| b.clone()))
        };
        let rec = |q: &Prop| Box::new(self.at_location_width(lit, q, widths));
        match p {
            Prop::Eq(a, b) => {
                let (x, y) = reduce(a, b);
                Prop::Eq(x, y)
            }
            Prop::Ne(a, b) => {
                let (x, y) = reduce(a, b);
                Prop::Ne(x, y)
            }
            Prop::Lt(a, b) => {
                let (x, y) = reduce(a, b);
                Prop::Lt(x, y)
            }
            Prop::Le(a, b) => {
                let (x, y) = reduce(a, b);
                Prop::Le(x, y)
            }
            Prop::Not(a) => Prop::Not(rec(a)),
            Prop::And(a, b) => Prop::And(rec(a), rec(b)),
            Prop::Or(a, b) => Prop::Or(rec(a), rec(b)),
            Prop::Implies(a, b) => Prop::Implies(rec(a), rec(b)),
            Prop::True | Prop::False => p.clone(),
        }
    }

    /// The width in bytes of each location name whose bytes are a bit pattern (D74).
    fn bit_pattern_widths(
        &self,
        loc_names: &BTreeMap<String, LocId>,
        locations: &[Location],
        parts: &BTreeMap<String, Vec<(LocId, u32, u32)>>,
        keys: &[LocKey],
    ) -> BTreeMap<String, u8> {
        let mut out = BTreeMap::new();
        for (name, &l) in loc_names {
            let root = &keys[l].root;
            let bits =
                self.typed_roots.contains(root) || self.vars.contains_key(root) || self.arrays.decl.contains_key(root);
            if !bits {
                continue;
            }
            let w = match parts.get(name) {
                Some(p) => p.iter().map(|x| x.2).sum::<u32>() as u8,
                None => self
                    .cell_len
                    .get(&keys[l])
                    .copied()
                    .unwrap_or_else(|| locations[l].sizes.iter().copied().max().unwrap_or(8)),
            };
            out.insert(name.clone(), w.min(8));
        }
        out
    }

    /// A condition cannot observe `.local`/`.param` memory: each thread has its own.
    pub(super) fn check_private_observed(&self, observables: &[Observable]) -> Result<()> {
        for o in observables {
            if let Observable::Loc(name) = o {
                let root = self.names.get(name).map_or(name.as_str(), |i| i.root.as_str());
                if let Some(sp) = self.private_roots.get(root) {
                    return Err(Error::input(
                        format!(
                            "`{}` is thread-private .local/.param memory, so the condition cannot observe it",
                            name
                        ),
                        *sp,
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every path of thread `t` runs past the unroll bound (exit 3).
    pub(super) fn every_path_cut(&self, t: usize) -> Error {
        let mut e = Error::limit(format!(
            "every path of thread P{} runs past the unroll bound ({}); raise --unroll",
            t, self.opts.unroll
        ));
        if let Some((span, what)) = self.unroll_cuts.get(&t) {
            e.message = format!(
                "every path of thread P{} runs past the unroll bound ({}) in the loop at {}; raise --unroll",
                t, self.opts.unroll, what
            );
            e.span = Some(*span);
        }
        e
    }

    /// Number everything and produce the program.
    /// The program of the explored paths, and the reads of the failed spin
    /// iterations left out of them (D113), to be checked against its writes.
    pub(super) fn assemble(
        mut self,
        paths: Vec<Vec<FinishedPath>>,
        unroll_hit: bool,
    ) -> Result<(Program, Option<Vec<crate::program::LeftOutEvent>>)> {
        let lit = self.lit;
        // Locations: every key seen, plus declared variables never accessed.
        let mut keys: BTreeSet<LocKey> = BTreeSet::new();
        for name in self.inits.keys() {
            keys.insert(LocKey { root: name.clone(), offset: 0, shared_cluster: None });
        }
        let elements = self.arrays.elements();
        keys.extend(elements.iter().map(|(k, _)| k.clone()));
        for (root, cl, off, size) in self.extents() {
            for (o, len) in self.cells.split(&root, cl, off, size) {
                let k = LocKey { root: root.clone(), offset: o, shared_cluster: cl };
                self.cell_len.entry(k.clone()).or_insert(len);
                keys.insert(k);
            }
        }
        self.check_bounds()?;
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
            .map(|k| Location {
                name: self.arrays.name_of(k).unwrap_or_else(|| self.key_name(k)),
                init: self.key_init(k),
                sizes: Vec::new(),
                values: self.domain(k),
                shared: k.shared_cluster.is_some(),
            })
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
        let mut instances: HashSet<(usize, Instance)> = HashSet::new();
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
                    // --max-events counts instruction instances (issue 27): the
                    // events one per instance the SAT engine encodes.
                    instances.insert((t, instance));
                    if instances.len() > self.opts.max_events {
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
                return Err(self.every_path_cut(t));
            }
            let h = &self.lit.threads[t];
            let written = WrittenPlacement { cta: h.cta, cluster: h.cluster, gpu: h.gpu };
            threads.push(Thread { id: t, placement: self.placements[t], written, traces: tids });
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
        check_observables(lit, &loc_names, &observables)?;
        let widths = self.bit_pattern_widths(&loc_names, &locations, &loc_parts, &keys);
        let condition = self.at_location_width(lit, &lit.condition.prop, &widths);
        let filter = lit.filter.as_ref().map(|f| self.at_location_width(lit, f, &widths));
        self.check_private_observed(&observables)?;
        let unknown_read = events
            .iter()
            .filter_map(|e| e.read_loc())
            .find_map(|l| self.vars.get(&keys[l].root).filter(|_| self.has_no_initial_value(&keys[l].root)));
        let reads_unknown = self.reads_unknown.as_ref().and_then(|r| self.vars.get(r)).or(unknown_read).cloned();
        let unknown_locs = keys.iter().enumerate().filter(|(_, k)| self.is_unknown(k)).map(|(l, _)| l).collect();
        // Proxy fences, and the implicit ones that follow the completion of a
        // bulk copy (D258).
        let proxy_fences =
            events.iter().filter(|e| e.is_proxy_fence() || e.may_be_implicit_proxy_fence()).map(|e| e.id).collect();
        let left_out = self.left_out_events(&key_index);
        let program = Program {
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
            condition,
            condition_text: lit.condition.text.clone(),
            condition_given: lit.condition.given,
            filter,
            observables,
            percent_twins: percent_twins(lit),
            flags: BuildFlags { unroll_bound_hit: unroll_hit, mixed_size },
            unroll_cuts: self.unroll_cuts.clone(),
            loc_parts,
            guards: None,
            symbolic: None,
            projected: false,
            c11: lit.c11.clone(),
            reads_unknown,
            unknown_locs,
            reads_unknown_private: self.reads_unknown.is_some(),
            spinning_forever: self.spinning_forever.clone(),
        };
        Ok((program, left_out))
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
    all.iter().enumerate().any(|(i, a)| {
        all[i + 1..].iter().any(|b| {
            a.0 == b.0 && a.1 == b.1 && (a.2, a.3) != (b.2, b.3) && a.2 < b.2 + b.3 as i64 && b.2 < a.2 + a.3 as i64
        })
    })
}

/// (thread, `r0`) for each thread whose code or init names both `%r0` and
/// `r0` (D252): the registers listings must keep apart.
pub(super) fn percent_twins(lit: &Litmus) -> BTreeSet<(usize, String)> {
    let mut named: BTreeSet<(usize, &str)> = BTreeSet::new();
    for i in &lit.init {
        if let ast::InitItem::Register { thread, reg, .. } | ast::InitItem::RegisterAddress { thread, reg, .. } = i {
            named.insert((*thread, reg.as_str()));
        }
    }
    for (t, code) in lit.code.iter().enumerate() {
        for ins in code {
            let (reads, writes) = ins.kind.register_effects();
            named.extend(reads.into_iter().chain(writes).map(|r| (t, r)));
        }
    }
    named
        .iter()
        .filter_map(|&(t, r)| r.strip_prefix('%').filter(|bare| named.contains(&(t, bare))).map(|b| (t, b.to_string())))
        .collect()
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

/// Why `l` names no location. A module's `.shared` variable has one copy per
/// CTA (D75), named `s@cta0`, `s@cta1`: the plain name is none of them (D161).
/// Otherwise the nearest name the test has is suggested (D253).
fn unknown_location(l: &str, names: &BTreeMap<String, LocId>, observed: &[Observable]) -> String {
    let prefix = format!("{}@", l);
    let copies: Vec<&str> = names.keys().filter(|n| n.starts_with(&prefix)).map(|n| n.as_str()).collect();
    if copies.is_empty() {
        let hint = nearest_location(l, names, observed);
        return format!("location `{}` is neither declared nor used by any thread{}", l, hint);
    }
    format!(
        "`{}` is a `.shared` variable with one copy per CTA (5.1.7): name the copy, {}",
        l,
        copies.iter().map(|c| format!("`{}`", c)).collect::<Vec<_>>().join(" or ")
    )
}

/// `` (did you mean `y`?)`` for the names of the test closest to `l`: at
/// most one edit for names of up to three letters, two for longer ones (D253).
/// Of several as close, those the test observes nowhere else come first (a
/// typo'd `z` in `x == 1 /\ z == 0` meant `y`); still several: each is named.
fn nearest_location(l: &str, names: &BTreeMap<String, LocId>, observed: &[Observable]) -> String {
    let limit = if l.chars().count() <= 3 { 1 } else { 2 };
    let close: Vec<(usize, &String)> = names
        .keys()
        .filter(|n| !n.contains('@') && !n.contains('#'))
        .map(|n| (crate::parse::suggest::distance(l, n), n))
        .filter(|(d, _)| *d <= limit)
        .collect();
    let Some(best) = close.iter().map(|(d, _)| *d).min() else { return String::new() };
    let mut near: Vec<&String> = close.iter().filter(|(d, _)| *d == best).map(|(_, n)| *n).collect();
    let seen = |n: &String| observed.iter().any(|o| matches!(o, Observable::Loc(x) if x == n));
    if near.iter().any(|n| !seen(n)) {
        near.retain(|n| !seen(n));
    }
    let named: Vec<String> = near.iter().take(3).map(|n| format!("`{}`", n)).collect();
    format!(" (did you mean {}?)", named.join(" or "))
}

/// Locations named in the condition, the filter and `locations` must exist
/// in the test: declared in the init block or a module, or accessed (D253).
pub(super) fn check_observables(
    lit: &Litmus,
    loc_names: &BTreeMap<String, LocId>,
    observed: &[Observable],
) -> Result<()> {
    let check = |l: &str, sp: Span| match loc_names.contains_key(l) {
        true => Ok(()),
        false => Err(Error::input(unknown_location(l, loc_names, observed), sp)),
    };
    for (o, sp) in lit.locations.iter().zip(&lit.locations_at) {
        if let Observable::Loc(l) = o {
            check(l, *sp)?;
        }
    }
    fn walk(p: &Prop, check: &dyn Fn(&str, Span) -> Result<()>) -> Result<()> {
        match p {
            Prop::True | Prop::False => Ok(()),
            Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
                for t in [a, b] {
                    if let ast::Term::Obs(Observable::Loc(l), sp) = t {
                        check(l, *sp)?;
                    }
                }
                Ok(())
            }
            Prop::Not(a) => walk(a, check),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                walk(a, check)?;
                walk(b, check)
            }
        }
    }
    walk(&lit.condition.prop, &check)?;
    if let Some(f) = &lit.filter {
        walk(f, &check)?;
    }
    Ok(())
}
