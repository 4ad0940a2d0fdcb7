//! Deciding one variant: is the outcome the condition is about reachable?
//!
//! One SAT query instead of enumerating every final state: the encoding of
//! `sat::encode` with all axioms on, plus the literal of the proposition
//! (`sat::candidates::Candidates::prop_literal`). The outcome is the
//! proposition for `exists` / `~exists` and its negation for `forall`, always
//! together with the `filter`; it is reachable exactly when the verdict is the
//! "bad" one (`exists` Ok, `~exists` No, `forall` No). Every answer the advisor
//! prints is confirmed again by the full `check` pipeline (mod.rs).

use crate::ast::{Prop, Quantifier};
use crate::check::CheckOptions;
use crate::error::{Error, Result};
use crate::explain::{self, ShowOptions};
use crate::model::Model;
use crate::program::Program;

use crate::outcome::Execution;
use crate::sat::candidates::Candidates;

/// The outcome the advisor wants unreachable, as a proposition over final states.
pub fn target(p: &Program) -> Prop {
    let prop = match p.quantifier {
        Quantifier::Forall => Prop::Not(Box::new(p.condition.clone())),
        _ => p.condition.clone(),
    };
    match &p.filter {
        Some(f) => Prop::And(Box::new(prop), Box::new(f.clone())),
        None => prop,
    }
}

/// Is the target outcome reachable by an execution of this program `model` allows?
pub fn reachable(p: &Program, model: &Model) -> Result<bool> {
    Ok(witness(p, model)?.is_some())
}

/// An execution `model` allows reaching the target outcome, if there is one.
pub fn witness(p: &Program, model: &Model) -> Result<Option<Execution>> {
    let mut c = Candidates::new(p, model)?;
    let want = c.prop_literal(&target(p));
    let mut assume = c.enc.all_acts();
    assume.push(want);
    if !c.enc.f.solve_assuming(&assume)? {
        return Ok(None);
    }
    let m = c.enc.f.model()?;
    Ok(Some(crate::sat::decode(&c.enc, &m)))
}

/// Does a known execution (of a program with the same events) show the
/// target reachable in `p`? The reference engine's check of one execution
/// (`reference::verify`) is much cheaper than a new encoding.
pub(crate) fn still_witness(p: &Program, x: &Execution, model: &Model) -> bool {
    crate::reference::verify::verify_execution_in(p, x, model).is_ok()
        && crate::outcome::eval(p, &target(p), &x.state(p))
}

/// The full pipeline's view of a variant: is the outcome reachable, and when it
/// is not, which axiom forbids it (the first violation of a candidate execution
/// reaching it, as `check --show forbidden` names it).
pub(crate) struct Confirmed {
    pub reachable: bool,
    pub reason: Option<String>,
}

pub(crate) fn confirm(source: &str, opts: &CheckOptions, explain_it: bool) -> Result<Confirmed> {
    confirmed(crate::check::check_source(source, opts)?, opts, explain_it)
}

/// `confirm` for a parsed test with its calls inlined (a test that calls a
/// PTX module, D254): `check`'s pipeline from the program on.
pub(crate) fn confirm_parsed(lit: &crate::ast::Litmus, opts: &CheckOptions, explain_it: bool) -> Result<Confirmed> {
    confirmed(crate::check::check_parsed(lit, std::time::Instant::now(), opts)?, opts, explain_it)
}

fn confirmed(r: crate::check::TestResult, opts: &CheckOptions, explain_it: bool) -> Result<Confirmed> {
    let p = &r.program;
    let bad = match p.quantifier {
        Quantifier::Exists => crate::outcome::Verdict::Ok,
        _ => crate::outcome::Verdict::No,
    };
    let reachable = r.summary.verdict == bad;
    if reachable || !explain_it {
        return Ok(Confirmed { reachable, reason: None });
    }
    let so = ShowOptions { witness: false, forbidden: true, max: 1, ctx: opts.ctx.clone() };
    let shown = explain::show(&r, &so)?;
    let reason = shown.forbidden.first().and_then(|f| f.candidates.first()).and_then(|x| {
        let v = x.violations.first()?;
        Some(format!("{}: {}", v.axiom, v.text))
    });
    // Where forbidden states are not explained, no candidate was looked at: say why instead.
    let reason = reason.or_else(|| shown.no_forbidden.as_ref().map(|why| format!("the model (axiom {})", why)));
    let reason = reason.or_else(|| Some("no candidate execution reaches the outcome".to_string()));
    Ok(Confirmed { reachable, reason })
}

/// A variant the search decided one way and `check` the other: a bug.
pub fn disagreement(what: &str) -> Error {
    Error::internal(format!("the advisor's query and `check` disagree on {}: please report", what))
}
