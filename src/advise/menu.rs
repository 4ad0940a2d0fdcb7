//! The menu of changes the advisor may make, their strength order and their cost.
//!
//! A *site* is one place of the test the advisor may change: an existing
//! `ld`/`st`/`atom`/`red` (its semantics and scope), an existing `fence`
//! (its semantics and scope, or its removal when weakening), or a *gap* after
//! a memory instruction where one fence may be inserted. Each site has a
//! *level*; levels of one site are partially ordered by strength, and the cost
//! of a level is strictly increasing along that order (checked when a cost
//! table is loaded), which the exact search relies on (see search.rs).

use crate::ast::{FenceSem, FenceSpace, Scope, Sem};
use std::collections::BTreeMap;

/// What a site holds in one variant of the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// No fence (a gap without an inserted fence, or a removed fence).
    Absent,
    Fence(FenceSemO, Scope),
    /// An access: semantics and (for strong semantics) scope.
    Access(SemO, Option<Scope>),
    /// `fence.proxy.async{.space}` (9.7.15.4; D258, D313): a gap of an
    /// asynchronous test, or an existing proxy fence when weakening.
    ProxyFence(FenceSpace),
    /// `cp.async.bulk.wait_group.read` (`true`) or `cp.async.bulk.wait_group`:
    /// the full wait is the stronger (D260: `.read` waits for source reads only).
    BulkWait {
        read: bool,
    },
}

/// `ast::FenceSem` with an order, for `Level`'s derives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FenceSemO {
    Acquire,
    Release,
    AcqRel,
    Sc,
}

/// Access semantics after normalisation (`.volatile` is relaxed at `.sys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SemO {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

impl FenceSemO {
    pub(crate) fn from_ast(s: FenceSem) -> Self {
        match s {
            FenceSem::Acquire => FenceSemO::Acquire,
            FenceSem::Release => FenceSemO::Release,
            FenceSem::AcqRel => FenceSemO::AcqRel,
            FenceSem::Sc => FenceSemO::Sc,
        }
    }
    pub fn word(self) -> &'static str {
        match self {
            FenceSemO::Acquire => "acquire",
            FenceSemO::Release => "release",
            FenceSemO::AcqRel => "acq_rel",
            FenceSemO::Sc => "sc",
        }
    }
    /// 8.8: fence.sc is also an acq_rel fence; acq_rel is both acquire and release.
    fn at_most(self, o: Self) -> bool {
        self == o || o == FenceSemO::Sc || (o == FenceSemO::AcqRel && self != FenceSemO::Sc)
    }
}

impl SemO {
    /// `None` for `.mmio` (never changed: it is an I/O access, not a synchronisation choice).
    pub(crate) fn from_ast(s: Sem) -> Option<Self> {
        Some(match s {
            Sem::Weak => SemO::Weak,
            Sem::Relaxed | Sem::Volatile => SemO::Relaxed,
            Sem::Acquire => SemO::Acquire,
            Sem::Release => SemO::Release,
            Sem::AcqRel => SemO::AcqRel,
            Sem::Mmio => return None,
        })
    }
    pub fn word(self) -> &'static str {
        match self {
            SemO::Weak => "weak",
            SemO::Relaxed => "relaxed",
            SemO::Acquire => "acquire",
            SemO::Release => "release",
            SemO::AcqRel => "acq_rel",
        }
    }
    fn at_most(self, o: Self) -> bool {
        use SemO::*;
        self == o || self == Weak || (self == Relaxed && o != Weak) || o == AcqRel
    }
}

