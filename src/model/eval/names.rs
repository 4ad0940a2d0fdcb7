//! What the names of a model's rows denote: an earlier row, an execution relation the engine gives (`rf`, `co`,
//! ...) or a primitive (`prims`), resolved once per model, with the execution relations each row reads.

use crate::model::algebra::Stmt;
use crate::model::prims;
use crate::model::rows::Model;
use rustc_hash::FxHashMap as HashMap;

#[derive(Clone, Copy, Debug)]
pub(crate) enum Ref {
    Static(usize),
    Exec(usize),
    Row(usize),
}

/// Name -> what it denotes, as rows `0..upto` define it.
pub(super) fn resolve(m: &Model, upto: usize, name: &str) -> Option<Ref> {
    let row = m.rows[..upto].iter().rposition(|r| matches!(&r.stmt, Stmt::Let { name: n, .. } if n == name));
    if let Some(i) = row {
        return Some(Ref::Row(i));
    }
    if let Some(i) = prims::EXEC.iter().position(|(n, _)| *n == name) {
        return Some(Ref::Exec(i));
    }
    prims::STATIC.iter().position(|(n, _)| *n == name).map(Ref::Static)
}

/// A row that reads a name denoting nothing: which row, which name, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unresolved {
    pub row: usize,
    pub name: String,
    pub message: String,
}

/// Every name of every row resolves to a primitive, an execution relation or
/// an earlier row; every set and primitive call exists.
pub fn validate(m: &Model) -> Result<(), String> {
    unresolved(m).map_or(Ok(()), |u| Err(format!("row `{}`: {}", m.rows[u.row].stmt, u.message)))
}

/// The first name of the model that denotes nothing (see [`validate`]).
pub(crate) fn unresolved(m: &Model) -> Option<Unresolved> {
    for (i, r) in m.rows.iter().enumerate() {
        let e = match &r.stmt {
            Stmt::Let { expr, .. } | Stmt::Check { expr, .. } => expr,
        };
        let mut names = Vec::new();
        e.names(&mut names);
        if let Some(n) = names.into_iter().find(|n| resolve(m, i, n).is_none()) {
            let message = format!(
                "`{}` is no primitive relation and no earlier row (`ptx-litmus model` lists the primitives)",
                n
            );
            return Some(Unresolved { row: i, name: n, message });
        }
        let mut sets = Vec::new();
        e.set_names(&mut sets);
        if let Some(s) = sets.into_iter().find(|s| !prims::SETS.iter().any(|(n, _)| n == s)) {
            let message = format!("`{}` is no event set (`ptx-litmus model` lists them)", s);
            return Some(Unresolved { row: i, name: s, message });
        }
        let mut calls = Vec::new();
        e.call_names(&mut calls);
        if let Some(f) = calls.into_iter().find(|f| !prims::CALLS.iter().any(|(n, _)| n == f)) {
            let message = format!("`{}` is no primitive function (`ptx-litmus model` lists them)", f);
            return Some(Unresolved { row: i, name: f, message });
        }
    }
    None
}

/// Which execution relations (bit k: `Exec` k) each row reads, directly or through earlier rows.
fn exec_masks(m: &Model) -> Vec<u8> {
    let mut masks: Vec<u8> = Vec::with_capacity(m.rows.len());
    for (i, r) in m.rows.iter().enumerate() {
        let (Stmt::Let { expr, .. } | Stmt::Check { expr, .. }) = &r.stmt;
        let mut names = Vec::new();
        expr.names(&mut names);
        let mask = names.iter().fold(0u8, |acc, n| match resolve(m, i, n) {
            Some(Ref::Exec(k)) => acc | 1 << k,
            Some(Ref::Row(j)) => acc | masks[j],
            _ => acc,
        });
        masks.push(mask);
    }
    masks
}

/// What an evaluator needs of a model besides its rows, computed once per model.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    pub(super) masks: Vec<u8>,
    pub(super) names: Vec<HashMap<String, Ref>>,
}

impl Plan {
    pub fn new(model: &Model) -> Plan {
        let names = (0..model.rows.len())
            .map(|i| {
                let (Stmt::Let { expr, .. } | Stmt::Check { expr, .. }) = &model.rows[i].stmt;
                let mut ns = Vec::new();
                expr.names(&mut ns);
                ns.into_iter().filter_map(|n| resolve(model, i, &n).map(|r| (n, r))).collect()
            })
            .collect();
        Plan { masks: exec_masks(model), names }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rows::{ModelKind, Row};

    #[test]
    fn both_models_validate_and_unknown_names_do_not() {
        for k in ModelKind::ALL {
            assert!(validate(k.model()).is_ok());
        }
        let m = ModelKind::Ptx.model();
        assert!(m.with_row(Row::new("0", "", "acyclic nosuch as X").unwrap()).is_err());
        assert!(m.with_row(Row::new("0", "", "acyclic [Nope]; po as X").unwrap()).is_err());
        assert!(m.with_row(Row::new("0", "", "acyclic po; cause as X").unwrap()).is_ok());
    }

    #[test]
    fn masks_follow_earlier_rows() {
        let m = ModelKind::Ptx.model();
        let masks = exec_masks(m);
        let idx = |n: &str| m.rows.iter().position(|r| matches!(&r.stmt, Stmt::Let { name, .. } if name == n)).unwrap();
        assert_eq!(masks[idx("fr")], 0b0011);
        assert_eq!(masks[idx("cause")], 0b1101, "cause reads rf, sc and bar, not co");
    }
}
