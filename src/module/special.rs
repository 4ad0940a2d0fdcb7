//! Special registers (ISA 10) from the thread header (litmus-format.md
//! section 5, decisions.md D41): each thread is one thread of a launch whose
//! CTAs and clusters are the header's.

use crate::ast::Litmus;
use std::collections::{BTreeMap, HashMap};

/// Threads per warp (ISA 10.2 `%laneid`, 10.3 `%warpid`).
const WARP: i64 = 32;

/// Each thread's `%tid.x`: the header's `tid`, or its rank among the threads
/// of its CTA (a CTA is (gpu, cluster, cta)).
pub(crate) fn thread_ids(lit: &Litmus) -> Vec<i64> {
    let mut rank: BTreeMap<(u32, Option<u32>, u32), i64> = BTreeMap::new();
    (0..lit.threads.len())
        .map(|t| {
            let h = &lit.threads[t];
            let next = rank.entry((h.gpu, h.cluster, h.cta)).or_insert(0);
            let tid = h.tid.map_or(*next, i64::from);
            *next += 1;
            tid
        })
        .collect()
}

/// Each thread's `%ntid.x`, the number of threads of its CTA in the launch:
/// one more than the largest `%tid.x` of the CTA (litmus-format.md section 5).
pub(crate) fn cta_thread_counts(lit: &Litmus) -> Vec<i64> {
    // A CTA is (gpu, cluster, cta); a cluster is (gpu, cluster) or, without
    // `cluster`, the CTA alone (an implicit 1x1x1 cluster launch).
    let cta_key = |t: usize| {
        let h = &lit.threads[t];
        (h.gpu, h.cluster, h.cta)
    };
    let tids = thread_ids(lit);
    let mut ntid: BTreeMap<(u32, Option<u32>, u32), i64> = BTreeMap::new();
    for (t, &tid) in tids.iter().enumerate() {
        let e = ntid.entry(cta_key(t)).or_insert(0);
        *e = (*e).max(tid + 1);
    }
    (0..tids.len()).map(|t| ntid[&cta_key(t)]).collect()
}

/// For each thread, the value of every special register it may read.
pub fn registers(lit: &Litmus) -> Vec<HashMap<String, i64>> {
    let n = lit.threads.len();
    let tids = thread_ids(lit);
    let ntid = cta_thread_counts(lit);
    (0..n)
        .map(|t| {
            let h = &lit.threads[t];
            let same_gpu = |u: usize| lit.threads[u].gpu == h.gpu;
            let nctaid = (0..n).filter(|&u| same_gpu(u)).map(|u| lit.threads[u].cta as i64 + 1).max().unwrap_or(1);
            let ntid_x = ntid[t];
            let tid = tids[t];
            // CTAs of this thread's cluster, in order: its rank among them.
            let mut cluster_ctas: Vec<u32> = (0..n)
                .filter(|&u| same_gpu(u) && lit.threads[u].cluster == h.cluster && h.cluster.is_some())
                .map(|u| lit.threads[u].cta)
                .collect();
            cluster_ctas.sort_unstable();
            cluster_ctas.dedup();
            let (cluster_id, ctarank, nctarank) = match h.cluster {
                Some(k) => (
                    k as i64,
                    cluster_ctas.iter().position(|&c| c == h.cta).unwrap_or(0) as i64,
                    cluster_ctas.len().max(1) as i64,
                ),
                None => (h.cta as i64, 0, 1),
            };
            let nclusters = match h.cluster {
                Some(_) => (0..n)
                    .filter(|&u| same_gpu(u))
                    .filter_map(|u| lit.threads[u].cluster)
                    .max()
                    .map_or(1, |m| m as i64 + 1),
                None => nctaid,
            };
            let mut m = HashMap::new();
            let mut xyz = |name: &str, x: i64, rest: i64| {
                m.insert(format!("%{}.x", name), x);
                m.insert(format!("%{}.y", name), rest);
                m.insert(format!("%{}.z", name), rest);
            };
            xyz("tid", tid, 0);
            xyz("ntid", ntid_x, 1);
            // ISA 2.2.3: "Each CTA has a unique identifier (ctaid) within a
            // grid": a `cta` number the header reuses in another cluster of
            // this GPU gives no `%ctaid` (reading it is an input error, D80).
            let reused =
                (0..n).any(|u| same_gpu(u) && lit.threads[u].cta == h.cta && lit.threads[u].cluster != h.cluster);
            if !reused {
                xyz("ctaid", h.cta as i64, 0);
            }
            xyz("nctaid", nctaid, 1);
            xyz("clusterid", cluster_id, 0);
            xyz("nclusterid", nclusters, 1);
            xyz("cluster_ctaid", ctarank, 0);
            xyz("cluster_nctaid", nctarank, 1);
            m.insert("%cluster_ctarank".into(), ctarank);
            m.insert("%cluster_nctarank".into(), nctarank);
            m.insert("%laneid".into(), tid % WARP);
            lane_masks(&mut m, tid % WARP);
            m.insert("%warpid".into(), tid / WARP);
            m.insert("%nwarpid".into(), (ntid_x + WARP - 1) / WARP);
            m.insert("%gridid".into(), 0);
            m.insert("%is_explicit_cluster".into(), h.cluster.is_some() as i64);
            m
        })
        .collect()
}

/// `%lanemask_eq` and its kin: 32-bit masks of the lanes below, at or above
/// this thread's lane (`%laneid`), which the header determines.
fn lane_masks(m: &mut HashMap<String, i64>, lane: i64) {
    let eq = 1i64 << lane;
    let (lt, le) = (eq - 1, (eq << 1) - 1);
    let all = 0xffff_ffffi64;
    for (name, v) in [("eq", eq), ("lt", lt), ("le", le), ("gt", all & !le), ("ge", all & !lt)] {
        m.insert(format!("%lanemask_{}", name), v);
    }
}

pub use crate::ast::special::{timer, unsupported};