pub(crate) fn scope_word(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

impl Level {
    /// `self` is at most as strong as `o` (same site).
    pub fn at_most(self, o: Level) -> bool {
        match (self, o) {
            (Level::Absent, Level::Absent | Level::Fence(..) | Level::ProxyFence(_)) => true,
            (Level::Fence(a, s), Level::Fence(b, t)) => a.at_most(b) && s <= t,
            (Level::ProxyFence(a), Level::ProxyFence(b)) => space_at_most(a, b),
            (Level::BulkWait { read: a }, Level::BulkWait { read: b }) => a || !b,
            (Level::Access(SemO::Weak, _), Level::Access(..)) => true,
            (Level::Access(a, s), Level::Access(b, t)) => a.at_most(b) && b != SemO::Weak && s <= t,
            _ => false,
        }
    }
}

/// D258: a `fence.proxy.async` without a state space covers every one, and
/// the `.shared::cta` window lies inside `.shared::cluster` (5.1.7).
fn space_at_most(a: FenceSpace, b: FenceSpace) -> bool {
    a == b || b == FenceSpace::All || (a == FenceSpace::SharedCta && b == FenceSpace::SharedCluster)
}

/// The cost table (README "Fence advisor"); `--cost FILE` overrides entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostTable {
    pub entries: BTreeMap<String, u32>,
}

/// Keys and default values, in README order.
pub(crate) const DEFAULT_COSTS: &[(&str, u32)] = &[
    ("relaxed", 1),
    ("acquire", 2),
    ("release", 2),
    ("acq_rel", 3),
    ("scope.cta", 0),
    ("scope.cluster", 1),
    ("scope.gpu", 2),
    ("scope.sys", 3),
    ("fence.insert", 3),
    ("fence.acquire", 1),
    ("fence.release", 1),
    ("fence.acq_rel", 2),
    ("fence.sc", 4),
    ("fence.proxy.async.shared::cta", 1),
    ("fence.proxy.async.shared::cluster", 2),
    ("fence.proxy.async.global", 1),
    ("fence.proxy.async", 3),
    ("wait_group.read", 1),
    ("wait_group", 2),
];

impl Default for CostTable {
    fn default() -> Self {
        CostTable { entries: DEFAULT_COSTS.iter().map(|(k, v)| (k.to_string(), *v)).collect() }
    }
}

impl CostTable {
    fn get(&self, k: &str) -> u32 {
        self.entries.get(k).copied().unwrap_or(0)
    }

    /// Parse `key = value` lines (`#` comments); unknown keys are errors.
    pub fn parse(text: &str) -> Result<CostTable, String> {
        let mut t = CostTable::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (k, v) = line.split_once('=').ok_or_else(|| format!("line {}: expected `key = value`", n + 1))?;
            let k = k.trim();
            if !t.entries.contains_key(k) {
                let keys: Vec<&str> = DEFAULT_COSTS.iter().map(|x| x.0).collect();
                return Err(format!("line {}: unknown cost `{}` (known: {})", n + 1, k, keys.join(", ")));
            }
            let v: u32 =
                v.trim().parse().map_err(|_| format!("line {}: `{}` is not a cost (0 to 1000)", n + 1, v.trim()))?;
            if v > 1000 {
                return Err(format!("line {}: cost {} is above 1000", n + 1, v));
            }
            t.entries.insert(k.to_string(), v);
        }
        t.check_strict()?;
        Ok(t)
    }

    /// Absolute cost of a level; a change costs the difference to the original level.
    pub fn cost(&self, l: Level) -> u32 {
        match l {
            Level::Absent => 0,
            Level::Fence(s, sc) => self.get("fence.insert") + self.get(&format!("fence.{}", s.word())) + self.scope(sc),
            Level::Access(SemO::Weak, _) => 0,
            Level::Access(s, sc) => self.get(s.word()) + sc.map_or(0, |x| self.scope(x)),
            Level::ProxyFence(space) => self.get("fence.insert") + self.get(space.async_fence()),
            Level::BulkWait { read: true } => self.get("wait_group.read"),
            Level::BulkWait { read: false } => self.get("wait_group"),
        }
    }

    fn scope(&self, s: Scope) -> u32 {
        self.get(&format!("scope.{}", scope_word(s)))
    }

    /// Every strictly stronger level must cost strictly more: the search's
    /// completeness argument needs it (search.rs).
    fn check_strict(&self) -> Result<(), String> {
        let all = all_levels();
        for &a in &all {
            for &b in &all {
                if a != b && a.at_most(b) && self.cost(a) >= self.cost(b) {
                    return Err(format!(
                        "cost table: {} must cost less than {} (stronger changes must cost more)",
                        describe(a),
                        describe(b)
                    ));
                }
            }
        }
        Ok(())
    }
}

