//! The checker explains itself (issue 4).
//!
//! - `check --show witness`: one allowed execution per allowed final state
//!   satisfying the condition ([`show`]).
//! - `check --show forbidden`: for final states only candidate executions reach
//!   (all six axioms switched off in the SAT encoding, see
//!   `sat::candidates`), candidate executions and the axiom each violates, with
//!   the offending cycle in the ISA's terms ([`axioms`]).
//! - `ptx-litmus explain FILE`: morally strong pairs and why not, release and
//!   acquire patterns, which pairs can synchronize ([`pairs`]).
//! - `--dot DIR` / `--svg DIR`: pictures of the shown executions ([`dot`], [`svg`]).
//! - `--json`: the fields `executions` and `explanation` ([`json`]).
//!
//! Relations of a concrete execution are recomputed here by plain code
//! ([`view`]), with paths, independently of the SAT encoding.

pub mod axioms;
pub mod dot;
pub mod json;
pub mod names;
pub mod pairs;
pub mod show;
pub mod svg;
pub mod svg_layout;
pub mod view;

pub use show::{show, ShowKind, ShowOptions, Shown, ShownExec};
