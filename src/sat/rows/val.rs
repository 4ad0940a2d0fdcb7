//! Values of compiled relation expressions and the gates that combine them.
//!
//! A relation is either *static* (a bit matrix fixed by the program: `po`,
//! `ms`, `[W]`, ...) or *literal* (a sparse map from node pairs to literals;
//! an absent pair is false). Gates are built with the polarity the row is used
//! in (Plaisted–Greenbaum, paper-notes/encoding.md "Compiled rows"): where the
//! axioms only ever forbid a relation (positive polarity), its literal need
//! only be *implied* by its definition; where a relation is subtracted
//! (negative polarity), the literal need only *imply* its definition.

use crate::model::rel::Rel;
use crate::sat::formula::{Formula, B};
use rustc_hash::FxHashMap as HashMap;

/// Where a relation is used: `pos` when the checks forbid its pairs (through
/// any number of unions, sequences, intersections, closures and left sides of
/// differences), `neg` when it is subtracted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pol {
    pub pos: bool,
    pub neg: bool,
}

impl Pol {
    pub(crate) const POS: Pol = Pol { pos: true, neg: false };

    pub fn flip(self) -> Pol {
        Pol { pos: self.neg, neg: self.pos }
    }

    pub fn join(self, o: Pol) -> Pol {
        Pol { pos: self.pos || o.pos, neg: self.neg || o.neg }
    }

    pub fn any(self) -> bool {
        self.pos || self.neg
    }
}

/// A relation over literals: pair -> literal (never `B::F`).
#[derive(Debug, Default)]
pub(crate) struct LRel {
    pub pairs: HashMap<(usize, usize), B>,
    /// Generating edges with the same transitive closure as `pairs`, when
    /// cheaper (program order as its immediate steps on each path, D61).
    pub steps: Option<Vec<(usize, usize, B)>>,
}

impl LRel {
    pub fn get(&self, a: usize, b: usize) -> B {
        self.pairs.get(&(a, b)).copied().unwrap_or(B::F)
    }

    pub fn insert(&mut self, a: usize, b: usize, v: B) {
        if v != B::F {
            crate::budget::before_insert(&self.pairs);
            self.pairs.insert((a, b), v);
        }
    }

    /// The bytes of a vector with an item per pair.
    fn listed<T>(&self) -> u64 {
        self.pairs.len() as u64 * std::mem::size_of::<T>() as u64
    }

    /// Successor lists, sorted for deterministic clause order.
    pub(crate) fn succ(&self, n: usize) -> Vec<Vec<(usize, B)>> {
        // Many short vectors, each with room to grow: twice the items.
        crate::budget::will_allocate(2 * self.listed::<(usize, B)>());
        let mut s = vec![Vec::new(); n];
        for (&(a, b), &v) in &self.pairs {
            s[a].push((b, v));
        }
        for l in &mut s {
            l.sort_by_key(|x| x.0);
        }
        s
    }

    /// The edges a closure or a cycle check extends paths with.
    pub(crate) fn step_edges(&self) -> Vec<(usize, usize, B)> {
        if let Some(s) = &self.steps {
            return s.clone();
        }
        crate::budget::will_allocate(self.listed::<(usize, usize, B)>());
        let mut v: Vec<(usize, usize, B)> = self.pairs.iter().map(|(&(a, b), &l)| (a, b, l)).collect();
        v.sort_by_key(|x| (x.0, x.1));
        v
    }

    pub fn sorted(&self) -> Vec<((usize, usize), B)> {
        crate::budget::will_allocate(self.listed::<((usize, usize), B)>());
        let mut v: Vec<((usize, usize), B)> = self.pairs.iter().map(|(&k, &l)| (k, l)).collect();
        v.sort_by_key(|x| x.0);
        v
    }
}

/// A copy is one allocation the size of the table: charged before it is made (D163).
impl Clone for LRel {
    fn clone(&self) -> Self {
        crate::budget::will_allocate(crate::budget::table_bytes::<(usize, usize), B>(self.pairs.capacity()));
        LRel { pairs: self.pairs.clone(), steps: self.steps.clone() }
    }
}

/// A compiled expression.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    Static(Rel),
    Lits(LRel),
}

/// `OR lits` as a literal, with the polarity's direction(s) only.
pub(crate) fn or_gate(f: &mut Formula, lits: &[B], pol: Pol) -> B {
    if lits.contains(&B::T) {
        return B::T;
    }
    let mut ls: Vec<B> = lits.iter().copied().filter(|&l| l != B::F).collect();
    ls.dedup();
    match ls.len() {
        0 => B::F,
        1 => ls[0],
        _ if pol.pos && pol.neg => f.or(&ls),
        _ => {
            let v = f.fresh();
            if pol.pos {
                for &l in &ls {
                    f.implies(&[l], v);
                }
            }
            if pol.neg {
                let mut c = ls.clone();
                c.push(!v);
                f.clause(&c);
            }
            v
        }
    }
}

/// `AND lits` as a literal, with the polarity's direction(s) only.
pub(crate) fn and_gate(f: &mut Formula, lits: &[B], pol: Pol) -> B {
    if lits.contains(&B::F) {
        return B::F;
    }
    let mut ls: Vec<B> = lits.iter().copied().filter(|&l| l != B::T).collect();
    ls.dedup();
    match ls.len() {
        0 => B::T,
        1 => ls[0],
        _ if pol.pos && pol.neg => f.and(&ls),
        _ => {
            let v = f.fresh();
            if pol.pos {
                f.implies(&ls, v);
            }
            if pol.neg {
                for &l in &ls {
                    f.implies(&[v], l);
                }
            }
            v
        }
    }
}
