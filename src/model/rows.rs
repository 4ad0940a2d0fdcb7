//! The models, as rows of the relation algebra ([`super::algebra`]) over the
//! primitives of [`super::prims`]. This is the only place the derived
//! relations and the axioms of chapter 8 are written.
//!
//! - `ptx` (default): the ISA 9.2 text; `atom`/`red` are one event (D13).
//! - `ptx-alloy`: NVIDIA's formalization (Lustig et al., ASPLOS'19, Figures 4
//!   and 7, section 3.5.3): read-modify-writes split into a read and a write
//!   linked by `rmw`; observation and Atomicity through `rmw` (D50, D51).

use super::algebra::{parse_stmt, Stmt};
use std::sync::OnceLock;

/// Which row set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ModelKind {
    #[default]
    Ptx,
    PtxAlloy,
    /// herd's `rc11.cat` (Lahav et al., PLDI'17), for C tests (`crate::c11`).
    Rc11,
    /// Lustig et al., ASPLOS'19, Figure 10: RC11 with `incl` for scopes and
    /// without No-Thin-Air.
    ScopedRc11,
}

impl ModelKind {
    /// The PTX models (every PTX test is decided under one of them).
    pub const ALL: [ModelKind; 2] = [ModelKind::Ptx, ModelKind::PtxAlloy];
    /// The C models (every C test is decided under one of them).
    pub const C_MODELS: [ModelKind; 2] = [ModelKind::Rc11, ModelKind::ScopedRc11];

    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Ptx => "ptx",
            ModelKind::PtxAlloy => "ptx-alloy",
            ModelKind::Rc11 => "rc11",
            ModelKind::ScopedRc11 => "scoped-rc11",
        }
    }

    /// A model of C tests (its rows read the C orders).
    pub fn is_c(self) -> bool {
        Self::C_MODELS.contains(&self)
    }

    /// The model, shared (engines hold it by `Arc` so a test can give its own rows).
    pub fn shared(self) -> std::sync::Arc<Model> {
        static CELLS: [OnceLock<std::sync::Arc<Model>>; 4] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        CELLS[self as usize].get_or_init(|| std::sync::Arc::new(self.model().clone())).clone()
    }

    /// The model's rows, parsed once.
    pub fn model(self) -> &'static Model {
        static PTX: OnceLock<Model> = OnceLock::new();
        static ALLOY: OnceLock<Model> = OnceLock::new();
        static RC11: OnceLock<Model> = OnceLock::new();
        static SCOPED: OnceLock<Model> = OnceLock::new();
        match self {
            ModelKind::Ptx => PTX.get_or_init(|| Model::from_table("ptx", false, &ptx_table())),
            ModelKind::PtxAlloy => ALLOY.get_or_init(|| Model::from_table("ptx-alloy", true, &alloy_table())),
            ModelKind::Rc11 => RC11.get_or_init(|| Model::from_table("rc11", true, &super::rc11::rc11_table(false))),
            ModelKind::ScopedRc11 => {
                SCOPED.get_or_init(|| Model::from_table("scoped-rc11", true, &super::rc11::rc11_table(true)))
            }
        }
    }
}

impl Model {
    /// The rows are those of a built-in model (same statements, same RMW
    /// split): what D66's argument about the rows was checked against.
    pub fn is_builtin(&self) -> bool {
        let same = |m: &Model| {
            m.split_rmw == self.split_rmw
                && m.rows.len() == self.rows.len()
                && m.rows.iter().zip(&self.rows).all(|(a, b)| a.stmt.to_string() == b.stmt.to_string())
        };
        ModelKind::ALL.iter().any(|k| std::ptr::eq(k.model(), self) || same(k.model()))
    }
}

/// One row: a statement, the ISA section it transcribes, and the sentence it reads.
#[derive(Clone, Debug)]
pub struct Row {
    pub section: String,
    pub sentence: String,
    pub stmt: Stmt,
}

impl Row {
    /// A row from its text; the text must parse (rows are written by us or by a test).
    pub fn new(section: &str, sentence: &str, text: &str) -> Result<Row, String> {
        Ok(Row { section: section.into(), sentence: sentence.into(), stmt: parse_stmt(text)? })
    }
}

