//! Verdict tests: the curated library and the corpora against their verdicts, the models, the engines against
//! each other and against a frozen oracle, the self-check, and C tests against herd7.
//!
//! One of the five test crates (D135, README "The two set-up commands"): each file under this folder is a
//! module, so `cargo test --release --test engines FILE::` runs one file's tests.

mod async_suite;
mod c11;
mod c11_map;
#[path = "../common/mod.rs"]
#[allow(dead_code)]
mod common;
mod corpus;
mod counting;
mod differential;
mod model_oracle;
mod models;
mod reductions;
mod self_check;
mod symbolic;
mod symbolic_build;
mod symbolic_values;
mod symmetry;
mod user_models;
