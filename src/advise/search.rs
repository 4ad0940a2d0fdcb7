//! The exact search (paper-notes/advisor.md).
//!
//! Repair: an implicit-hitting-set loop over the sites. Every variant that
//! still reaches the outcome is grown to a larger failing variant F (sites
//! raised to their strongest level while the outcome stays reachable); by
//! monotonicity (a stronger variant allows no more executions, checked by a
//! property test) every variant below F fails too, so any repair must exceed F
//! at some site: one constraint. The cheapest assignments satisfying all
//! constraints are enumerated exactly (branch on the minimal levels that exceed
//! a violated constraint, bounded by cost) and decided; failures add
//! constraints (hitting.rs enumerates), successes are recorded. When no
//! untested assignment of the current minimum cost remains, the recorded ones
//! are every minimum-cost repair. Costs strictly increase with strength (menu.rs), so a proper subset
//! (or weaker version) of a listed repair costs less and was found failing.

use super::edit;
use super::hitting::hitting;
use super::menu::{CostTable, Level};
use super::sites::{Site, SiteKind};
use crate::ast::Litmus;
use crate::check::CheckOptions;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// Decides variants of one test, with a cache.
pub struct Decider<'a> {
    pub source: &'a str,
    pub lit: &'a Litmus,
    pub sites: &'a [Site],
    pub opts: &'a CheckOptions,
    /// The test's `--timeout`, for every variant.
    pub deadline: Option<std::time::Instant>,
    pub(crate) cache: HashMap<Vec<Level>, bool>,
    /// Variants decided (cache misses).
    pub queries: usize,
    pub(crate) max_queries: usize,
    /// Witnesses of reachable variants, by event structure (see `structure`).
    witnesses: HashMap<Vec<bool>, Vec<crate::outcome::Execution>>,
    /// Variants shown reachable by an earlier witness, without a SAT query.
    pub reused: usize,
}

impl<'a> Decider<'a> {
    pub fn new(
        source: &'a str,
        lit: &'a Litmus,
        sites: &'a [Site],
        opts: &'a CheckOptions,
        deadline: Option<std::time::Instant>,
    ) -> Self {
        Decider {
            source,
            lit,
            sites,
            opts,
            deadline,
            cache: HashMap::new(),
            queries: 0,
            max_queries: 50_000,
            witnesses: HashMap::new(),
            reused: 0,
        }
    }

    /// Is the outcome reachable in the variant with these levels?
    pub fn reachable(&mut self, levels: &[Level]) -> Result<bool> {
        if let Some(&r) = self.cache.get(levels) {
            return Ok(r);
        }
        self.queries += 1;
        if self.queries > self.max_queries {
            return Err(Error::limit(format!(
                "the advisor decided more than {} variants of this test",
                self.max_queries
            )));
        }
        let lit = edit::variant_ast(self.lit, self.sites, levels);
        let (opts, deadline) = (self.opts, self.deadline);
        let p = super::budgeted(opts, deadline, || crate::check::build_encoded(&lit, opts))?;
        let r = if p.symbolic.is_some() {
            // The reference engine re-checks concrete paths, not a symbolic
            // program's executions (D217): every such variant is a SAT query.
            super::budgeted(opts, deadline, || super::oracle::reachable(&p, &opts.ctx.model))?
        } else {
            self.reachable_reusing(&p, levels)?
        };
        self.cache.insert(levels.to_vec(), r);
        Ok(r)
    }

    /// Is the outcome reachable in ordinary program `p` (the variant with
    /// `levels`)? An earlier witness of a variant with the same fences is
    /// re-checked first; a SAT query only when none still reaches it.
    fn reachable_reusing(&mut self, p: &crate::program::Program, levels: &[Level]) -> Result<bool> {
        let (opts, deadline) = (self.opts, self.deadline);
        let key = self.structure(levels);
        let known = self.witnesses.entry(key).or_default();
        if known.iter().rev().take(16).any(|x| super::oracle::still_witness(p, x, &opts.ctx.model)) {
            self.reused += 1;
            return Ok(true);
        }
        let w = super::budgeted(opts, deadline, || super::oracle::witness(p, &opts.ctx.model))?;
        let r = w.is_some();
        known.extend(w);
        Ok(r)
    }

    /// Which fences exist: variants with the same answer build programs with
    /// the same events and paths (semantics and scopes change no event), so an
    /// execution of one is a candidate execution of the other.
    fn structure(&self, levels: &[Level]) -> Vec<bool> {
        self.sites
            .iter()
            .zip(levels)
            .filter(|(s, _)| {
                matches!(s.kind, SiteKind::Gap | SiteKind::Fence | SiteKind::ProxyGap { .. } | SiteKind::ProxyFence)
            })
            .map(|(_, &l)| l == Level::Absent)
            .collect()
    }

    pub fn original(&self) -> Vec<Level> {
        self.sites.iter().map(|s| s.original).collect()
    }

    /// The strongest level of each site (every other level is below it).
    pub fn top(&self) -> Vec<Level> {
        self.sites.iter().map(|s| strongest(&s.levels)).collect()
    }

    /// Cost of a variant: the sum of each change's cost difference.
    pub fn cost(&self, costs: &CostTable, levels: &[Level]) -> u32 {
        self.sites.iter().zip(levels).map(|(s, &l)| costs.cost(l).saturating_sub(costs.cost(s.original))).sum()
    }
}