/// A model: its name, whether read-modify-writes are split, and its rows in order.
#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub split_rmw: bool,
    pub rows: Vec<Row>,
    /// Name resolution and dependencies of the rows, computed on first use.
    plan: OnceLock<super::eval::Plan>,
}

pub(super) type Table = Vec<(&'static str, &'static str, &'static str)>;

impl Model {
    fn from_table(name: &str, split_rmw: bool, table: &Table) -> Model {
        let rows = table
            .iter()
            .map(|(s, q, t)| Row::new(s, q, t).unwrap_or_else(|e| panic!("model {}: {}", name, e)))
            .collect();
        let m = Model { name: name.into(), split_rmw, rows, plan: OnceLock::new() };
        // Every name resolves: a wrong row is a bug caught by every test run.
        if let Err(e) = super::eval::validate(&m) {
            panic!("model {}: {}", name, e);
        }
        m
    }

    /// This model with one more row at the end (a new axiom or relation).
    pub fn with_row(&self, row: Row) -> Result<Model, String> {
        let mut m = Model {
            name: self.name.clone(),
            split_rmw: self.split_rmw,
            rows: self.rows.clone(),
            plan: OnceLock::new(),
        };
        m.rows.push(row);
        super::eval::validate(&m)?;
        Ok(m)
    }

    /// What the evaluator needs beyond the rows (computed once).
    pub fn plan(&self) -> &super::eval::Plan {
        self.plan.get_or_init(|| super::eval::Plan::new(self))
    }

    /// The model cat-style, one row per statement under its section and sentence.
    pub fn render(&self) -> String {
        let mut out = if self.name.contains("rc11") {
            format!(
                "(* model {}: herd's rc11.cat{}, read-modify-writes split into read and write (rmw) *)\n",
                self.name,
                if self.name == "scoped-rc11" { " with scopes (Lustig et al., ASPLOS'19, Figure 10)" } else { "" }
            )
        } else {
            format!(
                "(* model {}: PTX ISA 9.2 chapter 8{} *)\n",
                self.name,
                if self.split_rmw { ", atom/red split into read and write (rmw)" } else { "" }
            )
        };
        for r in &self.rows {
            out.push_str(&format!("\n(* {} {} *)\n{}\n", r.section, r.sentence, r.stmt));
        }
        out
    }
}

const FR: (&str, &str, &str) = (
    "8.9.7",
    "\"A read R precedes an overlapping write W in communication order if, for any byte accessed by both R and W, R returns the value written by a write W' that precedes W in coherence order.\"",
    "let fr = ([R]; rf^-1; co; [W]) \\ id",
);
const SW: (&str, &str, &str) = (
    "8.9.4",
    "\"1. A fence.sc operation X synchronizes with a fence.sc operation Y if X precedes Y in the Fence-SC order. 2./3. A bar{.cta}.sync or bar{.cta}.red or bar{.cta}.arrive operation synchronizes with a bar{.cta}.sync or bar{.cta}.red operation executed on the same barrier; a barrier.cluster.arrive operation synchronizes with a barrier.cluster.wait operation. 4. A release pattern X synchronizes with an acquire pattern Y, if a write operation in X precedes a read operation in Y in observation order, and the first operation in X and the last operation in Y are morally strong.\"",
    "let sw = sc | ([~ArriveRelaxed]; bar) | ((relpat; obs; acqpat) & ms & ext)",
);
const CB: (&str, &str, &str) = (
    "8.9.5",
    "\"An operation X precedes an operation Y in base causality order if: X precedes Y in program order, or X synchronizes with Y, or for some operation Z, X precedes Z in program order or base causality order, and Z precedes Y in program order or base causality order.\"",
    "let cb = (po | sw)+",
);
const PPCB: (&str, &str, &str) = (
    "8.9.5",
    "\"A memory operation X precedes a memory operation Y in proxy-preserved base causality order if X precedes Y in base causality order, and\" same address and generic proxy, or same proxy and thread block, or a proxy fence along the path (litmus-format.md 4.1)",
    "let ppcb = proxy-preserved(cb)",
);
const CAUSE: (&str, &str, &str) = (
    "8.9.5",
    "\"An operation X precedes an operation Y in causality order if: X precedes Y in proxy-preserved base causality order, or for some operation Z, X precedes Z in observation order, and Z precedes Y in proxy-preserved base causality order.\"",
    "let cause = obs?; ppcb",
);
const COHERENCE: (&str, &str, &str) = (
    "8.10.1",
    "\"If a write W precedes an overlapping write W' in causality order, then W must precede W' in coherence order.\"",
    "empty (([W \\ Init]; cause; [W \\ Init]) & loc) \\ id \\ co as Coherence",
);
const FENCE_SC: (&str, &str, &str) = (
    "8.10.2",
    "\"For a pair of morally strong fence.sc operations F1 and F2, if F1 precedes F2 in causality order, then F1 must precede F2 in Fence-SC order.\" (causality between fences: base causality)",
    "irreflexive [FSC]; (ms & cb); [FSC]; sc as Fence-SC",
);
const NO_THIN_AIR: (&str, &str, &str) = (
    "8.10.4",
    "\"an execution cannot speculatively produce a value in such a way that the speculation becomes self-satisfying through chains of instruction dependencies and inter-thread communication.\"",
    "acyclic ([~Init]; rf) | dep as No-Thin-Air",
);
const SC_PER_LOC: (&str, &str, &str) = (
    "8.10.5",
    "\"a concatenation of program order between overlapping operations and morally strong relations in communication order cannot result in a cycle.\"",
    "acyclic [M]; ((po & loc) | (ms & (rf | co | fr))); [M] as SC-per-Location",
);
const CAUSALITY: (&str, &str, &str) = (
    "8.10.6",
    "\"If a read R precedes an overlapping write W in causality order, then R cannot read from W. If a write W precedes an overlapping read R in causality order, then ... R cannot read from any write W' that precedes W in coherence order.\"",
    "irreflexive (rf | fr); cause as Causality",
);

/// The ISA 9.2 text (D13: an atom is one event that reads and writes).
fn ptx_table() -> Table {
    vec![
        FR,
        (
            "8.9.2",
            "\"A write W precedes a read R in observation order if: 1. R and W are morally strong and R reads the value written by W, or 2. For some atomic operation Z, W precedes Z and Z precedes R in observation order.\"",
            "let obs = (ms & rf); ([A]; (ms & rf))*",
        ),
        SW,
        CB,
        PPCB,
        CAUSE,
        COHERENCE,
        FENCE_SC,
        (
            "8.10.3",
            "\"When an atomic operation A and a write W overlap and are morally strong, then the following two communications cannot both exist: A reads any byte from a write W' that precedes W in coherence order; A follows W in coherence order.\"",
            "irreflexive [A]; (ms & fr); [W \\ Init]; co as Atomicity",
        ),
        NO_THIN_AIR,
        SC_PER_LOC,
        CAUSALITY,
    ]
}

/// NVIDIA's formalization (ASPLOS'19 Figures 4 and 7): RMWs split (D50).
fn alloy_table() -> Table {
    vec![
        FR,
        (
            "8.9.2",
            "Lustig et al., Figure 4: \"obs := (morally_strong ∩ rf) ∪ (obs; rmw; obs)\"",
            "let obs = (ms & rf); (rmw; (ms & rf))*",
        ),
        SW,
        CB,
        PPCB,
        CAUSE,
        COHERENCE,
        FENCE_SC,
        (
            "8.10.3",
            "Lustig et al., Figure 7: \"empty(((morally_strong ∩ fr);(morally_strong ∩ co)) ∩ rmw)\"",
            "empty ((ms & fr); (ms & co)) & rmw as Atomicity",
        ),
        (
            "8.10.4",
            "Figure 7: \"acyclic(rf ∪ dep)\"; the write of an RMW depends on its read (D51)",
            "acyclic ([~Init]; rf) | dep | rmw as No-Thin-Air",
        ),
        SC_PER_LOC,
        CAUSALITY,
    ]
}
