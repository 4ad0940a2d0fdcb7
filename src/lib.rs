//! ptx-litmus: may this PTX program end in this state, under the PTX memory
//! consistency model (PTX ISA 9.2, chapter 8)?
//!
//! The library's API is this page: [`check_source`] decides a litmus test
//! given as text under [`CheckOptions`] (the engine, the listing, and a
//! [`Ctx`]: the model that decides and the per-test limits) and returns a
//! [`TestResult`]: the allowed final states and their [`Summary`], whose
//! [`Verdict`] says whether the condition's outcome is allowed. A bad test is
//! an [`Error`] with its `line:col`; a limit hit is an [`Error`] too
//! ([`ErrorKind::Limit`]).
//!
//! ```
//! use ptx_litmus::{check_source, CheckOptions, Ctx, ModelKind, Verdict};
//!
//! // Message passing, the flag written by a release store and read by an
//! // acquire load in one GPU: they synchronize (8.9.4), so a thread that reads
//! // the flag reads the data (8.10.6): the outcome is forbidden.
//! let mp = "PTX MP\n{ x = 0; y = 0; }\n\
//!     P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n\
//!     st.global.u32 [x], 1 | ld.acquire.gpu.global.u32 %r0, [y] ;\n\
//!     st.release.gpu.global.u32 [y], 1 | ld.global.u32 %r1, [x] ;\n\
//!     exists (P1:%r0 == 1 /\\ P1:%r1 == 0)\n";
//! let r = check_source(mp, &CheckOptions::default())?;
//! assert_eq!(r.summary.verdict, Verdict::No);
//!
//! // With relaxed accesses there is no release pattern (8.8) and nothing
//! // orders the two reads: the outcome is allowed, under NVIDIA's
//! // formalization (`ptx-alloy`) as under the ISA text.
//! let relaxed = mp.replace(".release.gpu", ".relaxed.gpu").replace(".acquire.gpu", ".relaxed.gpu");
//! let alloy = CheckOptions { ctx: Ctx::new(ModelKind::PtxAlloy.shared()), ..CheckOptions::default() };
//! assert_eq!(check_source(&relaxed, &alloy)?.summary.verdict, Verdict::Ok);
//! # Ok::<(), ptx_litmus::Error>(())
//! ```
//!
//! Data flow, one folder per stage (ARCHITECTURE.md draws the layers and
//! the order in which they may use each other): litmus text --parse--> AST
//! --program--> threads, paths, events --model--> relations and axioms
//! --sat/reference--> allowed final states --report--> text / JSON.
//!
//! The modules are public for the command-line binary, the tests and the
//! benchmarks, and hidden from this page: they are not part of the API (D134).

pub use check::{check_source, check_source_at, CheckOptions, Engine, TestResult};
pub use context::Ctx;
pub use error::{Error, ErrorKind, Result};
pub use model::{Model, ModelKind};
pub use outcome::{Outcome, Summary, Verdict};

#[doc(hidden)]
pub mod advise;
#[doc(hidden)]
pub mod ast;
#[doc(hidden)]
pub mod batch;
#[doc(hidden)]
pub mod budget;
#[doc(hidden)]
pub mod c11;
#[doc(hidden)]
pub mod check;
#[doc(hidden)]
pub mod context;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod explain;
#[doc(hidden)]
pub mod gen;
#[doc(hidden)]
pub mod gpu;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod merge;
#[doc(hidden)]
pub mod model;
#[doc(hidden)]
pub mod module;
#[doc(hidden)]
pub mod out;
#[doc(hidden)]
pub mod outcome;
#[doc(hidden)]
pub mod parse;
#[doc(hidden)]
pub mod program;
#[doc(hidden)]
pub mod reference;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod sat;
#[doc(hidden)]
pub mod serve;
#[doc(hidden)]
pub mod shard;
