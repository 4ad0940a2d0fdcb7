//! Which check rows of the model in use a concrete execution violates, each
//! with the offending cycle or pair in the ISA's terms.
//!
//! The verdicts are the model's (its evaluator, [`View::checks`]); this file
//! only finds a witness to show. Priority (documented in the README): the
//! violations are listed in model order (for both built-in models the order of
//! 8.10: Coherence, Fence-SC, Atomicity, No-Thin-Air, SC-per-Location,
//! Causality) and the *first* one is the reason given. Within one row the
//! witness with the fewest steps (runs of program order counted once) is shown.
//! For the ISA's own examples this names the axiom the ISA names: Atomicity
//! before SC-per-Location for two racing RMWs, SC-per-Location before Causality
//! for CoRR, Causality for message passing and for store buffering with fence.sc.
//! The six axioms of 8.10 are worded by name; any other row (a new axiom) by
//! the relation it tests (`generic`).

use super::view::{compress, EdgeKind, Step, View};
use super::words::{expand_po, fmt_path, notes, reads};
use crate::model::algebra::CheckKind;
use crate::model::eval::Violation as Check;
use crate::model::explain_api::CheckResult;
use crate::model::rel::Rel;

/// One violated check row.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The row's name and section (`Causality`, `8.10.6`).
    pub axiom: Check,
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

/// A witness: steps, sentence, notes.
type Witness = (Vec<Step>, String, Vec<String>);

fn shorter(best: &Option<Witness>, steps: &[Step]) -> bool {
    best.as_ref().is_none_or(|b| compress(steps).len() < compress(&b.0).len())
}

/// Every violated check row, in model order, each with its shortest witness.
pub fn violations(v: &View) -> Vec<Violation> {
    v.checks
        .iter()
        .filter(|c| !c.holds)
        .map(|c| {
            let named = match c.check.name() {
                "Coherence" => coherence(v, &c.rel),
                "Fence-SC" => fence_sc(v, &c.rel),
                "Atomicity" => atomicity(v, &c.rel),
                "No-Thin-Air" => no_thin_air(v, &c.rel),
                "SC-per-Location" => sc_per_location(v, &c.rel),
                "Causality" => causality(v, &c.rel),
                _ => None,
            };
            let (steps, text, notes) = named.unwrap_or_else(|| generic(v, c));
            Violation { axiom: c.check.clone(), steps, text, notes }
        })
        .collect()
}

/// 8.10.1: the row's pairs are writes W, W' with W before W' in causality
/// order but not in coherence order; show the shortest causality path.
fn coherence(v: &View, rel: &Rel) -> Option<Witness> {
    let mut best: Option<Witness> = None;
    for (w, w2) in rel.pairs() {
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
            format!(
                "but {} does not precede {} in coherence order: {} ends with {}'s value {}",
                nw,
                nw2,
                v.loc_name(w),
                nw,
                v.write_value(w).unwrap_or(0)
            )
        } else {
            format!("but {} and {} are unordered in coherence order", nw, nw2)
        };
        let text = format!("{}, so {} precedes {} in causality order, {}", fmt_path(v, &path), nw, nw2, tail);
        best = Some((steps.clone(), text, notes(v, &steps)));
    }
    best
}

/// 8.10.2: the row relates fence.sc F1 to itself through some F2 with F1
/// before F2 in base causality and F2 before F1 in Fence-SC order.
fn fence_sc(v: &View, rel: &Rel) -> Option<Witness> {
    let mut best: Option<Witness> = None;
    for f1 in (0..v.n()).filter(|&f| rel.has(f, f)) {
        for f2 in 0..v.n() {
            if f1 == f2 || !v.is_fence_sc(f2) || !v.ms.has(f1, f2) || !v.cb.has(f1, f2) || !v.sc.has(f2, f1) {
                continue;
            }
            let Some(path) = v.cb_path(f1, f2) else { continue };
            if !shorter(&best, &path) {
                continue;
            }
            let mut steps = path.clone();
            steps.push(Step { from: f2, kind: EdgeKind::Sc, to: f1 });
            let (n1, n2) = (&v.names[f1], &v.names[f2]);
            let text = format!(
                "{}, so {} precedes {} in base causality order, but {} precedes {} in Fence-SC order",
                fmt_path(v, &path),
                n1,
                n2,
                n2,
                n1
            );
            best = Some((steps.clone(), text, notes(v, &steps)));
        }
    }
    best
}

