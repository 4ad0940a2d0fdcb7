//! One context for every engine and command: the model that decides, the
//! per-test limits, the deadline the engines stop at, and debug tracing.
//!
//! `check`, `explain`, `advise`, `run`, `map`, `batch` and `serve` build one
//! [`Ctx`] from their flags; the SAT engine ([`crate::sat::SolveOptions`]), the
//! reference engine ([`crate::reference::ReferenceOptions`]) and the
//! explanations ([`crate::explain::ShowOptions`]) each carry it, so the model
//! travels one way. Deep loops that have no context at hand (the program
//! builder, the encoder, the solver) ask `crate::out::tracing` and charge
//! [`crate::budget`], the thread's running budget.

use crate::model::{Model, ModelKind};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What every engine and command of one run reads.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// The model that decides: a built-in one (`ModelKind::shared`) or a
    /// user's `.cat` file (`Model::load`).
    pub model: Arc<Model>,
    /// `--model` was given: a C test is then decided under `model`, which
    /// must be a C model; otherwise a C test is decided under rc11 (D102).
    pub model_explicit: bool,
    /// Per-test wall-clock limit and memory budget (`--timeout`, `--max-memory`).
    pub limits: crate::budget::Limits,
    /// When the engines stop (the running budget's deadline; `None`: never).
    pub deadline: Option<Instant>,
    /// `PTXL_DEBUG` is set (`out::tracing`): the engines print sizes and timings on stderr.
    pub debug: bool,
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx::new(ModelKind::Ptx.shared())
    }
}

impl Ctx {
    /// The context of `model`, with the default limits and no deadline.
    pub fn new(model: Arc<Model>) -> Ctx {
        Ctx {
            model,
            model_explicit: false,
            limits: crate::budget::Limits::default(),
            deadline: None,
            debug: crate::out::tracing(),
        }
    }

    /// The context of a command: `model` (named by `--model` when `explicit`)
    /// under `limits`.
    pub fn of_command(model: Arc<Model>, explicit: bool, limits: crate::budget::Limits) -> Ctx {
        Ctx { model_explicit: explicit, limits, ..Ctx::new(model) }
    }

    /// The same context deciding under `model`.
    pub(crate) fn with_model(&self, model: Arc<Model>) -> Ctx {
        Ctx { model, ..self.clone() }
    }

    /// The same context with another per-test time limit (`None`: none).
    pub fn with_timeout(&self, timeout: Option<Duration>) -> Ctx {
        Ctx { limits: crate::budget::Limits { timeout, ..self.limits }, ..self.clone() }
    }

    /// The same context with a work limit per test (`Limits::max_work`).
    pub fn with_work(&self, max_work: Option<u64>) -> Ctx {
        Ctx { limits: crate::budget::Limits { max_work, ..self.limits }, ..self.clone() }
    }

    /// The same context stopping at `deadline`.
    pub fn until(&self, deadline: Option<Instant>) -> Ctx {
        Ctx { deadline, ..self.clone() }
    }

    /// Has the deadline passed?
    pub(crate) fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() > d)
    }
}
