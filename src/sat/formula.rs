//! A thin layer over varisat: literals that may be constants (folded before the
//! solver sees them), clauses, Horn implications and a cardinality constraint.

use crate::budget;
use crate::error::{Error, Result};
use varisat::solver::SolverError;
use varisat::{ExtendFormula, Lit, Solver};

/// Estimated bytes per solver variable: varisat's per-variable arrays plus the
/// relation-map entry most variables come with (calibrated against peak RSS).
const BYTES_PER_VAR: u64 = 176;
/// Estimated bytes per clause besides its literals (header, two watches).
const BYTES_PER_CLAUSE: u64 = 44;
/// What varisat allocates at once when its variable count passes a power of
/// two `n`: each per-variable array (assignment, implication graph, activity,
/// a watch list and a binary-clause list per literal) is copied to one with
/// room for `2n`, the old one held until copied. Measured: the arrays hold
/// 113 bytes per variable in all (D163).
const SOLVER_STEP_PER_VAR: u64 = 128;
/// Words (4 bytes) of a clause of three or more literals in varisat's clause
/// buffer: a 3-word header and the literals. The buffer doubles when full.
const HEADER_WORDS: u64 = 3;

/// A boolean: a constant or a solver literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum B {
    T,
    F,
    L(Lit),
}

impl std::ops::Not for B {
    type Output = B;
    fn not(self) -> B {
        match self {
            B::T => B::F,
            B::F => B::T,
            B::L(l) => B::L(!l),
        }
    }
}

pub struct Formula {
    pub solver: Solver<'static>,
    pub(crate) vars: usize,
    pub clauses: usize,
    /// Words of varisat's clause buffer (clauses of three or more literals).
    long_words: u64,
}

impl Default for Formula {
    fn default() -> Self {
        Self::new()
    }
}

impl Formula {
    pub fn new() -> Self {
        Formula { solver: Solver::new(), vars: 0, clauses: 0, long_words: 0 }
    }

    pub fn fresh(&mut self) -> B {
        self.vars += 1;
        budget::charge(BYTES_PER_VAR);
        if self.vars.is_power_of_two() {
            // The solver's arrays double when a clause first names this variable (D163).
            budget::will_allocate(self.vars as u64 * SOLVER_STEP_PER_VAR);
        }
        B::L(self.solver.new_lit())
    }

    /// Add the clause `OR lits` (constants folded).
    pub(crate) fn clause(&mut self, lits: &[B]) {
        let mut out = Vec::with_capacity(lits.len());
        for &b in lits {
            match b {
                B::T => return,
                B::F => {}
                B::L(l) => out.push(l),
            }
        }
        self.clauses += 1;
        budget::charge(BYTES_PER_CLAUSE + 4 * out.len() as u64);
        if out.len() >= 3 {
            let before = self.long_words;
            self.long_words += HEADER_WORDS + out.len() as u64;
            if before.leading_zeros() != self.long_words.leading_zeros() {
                // Past a power of two: the buffer is copied to one of twice as many words (D163).
                let full = 1u64 << (63 - self.long_words.leading_zeros());
                budget::will_allocate(2 * full * 4);
            }
        }
        self.solver.add_clause(&out);
    }

    /// `AND body -> head`.
    pub(crate) fn implies(&mut self, body: &[B], head: B) {
        let mut c: Vec<B> = body.iter().map(|&b| !b).collect();
        c.push(head);
        self.clause(&c);
    }

    /// A literal equal to `AND xs` (both directions).
    pub fn and(&mut self, xs: &[B]) -> B {
        if xs.contains(&B::F) {
            return B::F;
        }
        let ls: Vec<B> = xs.iter().copied().filter(|&b| b != B::T).collect();
        match ls.len() {
            0 => B::T,
            1 => ls[0],
            _ => {
                let v = self.fresh();
                for &x in &ls {
                    self.implies(&[v], x);
                }
                let mut c: Vec<B> = ls.iter().map(|&b| !b).collect();
                c.push(v);
                self.clause(&c);
                v
            }
        }
    }

    /// A literal equal to `OR xs` (both directions).
    pub fn or(&mut self, xs: &[B]) -> B {
        let negs: Vec<B> = xs.iter().map(|&b| !b).collect();
        !self.and(&negs)
    }

