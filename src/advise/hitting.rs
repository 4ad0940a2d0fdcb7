//! The enumeration step of the repair search (search.rs): every assignment of
//! minimum cost that satisfies the constraints learnt so far ("not pointwise
//! at most F" for each failing variant F), by a depth-first search over
//! raises with memo, a lower bound and budget jumps.

use super::menu::{CostTable, Level};
use super::search::Decider;
use std::collections::HashSet;

/// All assignments of cost at most `budget` satisfying every constraint that
/// the branching reaches (each is at least one raise above a failing variant).
pub(crate) fn hitting(
    d: &Decider,
    costs: &CostTable,
    constraints: &[Vec<Level>],
    budget: u32,
) -> (Vec<Vec<Level>>, u32) {
    let h = Hitting::new(d, costs, constraints, budget);
    let orig: Vec<u8> = vec![0; d.sites.len()];
    let mut h = h;
    h.dfs(&mut orig.clone(), 0);
    if d.opts.ctx.debug {
        eprintln!(
            "hitting budget {} constraints {} kept {} states {} found {}",
            budget,
            constraints.len(),
            h.cons.len(),
            h.seen.len(),
            h.out.len()
        );
    }
    let mut v: Vec<Vec<Level>> =
        h.out.iter().map(|x| x.iter().enumerate().map(|(i, &k)| d.sites[i].levels[k as usize]).collect()).collect();
    v.sort();
    (v, h.next)
}

/// The search over assignments, with levels as indices into each site's list
/// (index 0 is the original level) and the strength order as tables.
struct Hitting {
    /// `le[i][a][b]`: level a of site i is at most level b.
    le: Vec<Vec<Vec<bool>>>,
    /// `cost[i][a]`: cost of changing site i's original level to level a.
    cost: Vec<Vec<u32>>,
    /// Constraints without the ones another implies.
    cons: Vec<Vec<u8>>,
    budget: u32,
    /// States already expanded (what a state leads to depends on it alone).
    seen: HashSet<Vec<u8>>,
    out: HashSet<Vec<u8>>,
    /// The least cost above the budget that a pruned branch needed: the next
    /// budget worth trying when this one has no solution.
    next: u32,
}

impl Hitting {
    fn new(d: &Decider, costs: &CostTable, constraints: &[Vec<Level>], budget: u32) -> Hitting {
        let idx = |i: usize, l: Level| d.sites[i].levels.iter().position(|&x| x == l).unwrap_or(0) as u8;
        let mut cons: Vec<Vec<u8>> =
            constraints.iter().map(|f| f.iter().enumerate().map(|(i, &l)| idx(i, l)).collect()).collect();
        let le: Vec<Vec<Vec<bool>>> = d
            .sites
            .iter()
            .map(|s| s.levels.iter().map(|&a| s.levels.iter().map(|&b| a.at_most(b)).collect()).collect())
            .collect();
        let cost = d
            .sites
            .iter()
            .map(|s| s.levels.iter().map(|&l| costs.cost(l).saturating_sub(costs.cost(s.original))).collect())
            .collect();
        // A constraint below another is implied by it (being above the larger one's
        // bound somewhere means being above the smaller one's there too).
        cons.sort();
        cons.dedup();
        let below_t =
            |a: &[u8], b: &[u8]| a.iter().zip(b).enumerate().all(|(i, (&x, &y))| le[i][x as usize][y as usize]);
        let keep: Vec<bool> = cons
            .iter()
            .enumerate()
            .map(|(k, f)| !cons.iter().enumerate().any(|(j, g)| j != k && below_t(f, g)))
            .collect();
        let cons = cons.into_iter().zip(keep).filter(|x| x.1).map(|x| x.0).collect();
        Hitting { le, cost, cons, budget, seen: HashSet::new(), out: HashSet::new(), next: u32::MAX }
    }

    fn below(&self, cur: &[u8], f: &[u8]) -> bool {
        cur.iter().zip(f).enumerate().all(|(i, (&x, &y))| self.le[i][x as usize][y as usize])
    }

    /// The minimal raises of `cur` that satisfy constraint `f` within the budget, with their added cost.
    fn raises(&mut self, cur: &[u8], f: &[u8], cost: u32) -> Vec<(usize, u8, u32)> {
        let mut out = Vec::new();
        let mut next = self.next;
        for (i, le) in self.le.iter().enumerate() {
            let (old, fi) = (cur[i] as usize, f[i] as usize);
            let base = self.cost[i][old];
            for l in (0..le.len()).filter(|&l| l != old && le[old][l] && !le[l][fi]) {
                let c = cost + self.cost[i][l] - base;
                if c > self.budget {
                    next = next.min(c);
                }
            }
            let up = |l: usize| l != old && le[old][l] && !le[l][fi] && cost + self.cost[i][l] - base <= self.budget;
            // Only the minimal raises: any solution above `cur` lies above one of them.
            for l in (0..le.len()).filter(|&l| up(l)) {
                if !(0..le.len()).any(|m| m != l && up(m) && le[m][l]) {
                    out.push((i, l as u8, self.cost[i][l] - base));
                }
            }
        }
        self.next = next;
        out
    }

    fn dfs(&mut self, cur: &mut Vec<u8>, cost: u32) {
        if !self.seen.insert(cur.clone()) {
            return;
        }
        // Branch on the violated constraint with the fewest raises. Lower bound:
        // violated constraints whose raises touch disjoint sites each need their
        // own cheapest raise; prune when their sum passes the budget.
        let mut best: Option<Vec<(usize, u8, u32)>> = None;
        let mut packs: Vec<(u32, Vec<usize>)> = Vec::new();
        let violated: Vec<usize> = (0..self.cons.len()).filter(|&k| self.below(cur, &self.cons[k])).collect();
        for k in violated {
            let f = self.cons[k].clone();
            let r = self.raises(cur, &f, cost);
            if r.is_empty() {
                return;
            }
            let min = r.iter().map(|x| x.2).min().unwrap_or(0);
            let mut sites: Vec<usize> = r.iter().map(|x| x.0).collect();
            sites.dedup();
            packs.push((min, sites));
            if best.as_ref().is_none_or(|b| r.len() < b.len()) {
                best = Some(r);
            }
        }
        let Some(branches) = best else {
            self.out.insert(cur.clone());
            return;
        };
        packs.sort_by_key(|p| std::cmp::Reverse(p.0));
        let (mut used, mut lb) = (Vec::new(), 0);
        for (m, s) in packs {
            if s.iter().all(|x| !used.contains(x)) {
                lb += m;
                used.extend(s);
            }
        }
        if cost + lb > self.budget {
            self.next = self.next.min(cost + lb);
            return;
        }
        for (i, l, dc) in branches {
            let old = cur[i];
            cur[i] = l;
            self.dfs(cur, cost + dc);
            cur[i] = old;
        }
    }
}
