//! The checker explains itself (issue 4).
//!
//! - `check --show witness`: one allowed execution per allowed final state
//!   satisfying the condition ([`show()`]).
//! - `check --show forbidden`: for final states only candidate executions reach
//!   (all six axioms switched off in the SAT encoding, see
//!   `sat::candidates`), candidate executions and the model row each violates,
//!   with the offending cycle in the ISA's terms ([`axioms`]).
//! - `ptx-litmus explain FILE`: morally strong pairs and why not, release and
//!   acquire patterns, which pairs can synchronize ([`pairs`]).
//! - `--dot DIR` / `--svg DIR`: pictures of the shown executions ([`dot`], [`svg`]).
//! - `--json`: the fields `executions` and `explanation` ([`json`]).
//!
//! Every derived relation and axiom verdict of a concrete execution comes from
//! the row evaluator of the model in use (`model::explain_api`, via [`view`]):
//! a new row appears here by its name. This module keeps presentation only:
//! names, paths that justify derived edges ([`paths`]), words ([`words`]).

pub mod axioms;
pub mod dot;
pub mod json;
pub mod kinds;
pub mod mat;
pub mod names;
pub mod pairs;
pub mod paths;
pub mod proxy_gap;
pub mod show;
pub mod show_text;
pub mod svg;
pub mod view;
pub mod words;

pub use show::{show, ShowKind, ShowOptions, Shown, ShownExec};
