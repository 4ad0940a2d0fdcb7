//! Relation expressions into literals: one function per operator of the
//! algebra (`model::algebra`), each with the polarity its result is used in.

use super::val::{and_gate, or_gate, LRel, Pol, Val};
use super::Compiler;
use crate::error::{Error, Result};
use crate::model::algebra::{Expr, SetExpr};
use crate::model::rel::Rel;
use crate::sat::formula::B;
use rustc_hash::FxHashMap as HashMap;

impl Compiler<'_, '_> {
    pub(super) fn expr(&mut self, row: usize, e: &Expr, pol: Pol) -> Result<Val> {
        crate::budget::check_time();
        Ok(match e {
            Expr::Name(n) => self.name(row, n)?,
            Expr::Id(s) => Val::Static(Rel::identity(self.nodes.n, |i| self.set_holds(s, i))),
            Expr::Union(a, b) => {
                let (x, y) = (self.expr(row, a, pol)?, self.expr(row, b, pol)?);
                self.union(x, y, pol)
            }
            Expr::Inter(a, b) => {
                let (x, y) = (self.expr(row, a, pol)?, self.expr(row, b, pol)?);
                self.inter(x, y, pol)
            }
            Expr::Diff(a, b) => {
                let (x, y) = (self.expr(row, a, pol)?, self.expr(row, b, pol.flip())?);
                self.diff(x, y, pol)
            }
            Expr::Seq(a, b) => match &**b {
                // `a; b*` where only its presence is forbidden: one closure seeded by `a`.
                Expr::Star(inner) if !pol.neg => {
                    let x = self.expr(row, a, pol)?;
                    let s = self.expr(row, inner, pol)?;
                    self.seq_star(x, s)
                }
                _ => {
                    let (x, y) = (self.expr(row, a, pol)?, self.expr(row, b, pol)?);
                    self.seq(x, y, pol)
                }
            },
            Expr::Inverse(a) => match self.expr(row, a, pol)? {
                Val::Static(r) => Val::Static(r.inverse()),
                Val::Lits(l) => {
                    let mut out = LRel::default();
                    for (&(a, b), &v) in &l.pairs {
                        out.insert(b, a, v);
                    }
                    Val::Lits(out)
                }
            },
            Expr::Plus(a) => self.closure(row, a, pol)?,
            Expr::Star(a) => {
                let c = self.closure(row, a, pol)?;
                self.reflexive(c)
            }
            Expr::Opt(a) => {
                let c = self.expr(row, a, pol)?;
                self.reflexive(c)
            }
            Expr::Call(f, a) => {
                let x = self.expr(row, a, pol)?;
                self.call(f, x, pol)?
            }
        })
    }

    fn set_holds(&self, s: &SetExpr, i: usize) -> bool {
        match s {
            SetExpr::Name(n) => self.nodes.in_set(n, i),
            SetExpr::Union(a, b) => self.set_holds(a, i) || self.set_holds(b, i),
            SetExpr::Inter(a, b) => self.set_holds(a, i) && self.set_holds(b, i),
            SetExpr::Diff(a, b) => self.set_holds(a, i) && !self.set_holds(b, i),
            SetExpr::Compl(a) => !self.set_holds(a, i),
        }
    }

    /// A static relation as literals: each pair holds when both nodes are performed.
    pub(super) fn lits(&mut self, v: Val) -> LRel {
        match v {
            Val::Lits(l) => l,
            Val::Static(r) => {
                let mut out = LRel::default();
                for (a, b) in r.pairs() {
                    let g = if a == b { self.nodes.exec[a] } else { self.nodes.guard(self.enc, a, b) };
                    out.insert(a, b, g);
                }
                if let Some(steps) = self.po_filter(&r) {
                    out.steps = Some(steps);
                }
                out
            }
        }
    }

    /// When `r` is program order restricted to some pairs (and non-empty), its
    /// immediate steps on each path.
    fn po_filter(&mut self, r: &Rel) -> Option<Vec<(usize, usize, B)>> {
        let po = self.po.as_ref()?;
        // A symbolic thread's one trace holds events that may not be performed:
        // an immediate step over one that is not would lose the pair it stands
        // for. Every pair keeps its own "both performed" literal instead.
        if self.enc.p.symbolic.is_some() {
            return None;
        }
        let pairs = r.pairs();
        if pairs.len() < 2 || pairs.iter().any(|&(a, b)| !po.has(a, b)) {
            return None;
        }
        Some(self.nodes.po_steps(self.enc, r))
    }

    fn union(&mut self, x: Val, y: Val, pol: Pol) -> Val {
        if let (Val::Static(a), Val::Static(b)) = (&x, &y) {
            return Val::Static(a.union(b));
        }
        let (a, b) = (self.lits(x), self.lits(y));
        let steps = match (&a.steps, &b.steps) {
            (None, None) => None,
            _ => Some(a.step_edges().into_iter().chain(b.step_edges()).collect()),
        };
        let mut out = a;
        for (k, v) in b.sorted() {
            let w = match out.pairs.get(&k) {
                Some(&u) => or_gate(&mut self.enc.f, &[u, v], pol),
                None => v,
            };
            out.insert(k.0, k.1, w);
        }
        out.steps = steps;
        Val::Lits(out)
    }

