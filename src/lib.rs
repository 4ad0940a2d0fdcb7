//! ptx-litmus: may this PTX program end in this state, under the PTX memory
//! consistency model (PTX ISA 9.2, chapter 8)?
//!
//! Data flow, one folder per stage:
//! litmus text --[`parse`]--> [`ast`] --[`program`]--> threads, traces, events
//! --[`model`]--> relations and axioms --[`sat`]--> allowed final states --[`report`]--> text / JSON.

pub mod advise;
pub mod ast;
pub mod batch;
pub mod budget;
pub mod c11;
pub mod check;
pub mod context;
pub mod error;
pub mod explain;
pub mod gen;
pub mod gpu;
pub mod input;
pub mod model;
pub mod module;
pub mod out;
pub mod outcome;
pub mod parse;
pub mod program;
pub mod reference;
pub mod report;
pub mod sat;
pub mod serve;
