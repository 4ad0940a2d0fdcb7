//! The memory models, written once as cat text (issues 13 and 25).
//!
//! - `models/*.cat` (repository top level): the models `ptx` (the ISA text,
//!   default), `ptx-alloy` (NVIDIA's formalization), `rc11` and `scoped-rc11`
//!   (C tests), every derived relation and axiom one row under its ISA section
//!   and quoted sentence; [`cat_parse`] is the one parser of that text, and
//!   [`rows`] the model it gives (built-in or `--model FILE.cat`);
//! - [`prims`]: the primitive relations and event sets the rows are written
//!   over (program order, morally strong, patterns, proxies, scopes,
//!   dependencies), one small function per ISA definition, over a
//!   [`view::View`] of one choice of traces;
//! - [`algebra`]: cat-style relation expressions and statements;
//! - [`eval`]: the rows computed on one concrete execution (bit matrices),
//!   used by the reference engine, the self-check and the explanations.
//!
//! The SAT engine compiles the same rows into clauses (`sat::rows`); the
//! static helpers it shares with the primitives are [`strong`], [`patterns`]
//! and [`proxy`].

pub mod algebra;
pub mod cat_parse;
pub mod eval;
pub mod explain_api;
pub mod patterns;
pub mod prims;
pub mod proxy;
pub mod rel;
pub mod rows;
pub mod strong;
pub mod view;

pub use rows::{cumulative_ptx, Model, ModelKind, Row, CUMULATIVE_PTX};

/// `ptx-litmus model`: the model's cat text, then the primitives its rows read
/// (as comments, so the printout loads back with `--model FILE`).
pub fn render_with_primitives(model: &Model) -> String {
    let mut out = model.render();
    out.push_str("\n(* Primitives (src/model/prims.rs), computed per candidate execution *)\n");
    for (group, items) in [
        ("set", &prims::SETS[..]),
        ("relation", &prims::STATIC[..]),
        ("execution", &prims::EXEC[..]),
        ("function", &prims::CALLS[..]),
    ] {
        for (name, what) in items {
            out.push_str(&format!("(* {:<9} {:<15} {} *)\n", group, name, what));
        }
    }
    out
}
