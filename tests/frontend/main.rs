//! Front-end tests: litmus text (both instruction spellings, Dat3M's and herd's), PTX modules, and the
//! program the builder makes of them.
//!
//! One of the five test crates (D135, README "The two set-up commands"): each file under this folder is a
//! module, so `cargo test --release --test frontend FILE::` runs one file's tests.

mod modules;
mod parse;
mod parse_compat;
mod program;
