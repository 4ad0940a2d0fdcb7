//! The shape of a test's launches, computed on the host alone: what `run`
//! launches and what `run --dry-run` prints without a GPU (D280).

use super::layout::{cta_order, permutations, Rng};
use super::Module;

/// Stress CTAs of a launch: `--stress` rounded up to whole clusters.
pub fn stress_ctas(m: &Module, stress: u32) -> u32 {
    let cdim = m.layout.cluster_dim;
    stress.div_ceil(cdim) * cdim
}

/// Real clusters of a launch of `groups` groups and `stress` stress CTAs.
pub fn real_clusters(m: &Module, groups: u32, stress: u32) -> usize {
    (groups * m.layout.clusters + stress / m.layout.cluster_dim) as usize
}

/// Words of the `perm` buffer (`layout::permutations`, then `layout::cta_order`).
pub fn perm_words(m: &Module, groups: u32, stress: u32) -> usize {
    (m.layout.threads() + m.layout.clusters as usize) * groups as usize * 32 + real_clusters(m, groups, stress)
}

/// One launch's `perm` buffer: fresh thread-to-instance permutations, the
/// instances' positions, and the order of the real clusters (shuffled unless
/// `fixed`).
pub fn draw(m: &Module, groups: u32, stress: u32, fixed: bool, rng: &mut Rng) -> Vec<u32> {
    let mut perm = permutations(&m.layout, groups as usize, rng);
    perm.extend(cta_order(real_clusters(m, groups, stress), !fixed, rng));
    perm
}

/// What `run` would launch for one test.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Plan {
    /// Groups of 32 instances per launch.
    pub groups: u32,
    /// CTAs per launch: the groups' and the stress CTAs.
    pub grid: u32,
    /// Threads per CTA (32 per warp).
    pub cta_threads: u32,
    /// CTAs per cluster (1: no cluster launch).
    pub cluster: u32,
    pub stress_ctas: u32,
    /// Launches to reach `iterations` instances.
    pub launches: u64,
    /// Instances run in all (a whole number of launches).
    pub instances: u64,
    /// Bytes of `.shared` memory per CTA (the instances' copies, D277).
    pub shared_bytes: u64,
}

/// The launches of `iterations` instances, `per_launch` at a time.
pub fn plan(m: &Module, iterations: u64, per_launch: u64, stress: u32) -> Result<Plan, String> {
    let per = per_launch.min(iterations).div_ceil(32).max(1);
    let groups = u32::try_from(per).map_err(|_| "--per-launch is too large")?;
    let stress_ctas = stress_ctas(m, stress);
    let grid = groups
        .checked_mul(m.layout.blocks_per_group())
        .and_then(|g| g.checked_add(stress_ctas))
        .ok_or("--per-launch is too large for one grid")?;
    let launches = iterations.div_ceil(groups as u64 * 32);
    Ok(Plan {
        groups,
        grid,
        cta_threads: 32 * m.layout.warps,
        cluster: m.layout.cluster_dim,
        stress_ctas,
        launches,
        instances: launches * groups as u64 * 32,
        shared_bytes: m.shared.total(),
    })
}

/// A digest of the module's text (FNV-1a, 64 bits): which kernel a dry run
/// would load, comparable between runs and machines.
pub fn digest(ptx: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in ptx.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{:016x}", h)
}