    /// Exactly one of `xs` holds when `guard` holds; none otherwise is not implied.
    pub(crate) fn at_most_one(&mut self, xs: &[B]) {
        // Pairwise up to a few; beyond, the sequential ("ladder") encoding: 3n
        // clauses instead of n²/2 (a thread of a 16-thread lock has hundreds of
        // paths), and unit propagation still forbids every other literal once
        // one holds. `seen` means "some of xs[..=i] holds".
        if xs.len() <= 8 {
            for i in 0..xs.len() {
                for j in i + 1..xs.len() {
                    self.clause(&[!xs[i], !xs[j]]);
                }
            }
            return;
        }
        let mut seen = xs[0];
        for &x in &xs[1..] {
            self.clause(&[!seen, !x]);
            let next = self.fresh();
            self.implies(&[seen], next);
            self.implies(&[x], next);
            seen = next;
        }
    }

    /// `guard -> at least k of xs` (sequential counter; sound and complete).
    pub(crate) fn at_least(&mut self, guard: B, xs: &[B], k: usize) {
        if k == 0 {
            return;
        }
        if xs.len() < k {
            self.clause(&[!guard]);
            return;
        }
        if xs.len() == k {
            // All of them (a barrier every thread must reach): no counter, O(n).
            for &x in xs {
                self.implies(&[guard], x);
            }
            return;
        }
        // s[j] after processing i items: "at least j of the first i hold" (only the
        // direction s -> justification is needed).
        let mut prev: Vec<B> = (0..=k).map(|j| if j == 0 { B::T } else { B::F }).collect();
        for &x in xs {
            let mut cur = vec![B::T];
            for j in 1..=k {
                let s = self.fresh();
                // s -> prev[j] or x ; s -> prev[j] or prev[j-1]
                self.clause(&[!s, prev[j], x]);
                self.clause(&[!s, prev[j], prev[j - 1]]);
                cur.push(s);
            }
            prev = cur;
        }
        self.implies(&[guard], prev[k]);
    }

    /// Solve under the test's deadline (the vendored varisat stops at it and
    /// the budget unwinds with the timeout message).
    fn run_solver(&mut self) -> Result<bool> {
        self.solver.set_deadline(budget::deadline());
        // One more step than is left, so that passing the limit is seen below.
        self.solver.set_step_limit(budget::work_left().map(|w| w.saturating_add(1)));
        let start = std::time::Instant::now();
        let answer = self.solver.solve();
        budget::spent_solving(self.solver.steps_taken());
        if crate::out::tracing() {
            eprintln!("solve: {:?} in {:?}", answer.as_ref().ok(), start.elapsed());
        }
        match answer {
            Ok(sat) => Ok(sat),
            Err(SolverError::Interrupted) => budget::timed_out(),
            Err(e) => Err(Error::internal(format!("the SAT solver failed: {}", e))),
        }
    }

    /// Satisfiable under these assumptions? A solver failure is an internal error,
    /// never read as "unsatisfiable" (that would be a verdict).
    pub fn solve_assuming(&mut self, assumptions: &[B]) -> Result<bool> {
        if assumptions.contains(&B::F) {
            return Ok(false);
        }
        let ls: Vec<Lit> = assumptions.iter().filter_map(|b| if let B::L(l) = b { Some(*l) } else { None }).collect();
        // Assumptions stay set until the next solve: changing them discards the model.
        self.solver.assume(&ls);
        self.run_solver()
    }

    /// The model of the last satisfiable solve, as a lookup function. Missing
    /// after a satisfiable answer is an unexpected solver state (internal error).
    pub fn model(&self) -> Result<Model> {
        let m = self
            .solver
            .model()
            .ok_or_else(|| Error::internal("the SAT solver answered satisfiable but gave no model"))?;
        let mut vals = Vec::new();
        for l in m {
            let i = l.var().index();
            if vals.len() <= i {
                vals.resize(i + 1, false);
            }
            vals[i] = l.is_positive();
        }
        Ok(Model { vals })
    }
}

pub struct Model {
    vals: Vec<bool>,
}

impl Model {
    pub fn value(&self, b: B) -> bool {
        match b {
            B::T => true,
            B::F => false,
            B::L(l) => {
                let v = self.vals.get(l.var().index()).copied().unwrap_or(false);
                if l.is_positive() {
                    v
                } else {
                    !v
                }
            }
        }
    }
}
