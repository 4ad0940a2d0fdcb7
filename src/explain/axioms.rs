//! Which axioms of 8.10 a concrete execution violates, each with the offending
//! cycle or pair in the ISA's terms.
//!
//! Priority (documented in the README): the violations are listed in the order
//! of 8.10 (Coherence, Fence-SC, Atomicity, No-Thin-Air, SC-per-Location,
//! Causality) and the *first* one is the reason given. Within one axiom the
//! witness with the fewest steps (runs of program order counted once) is shown.
//! For the ISA's own examples this names the axiom the ISA names: Atomicity
//! before SC-per-Location for two racing RMWs, SC-per-Location before Causality
//! for CoRR, Causality for message passing and for store buffering with fence.sc.

use super::view::{compress, compress_keeping, EdgeKind, Step, SyncWhy, View};
use crate::model::Axiom;

/// One violated axiom.
#[derive(Clone, Debug)]
pub struct Violation {
    pub axiom: Axiom,
    /// The offending cycle (or pair of edges), basic steps in local numbers.
    pub steps: Vec<Step>,
    /// The sentence, in the spec's terms (without the axiom's name).
    pub text: String,
    /// Why each synchronization or observation edge on the cycle holds.
    pub notes: Vec<String>,
}

impl Violation {
    /// Events on the cycle, in order of appearance.
    pub fn events(&self) -> Vec<usize> {
        let mut v = Vec::new();
        for s in &self.steps {
            for e in [s.from, s.to] {
                if !v.contains(&e) {
                    v.push(e);
                }
            }
        }
        v
    }
}

/// `W1 -po-> F1 -sync-> F2 -po-> R2`.
pub fn fmt_path(v: &View, steps: &[Step]) -> String {
    let c = compress_keeping(steps, |i| matches!(v.event(i).kind, crate::program::EventKind::ProxyFence { .. }));
    let Some(first) = c.first() else { return String::new() };
    let mut s = v.names[first.from].clone();
    for st in &c {
        s.push_str(&format!(" -{}-> {}", st.kind.label(), v.names[st.to]));
    }
    let mut why: Vec<String> = Vec::new();
    for st in c.iter().filter(|st| st.kind == EdgeKind::Sync) {
        let w = short_sync(v, st.from, st.to);
        if !why.contains(&w) {
            why.push(w);
        }
    }
    if !why.is_empty() {
        s.push_str(&format!(" ({})", why.join("; ")));
    }
    s
}

/// The 8.9.4 rule behind a sync step, in a few words (details in the notes).
pub fn short_sync(v: &View, a: usize, b: usize) -> String {
    let n = |i: usize| v.names[i].clone();
    match v.sw_why.get(&(a, b)) {
        Some(SyncWhy::FenceSc) => format!("{} precedes {} in Fence-SC order", n(a), n(b)),
        Some(SyncWhy::Barrier) => format!("{} and {} meet at a barrier", n(a), n(b)),
        Some(SyncWhy::ClusterBarrier) => format!("{} and {} meet at a cluster barrier", n(a), n(b)),
        Some(SyncWhy::Patterns { rel, acq }) => {
            let relp = if rel.bound == rel.access { n(rel.access) } else { format!("{}; {}", n(rel.bound), n(rel.access)) };
            let acqp = if acq.bound == acq.access { n(acq.access) } else { format!("{}; {}", n(acq.access), n(acq.bound)) };
            format!("release pattern {} synchronizes with acquire pattern {} on {}", relp, acqp, v.loc_name(rel.access))
        }
        None => format!("{} synchronizes with {}", n(a), n(b)),
    }
}

/// `R2 reads x=0 from W0(x)`.
pub fn reads(v: &View, r: usize) -> String {
    match v.rf_source(r) {
        Some(w) => format!("{} reads {}={} from {}", v.names[r], v.loc_name(r), v.read_value(r).map(|x| x.to_string()).unwrap_or_default(), v.names[w]),
        None => format!("{} reads nothing", v.names[r]),
    }
}