    fn inter(&mut self, x: Val, y: Val, pol: Pol) -> Val {
        match (x, y) {
            (Val::Static(a), Val::Static(b)) => Val::Static(a.intersect(&b)),
            (Val::Static(s), Val::Lits(l)) | (Val::Lits(l), Val::Static(s)) => {
                // Every literal pair implies its nodes are performed: filtering is exact.
                let mut out = LRel::default();
                for ((a, b), v) in l.sorted() {
                    if s.has(a, b) {
                        out.insert(a, b, v);
                    }
                }
                Val::Lits(out)
            }
            (Val::Lits(a), Val::Lits(b)) => {
                let mut out = LRel::default();
                for ((p, q), v) in a.sorted() {
                    let w = b.get(p, q);
                    if w != B::F {
                        out.insert(p, q, and_gate(&mut self.enc.f, &[v, w], pol));
                    }
                }
                Val::Lits(out)
            }
        }
    }

    fn diff(&mut self, x: Val, y: Val, pol: Pol) -> Val {
        match (x, y) {
            (Val::Static(a), Val::Static(b)) => Val::Static(a.minus(&b)),
            (Val::Lits(l), Val::Static(s)) => {
                let mut out = LRel::default();
                for ((a, b), v) in l.sorted() {
                    if !s.has(a, b) {
                        out.insert(a, b, v);
                    }
                }
                Val::Lits(out)
            }
            (x, Val::Lits(m)) => {
                let l = self.lits(x);
                let mut out = LRel::default();
                for ((a, b), v) in l.sorted() {
                    let w = m.get(a, b);
                    out.insert(a, b, and_gate(&mut self.enc.f, &[v, !w], pol));
                }
                Val::Lits(out)
            }
        }
    }

    fn seq(&mut self, x: Val, y: Val, pol: Pol) -> Val {
        if let (Val::Static(a), Val::Static(b)) = (&x, &y) {
            return Val::Static(a.compose(b));
        }
        let (a, b) = (self.lits(x), self.lits(y));
        let succ = b.succ(self.nodes.n);
        let mut terms: HashMap<(usize, usize), Vec<Vec<B>>> = HashMap::default();
        for ((p, z), u) in a.sorted() {
            // The terms grow with no clause added (D62): the reading must see them.
            crate::budget::check_time();
            for &(q, v) in &succ[z] {
                if p != q && !self.nodes.compatible(self.enc.p, p, q) {
                    continue;
                }
                crate::budget::before_insert(&terms);
                terms.entry((p, q)).or_default().push(vec![u, v]);
            }
        }
        Val::Lits(self.or_of_ands(terms, pol))
    }

    /// `x; s*` in positive polarity: `x` itself plus a closure seeded by `x`.
    fn seq_star(&mut self, x: Val, s: Val) -> Val {
        if let (Val::Static(a), Val::Static(b)) = (&x, &s) {
            return Val::Static(a.compose(&b.closure().union(&Rel::identity(self.nodes.n, |_| true))));
        }
        let (a, b) = (self.lits(x), self.lits(s));
        let seed: Vec<(usize, usize, B)> = a.sorted().into_iter().map(|((p, q), v)| (p, q, v)).collect();
        Val::Lits(self.seeded_closure(&seed, &b.step_edges(), None))
    }

    /// Per pair, the OR of conjunctions; positive-only: one clause per conjunction.
    pub(super) fn or_of_ands(&mut self, terms: HashMap<(usize, usize), Vec<Vec<B>>>, pol: Pol) -> LRel {
        let mut keys: Vec<(usize, usize)> = terms.keys().copied().collect();
        keys.sort();
        let mut out = LRel::default();
        for k in keys {
            let ts = &terms[&k];
            let f = &mut self.enc.f;
            let v = if ts.len() == 1 {
                and_gate(f, &ts[0], pol)
            } else if pol.neg {
                let ands: Vec<B> = ts.iter().map(|t| and_gate(f, t, pol)).collect();
                or_gate(f, &ands, pol)
            } else if ts.iter().any(|t| t.iter().all(|&l| l == B::T)) {
                B::T
            } else {
                let v = f.fresh();
                for t in ts {
                    f.implies(t, v);
                }
                v
            };
            out.insert(k.0, k.1, v);
        }
        out
    }

    /// `r?`: the identity is true on every node (a pair it joins is guarded by
    /// the other side's literal, which implies its node is performed).
    fn reflexive(&mut self, v: Val) -> Val {
        match v {
            Val::Static(r) => Val::Static(r.union(&Rel::identity(self.nodes.n, |_| true))),
            Val::Lits(mut l) => {
                for i in 0..self.nodes.n {
                    l.pairs.insert((i, i), B::T);
                }
                l.steps = None;
                Val::Lits(l)
            }
        }
    }

    /// `r+` in positive polarity: `edge -> c`, `c(x,y) & edge(y,z) -> c(x,z)`
    /// over the pairs the edges can connect (paper-notes/encoding.md).
    fn closure(&mut self, row: usize, a: &Expr, pol: Pol) -> Result<Val> {
        let x = self.expr(row, a, pol)?;
        if let Val::Static(r) = &x {
            return Ok(Val::Static(r.closure()));
        }
        if pol.neg {
            return Err(Error::input_nospan(format!(
                "model {}: row `{}` takes a transitive closure of execution relations under a difference; the SAT engine compiles closures only where the axioms forbid them (use --engine reference)",
                self.model.name, self.model.rows[row].stmt
            )));
        }
        let edges = self.lits(x).step_edges();
        Ok(Val::Lits(self.horn_closure(&edges, None)))
    }

    fn call(&mut self, f: &str, x: Val, pol: Pol) -> Result<Val> {
        match f {
            "proxy-preserved" | "proxy-preserved-cumulative" => {
                let l = self.lits(x);
                Ok(Val::Lits(self.proxy_preserved(&l, pol, f == "proxy-preserved-cumulative")))
            }
            other => Err(Error::internal(format!("the SAT engine has no primitive `{}`", other))),
        }
    }
}
