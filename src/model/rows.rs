//! The models, as rows of the relation algebra ([`super::algebra`]) over the
//! primitives of [`super::prims`]. The rows are cat text: the built-in models
//! are the files of `models/` (embedded at build, parsed by the one parser
//! [`super::cat_parse`] on first use), and `--model FILE.cat` loads a user's
//! model the same way. This is the only place the derived relations and the
//! axioms of chapter 8 are written: the axioms are the model's check rows
//! (`... as NAME`), and a violation names its row.
//!
//! - `ptx` (default): the ISA 9.2 text; `atom`/`red` are one event (D13).
//! - `ptx-alloy`: NVIDIA's formalization (Lustig et al., ASPLOS'19, Figures 4
//!   and 7, section 3.5.3): read-modify-writes split into a read and a write
//!   linked by `rmw`; observation and Atomicity through `rmw` (D50, D51).
//! - `rc11`, `scoped-rc11`: herd's `rc11.cat` and Lustig et al.'s Figure 10,
//!   for C tests (`crate::c11`, paper-notes/c11.md).

use super::algebra::{parse_stmt, Stmt};
use super::cat_parse::{parse_model, CatError};
use std::sync::{Arc, OnceLock};

/// Which built-in model.
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
    /// Every built-in model.
    pub(crate) const BUILTIN: [ModelKind; 4] =
        [ModelKind::Ptx, ModelKind::PtxAlloy, ModelKind::Rc11, ModelKind::ScopedRc11];

    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Ptx => "ptx",
            ModelKind::PtxAlloy => "ptx-alloy",
            ModelKind::Rc11 => "rc11",
            ModelKind::ScopedRc11 => "scoped-rc11",
        }
    }

    /// The built-in model of this name.
    pub(crate) fn from_name(name: &str) -> Option<ModelKind> {
        Self::BUILTIN.into_iter().find(|k| k.name() == name)
    }

    /// The model's cat text, as `models/NAME.cat` holds it.
    pub fn text(self) -> &'static str {
        match self {
            ModelKind::Ptx => include_str!("../../models/ptx.cat"),
            ModelKind::PtxAlloy => include_str!("../../models/ptx-alloy.cat"),
            ModelKind::Rc11 => include_str!("../../models/rc11.cat"),
            ModelKind::ScopedRc11 => include_str!("../../models/scoped-rc11.cat"),
        }
    }

    /// The model, shared (engines hold it by `Arc` so a test can give its own rows).
    pub fn shared(self) -> Arc<Model> {
        static CELLS: [OnceLock<Arc<Model>>; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        CELLS[self as usize].get_or_init(|| Arc::new(self.model().clone())).clone()
    }

    /// The model, parsed from its cat text once.
    pub fn model(self) -> &'static Model {
        static CELLS: [OnceLock<Model>; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        CELLS[self as usize].get_or_init(|| {
            // The built-in files are ours: one that does not load is a bug every test run shows.
            Model::parse(self.text(), self.name())
                .unwrap_or_else(|e| panic!("models/{}.cat:{}:{}: {}", self.name(), e.line, e.col, e.message))
        })
    }
}

impl Model {
    /// The rows are those of a built-in PTX model (same statements, same RMW
    /// split): what D66's argument about the rows was checked against.
    pub(crate) fn is_builtin(&self) -> bool {
        ModelKind::ALL.iter().any(|k| std::ptr::eq(k.model(), self) || self.same_rows(k.model(), self.rows.len()))
    }

    /// Every check row of some built-in model is a check row of this one: the
    /// model's rows begin with all of that model's rows, unchanged (D131). Facts
    /// the engines derive from the built-in axioms (D60, D61) hold in it.
    pub(crate) fn has_builtin_axioms(&self) -> bool {
        ModelKind::BUILTIN
            .iter()
            .any(|k| self.rows.len() >= k.model().rows.len() && self.same_rows(k.model(), k.model().rows.len()))
    }

    /// The model keeps, for each of `checks`, a check row of that name meaning
    /// what it means in one built-in PTX model (the same one for all): facts
    /// proven from those rows of that model (D60) hold under the rows'
    /// activations, whatever the other rows say (D221). Compared by content,
    /// never by name alone.
    pub(crate) fn keeps_checks_of_builtin(&self, checks: &[&str]) -> bool {
        ModelKind::ALL.iter().any(|k| {
            let b = k.model();
            b.split_rmw == self.split_rmw && checks.iter().all(|c| self.keeps_check(b, c))
        })
    }

