//! The PTX memory model's static definitions (those fixed by the program text),
//! one function per ISA definition, each under its section number. The dynamic
//! relations (rf, co, Fence-SC, obs, sync, causality) are encoded in `sat::encode`
//! following the same sections, and transcribed again in `reference`.

pub mod axioms;
pub mod strong;
pub mod patterns;
pub mod proxy;

pub use axioms::{Axiom, AXIOMS};
