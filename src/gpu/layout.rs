//! Where each litmus thread runs in the launch grid, and where each instance's
//! locations live (paper-notes/hardware.md, decisions D30, D32).
//!
//! The grid is made of *groups*; one group holds one real cluster per litmus
//! cluster (one CTA per litmus CTA of that cluster, padded to the widest
//! cluster) and hosts 32 instances: lane `l` of every warp belongs to slot
//! `g * 32 + l`. Each litmus thread gets its own warp in its CTA, so all 32
//! lanes of a warp run the same litmus thread (for 32 different instances).
//! Which instance a slot runs is read from a per-thread permutation, so the
//! threads of one instance land in random groups and lanes.

use crate::ast::Litmus;
use std::collections::BTreeMap;

/// The placement of a test's threads in real CTAs and clusters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// CTAs per real cluster (1: no cluster launch needed).
    pub cluster_dim: u32,
    /// Real clusters per group (= litmus clusters).
    pub clusters: u32,
    /// Warps per CTA (= most litmus threads in one litmus CTA).
    pub warps: u32,
    /// `thread_at[(k * cluster_dim + r) * warps + w]`: the litmus thread run by
    /// warp `w` of CTA rank `r` in cluster `k` of a group (None: idle padding).
    pub thread_at: Vec<Option<usize>>,
    /// Litmus threads per litmus CTA, indexed like the CTA's block position
    /// `k * cluster_dim + r` (for barrier counts).
    pub cta_threads: Vec<u32>,
    /// The block position (`k * cluster_dim + r`) of each litmus thread.
    pub block_of: Vec<u32>,
    /// The litmus cluster index `k` of each litmus thread.
    pub cluster_of: Vec<u32>,
    /// Clusters were asked for explicitly in the header.
    pub explicit_clusters: bool,
}

impl Layout {
    /// Blocks per group.
    pub fn blocks_per_group(&self) -> u32 {
        self.clusters * self.cluster_dim
    }
    pub fn threads(&self) -> usize {
        self.block_of.len()
    }
}

/// The layout of a test, or why it has none on one GPU.
pub fn layout(lit: &Litmus) -> Result<Layout, String> {
    let gpus: std::collections::BTreeSet<u32> = lit.threads.iter().map(|h| h.gpu).collect();
    if gpus.len() > 1 {
        return Err(format!("threads on {} GPUs: one device runs one GPU only", gpus.len()));
    }
    let explicit_clusters = lit.threads.iter().any(|h| h.cluster.is_some());
    // Litmus cluster -> CTA -> threads, all in order of first appearance by id.
    let mut clusters: BTreeMap<(u8, u32), BTreeMap<u32, Vec<usize>>> = BTreeMap::new();
    for (t, h) in lit.threads.iter().enumerate() {
        // Without a cluster number each CTA is its own cluster (ISA 8.5).
        let key = match h.cluster {
            Some(c) => (0, c),
            None => (1, h.cta),
        };
        clusters.entry(key).or_default().entry(h.cta).or_default().push(t);
    }
    // A CTA in two clusters cannot be placed.
    let mut seen_cta: BTreeMap<u32, (u8, u32)> = BTreeMap::new();
    for (key, ctas) in &clusters {
        for cta in ctas.keys() {
            if let Some(other) = seen_cta.insert(*cta, *key) {
                if other != *key {
                    return Err(format!("CTA {} is placed in two clusters", cta));
                }
            }
        }
    }
    let cluster_dim = clusters.values().map(|c| c.len() as u32).max().unwrap_or(1);
    let warps = clusters.values().flat_map(|c| c.values().map(|t| t.len() as u32)).max().unwrap_or(1);
    if cluster_dim > 8 {
        return Err(format!("a cluster of {} CTAs: more than the portable 8", cluster_dim));
    }
    if warps > 32 {
        return Err(format!("{} threads in one CTA: more than 32 warps of 32 lanes", warps));
    }
    let n = lit.threads.len();
    let mut lay = Layout {
        cluster_dim,
        clusters: clusters.len() as u32,
        warps,
        thread_at: vec![None; clusters.len() * (cluster_dim * warps) as usize],
        cta_threads: vec![0; clusters.len() * cluster_dim as usize],
        block_of: vec![0; n],
        cluster_of: vec![0; n],
        explicit_clusters,
    };
    for (k, ctas) in clusters.values().enumerate() {
        for (r, threads) in ctas.values().enumerate() {
            let block = k as u32 * cluster_dim + r as u32;
            lay.cta_threads[block as usize] = threads.len() as u32;
            for (w, &t) in threads.iter().enumerate() {
                lay.thread_at[(block * warps) as usize + w] = Some(t);
                lay.block_of[t] = block;
                lay.cluster_of[t] = k as u32;
            }
        }
    }
    Ok(lay)
}

/// Byte offsets of the test's variables inside one instance's region: each
/// variable gets its own `stride` bytes (a cache line by default), so
/// locations never share a line by accident; an array (`u32 out[4];`) gets
/// its elements' bytes, rounded up to whole strides.
#[derive(Clone, Debug)]
pub struct Memory {
    pub offsets: BTreeMap<String, u64>,
    /// Bytes each variable owns (a multiple of `stride`).
    pub sizes: BTreeMap<String, u64>,
    /// Declared arrays: element size in bytes and number of elements.
    pub arrays: BTreeMap<String, (u64, u32)>,
    pub stride: u64,
}

impl Memory {
    pub fn region_bytes(&self) -> u64 {
        self.sizes.values().sum::<u64>().max(self.stride)
    }

