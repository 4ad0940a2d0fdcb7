//! 8.10 The axioms, as a table of named rows. Each engine implements every row;
//! reports name the row an execution violates.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Axiom {
    /// 8.10.1: if W precedes an overlapping W' in causality order, W precedes W' in coherence order.
    Coherence,
    /// 8.10.2: for morally strong fence.sc F1, F2: F1 before F2 in causality => F1 before F2 in Fence-SC order.
    FenceSc,
    /// 8.10.3: no morally strong RMW A reads from W' co-before W while W is co-before A.
    Atomicity,
    /// 8.10.4: acyclic(rf ∪ dep).
    NoThinAir,
    /// 8.10.5: acyclic(po_loc ∪ (morally strong ∩ (rf ∪ co ∪ fr))).
    ScPerLocation,
    /// 8.10.6: irreflexive((rf ∪ fr); causality).
    Causality,
}

pub struct AxiomRow {
    pub axiom: Axiom,
    pub section: &'static str,
    pub name: &'static str,
    pub formula: &'static str,
}

pub const AXIOMS: [AxiomRow; 6] = [
    AxiomRow { axiom: Axiom::Coherence, section: "8.10.1", name: "Coherence", formula: "[W]; cause; [W] ⊆ co" },
    AxiomRow { axiom: Axiom::FenceSc, section: "8.10.2", name: "Fence-SC", formula: "irreflexive(sc; base_causality)" },
    AxiomRow {
        axiom: Axiom::Atomicity,
        section: "8.10.3",
        name: "Atomicity",
        formula: "empty((ms ∩ fr); (ms ∩ co) ∩ [RMW])",
    },
    AxiomRow { axiom: Axiom::NoThinAir, section: "8.10.4", name: "No-Thin-Air", formula: "acyclic(rf ∪ dep)" },
    AxiomRow {
        axiom: Axiom::ScPerLocation,
        section: "8.10.5",
        name: "SC-per-Location",
        formula: "acyclic((ms ∩ (rf ∪ co ∪ fr)) ∪ po_loc)",
    },
    AxiomRow {
        axiom: Axiom::Causality,
        section: "8.10.6",
        name: "Causality",
        formula: "irreflexive((rf ∪ fr); cause)",
    },
];

impl Axiom {
    pub fn row(self) -> &'static AxiomRow {
        AXIOMS.iter().find(|r| r.axiom == self).unwrap_or(&AXIOMS[0])
    }
}

impl std::fmt::Display for Axiom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.row();
        write!(f, "{} ({})", r.name, r.section)
    }
}
