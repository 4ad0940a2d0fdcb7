//! The model's rows compiled into clauses (issue 13): every derived relation
//! and axiom the SAT engine encodes comes from `model::rows`, the same rows
//! the reference engine evaluates. Execution choices (traces, reads-from,
//! coherence, Fence-SC order, barrier matching) are variables the encoder
//! makes (`sat::encode`); here each `let` row becomes a sparse map from node
//! pairs to literals and each check row clauses under its activation literal.
//!
//! Pruning is derived per row: constants fold (a static relation is known per
//! pair), intersections with static relations filter, only pairs a path of
//! possible edges joins get a closure literal, and program order enters
//! closures as its immediate steps (D61).

mod closure;
mod compile;
mod nodes;
mod val;

pub(crate) use closure::on_cycles;

use crate::error::{Error, Result};
use crate::model::algebra::{CheckKind, Expr, Stmt};
use crate::model::rel::Rel;
use crate::model::Model;
use crate::sat::encode::Encoding;
use crate::sat::formula::B;
use nodes::Nodes;
use rustc_hash::FxHashMap as HashMap;
use val::{Pol, Val};

pub(super) struct Compiler<'a, 'p> {
    enc: &'a mut Encoding<'p>,
    model: &'a Model,
    nodes: Nodes<'p>,
    /// Static program order, when the model reads `po`.
    po: Option<Rel>,
    /// Primitives (static and execution relations) by name, made on first use.
    statics: HashMap<String, Val>,
    rows: Vec<Option<Val>>,
    pol: Vec<Pol>,
}

/// Compile `model`'s rows into `enc`: derived relations, then each check
/// under its activation literal (`enc.act.checks`, one per check row name).
pub fn compile(enc: &mut Encoding, model: &Model) -> Result<()> {
    let nodes = Nodes::new(enc, model.split_rmw);
    let mut c = Compiler {
        model,
        nodes,
        po: None,
        statics: HashMap::default(),
        rows: vec![None; model.rows.len()],
        pol: polarities(model),
        enc,
    };
    let debug = crate::out::tracing();
    for (i, row) in model.rows.iter().enumerate() {
        let (t, clauses) = (std::time::Instant::now(), c.enc.f.clauses);
        crate::budget::phase_named(row_phase(&row.stmt, &row.section).into());
        match &row.stmt {
            Stmt::Let { expr, .. } => {
                if c.pol[i].any() {
                    let v = c.expr(i, expr, c.pol[i])?;
                    c.rows[i] = Some(v);
                }
            }
            Stmt::Check { kind, expr, name } => {
                let act = c.activation(name)?;
                c.check(i, *kind, expr, act)?;
            }
        }
        if debug {
            eprintln!(
                "  row {:48} {:>9} clauses {:?}",
                row_phase(&row.stmt, &row.section),
                c.enc.f.clauses - clauses,
                t.elapsed()
            );
        }
    }
    c.export();
    Ok(())
}

/// The budget phase named after the row (limits say where they were hit).
fn row_phase(s: &Stmt, section: &str) -> String {
    match s {
        Stmt::Let { name, .. } => format!("the model's relation `{}` ({})", name, section),
        Stmt::Check { name, .. } => format!("the model's axiom {} ({})", name, section),
    }
}