    /// Where a location name lives: its byte offset in the region and the
    /// bytes left in its variable from there. `x`, `x+4` and array elements
    /// `out[2]` (at `2 * element size`).
    pub fn locate(&self, name: &str) -> Option<(u64, u64)> {
        let (root, off) = match name.strip_suffix(']').and_then(|n| n.split_once('[')) {
            Some((root, index)) => {
                let &(elem, len) = self.arrays.get(root)?;
                let i: u32 = index.trim().parse().ok().filter(|&i| i < len)?;
                (root, i as u64 * elem)
            }
            None => root_of(name),
        };
        let (base, size) = (*self.offsets.get(root)?, *self.sizes.get(root)?);
        (off < size).then(|| (base + off, size - off))
    }
}

/// Every variable name of the test (declared in the init or used as an address).
pub fn memory(lit: &Litmus, stride: u64) -> Memory {
    let mut names = std::collections::BTreeSet::new();
    let mut arrays = BTreeMap::new();
    for item in &lit.init {
        match item {
            crate::ast::InitItem::Location { name, .. } => {
                names.insert(name.clone());
            }
            crate::ast::InitItem::RegisterAddress { location, .. } => {
                names.insert(location.clone());
            }
            crate::ast::InitItem::Array { name, ty, len, .. } => {
                names.insert(name.clone());
                arrays.insert(name.clone(), ((ty.bits as u64 / 8).max(1), *len));
            }
            _ => {}
        }
    }
    for code in &lit.code {
        for ins in code {
            for s in super::instr::symbols(&ins.kind) {
                names.insert(s);
            }
        }
    }
    for o in &lit.locations {
        if let crate::ast::Observable::Loc(l) = o {
            let root = l.split_once('[').map_or(root_of(l).0, |(r, _)| r);
            names.insert(root.to_string());
        }
    }
    // Private variables live in each GPU thread's `.local` memory instead (D125).
    let private = super::scan::private_names(lit);
    names.retain(|n| !private.contains(n));
    // A module's `.global` variable owns its declared bytes.
    let declared: BTreeMap<&String, u64> = lit
        .init
        .iter()
        .filter_map(|i| if let crate::ast::InitItem::Var(d) = i { Some((&d.name, d.size)) } else { None })
        .collect();
    let sizes: BTreeMap<String, u64> = names
        .into_iter()
        .map(|n| {
            let own = arrays
                .get(&n)
                .map(|&(elem, len)| elem * len as u64)
                .or_else(|| declared.get(&n).copied())
                .unwrap_or(stride);
            (n, own.div_ceil(stride).max(1) * stride)
        })
        .collect();
    let mut offsets = BTreeMap::new();
    let mut next = 0;
    for (n, bytes) in &sizes {
        offsets.insert(n.clone(), next);
        next += bytes;
    }
    Memory { offsets, sizes, arrays, stride }
}

/// `x+4` -> (`x`, 4); `x` -> (`x`, 0).
pub fn root_of(name: &str) -> (&str, u64) {
    match name.split_once('+') {
        Some((r, off)) => (r.trim(), off.trim().parse().unwrap_or(0)),
        None => (name, 0),
    }
}

/// A small deterministic generator (splitmix64) for the permutations: no
/// dependency, reproducible from `--seed`.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// The words of the `perm` buffer the kernel reads (D30, D278, D279):
/// `perm[t * slots + s]`, the instance run by slot `s` of litmus thread `t`;
/// then `perm[(threads + k) * slots + i]`, the position (`0..32`) of instance
/// `i` in its group for litmus cluster `k` (which of the 32 per-instance
/// `.shared` copies of a real CTA is its own); then [`cta_order`]'s words.
/// Threads of one litmus cluster share the instance-to-group assignment (they
/// must share a real cluster); each thread then shuffles lanes inside its
/// group on its own.
pub fn permutations(lay: &Layout, groups: usize, rng: &mut Rng) -> Vec<u32> {
    let slots = groups * 32;
    let threads = lay.threads();
    let mut perm = vec![0u32; (threads + lay.clusters as usize) * slots];
    for k in 0..lay.clusters {
        let mut order: Vec<u32> = (0..slots as u32).collect();
        rng.shuffle(&mut order);
        let at = (threads + k as usize) * slots;
        for (j, &inst) in order.iter().enumerate() {
            perm[at + inst as usize] = (j % 32) as u32;
        }
        for t in (0..threads).filter(|&t| lay.cluster_of[t] == k) {
            for g in 0..groups {
                let mut chunk = order[g * 32..(g + 1) * 32].to_vec();
                rng.shuffle(&mut chunk);
                perm[t * slots + g * 32..t * slots + (g + 1) * 32].copy_from_slice(&chunk);
            }
        }
    }
    perm
}

/// The last words of the `perm` buffer: for each real cluster of the grid
/// (`%ctaid.x / cluster_dim`), the cluster whose role it plays: a group's
/// clusters, or a stress cluster past them (D279). Shuffled (`shuffle`), the
/// CTAs of one group and the stress CTAs lie anywhere in the launch order,
/// as litmus7 and GPUHarbor shuffle thread-block ids; unshuffled, each real
/// cluster plays itself.
pub fn cta_order(real_clusters: usize, shuffle: bool, rng: &mut Rng) -> Vec<u32> {
    let mut order: Vec<u32> = (0..real_clusters as u32).collect();
    if shuffle {
        rng.shuffle(&mut order);
    }
    order
}
