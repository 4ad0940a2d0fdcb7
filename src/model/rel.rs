//! A binary relation over the events of one candidate execution, as a bit matrix.
//! Events are numbered `0..n` locally (the executed events of one candidate,
//! see `reference::enumerate::Ctx` and [`super::view::View`]).

use std::fmt;

/// `rows[a]` bit `b` set: `a` is related to `b`.
#[derive(Clone, PartialEq, Eq)]
pub struct Rel {
    n: usize,
    words: usize,
    bits: Vec<u64>,
}

impl Rel {
    /// The empty relation over `n` events.
    pub fn new(n: usize) -> Rel {
        let words = n.div_ceil(64).max(1);
        Rel { n, words, bits: vec![0; n * words] }
    }

    /// The relation holding exactly the given pairs.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Rel {
        let mut r = Rel::new(n);
        for (a, b) in pairs {
            r.add(a, b);
        }
        r
    }

    /// The relation holding the pairs for which `f` holds.
    pub fn from_fn(n: usize, mut f: impl FnMut(usize, usize) -> bool) -> Rel {
        let mut r = Rel::new(n);
        for a in 0..n {
            for b in 0..n {
                if f(a, b) {
                    r.add(a, b);
                }
            }
        }
        r
    }

    pub fn size(&self) -> usize {
        self.n
    }

    pub fn has(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.words + b / 64] >> (b % 64) & 1 == 1
    }

    pub fn add(&mut self, a: usize, b: usize) {
        self.bits[a * self.words + b / 64] |= 1 << (b % 64);
    }

    pub fn remove(&mut self, a: usize, b: usize) {
        self.bits[a * self.words + b / 64] &= !(1 << (b % 64));
    }

    /// All related pairs, in order.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for a in 0..self.n {
            for b in 0..self.n {
                if self.has(a, b) {
                    out.push((a, b));
                }
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    /// `self ∪ other`.
    pub fn union(&self, other: &Rel) -> Rel {
        assert_eq!(self.n, other.n);
        let mut r = self.clone();
        for (x, y) in r.bits.iter_mut().zip(&other.bits) {
            *x |= *y;
        }
        r
    }

    /// `self ∩ other`.
    pub fn intersect(&self, other: &Rel) -> Rel {
        assert_eq!(self.n, other.n);
        let mut r = self.clone();
        for (x, y) in r.bits.iter_mut().zip(&other.bits) {
            *x &= *y;
        }
        r
    }

    /// `self ; other`: a related to c when a self b and b other c for some b.
    pub fn compose(&self, other: &Rel) -> Rel {
        assert_eq!(self.n, other.n);
        let mut r = Rel::new(self.n);
        for a in 0..self.n {
            for b in 0..self.n {
                if self.has(a, b) {
                    for k in 0..self.words {
                        r.bits[a * self.words + k] |= other.bits[b * self.words + k];
                    }
                }
            }
        }
        r
    }

    /// `self \\ other`.
    pub fn minus(&self, other: &Rel) -> Rel {
        assert_eq!(self.n, other.n);
        let mut r = self.clone();
        for (x, y) in r.bits.iter_mut().zip(&other.bits) {
            *x &= !*y;
        }
        r
    }

    /// The identity relation on the events satisfying `keep` (`[S]` in cat).
    pub fn identity(n: usize, keep: impl Fn(usize) -> bool) -> Rel {
        let mut r = Rel::new(n);
        for a in (0..n).filter(|&a| keep(a)) {
            r.add(a, a);
        }
        r
    }

    /// `self⁻¹`.
    pub fn inverse(&self) -> Rel {
        Rel::from_fn(self.n, |a, b| self.has(b, a))
    }

    /// `self⁺`, the transitive closure (Warshall).
    pub fn closure(&self) -> Rel {
        let mut r = self.clone();
        for k in 0..self.n {
            for a in 0..self.n {
                if r.has(a, k) {
                    for w in 0..self.words {
                        let v = r.bits[k * self.words + w];
                        r.bits[a * self.words + w] |= v;
                    }
                }
            }
        }
        r
    }

    /// The pairs whose both ends satisfy `keep`.
    pub fn restrict(&self, keep: impl Fn(usize) -> bool) -> Rel {
        Rel::from_fn(self.n, |a, b| self.has(a, b) && keep(a) && keep(b))
    }

    /// The pairs satisfying `keep`.
    pub fn filter(&self, keep: impl Fn(usize, usize) -> bool) -> Rel {
        Rel::from_fn(self.n, |a, b| self.has(a, b) && keep(a, b))
    }

    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|a| !self.has(a, a))
    }

    pub fn is_acyclic(&self) -> bool {
        self.closure().is_irreflexive()
    }

    pub fn is_transitive(&self) -> bool {
        self.compose(self).pairs().into_iter().all(|(a, b)| self.has(a, b))
    }
}

impl fmt::Debug for Rel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.pairs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_cycles() {
        let r = Rel::from_pairs(70, [(0, 1), (1, 65), (65, 2)]);
        let c = r.closure();
        assert!(c.has(0, 2) && c.has(0, 65) && c.has(1, 2));
        assert!(!c.has(2, 0));
        assert!(r.is_acyclic());
        let mut r2 = r.clone();
        r2.add(2, 0);
        assert!(!r2.is_acyclic());
        assert!(!r.is_transitive());
        assert!(c.is_transitive());
        assert_eq!(r.inverse().pairs(), vec![(1, 0), (2, 65), (65, 1)]);
        let comp = r.compose(&r);
        assert_eq!(comp.pairs(), vec![(0, 65), (1, 2)]);
        assert_eq!(r.union(&r2).pairs().len(), 4);
        assert_eq!(r.intersect(&r2).pairs().len(), 3);
    }
}