/// Why `a` synchronizes with `b` (8.9.4), in words.
pub fn why_sync(v: &View, a: usize, b: usize) -> String {
    let n = |i: usize| v.names[i].clone();
    match v.sw_why.get(&(a, b)) {
        Some(SyncWhy::FenceSc) => format!("{} precedes {} in Fence-SC order (8.9.4 rule 1)", n(a), n(b)),
        Some(SyncWhy::Barrier) => format!("{} arrives at the barrier {} waits on (8.9.4 rule 2)", n(a), n(b)),
        Some(SyncWhy::ClusterBarrier) => format!("{} arrives at the cluster barrier {} waits on (8.9.4 rule 3)", n(a), n(b)),
        Some(SyncWhy::Patterns { rel, acq }) => {
            let relp = if rel.bound == rel.access { n(rel.access) } else { format!("{}; {}", n(rel.bound), n(rel.access)) };
            let acqp = if acq.bound == acq.access { n(acq.access) } else { format!("{}; {}", n(acq.access), n(acq.bound)) };
            format!(
                "release pattern {} and acquire pattern {} on {}, {} -obs-> {} ({}), {} and {} morally strong (8.9.4 rule 4)",
                relp,
                acqp,
                v.loc_name(rel.access),
                n(rel.access),
                n(acq.access),
                why_obs(v, rel.access, acq.access),
                n(a),
                n(b)
            )
        }
        None => "synchronizes".to_string(),
    }
}

/// Why `w` precedes `r` in observation order (8.9.2).
pub fn why_obs(v: &View, w: usize, r: usize) -> String {
    match v.obs_via.get(&(w, r)) {
        Some(via) if !via.is_empty() => {
            let mut chain = vec![w];
            chain.extend(via);
            chain.push(r);
            let s: Vec<String> = chain.iter().map(|&e| v.names[e].clone()).collect();
            format!("{}: reads-from through atomic operations", s.join(" -rf-> "))
        }
        _ => reads(v, r),
    }
}

fn notes(v: &View, steps: &[Step]) -> Vec<String> {
    let mut out = Vec::new();
    for s in steps {
        let note = match s.kind {
            EdgeKind::Sync => format!("{} -sync-> {}: {}", v.names[s.from], v.names[s.to], why_sync(v, s.from, s.to)),
            EdgeKind::Obs => format!("{} -obs-> {}: {}", v.names[s.from], v.names[s.to], why_obs(v, s.from, s.to)),
            _ => continue,
        };
        if !out.contains(&note) {
            out.push(note);
        }
    }
    out
}

/// Replace program-order steps between non-consecutive events by the chain of
/// consecutive ones (so pictures can highlight drawn edges).
fn expand_po(v: &View, steps: Vec<Step>) -> Vec<Step> {
    let mut out = Vec::new();
    for s in steps {
        if s.kind == EdgeKind::Po && !v.po_next.has(s.from, s.to) {
            let mut at = s.from;
            while at != s.to {
                let Some(nx) = (0..v.n()).find(|&w| v.po_next.has(at, w)) else { break };
                out.push(Step { from: at, kind: EdgeKind::Po, to: nx });
                at = nx;
            }
        } else {
            out.push(s);
        }
    }
    out
}

fn shorter(best: &Option<Violation>, steps: &[Step]) -> bool {
    best.as_ref().is_none_or(|b| compress(steps).len() < compress(&b.steps).len())
}

/// Every violated axiom, in the order of 8.10, each with its shortest witness.
pub fn violations(v: &View) -> Vec<Violation> {
    [coherence(v), fence_sc(v), atomicity(v), no_thin_air(v), sc_per_location(v), causality(v)].into_iter().flatten().collect()
}