/// 8.10.3: the row marks an atomic A that reads from a write before W in
/// coherence while W precedes A in coherence.
fn atomicity(v: &View, rel: &Rel) -> Option<Witness> {
    for a in (0..v.n()).filter(|&a| rel.has(a, a)) {
        for w in 0..v.n() {
            if w == a || v.is_init(w) || !v.ms.has(a, w) || !v.fr.has(a, w) || !v.co.has(w, a) {
                continue;
            }
            let (na, nw) = (&v.names[a], &v.names[w]);
            let text = format!(
                "{}, which precedes {} in coherence, and {} precedes {} in coherence: {} -fr-> {} -co-> {}",
                reads(v, a),
                nw,
                nw,
                na,
                na,
                nw,
                na
            );
            let steps = vec![Step { from: a, kind: EdgeKind::Fr, to: w }, Step { from: w, kind: EdgeKind::Co, to: a }];
            return Some((steps, text, Vec::new()));
        }
    }
    None
}

/// The basic kind that shows edge `a -> b` of a row's relation, the first
/// that holds in this order (a row's own edge when none does).
fn edge_kind(v: &View, a: usize, b: usize, kinds: &[EdgeKind]) -> EdgeKind {
    let holds = |k: EdgeKind| match k {
        EdgeKind::Po => v.po.has(a, b),
        EdgeKind::Rf => v.rf.has(a, b),
        EdgeKind::Co => v.co.has(a, b),
        EdgeKind::Fr => v.fr.has(a, b),
        EdgeKind::Sc => v.sc.has(a, b),
        EdgeKind::Sync => v.sw.has(a, b),
        EdgeKind::Obs => v.obs.has(a, b),
        EdgeKind::Cause => v.cause.has(a, b),
        EdgeKind::Dep => v.dep.has(a, b),
        EdgeKind::Exchange => v.exchange.has(a, b),
        EdgeKind::Async => v.async_steps.has(a, b),
        EdgeKind::Row => true,
    };
    kinds.iter().copied().find(|&k| holds(k)).unwrap_or(EdgeKind::Row)
}

/// A shortest cycle of `rel` through the given nodes, each edge labelled by `label`.
fn shortest_cycle(v: &View, rel: &Rel, nodes: &[usize], label: &dyn Fn(usize, usize) -> EdgeKind) -> Option<Vec<Step>> {
    let succ = |u: usize| -> Vec<(usize, EdgeKind)> {
        nodes.iter().filter(|&&w| rel.has(u, w)).map(|&w| (w, label(u, w))).collect()
    };
    let mut best: Option<Vec<Step>> = None;
    for &u in nodes {
        if let Some(c) = v.bfs(u, u, &succ) {
            if best.as_ref().is_none_or(|b| compress(&c).len() < compress(b).len()) {
                best = Some(c);
            }
        }
    }
    best
}