fn strongest(levels: &[Level]) -> Level {
    *levels.iter().find(|&&l| levels.iter().all(|&o| o.at_most(l))).unwrap_or(&levels[0])
}

/// Every minimum-cost repair, or none when even the strongest variant reaches the outcome.
pub struct RepairSearch {
    pub repairs: Vec<Vec<Level>>,
    pub cost: Option<u32>,
}

pub fn repair(d: &mut Decider, costs: &CostTable) -> Result<RepairSearch> {
    let top = d.top();
    if d.reachable(&top)? {
        return Ok(RepairSearch { repairs: Vec::new(), cost: None });
    }
    let mut constraints: Vec<Vec<Level>> = Vec::new();
    let mut found: Vec<Vec<Level>> = Vec::new();
    let mut budget = 0;
    loop {
        let (cands, next) = hitting(d, costs, &constraints, budget);
        let fresh: Vec<Vec<Level>> = cands.into_iter().filter(|c| !found.contains(c)).collect();
        if fresh.is_empty() {
            if !found.is_empty() {
                break;
            }
            budget = next.max(budget + 1);
            if budget > d.cost(costs, &top) {
                return Err(Error::internal(
                    "the repair search passed the cost of the strongest variant: please report",
                ));
            }
            continue;
        }
        for c in fresh {
            // An earlier constraint of this round may already exclude it.
            if constraints.iter().any(|f| below(&c, f)) {
                continue;
            }
            if d.reachable(&c)? {
                let f = grow(d, costs, c.clone(), &top)?;
                if d.opts.ctx.debug {
                    let show = |v: &[Level]| v.iter().map(|&l| super::menu::describe(l)).collect::<Vec<_>>().join(" ");
                    eprintln!("budget {} fails: {}\n   grown: {}", budget, show(&c), show(&f));
                }
                constraints.push(f);
            } else {
                found.push(c);
            }
        }
    }
    found.sort();
    Ok(RepairSearch { repairs: found, cost: Some(budget) })
}

/// `a` is pointwise at most `f`.
fn below(a: &[Level], f: &[Level]) -> bool {
    a.iter().zip(f).all(|(x, y)| x.at_most(*y))
}

/// Raise sites to their strongest level while the outcome stays reachable:
/// first all of a group at once, halving groups that forbid the outcome (most
/// sites can usually be raised together, so this asks fewer questions than
/// one site at a time). The result is maximal for raising single sites to top.
fn grow(d: &mut Decider, costs: &CostTable, mut a: Vec<Level>, top: &[Level]) -> Result<Vec<Level>> {
    let group: Vec<usize> = (0..a.len()).filter(|&i| a[i] != top[i]).collect();
    raise(d, &mut a, top, &group)?;
    // Sites that cannot reach their top: the strongest intermediate level
    // that keeps the outcome reachable (a tighter constraint, fewer rounds).
    for i in group {
        if a[i] == top[i] {
            continue;
        }
        let mut above: Vec<Level> =
            d.sites[i].levels.iter().copied().filter(|&l| l != a[i] && l != top[i] && a[i].at_most(l)).collect();
        above.sort_by_key(|&l| std::cmp::Reverse((costs.cost(l), l)));
        for l in above {
            let mut b = a.clone();
            b[i] = l;
            if d.reachable(&b)? {
                a = b;
                break;
            }
        }
    }
    Ok(a)
}

fn raise(d: &mut Decider, a: &mut Vec<Level>, top: &[Level], group: &[usize]) -> Result<()> {
    if group.is_empty() {
        return Ok(());
    }
    let mut b = a.clone();
    for &i in group {
        b[i] = top[i];
    }
    if d.reachable(&b)? {
        *a = b;
        return Ok(());
    }
    if group.len() == 1 {
        return Ok(());
    }
    let (x, y) = group.split_at(group.len() / 2);
    raise(d, a, top, x)?;
    raise(d, a, top, y)
}

/// Weakening: single changes that keep the outcome unreachable (per site, the
/// weakest such levels), and one maximal set of simultaneous weakenings.
pub struct WeakenSearch {
    /// (site, level) pairs; for each site only levels with no weaker working level.
    pub singles: Vec<(usize, Level)>,
    pub maximal: Vec<Level>,
}

pub fn weaken(d: &mut Decider, costs: &CostTable) -> Result<WeakenSearch> {
    let orig = d.original();
    let mut singles = Vec::new();
    for i in 0..orig.len() {
        let mut works: Vec<Level> = Vec::new();
        for l in weaker_first(costs, &d.sites[i].levels, orig[i]) {
            if works.iter().any(|&w| w.at_most(l)) {
                continue;
            }
            let mut v = orig.clone();
            v[i] = l;
            if !d.reachable(&v)? {
                works.push(l);
            }
        }
        singles.extend(works.into_iter().map(|l| (i, l)));
    }
    let mut cur = orig.clone();
    for i in 0..cur.len() {
        for l in weaker_first(costs, &d.sites[i].levels, orig[i]) {
            let mut v = cur.clone();
            v[i] = l;
            if !d.reachable(&v)? {
                cur = v;
                break;
            }
        }
    }
    Ok(WeakenSearch { singles, maximal: cur })
}

/// The levels below `orig`, weakest (cheapest) first.
fn weaker_first(costs: &CostTable, levels: &[Level], orig: Level) -> Vec<Level> {
    let mut v: Vec<Level> = levels.iter().copied().filter(|&l| l != orig).collect();
    v.sort_by_key(|&l| (costs.cost(l), l));
    v
}