    /// Some check row of `self` named `check` means what `b`'s last row of that name means.
    fn keeps_check(&self, b: &Model, check: &str) -> bool {
        let named = |m: &Model| -> Vec<usize> {
            (0..m.rows.len())
                .filter(|&i| matches!(&m.rows[i].stmt, Stmt::Check { name, .. } if name == check))
                .collect()
        };
        let Some(&j) = named(b).last() else { return false };
        let mut memo = std::collections::HashMap::new();
        named(self).into_iter().any(|i| same_meaning(self, i, b, j, &mut memo))
    }

    /// Some row reads the primitive or row `name`.
    pub fn reads(&self, name: &str) -> bool {
        self.rows.iter().any(|r| {
            let text = match &r.stmt {
                Stmt::Let { expr, .. } | Stmt::Check { expr, .. } => format!("{}", expr),
            };
            text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')).any(|w| w == name)
        })
    }

    /// The first `n` rows of `self` are `other`'s rows, and `other` has `n` rows.
    fn same_rows(&self, other: &Model, n: usize) -> bool {
        other.split_rmw == self.split_rmw
            && other.rows.len() == n
            && self.rows.len() >= n
            && other.rows.iter().zip(&self.rows).all(|(a, b)| a.stmt == b.stmt)
    }
}

/// Row `i` of `a` and row `j` of `b` denote the same relation or check on
/// every execution: the same statement, each name it reads resolving (as the
/// engines resolve it: the latest earlier `let`, else a primitive) to rows of
/// the same meaning in both, or to the same primitive in both. Rows read only
/// earlier rows, so the recursion ends; `memo` keeps it linear in pairs.
fn same_meaning(
    a: &Model,
    i: usize,
    b: &Model,
    j: usize,
    memo: &mut std::collections::HashMap<(usize, usize), bool>,
) -> bool {
    if let Some(&known) = memo.get(&(i, j)) {
        return known;
    }
    let def = |m: &Model, upto: usize, n: &str| {
        m.rows[..upto].iter().rposition(|r| matches!(&r.stmt, Stmt::Let { name, .. } if name == n))
    };
    let same = a.rows[i].stmt == b.rows[j].stmt && {
        let expr = match &a.rows[i].stmt {
            Stmt::Let { expr, .. } | Stmt::Check { expr, .. } => expr,
        };
        let mut names = Vec::new();
        expr.names(&mut names);
        names.iter().all(|n| match (def(a, i, n), def(b, j, n)) {
            (Some(x), Some(y)) => same_meaning(a, x, b, y, memo),
            (None, None) => true,
            _ => false,
        })
    };
    memo.insert((i, j), same);
    same
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
    /// The comment before the title (what the model is).
    pub(crate) description: String,
    pub(crate) split_rmw: bool,
    /// The model decides C tests (`option c11`).
    pub(crate) c_tests: bool,
    pub rows: Vec<Row>,
    /// Name resolution and dependencies of the rows, computed on first use.
    plan: OnceLock<super::eval::Plan>,
}

/// Rows the engines read by name, beyond the check rows: a model must define
/// them (`Model::parse` refuses one that does not). The data race (8.7.1) is
/// decided on `cause` (causality order) in a PTX model and on `dr` in a C
/// model (herd's `undefined_unless empty dr`); explanations and `explain`'s
/// synchronizing pairs read `sw`.
pub(crate) const NEEDED_PTX: [(&str, &str); 2] =
    [("cause", "8.7.1 data races are decided on causality order"), ("sw", "explanations show synchronizes-with")];
pub(crate) const NEEDED_C: [(&str, &str); 2] =
    [("dr", "data races are herd's `undefined_unless empty dr`"), ("sw", "explanations show synchronizes-with")];

