//! `ptx-litmus explain FILE`: the static side of the model for one test.
//!
//! - every pair of operations: morally strong (8.7) or not, and the first
//!   condition that fails;
//! - the release and acquire patterns (8.8);
//! - the pairs that may synchronize (8.9.4), each asked of the SAT engine: is
//!   there an allowed execution (all axioms on) with this synchronizes-with edge?
//!
//! The parts: `describe` names an operation in the ISA's words (or C's, in a C
//! test), `rules` says which rule of 8.7, 8.8 and 8.9.4 applies to a pair or
//! pattern, `text` prints the explanation; this file gathers it as data.

mod describe;
mod rules;
mod text;

pub use describe::{describe, describe_c};
pub use rules::moral_strength;

use super::names::event_names;
use crate::check::CheckOptions;
use crate::error::Result;
use crate::model::patterns::{acquire_patterns, release_patterns, Pattern};
use crate::program::{EventId, Program};
use crate::sat::candidates::Candidates;
use describe::placement;
use rules::{acquire_rule, c_sync_rule, release_rule, sync_rules};
use std::collections::BTreeMap;

/// Parse, build and explain a litmus test given as text; `base` is the folder
/// its `ptx "FILE";` modules are relative to (calls are inlined first).
pub fn explain_source(source: &str, base: &std::path::Path, opts: &CheckOptions) -> Result<String> {
    Ok(explanation_of_source(source, base, opts)?.text())
}

/// `explain_source` as data (`explain --json`, schema/explain.schema.json).
pub fn explanation_of_source(source: &str, base: &std::path::Path, opts: &CheckOptions) -> Result<Explanation> {
    let ast = crate::check::parse_and_expand(source, base)?;
    let model = crate::check::model_for(ast.c11.is_some(), opts)?;
    // The program `check` decides (D188): past the path builder's limit, the symbolic one (D216).
    let opts = CheckOptions { ctx: opts.ctx.with_model(model.clone()), ..opts.clone() };
    let p = crate::check::build_encoded(&ast, &opts)?;
    explanation(&p, &model)
}

/// The static explanation of one test: what `explain` prints.
#[derive(serde::Serialize)]
pub struct Explanation {
    pub name: String,
    pub threads: Vec<ThreadRow>,
    pub operations: Vec<OperationRow>,
    /// Every pair of operations some path has both of (8.7).
    pub morally_strong: Vec<PairRow>,
    pub release_patterns: Vec<PatternRow>,
    pub acquire_patterns: Vec<PatternRow>,
    /// The pairs that may synchronize (8.9.4; in a C test the C model's `sw`),
    /// each decided by the SAT engine.
    pub synchronization: Vec<SyncRow>,
    /// A C test: no moral strength or patterns (PTX notions), operations in C terms.
    #[serde(skip)]
    pub c_test: bool,
    /// `paths` (each thread's paths) or `symbolic` (a thread has more paths than the path builder's limit: every
    /// thread is one trace of its instruction instances, D216).
    pub encoding: &'static str,
}

#[derive(serde::Serialize)]
pub struct ThreadRow {
    pub thread: usize,
    pub placement: String,
    /// Control-flow paths of the thread; `None` for a symbolic thread, whose paths are not enumerated.
    pub paths: Option<usize>,
}

#[derive(serde::Serialize)]
pub struct OperationRow {
    pub event: String,
    pub thread: usize,
    pub line: usize,
    pub text: String,
    pub description: String,
    /// Which of its thread's paths (from 1), when the thread has several.
    pub path: Option<usize>,
}

#[derive(serde::Serialize)]
pub struct PairRow {
    pub a: String,
    pub b: String,
    pub morally_strong: bool,
    /// Why they are, or the first condition of 8.7 that fails.
    pub reason: String,
}

#[derive(serde::Serialize)]
pub struct PatternRow {
    pub pattern: String,
    pub location: String,
    pub rule: String,
}