/// 8.10.4: a cycle of the row's relation (reads-from and dependencies, and
/// the halves of warp collectives and `bar.red` that pass values, D165).
fn no_thin_air(v: &View, rel: &Rel) -> Option<Witness> {
    let passes_values = |i: usize| v.event(i).sync().is_some_and(|s| s.value.is_some());
    let nodes: Vec<usize> = (0..v.n()).filter(|&i| v.event(i).access().is_some() || passes_values(i)).collect();
    let steps =
        shortest_cycle(v, rel, &nodes, &|a, b| edge_kind(v, a, b, &[EdgeKind::Dep, EdgeKind::Exchange, EdgeKind::Rf]))?;
    let what = if steps.iter().any(|s| s.kind == EdgeKind::Exchange) {
        "reads-from, values passed between threads by a warp collective or bar.red, and dependencies"
    } else {
        "reads-from and dependencies"
    };
    let text =
        format!("{} is a cycle of {}: the values read justify themselves (out of thin air)", fmt_path(v, &steps), what);
    Some((steps, text, Vec::new()))
}

/// 8.10.5: a cycle of the row's relation on one location.
fn sc_per_location(v: &View, rel: &Rel) -> Option<Witness> {
    let mut best: Option<Witness> = None;
    for l in 0..v.p.locations.len() {
        let nodes: Vec<usize> =
            (0..v.n()).filter(|&i| !v.is_init(i) && v.event(i).access().is_some_and(|a| a.loc == l)).collect();
        // Communication edges count when morally strong, else the edge is program order.
        let label = |a: usize, b: usize| {
            if v.ms.has(a, b) {
                edge_kind(v, a, b, &[EdgeKind::Rf, EdgeKind::Co, EdgeKind::Fr, EdgeKind::Po])
            } else {
                edge_kind(v, a, b, &[EdgeKind::Po])
            }
        };
        let Some(cycle) = shortest_cycle(v, rel, &nodes, &label) else { continue };
        if !shorter(&best, &cycle) {
            continue;
        }
        let mut text = format!(
            "{} is a cycle of program order and morally strong communication on {}",
            fmt_path(v, &cycle),
            v.p.locations[l].name
        );
        let extra: Vec<String> = cycle
            .iter()
            .filter(|s| s.kind == EdgeKind::Fr)
            .map(|s| format!("{}, which precedes {} in coherence", reads(v, s.from), v.names[s.to]))
            .collect();
        if !extra.is_empty() {
            text.push_str(&format!(" ({})", extra.join("; ")));
        }
        let steps = expand_po(v, cycle);
        best = Some((steps.clone(), text, notes(v, &steps)));
    }
    best
}

/// 8.10.6: the row relates an event to itself: W -rf-> R with R before W in
/// causality, or R -fr-> W with W before R.
fn causality(v: &View, rel: &Rel) -> Option<Witness> {
    let mut best: Option<Witness> = None;
    for a in (0..v.n()).filter(|&a| rel.has(a, a)) {
        for b in 0..v.n() {
            if v.rf.has(a, b) && v.cause.has(b, a) {
                let (w, r) = (a, b);
                if let Some(path) = v.cause_path(r, w).filter(|p| shorter(&best, p)) {
                    let mut steps = path.clone();
                    steps.push(Step { from: w, kind: EdgeKind::Rf, to: r });
                    let text = format!("{} and {}", fmt_path(v, &path), reads(v, r));
                    best = Some((steps.clone(), text, notes(v, &steps)));
                }
            }
            if v.fr.has(a, b) && v.cause.has(b, a) {
                let (r, w) = (a, b);
                if let Some(path) = v.cause_path(w, r).filter(|p| shorter(&best, p)) {
                    let mut steps = path.clone();
                    steps.push(Step { from: r, kind: EdgeKind::Fr, to: w });
                    let text = format!(
                        "{} and {}, which precedes {} in coherence",
                        fmt_path(v, &path),
                        reads(v, r),
                        v.names[w]
                    );
                    best = Some((steps.clone(), text, notes(v, &steps)));
                }
            }
        }
    }
    best
}