impl Model {
    /// A model from its cat text (D130): parsed, every name resolved, the rows
    /// the engines read present. `default_name` names a file without a title.
    pub fn parse(text: &str, default_name: &str) -> Result<Model, CatError> {
        let parsed = parse_model(text)?;
        let rows: Vec<Row> = parsed
            .rows
            .iter()
            .map(|r| Row { section: r.section.clone(), sentence: r.sentence.clone(), stmt: r.stmt.clone() })
            .collect();
        let m = Model {
            name: parsed.title.clone().unwrap_or_else(|| default_name.to_string()),
            description: parsed.description.clone(),
            split_rmw: parsed.split_rmw,
            c_tests: parsed.c_tests,
            rows,
            plan: OnceLock::new(),
        };
        if let Some(u) = super::eval::unresolved(&m) {
            let r = &parsed.rows[u.row];
            let (line, col) = r.names.iter().find(|n| n.0 == u.name).map_or((r.line, r.col), |n| (n.1, n.2));
            return Err(CatError { line, col, message: u.message });
        }
        if let Some(msg) = m.missing_row() {
            let (line, col) = parsed.rows.last().map_or((1, 1), |r| (r.line, r.col));
            return Err(CatError { line, col, message: msg });
        }
        Ok(m)
    }

    /// A model from a `.cat` file: errors are input errors (exit 2) that
    /// point into the file (`file:line:col`, the line, a caret).
    pub fn load(path: &std::path::Path) -> crate::error::Result<Model> {
        use crate::error::{Error, Origin};
        let text = crate::input::read_text_capped(path, 1 << 20)
            .map_err(|e| Error::input_nospan(format!("cannot read the model {}: {}", path.display(), e)))?;
        let stem = path.file_stem().map_or("model".into(), |s| s.to_string_lossy().into_owned());
        Model::parse(&text, &stem).map_err(|e| {
            let span = crate::ast::Span { line: e.line, col: e.col, start: 0, end: 0 };
            let origin =
                Origin { file: path.display().to_string(), source: text.as_str().into(), context: String::new() };
            Error::input(e.message, span).in_origin(&Some(Arc::new(origin)))
        })
    }

    /// The first row the engines read by name that the model lacks, as a sentence.
    fn missing_row(&self) -> Option<String> {
        let needed = if self.c_tests { &NEEDED_C } else { &NEEDED_PTX };
        let defines = |n: &str| self.rows.iter().any(|r| matches!(&r.stmt, Stmt::Let { name, .. } if name == n));
        needed.iter().find(|(n, _)| !defines(n)).map(|(n, why)| {
            format!(
                "the model defines no relation `{}`, which the engines read ({}): add a `let {} = ...` row",
                n, why, n
            )
        })
    }

    /// This model with one more row at the end (a new axiom or relation).
    pub fn with_row(&self, row: Row) -> Result<Model, String> {
        let mut m = Model { rows: self.rows.clone(), plan: OnceLock::new(), ..self.clone() };
        m.rows.push(row);
        super::eval::validate(&m)?;
        Ok(m)
    }

    /// What the evaluator needs beyond the rows (computed once).
    pub(crate) fn plan(&self) -> &super::eval::Plan {
        self.plan.get_or_init(|| super::eval::Plan::new(self))
    }

    /// The model as cat text (D130), one row per statement under its section
    /// and sentence: what [`Model::parse`] reads back to the same model.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if !self.description.is_empty() {
            out.push_str(&format!("(* {} *)\n", self.description));
        }
        out.push_str(&format!("\"{}\"\n", self.name));
        for (on, option) in [(self.split_rmw, "split-rmw"), (self.c_tests, "c11")] {
            if on {
                out.push_str(&format!("option {}\n", option));
            }
        }
        for r in &self.rows {
            out.push('\n');
            if !r.section.is_empty() || !r.sentence.is_empty() {
                out.push_str(&format!("(* {} {} *)\n", r.section, r.sentence));
            }
            out.push_str(&format!("{}\n", r.stmt));
        }
        out
    }
}

/// The name of [`cumulative_ptx`] for `--model`.
pub const CUMULATIVE_PTX: &str = "ptx-cumulative";

/// The ptx model under the other reading of which thread's
/// `fence.proxy.async` counts (D263, issue 41): `models/ptx.cat` with its one
/// row `let ppcb = proxy-preserved(cb)` read as
/// `proxy-preserved-cumulative(cb)` (a proxy fence anywhere on the causality
/// path orders a generic access with an async one).
pub fn cumulative_ptx() -> Arc<Model> {
    static CELL: OnceLock<Arc<Model>> = OnceLock::new();
    CELL.get_or_init(|| {
        let (row, other) = ("let ppcb = proxy-preserved(cb)", "let ppcb = proxy-preserved-cumulative(cb)");
        let text = ModelKind::Ptx.text();
        // Our own file with one row changed: one that does not load is a bug every async test shows.
        assert!(text.contains(row), "models/ptx.cat has the row `{}`", row);
        Arc::new(
            Model::parse(&text.replace(row, other), CUMULATIVE_PTX)
                .unwrap_or_else(|e| panic!("{}:{}: {}", e.line, e.col, e.message)),
        )
    })
    .clone()
}

