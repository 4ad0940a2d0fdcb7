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
    pub(crate) fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Rel {
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

    /// Bytes of the bit matrix.
    pub fn bytes(&self) -> usize {
        self.bits.len() * 8
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
        self.iter().collect()
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
    /// Row a of the result is the union of `other`'s rows b over the bits b of
    /// row a (visited by their set bits: relations here are sparse).
    pub fn compose(&self, other: &Rel) -> Rel {
        assert_eq!(self.n, other.n);
        let w = self.words;
        let mut r = Rel::new(self.n);
        for a in 0..self.n {
            let (row, out) = (&self.bits[a * w..(a + 1) * w], &mut r.bits[a * w..(a + 1) * w]);
            for (k, &word) in row.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let b = k * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for (o, &x) in out.iter_mut().zip(&other.bits[b * w..(b + 1) * w]) {
                        *o |= x;
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
    pub(crate) fn identity(n: usize, keep: impl Fn(usize) -> bool) -> Rel {
        let mut r = Rel::new(n);
        for a in (0..n).filter(|&a| keep(a)) {
            r.add(a, a);
        }
        r
    }

    /// `self⁻¹`.
    pub fn inverse(&self) -> Rel {
        let mut r = Rel::new(self.n);
        for (a, b) in self.iter() {
            r.add(b, a);
        }
        r
    }

    /// The related pairs in order, visited by set bits.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let w = self.words;
        self.bits.iter().enumerate().flat_map(move |(i, &word)| {
            let (a, base) = (i / w, (i % w) * 64);
            std::iter::successors(Some(word), |&x| Some(x & x.wrapping_sub(1)))
                .take_while(|&x| x != 0)
                .map(move |x| (a, base + x.trailing_zeros() as usize))
        })
    }

    /// `self⁺`, the transitive closure (Warshall: for each k, every row with
    /// bit k takes row k; the rows with bit k are read from column k's word).
    pub fn closure(&self) -> Rel {
        let mut r = self.clone();
        let w = self.words;
        for k in 0..self.n {
            let (kw, kbit) = (k / 64, 1u64 << (k % 64));
            if r.bits[k * w..(k + 1) * w].iter().all(|&x| x == 0) {
                continue; // row k adds nothing
            }
            for a in 0..self.n {
                if r.bits[a * w + kw] & kbit != 0 {
                    for j in 0..w {
                        let v = r.bits[k * w + j];
                        r.bits[a * w + j] |= v;
                    }
                }
            }
        }
        r
    }

    /// The pairs whose both ends satisfy `keep`.
    pub fn restrict(&self, keep: impl Fn(usize) -> bool) -> Rel {
        self.filter(|a, b| keep(a) && keep(b))
    }

    /// The pairs satisfying `keep`.
    pub fn filter(&self, keep: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::new(self.n);
        for (a, b) in self.iter().filter(|&(a, b)| keep(a, b)) {
            r.add(a, b);
        }
        r
    }

    pub(crate) fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|a| !self.has(a, a))
    }

    pub fn is_acyclic(&self) -> bool {
        self.closure().is_irreflexive()
    }

    #[cfg(test)]
    fn is_transitive(&self) -> bool {
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

    /// A pseudo-random relation over `n` events with about `per_mille`/1000 of the pairs.
    fn random(n: usize, per_mille: u64, seed: &mut u64) -> Rel {
        Rel::from_fn(n, |_, _| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (*seed >> 33) % 1000 < per_mille
        })
    }

    #[test]
    fn bitwise_operations_agree_with_their_definitions() {
        let mut seed = 7;
        for n in [1, 5, 63, 64, 65, 130] {
            for density in [10, 60, 300] {
                let (r, s) = (random(n, density, &mut seed), random(n, density, &mut seed));
                let comp = Rel::from_fn(n, |a, c| (0..n).any(|b| r.has(a, b) && s.has(b, c)));
                assert_eq!(r.compose(&s), comp, "compose, n {}", n);
                // The closure is the least transitive relation containing r.
                let mut plus = r.clone();
                loop {
                    let next = plus.union(&plus.compose(&plus));
                    if next == plus {
                        break;
                    }
                    plus = next;
                }
                assert_eq!(r.closure(), plus, "closure, n {}", n);
                assert_eq!(r.inverse(), Rel::from_fn(n, |a, b| r.has(b, a)), "inverse, n {}", n);
                let naive: Vec<(usize, usize)> =
                    (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).filter(|&(a, b)| r.has(a, b)).collect();
                assert_eq!(r.pairs(), naive, "pairs, n {}", n);
                assert_eq!(r.filter(|a, b| (a + b) % 3 == 0), Rel::from_fn(n, |a, b| r.has(a, b) && (a + b) % 3 == 0));
            }
        }
    }
}