/// Relations other parts of the SAT engine read by name, each with the
/// polarity its reader needs (D222): the race query asks for a pair outside
/// `cause` (its literal must be implied by its definition, as a check's) or
/// for a pair of `dr` (its literal must imply its definition); explanations
/// read `sw`. The reader takes the latest definition, as the reference engine
/// resolves a name after the last row.
fn exported() -> [(&'static str, Pol); 3] {
    [("cause", Pol::POS), ("sw", Pol::POS), ("dr", Pol::POS.flip())]
}

/// The latest `let` row defining `name` before row `upto`.
fn definition(m: &Model, upto: usize, name: &str) -> Option<usize> {
    m.rows[..upto].iter().rposition(|r| matches!(&r.stmt, Stmt::Let { name: n, .. } if n == name))
}

/// Where each row is used: checks forbid their expression (positive), a
/// difference flips its right side; a row's uses reach the rows it reads.
/// The exported rows are used by their readers, so the rows they read are
/// compiled even when no check reads them (a model whose only axiom is
/// `acyclic po | rf | co | fr` still has its `cause`, D222).
fn polarities(m: &Model) -> Vec<Pol> {
    let mut pol = vec![Pol::default(); m.rows.len()];
    for (name, p) in exported() {
        if let Some(i) = definition(m, m.rows.len(), name) {
            pol[i] = pol[i].join(p);
        }
    }
    for i in (0..m.rows.len()).rev() {
        let (e, p) = match &m.rows[i].stmt {
            Stmt::Let { expr, .. } => (expr, pol[i]),
            Stmt::Check { expr, .. } => (expr, Pol::POS),
        };
        if p.any() {
            mark(m, i, e, p, &mut pol);
        }
    }
    pol
}

fn mark(m: &Model, row: usize, e: &Expr, p: Pol, pol: &mut [Pol]) {
    match e {
        Expr::Name(n) => {
            if let Some(j) = definition(m, row, n) {
                pol[j] = pol[j].join(p);
            }
        }
        Expr::Id(_) => {}
        Expr::Diff(a, b) => {
            mark(m, row, a, p, pol);
            mark(m, row, b, p.flip(), pol);
        }
        Expr::Union(a, b) | Expr::Seq(a, b) | Expr::Inter(a, b) => {
            mark(m, row, a, p, pol);
            mark(m, row, b, p, pol);
        }
        Expr::Inverse(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) | Expr::Call(_, a) => mark(m, row, a, p, pol),
    }
}

impl Compiler<'_, '_> {
    /// A name: the latest earlier `let` row, an execution relation, or a static primitive.
    fn name(&mut self, row: usize, n: &str) -> Result<Val> {
        if let Some(j) = definition(self.model, row, n) {
            return self.rows[j]
                .clone()
                .ok_or_else(|| Error::internal(format!("row `{}` was not compiled", self.model.rows[j].stmt)));
        }
        // Primitives are fixed while the rows compile: each is made once.
        if let Some(v) = self.statics.get(n) {
            return Ok(v.clone());
        }
        if let Some(l) = self.nodes.exec_rel(self.enc, n) {
            self.statics.insert(n.to_string(), Val::Lits(l.clone()));
            return Ok(Val::Lits(l));
        }
        let r = self
            .nodes
            .static_prim(n)
            .ok_or_else(|| Error::internal(format!("the SAT engine has no primitive `{}`", n)))?;
        if n == "po" {
            self.po = Some(r.clone());
        }
        self.statics.insert(n.to_string(), Val::Static(r.clone()));
        Ok(Val::Static(r))
    }

    /// The activation literal of a check row (made by `Encoding::build`, one per name).
    fn activation(&mut self, name: &str) -> Result<B> {
        self.enc.act(name).ok_or_else(|| Error::internal(format!("no activation literal for the check row {}", name)))
    }

    /// A check row: its expression's pairs (diagonal pairs for irreflexive;
    /// cycles for acyclic) are forbidden when `act` holds.
    fn check(&mut self, row: usize, kind: CheckKind, e: &Expr, act: B) -> Result<()> {
        match kind {
            CheckKind::Acyclic => {
                let v = self.expr(row, e, Pol::POS)?;
                let edges = self.lits(v).step_edges();
                self.forbid_cycles(&edges, act);
            }
            CheckKind::Irreflexive => {
                // `irreflexive a; b`: only the pairs that close a loop are built.
                if let Expr::Seq(a, b) = e {
                    let (x, y) = (self.expr(row, a, Pol::POS)?, self.expr(row, b, Pol::POS)?);
                    let (x, y) = (self.lits(x), self.lits(y));
                    for ((p, z), u) in x.sorted() {
                        let v = y.get(z, p);
                        self.enc.f.clause(&[!act, !u, !v]);
                    }
                    return Ok(());
                }
                let v = self.expr(row, e, Pol::POS)?;
                for ((a, b), l) in self.lits(v).sorted() {
                    if a == b {
                        self.enc.f.clause(&[!act, !l]);
                    }
                }
            }
            CheckKind::Empty => {
                // `empty a \ b`: one clause per pair, "a implies b".
                let (x, minus) = match e {
                    Expr::Diff(a, b) if !matches!(**b, Expr::Id(_)) => {
                        (self.expr(row, a, Pol::POS)?, Some(self.expr(row, b, Pol::POS.flip())?))
                    }
                    _ => (self.expr(row, e, Pol::POS)?, None),
                };
                let minus = minus.map(|m| self.lits(m)).unwrap_or_default();
                for ((a, b), l) in self.lits(x).sorted() {
                    self.enc.f.clause(&[!act, !l, minus.get(a, b)]);
                }
            }
        }
        Ok(())
    }

    /// The relations the rest of the engine reads, over program events.
    fn export(&mut self) {
        let p = self.enc.p;
        // 8.7.1's candidate pairs from the one definition; here only "both performed".
        let ms = crate::model::prims::morally_strong(&self.nodes.view);
        let candidates = crate::model::prims::race_candidates(&self.nodes.view, &ms);
        self.enc.derived.race_pairs =
            candidates.into_iter().map(|(a, b)| (a, b, self.nodes.guard(self.enc, a, b))).collect();
        for (name, _) in exported() {
            // A row of fixed relations only (`let dr = cnf & ext`) is static:
            // as literals, each pair holds when both its events are performed.
            let Some(i) = definition(self.model, self.model.rows.len(), name) else { continue };
            let Some(v) = self.rows[i].take() else { continue };
            let l = self.lits(v);
            match name {
                // Over nodes, as the race is defined (see `Encoding::cause_nodes`).
                "dr" => self.enc.derived.dr = Some(l.sorted().into_iter().map(|(_, v)| v).collect()),
                "cause" => self.enc.derived.cause_nodes = l.sorted().into_iter().filter(|((a, b), _)| a != b).collect(),
                // Over events (explanations): an RMW's parts are one event.
                "sw" => {
                    let mut out = crate::sat::encode::Rel::default();
                    for ((a, b), v) in l.sorted() {
                        let ea = self.nodes.event[a].unwrap_or(p.events.len() + a - self.nodes.nv);
                        let eb = self.nodes.event[b].unwrap_or(p.events.len() + b - self.nodes.nv);
                        if ea != eb {
                            let w = out.get(&(ea, eb)).map_or(v, |&u| self.enc.f.or(&[u, v]));
                            out.insert((ea, eb), w);
                        }
                    }
                    self.enc.derived.sw = out;
                }
                _ => {}
            }
        }
    }
}
