//! ptx-litmus: may this PTX program end in this state, under the PTX memory
//! consistency model (PTX ISA 9.2, chapter 8)?
//!
//! Data flow, one folder per stage:
//! litmus text --[`parse`]--> [`ast`] --[`program`]--> threads, traces, events
//! --[`model`]--> relations and axioms --[`sat`]--> allowed final states --[`report`]--> text / JSON.

pub mod ast;
pub mod error;
pub mod parse;
pub mod module;
pub mod program;
pub mod model;
pub mod outcome;
pub mod sat;
pub mod reference;
pub mod check;
pub mod report;
pub mod gen;
pub mod explain;
pub mod budget;
pub mod input;
pub mod out;
pub mod batch;
pub mod gpu;
pub mod advise;
