//! `ptx-litmus run` without a GPU: the emitted kernels and their arithmetic, and the host side.
//!
//! One of the five test crates (D135, README "The two set-up commands"): each file under this folder is a
//! module, so `cargo test --release --test gpu FILE::` runs one file's tests.

mod gpu_alu;
mod gpu_emit;
mod gpu_run;
mod gpu_shared;