/// 8.10.1: W before W' in causality order => W before W' in coherence order.
fn coherence(v: &View) -> Option<Violation> {
    let mut best: Option<Violation> = None;
    for w in 0..v.n() {
        for w2 in 0..v.n() {
            let pair = w != w2 && v.is_write(w) && v.is_write(w2) && !v.is_init(w) && !v.is_init(w2) && v.loc(w) == v.loc(w2);
            if !pair || !v.cause.has(w, w2) || v.co.has(w, w2) {
                continue;
            }
            let Some(path) = v.cause_path(w, w2) else { continue };
            if !shorter(&best, &path) {
                continue;
            }
            let mut steps = path.clone();
            let (nw, nw2) = (&v.names[w], &v.names[w2]);
            let tail = if v.co.has(w2, w) {
                steps.push(Step { from: w2, kind: EdgeKind::Co, to: w });
                format!("but {} precedes {} in coherence order", nw2, nw)
            } else if v.loc(w).is_some_and(|l| v.x.finals.get(&l) == Some(&v.ev[w])) {
                format!("but {} does not precede {} in coherence order: {} ends with {}'s value {}", nw, nw2, v.loc_name(w), nw, v.write_value(w).unwrap_or(0))
            } else {
                format!("but {} and {} are unordered in coherence order", nw, nw2)
            };
            let text = format!("{}, so {} precedes {} in causality order, {}", fmt_path(v, &path), nw, nw2, tail);
            best = Some(Violation { axiom: Axiom::Coherence, notes: notes(v, &steps), steps, text });
        }
    }
    best
}

/// 8.10.2: morally strong fence.sc F1, F2: F1 before F2 in (base) causality => not F2 before F1 in Fence-SC order.
fn fence_sc(v: &View) -> Option<Violation> {
    let mut best: Option<Violation> = None;
    for f1 in 0..v.n() {
        for f2 in 0..v.n() {
            if f1 == f2 || !v.is_fence_sc(f1) || !v.is_fence_sc(f2) || !v.ms.has(f1, f2) || !v.cb.has(f1, f2) || !v.sc.has(f2, f1) {
                continue;
            }
            let Some(path) = v.cb_path(f1, f2) else { continue };
            if !shorter(&best, &path) {
                continue;
            }
            let mut steps = path.clone();
            steps.push(Step { from: f2, kind: EdgeKind::Sc, to: f1 });
            let text = format!(
                "{}, so {} precedes {} in base causality order, but {} precedes {} in Fence-SC order",
                fmt_path(v, &path),
                v.names[f1],
                v.names[f2],
                v.names[f2],
                v.names[f1]
            );
            best = Some(Violation { axiom: Axiom::FenceSc, notes: notes(v, &steps), steps, text });
        }
    }
    best
}

/// 8.10.3: a morally strong atomic A and write W: not (A reads from W' before W in coherence, and W before A in coherence).
fn atomicity(v: &View) -> Option<Violation> {
    for a in 0..v.n() {
        if !v.event(a).access().is_some_and(|x| x.atomic && x.writes) {
            continue;
        }
        for w in 0..v.n() {
            if w == a || !v.is_write(w) || v.is_init(w) || !v.ms.has(a, w) || !v.fr.has(a, w) || !v.co.has(w, a) {
                continue;
            }
            let text = format!(
                "{}, which precedes {} in coherence, and {} precedes {} in coherence: {} -fr-> {} -co-> {}",
                reads(v, a),
                v.names[w],
                v.names[w],
                v.names[a],
                v.names[a],
                v.names[w],
                v.names[a]
            );
            let steps = vec![Step { from: a, kind: EdgeKind::Fr, to: w }, Step { from: w, kind: EdgeKind::Co, to: a }];
            return Some(Violation { axiom: Axiom::Atomicity, steps, text, notes: Vec::new() });
        }
    }
    None
}

/// A shortest cycle through `succ`.
fn shortest_cycle(v: &View, nodes: &[usize], succ: &dyn Fn(usize) -> Vec<(usize, EdgeKind)>) -> Option<Vec<Step>> {
    let mut best: Option<Vec<Step>> = None;
    for &u in nodes {
        if let Some(c) = v.bfs(u, u, succ) {
            if best.as_ref().is_none_or(|b| compress(&c).len() < compress(b).len()) {
                best = Some(c);
            }
        }
    }
    best
}

