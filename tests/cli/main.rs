//! The binary's commands end to end: bad input, limits, batches, herd's log format, JSON against the schemas,
//! explanations, the advisor, the generator and the playground server.
//!
//! One of the five test crates (D135, README "The two set-up commands"): each file under this folder is a
//! module, so `cargo test --release --test cli FILE::` runs one file's tests.

mod advise;
mod async_cli;
mod bad_input;
mod batch;
#[path = "../common/mod.rs"]
#[allow(dead_code)]
mod common;
mod deep_inputs;
mod explain;
mod explain_rows;
mod gen;
mod herd_log;
mod json_schema;
mod playground;
mod robust;
mod robustness;
mod serve;
mod slurm;
mod sweep;
mod symbolic;
mod symbolic_commands;