/// `--model NAME|FILE.cat`: a built-in model by name, else a model file
/// ([`Model::load`]).
pub fn model_arg(arg: &str) -> crate::error::Result<Arc<Model>> {
    if let Some(k) = ModelKind::from_name(arg) {
        return Ok(k.shared());
    }
    if arg == CUMULATIVE_PTX {
        return Ok(cumulative_ptx());
    }
    let path = std::path::Path::new(arg);
    if !path.is_file() {
        let names: Vec<&str> = ModelKind::BUILTIN.iter().map(|k| k.name()).collect();
        return Err(crate::error::Error::input_nospan(format!(
            "`{}` is neither a built-in model ({}, {}) nor a model file",
            arg,
            names.join(", "),
            CUMULATIVE_PTX
        )));
    }
    Model::load(path).map(Arc::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files of `models/` are what `render` prints of the models they give.
    #[test]
    fn builtin_files_are_their_own_printout() {
        for k in ModelKind::BUILTIN {
            assert_eq!(k.model().render(), k.text(), "models/{}.cat", k.name());
            assert_eq!(k.model().name, k.name());
        }
    }

    /// Without scopes, scoped-rc11 is rc11 without its No-Thin-Air row: the
    /// rows differ only where `incl` is added and in that row, and in how a
    /// read-modify-write is seen: one event in rc11, as herd7 makes it (its
    /// `myrmw = [RMW] | rmw`), a read and a write in scoped-rc11, as Lustig et
    /// al. split it (D224); the two are the same relation where rc11 reads `myrmw`.
    #[test]
    fn scoped_rows_are_rc11_rows_with_incl_and_without_no_thin_air() {
        let (a, b) = (ModelKind::Rc11.model(), ModelKind::ScopedRc11.model());
        assert!(!a.split_rmw && b.split_rmw);
        assert_eq!(a.rows[0].stmt.to_string(), "let myrmw = [RMW] | rmw");
        let a = &a.rows[1..];
        assert_eq!(a.len(), b.rows.len() + 1);
        assert!(a.last().is_some_and(|r| r.stmt.to_string() == "acyclic po | rf as no-thin-air"));
        for (x, y) in a.iter().zip(&b.rows) {
            let (x, y) = (x.stmt.to_string().replace("myrmw", "rmw"), y.stmt.to_string());
            assert!(x == y || y.contains("incl"), "{} vs {}", x, y);
        }
    }

    /// A model that reads a name denoting nothing, or lacks a row the engines
    /// read, is refused at the place that says so.
    #[test]
    fn unknown_names_and_missing_rows_are_refused_where_they_are() {
        let ptx = ModelKind::Ptx.text();
        let typo = ptx.replace("let cbo = (po | swu | async-order)+", "let cbo = (po | sww | async-order)+");
        assert_ne!(typo, ptx, "ptx.cat has the row `let cbo = (po | swu | async-order)+`");
        let e = Model::parse(&typo, "t").expect_err("sww");
        let line = typo.lines().position(|l| l.starts_with("let cbo")).unwrap() + 1;
        assert_eq!((e.line, e.col), (line, 17), "{}", e.message);
        assert!(e.message.contains("`sww` is no primitive relation"), "{}", e.message);
        let set = ptx.replace("[FSC]; (ms & cb)", "[FSX]; (ms & cb)");
        assert!(Model::parse(&set, "t").expect_err("FSX").message.contains("`FSX` is no event set"));
        let call = ptx.replace("proxy-preserved(cb)", "proxy-kept(cb)");
        assert!(Model::parse(&call, "t").expect_err("call").message.contains("`proxy-kept` is no primitive function"));
        let no_sw = ptx.replace("let sw =", "let sync =").replace("; sw; [", "; sync; [");
        let e = Model::parse(&no_sw, "t").expect_err("no sw");
        assert!(e.message.contains("defines no relation `sw`"), "{}", e.message);
    }
}
