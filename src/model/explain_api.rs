//! A model's rows on one concrete execution, for explanations (issue 13): every
//! `let` row's relation by name and every check row's verdict, computed by the
//! evaluator ([`super::eval`]), so that explanations show the model in use and
//! a new row appears in them by its name.
//!
//! Relations are given over the executed events as the caller numbers them
//! (one event per operation). A model that splits read-modify-writes
//! (`ptx-alloy`) is evaluated on its split view and each relation is carried
//! back to the operations (a pair of parts becomes a pair of operations; see
//! `project` for a pair within one operation).

use super::algebra::{CheckKind, Stmt};
use super::eval::{Evaluator, Exec, Violation};
use super::rel::Rel;
use super::rows::Model;
use super::view::View;
use crate::outcome::Execution;
use crate::program::{EventId, Program};
use std::collections::BTreeMap;

/// One check row on the execution.
#[derive(Clone, Debug)]
pub struct CheckResult {
    /// The row's name and ISA section.
    pub check: Violation,
    pub kind: CheckKind,
    /// The row as written (`acyclic po | rf as Toy`), for generic explanations.
    pub text: String,
    /// The relation the row tests, over the caller's events.
    pub rel: Rel,
    pub holds: bool,
}

/// Every row of a model on one execution.
#[derive(Clone, Debug)]
pub struct Evaluated {
    /// The value of each `let` row (the last of a name) and of the primitives
    /// and execution relations the rows read, by name.
    pub(crate) rels: BTreeMap<String, Rel>,
    /// The check rows in model order.
    pub checks: Vec<CheckResult>,
}

impl Evaluated {
    /// The failing checks, in model order (the first is the reason given).
    pub fn violated(&self) -> impl Iterator<Item = &CheckResult> {
        self.checks.iter().filter(|c| !c.holds)
    }
}

/// The execution's own relations over the caller's numbering `local`.
fn exec_rels(x: &Execution, local: &BTreeMap<EventId, usize>, n: usize) -> [Rel; 4] {
    let l = |e: &EventId| local.get(e).copied();
    let pairs = |it: &mut dyn Iterator<Item = (&EventId, &EventId)>| {
        Rel::from_pairs(n, it.filter_map(|(a, b)| Some((l(a)?, l(b)?))))
    };
    let rf = pairs(&mut x.rf.iter().map(|(r, w)| (w, r)));
    let co = pairs(&mut x.co.iter().map(|(a, b)| (a, b)));
    let sc = pairs(&mut x.sc.iter().map(|(a, b)| (a, b)));
    // CTA and cluster barriers alike: the rows tell them apart by event kind.
    let bar = pairs(&mut x.barrier_sync.iter().map(|(a, b)| (a, b)));
    [rf, co, sc, bar]
}

/// A view relation carried back to the operations (identity when nothing is
/// split). `links`: keep a pair between the two parts of one operation as a
/// self-pair (the witness of an irreflexive or empty check); elsewhere it is
/// dropped (the parts are one operation in program order, not a cycle).
fn project(view: &View, r: &Rel, n: usize, links: bool) -> Rel {
    if view.n() == n {
        return r.clone();
    }
    let orig = |a: usize| view.events[a].orig;
    Rel::from_pairs(
        n,
        r.pairs().into_iter().filter(|&(a, b)| links || a == b || orig(a) != orig(b)).map(|(a, b)| (orig(a), orig(b))),
    )
}

/// Evaluate every row of `model` on execution `x` of `p`, whose executed events
/// are `ev` (the caller's numbering: initial writes first).
pub fn evaluate(model: &Model, p: &Program, x: &Execution, ev: &[EventId]) -> Evaluated {
    let n = ev.len();
    let local: BTreeMap<EventId, usize> = ev.iter().enumerate().map(|(i, &e)| (e, i)).collect();
    let view = View::new(p, &x.traces, ev, model.split_rmw);
    let mut e = Evaluator::new(model, &view);
    let [rf, co, sc, bar] = exec_rels(x, &local, n);
    e.set(Exec::Rf, view.map_rel(&rf, true, false));
    e.set(Exec::Co, view.map_rel(&co, true, true));
    e.set(Exec::Sc, view.map_rel(&sc, false, false));
    e.set(Exec::Bar, view.map_rel(&bar, false, false));
    let mut rels = BTreeMap::new();
    let mut checks = Vec::new();
    for (i, row) in model.rows.iter().enumerate() {
        let Some(r) = e.row_value(i) else { continue };
        match &row.stmt {
            Stmt::Let { name, .. } => {
                rels.insert(name.clone(), project(&view, &r, n, false));
            }
            Stmt::Check { kind, name, expr } => {
                let holds = match kind {
                    CheckKind::Acyclic => r.is_acyclic(),
                    CheckKind::Irreflexive => r.is_irreflexive(),
                    CheckKind::Empty => r.is_empty(),
                };
                let check = Violation { axiom: name.clone(), section: row.section.clone() };
                checks.push(CheckResult {
                    check,
                    kind: *kind,
                    text: expr.to_string(),
                    rel: project(&view, &r, n, *kind != CheckKind::Acyclic),
                    holds,
                });
            }
        }
    }
    // The primitives explanations draw, as the model defines them.
    for name in ["po", "ms", "dep", "exchange", "rf", "co", "sc", "bar", "relpat", "acqpat", "issue", "async-order"] {
        if let Some(r) = e.value(name) {
            rels.entry(name.to_string()).or_insert_with(|| project(&view, &r, n, false));
        }
    }
    Evaluated { rels, checks }
}
