//! The PTX memory model, written once (issue 13).
//!
//! - [`prims`]: the primitive relations and event sets (program order, morally
//!   strong, patterns, proxies, scopes, dependencies), one small function per
//!   ISA definition, over a [`view::View`] of one choice of traces;
//! - [`algebra`]: cat-style relation expressions and rows;
//! - [`rows`]: the models `ptx` (the ISA text, default) and `ptx-alloy`
//!   (NVIDIA's formalization), every derived relation and axiom one row;
//! - [`eval`]: the rows computed on one concrete execution (bit matrices),
//!   used by the reference engine and the self-check.
//!
//! The SAT encoder (`sat::encode`) still transcribes model `ptx` by hand; the
//! static helpers it shares are [`strong`], [`patterns`], [`proxy`], [`axioms`].

pub mod algebra;
pub mod axioms;
pub mod cat_parse;
pub mod eval;
pub mod explain_api;
pub mod patterns;
pub mod prims;
pub mod proxy;
pub mod rc11;
pub mod rel;
pub mod rows;
pub mod strong;
pub mod view;

pub use axioms::{Axiom, AXIOMS};
pub use rows::{Model, ModelKind, Row};

/// `ptx-litmus model`: the rows of `kind`, then the primitives they read.
pub fn render_with_primitives(kind: ModelKind) -> String {
    let mut out = kind.model().render();
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
