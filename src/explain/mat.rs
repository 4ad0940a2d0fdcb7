//! A dense relation over an explanation's local event numbers, with the
//! presentation operations pictures need (transitive reduction).

use crate::model::rel::Rel;

/// A dense relation over local event numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mat {
    n: usize,
    bits: Vec<bool>,
}

impl Mat {
    pub fn new(n: usize) -> Mat {
        Mat { n, bits: vec![false; n * n] }
    }
    /// A relation the model's evaluator computed (`n` events).
    pub fn from_rel(n: usize, r: &Rel) -> Mat {
        let mut m = Mat::new(n);
        for (a, b) in r.pairs() {
            m.add(a, b);
        }
        m
    }
    pub fn has(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.n + b]
    }
    pub fn add(&mut self, a: usize, b: usize) {
        self.bits[a * self.n + b] = true;
    }
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for a in 0..self.n {
            for b in 0..self.n {
                if self.has(a, b) {
                    v.push((a, b));
                }
            }
        }
        v
    }
    /// Transitive reduction of a strict partial order: the edges not implied by two others.
    pub fn reduction(&self) -> Mat {
        let mut r = Mat::new(self.n);
        for (a, b) in self.pairs() {
            if !(0..self.n).any(|c| c != a && c != b && self.has(a, c) && self.has(c, b)) {
                r.add(a, b);
            }
        }
        r
    }
}