/// Any other row (or a built-in one whose shape the wording above does not
/// find): the relation it tests, with a cycle, a self-pair or a pair.
fn generic(v: &View, c: &CheckResult) -> Witness {
    let ptx_kinds = [
        EdgeKind::Po,
        EdgeKind::Rf,
        EdgeKind::Co,
        EdgeKind::Fr,
        EdgeKind::Sc,
        EdgeKind::Sync,
        EdgeKind::Dep,
        EdgeKind::Obs,
        EdgeKind::Cause,
    ];
    // Fence-SC, observation and causality order are PTX's (8.9.2-8.9.5): a C
    // test's edges are RC11's sb, rf, mo, rb and sw, or the row's own.
    let c_kinds = [EdgeKind::Po, EdgeKind::Rf, EdgeKind::Co, EdgeKind::Fr, EdgeKind::Sync, EdgeKind::Dep];
    let c_test = v.p.c11.is_some();
    let kinds: &[EdgeKind] = if c_test { &c_kinds } else { &ptx_kinds };
    let all: Vec<usize> = (0..v.n()).collect();
    let (steps, what) = match c.kind {
        CheckKind::Acyclic => match shortest_cycle(v, &c.rel, &all, &|a, b| edge_kind(v, a, b, kinds)) {
            Some(cycle) => {
                let mut path = fmt_path(v, &cycle);
                // An edge no basic relation shows is an edge of the row's relation: named by it when it has a name.
                if c_test && c.text.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-') {
                    path = path.replace(" -row-> ", &format!(" -{}-> ", c.text));
                }
                (cycle.clone(), format!("{} is a cycle of", path))
            }
            None => (Vec::new(), "there is a cycle of".to_string()),
        },
        CheckKind::Irreflexive => match (0..v.n()).find(|&e| c.rel.has(e, e)) {
            Some(e) => match through_sequence(v, &c.text, e) {
                Some((steps, path)) => (steps, format!("{}: {} is related to itself by", path, v.names[e])),
                None => (Vec::new(), format!("{} is related to itself by", v.names[e])),
            },
            None => (Vec::new(), "an event is related to itself by".to_string()),
        },
        CheckKind::Empty => match c.rel.pairs().first() {
            Some(&(a, b)) => (
                vec![Step { from: a, kind: edge_kind(v, a, b, kinds), to: b }],
                format!("{} and {} are related by", v.names[a], v.names[b]),
            ),
            None => (Vec::new(), "some pair is related by".to_string()),
        },
    };
    let text = format!("{} `{}`, which the model's row {} ({}) forbids", what, c.text, c.check.name(), c.check.section);
    let notes = notes(v, &steps);
    (steps, text, notes)
}

/// For a row `irreflexive A; B` (`A`, `B` relations the model names, `B?`
/// optional), the event between: `e -A-> z -B-> e` (rc11's `hb; eco?`, `rmw;
/// eco`). The steps (row edges) and the path in words.
fn through_sequence(v: &View, row: &str, e: usize) -> Option<(Vec<Step>, String)> {
    let expr = row.trim_start_matches("irreflexive").split(" as ").next()?.trim();
    let (a, b) = expr.split_once(';')?;
    let (a, b) = (a.trim(), b.trim());
    let (b, optional) = b.strip_suffix('?').map_or((b, false), |x| (x, true));
    let (ra, rb) = (v.rows.get(a)?, v.rows.get(b)?);
    if ra.size() != v.n() || rb.size() != v.n() {
        return None;
    }
    let z = (0..v.n()).find(|&z| ra.has(e, z) && rb.has(z, e)).or_else(|| (optional && ra.has(e, e)).then_some(e))?;
    let n = |i: usize| v.names[i].clone();
    if z == e {
        let steps = vec![Step { from: e, kind: EdgeKind::Row, to: e }];
        return Some((steps, format!("{} -{}-> {}", n(e), a, n(e))));
    }
    let steps = vec![Step { from: e, kind: EdgeKind::Row, to: z }, Step { from: z, kind: EdgeKind::Row, to: e }];
    Some((steps, format!("{} -{}-> {} -{}-> {}", n(e), a, n(z), b, n(e))))
}