#[derive(serde::Serialize)]
pub struct SyncRow {
    pub from: String,
    pub to: String,
    pub in_some_allowed_execution: bool,
    pub rules: String,
}

/// The whole explanation of a program, as data.
pub fn explanation(p: &Program, model: &crate::model::Model) -> Result<Explanation> {
    let ids: Vec<EventId> = p.events.iter().filter(|e| e.thread.is_some()).map(|e| e.id).collect();
    let names: BTreeMap<EventId, String> = ids.iter().copied().zip(event_names(p, &ids)).collect();
    let n = |e: EventId| names.get(&e).cloned().unwrap_or_default();
    let c_test = p.c11.is_some();
    let symbolic = p.symbolic.is_some();
    let threads = p
        .threads
        .iter()
        .map(|t| ThreadRow {
            thread: t.id,
            placement: placement(p, t.id),
            paths: (!symbolic).then_some(t.traces.len()),
        })
        .collect();
    let operations = ids
        .iter()
        .map(|&e| {
            let ev = &p.events[e];
            let t = ev.thread.unwrap_or(0);
            let path = (p.threads[t].traces.len() > 1)
                .then(|| p.threads[t].traces.iter().position(|&x| Some(x) == ev.trace).map_or(0, |i| i + 1));
            OperationRow {
                event: n(e),
                thread: t,
                line: ev.line,
                text: ev.text.clone(),
                description: if c_test { describe_c(p, ev) } else { describe(p, ev) },
                path,
            }
        })
        .collect();
    let mut pairs = Vec::new();
    // Moral strength and release/acquire patterns are PTX's (8.7, 8.8): a C test has neither.
    for (i, &a) in ids.iter().enumerate().filter(|_| !c_test) {
        for &b in ids[i + 1..].iter().filter(|&&b| p.compatible(a, b)) {
            let (ea, eb) = (&p.events[a], &p.events[b]);
            let r = moral_strength(p, ea, eb, &n(a), &n(b));
            let (strong, reason) = match r {
                Ok(why) => (true, why),
                Err(why) => (false, why),
            };
            pairs.push(PairRow { a: n(a), b: n(b), morally_strong: strong, reason });
        }
    }
    let (rels, acqs) = if c_test { (Vec::new(), Vec::new()) } else { (release_patterns(p), acquire_patterns(p)) };
    let on = |x: &Pattern| p.events[x.access].access().map(|a| p.locations[a.loc].name.clone()).unwrap_or_default();
    let release = rels.iter().map(|x| {
        let pattern = if x.bound == x.access { n(x.access) } else { format!("{}; {}", n(x.bound), n(x.access)) };
        PatternRow { pattern, location: on(x), rule: release_rule(p, x).to_string() }
    });
    let acquire = acqs.iter().map(|y| {
        let pattern = if y.bound == y.access { n(y.access) } else { format!("{}; {}", n(y.access), n(y.bound)) };
        PatternRow { pattern, location: on(y), rule: acquire_rule(p, y).to_string() }
    });
    let (release_patterns, acquire_patterns) = (release.collect(), acquire.collect());
    let mut cands = Candidates::new(p, model)?;
    // One query per pair: the test's deadline (crate::budget) is checked before each.
    cands.deadline = crate::budget::deadline();
    let mut keys: Vec<(EventId, EventId)> = cands.enc.sw_pairs().collect();
    keys.sort();
    let mut synchronization = Vec::new();
    for (a, b) in keys {
        let rules = if c_test { c_sync_rule(p, a, b, &n) } else { sync_rules(p, a, b, &rels, &acqs, &n) };
        let yes = cands.can_synchronize(a, b)?;
        synchronization.push(SyncRow { from: n(a), to: n(b), in_some_allowed_execution: yes, rules });
    }
    Ok(Explanation {
        name: p.name.clone(),
        threads,
        operations,
        morally_strong: pairs,
        release_patterns,
        acquire_patterns,
        synchronization,
        c_test,
        encoding: if symbolic { "symbolic" } else { "paths" },
    })
}