const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

fn all_levels() -> Vec<Level> {
    let mut v = vec![Level::Absent, Level::Access(SemO::Weak, None)];
    for sc in SCOPES {
        for s in [FenceSemO::Acquire, FenceSemO::Release, FenceSemO::AcqRel, FenceSemO::Sc] {
            v.push(Level::Fence(s, sc));
        }
        for s in [SemO::Relaxed, SemO::Acquire, SemO::Release, SemO::AcqRel] {
            v.push(Level::Access(s, Some(sc)));
        }
    }
    v.extend(PROXY_SPACES.map(Level::ProxyFence));
    v.extend([Level::BulkWait { read: true }, Level::BulkWait { read: false }]);
    v
}

pub(crate) const PROXY_SPACES: [FenceSpace; 4] =
    [FenceSpace::SharedCta, FenceSpace::SharedCluster, FenceSpace::Global, FenceSpace::All];

/// `fence.sc.gpu`, `relaxed.gpu`, `weak`, `no fence`.
pub(crate) fn describe(l: Level) -> String {
    match l {
        Level::Absent => "no fence".into(),
        Level::Fence(s, sc) => format!("fence.{}.{}", s.word(), scope_word(sc)),
        Level::Access(s, None) => s.word().into(),
        Level::Access(s, Some(sc)) => format!("{}.{}", s.word(), scope_word(sc)),
        Level::ProxyFence(space) => space.async_fence().into(),
        Level::BulkWait { read: true } => "wait_group.read".into(),
        Level::BulkWait { read: false } => "wait_group".into(),
    }
}

/// The access semantics an instruction kind may carry (ISA 9.7.9.8, 9.7.9.10, 9.7.13.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Load,
    Store,
    /// `atom`: any of relaxed, acquire, release, acq_rel.
    Atom,
    /// `red`: relaxed or release.
    Red,
    /// `mbarrier.arrive{.expect_tx}`, `arrive_drop`: relaxed or release, at
    /// `.cta` or `.cluster` (9.7.15.16.12).
    MbarrierArrive,
    /// `mbarrier.test_wait` / `try_wait`: relaxed or acquire, at `.cta` or
    /// `.cluster` (9.7.15.16.16).
    MbarrierWait,
}

impl AccessKind {
    pub fn sems(self) -> &'static [SemO] {
        match self {
            AccessKind::Load => &[SemO::Weak, SemO::Relaxed, SemO::Acquire],
            AccessKind::Store => &[SemO::Weak, SemO::Relaxed, SemO::Release],
            AccessKind::Atom => &[SemO::Relaxed, SemO::Acquire, SemO::Release, SemO::AcqRel],
            AccessKind::Red | AccessKind::MbarrierArrive => &[SemO::Relaxed, SemO::Release],
            AccessKind::MbarrierWait => &[SemO::Relaxed, SemO::Acquire],
        }
    }

    /// An mbarrier operation has no scope wider than `.cluster`.
    pub fn allows_scope(self, s: Scope) -> bool {
        !matches!(self, AccessKind::MbarrierArrive | AccessKind::MbarrierWait) || s <= Scope::Cluster
    }
}

/// Every level an access of this kind may take, with the given scopes.
pub(crate) fn access_levels(k: AccessKind, scopes: &[Scope]) -> Vec<Level> {
    let mut v = Vec::new();
    for &s in k.sems() {
        if s == SemO::Weak {
            v.push(Level::Access(s, None));
        } else {
            v.extend(scopes.iter().filter(|&&sc| k.allows_scope(sc)).map(|&sc| Level::Access(s, Some(sc))));
        }
    }
    v
}

/// Every fence level with the given scopes (without `Absent`).
pub(crate) fn fence_levels(scopes: &[Scope]) -> Vec<Level> {
    let sems = [FenceSemO::Acquire, FenceSemO::Release, FenceSemO::AcqRel, FenceSemO::Sc];
    scopes.iter().flat_map(|&sc| sems.iter().map(move |&s| Level::Fence(s, sc))).collect()
}

pub(crate) const ALL_SCOPES: [Scope; 4] = SCOPES;