/// 8.10.4: acyclic(rf ∪ dep), reads-from the program's own writes.
fn no_thin_air(v: &View) -> Option<Violation> {
    let nodes: Vec<usize> = (0..v.n()).filter(|&i| v.event(i).access().is_some()).collect();
    let succ = |u: usize| -> Vec<(usize, EdgeKind)> {
        let mut s = Vec::new();
        for w in 0..v.n() {
            if v.dep.has(u, w) {
                s.push((w, EdgeKind::Dep));
            } else if v.rf.has(u, w) && !v.is_init(u) {
                s.push((w, EdgeKind::Rf));
            }
        }
        s
    };
    let steps = shortest_cycle(v, &nodes, &succ)?;
    let text = format!("{} is a cycle of reads-from and dependencies: the values read justify themselves (out of thin air)", fmt_path(v, &steps));
    Some(Violation { axiom: Axiom::NoThinAir, steps, text, notes: Vec::new() })
}

/// 8.10.5: per location, acyclic(po_loc ∪ (ms ∩ (rf ∪ co ∪ fr))).
fn sc_per_location(v: &View) -> Option<Violation> {
    let mut best: Option<Violation> = None;
    for l in 0..v.p.locations.len() {
        let nodes: Vec<usize> = (0..v.n()).filter(|&i| !v.is_init(i) && v.event(i).access().is_some_and(|a| a.loc == l)).collect();
        let succ = |u: usize| -> Vec<(usize, EdgeKind)> {
            let mut s = Vec::new();
            for &w in &nodes {
                let k = if v.ms.has(u, w) && v.rf.has(u, w) {
                    EdgeKind::Rf
                } else if v.ms.has(u, w) && v.co.has(u, w) {
                    EdgeKind::Co
                } else if v.ms.has(u, w) && v.fr.has(u, w) {
                    EdgeKind::Fr
                } else if v.po.has(u, w) {
                    EdgeKind::Po
                } else {
                    continue;
                };
                s.push((w, k));
            }
            s
        };
        let Some(cycle) = shortest_cycle(v, &nodes, &succ) else { continue };
        if !shorter(&best, &cycle) {
            continue;
        }
        let mut text = format!("{} is a cycle of program order and morally strong communication on {}", fmt_path(v, &cycle), v.p.locations[l].name);
        let mut extra = Vec::new();
        for s in &cycle {
            if s.kind == EdgeKind::Fr {
                extra.push(format!("{}, which precedes {} in coherence", reads(v, s.from), v.names[s.to]));
            }
        }
        if !extra.is_empty() {
            text.push_str(&format!(" ({})", extra.join("; ")));
        }
        let steps = expand_po(v, cycle);
        best = Some(Violation { axiom: Axiom::ScPerLocation, notes: notes(v, &steps), steps, text });
    }
    best
}

/// 8.10.6: irreflexive((rf ∪ fr); cause).
fn causality(v: &View) -> Option<Violation> {
    let mut best: Option<Violation> = None;
    for a in 0..v.n() {
        for b in 0..v.n() {
            // 1. W -rf-> R with R before W in causality.
            if v.rf.has(a, b) && v.cause.has(b, a) {
                let (w, r) = (a, b);
                if let Some(path) = v.cause_path(r, w) {
                    if shorter(&best, &path) {
                        let mut steps = path.clone();
                        steps.push(Step { from: w, kind: EdgeKind::Rf, to: r });
                        let text = format!("{} and {}", fmt_path(v, &path), reads(v, r));
                        best = Some(Violation { axiom: Axiom::Causality, notes: notes(v, &steps), steps, text });
                    }
                }
            }
            // 2. R -fr-> W with W before R in causality.
            if v.fr.has(a, b) && v.cause.has(b, a) {
                let (r, w) = (a, b);
                if let Some(path) = v.cause_path(w, r) {
                    if shorter(&best, &path) {
                        let mut steps = path.clone();
                        steps.push(Step { from: r, kind: EdgeKind::Fr, to: w });
                        let text = format!("{} and {}, which precedes {} in coherence", fmt_path(v, &path), reads(v, r), v.names[w]);
                        best = Some(Violation { axiom: Axiom::Causality, notes: notes(v, &steps), steps, text });
                    }
                }
            }
        }
    }
    best
}
