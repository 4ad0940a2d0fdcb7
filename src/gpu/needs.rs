//! The lowest `.version` / `.target` each emitted feature needs (decision
//! D120), each taken from the "PTX ISA Notes" / "Target ISA Notes" of its
//! instruction or directive in the PTX ISA (chapter 9, section 11.4), and the
//! oldest CUDA driver that loads a PTX ISA version (the ISA's release history).
//! A module declares the highest of what its instructions need, nothing more.

/// What one emitted feature needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feature {
    /// PTX ISA version times ten (60 = 6.0).
    pub ptx: u32,
    /// SM architecture (70 = sm_70).
    pub sm: u32,
    pub what: &'static str,
}

/// `ld`/`st`: "Support for scope qualifier, .relaxed, .acquire/.release, .weak
/// qualifiers introduced in PTX ISA version 6.0 ... require sm_70 or higher";
/// `atom`/`red`: ".sem qualifier introduced in PTX ISA version 6.0", "requires
/// sm_70"; `fence`: "fence introduced in PTX ISA version 6.0", "fence requires
/// sm_70 or higher". Every module starts here.
pub const SCOPED_MEMORY: Feature = Feature { ptx: 60, sm: 70, what: "scoped memory operations" };

/// `ld`/`st`/`atom`/`red`/`fence`: "Support for .cluster scope qualifier
/// introduced in PTX ISA version 7.8", "requires sm_90 or higher".
pub const CLUSTER_SCOPE: Feature = Feature { ptx: 78, sm: 90, what: ".cluster scope" };

/// `.reqnctapercluster` / `.explicitcluster` (11.4): introduced in PTX ISA 7.8, sm_90.
pub const CLUSTER_LAUNCH: Feature = Feature { ptx: 78, sm: 90, what: "thread block clusters (.reqnctapercluster)" };

/// `barrier.cluster`: "Introduced in PTX ISA version 7.8", "Requires sm_90 or higher".
pub const BARRIER_CLUSTER: Feature = Feature { ptx: 78, sm: 90, what: "barrier.cluster" };

/// `barrier.cluster`: "Support for .acquire, .relaxed, .release qualifiers
/// introduced in PTX ISA version 8.0".
pub const BARRIER_CLUSTER_RELAXED: Feature = Feature { ptx: 80, sm: 90, what: "barrier.cluster.arrive.relaxed" };

/// `membar`/`fence`: ".acquire and .release qualifiers for fence instruction
/// introduced in PTX ISA version 8.6", "... require sm_90 or higher".
pub const FENCE_ACQUIRE_RELEASE: Feature = Feature { ptx: 86, sm: 90, what: "fence.acquire / fence.release" };

/// `membar`/`fence`: "membar.proxy and fence.proxy introduced in PTX ISA
/// version 7.5", "fence.proxy requires sm_70 or higher".
pub const FENCE_PROXY: Feature = Feature { ptx: 75, sm: 70, what: "fence.proxy.alias" };

/// `ld`/`st`: "Support for .mmio qualifier introduced in PTX ISA version 8.2",
/// "requires sm_70 or higher".
pub const MMIO: Feature = Feature { ptx: 82, sm: 70, what: ".mmio" };

/// `mbarrier.init/inval/arrive/arrive_drop/test_wait/pending_count`: the
/// lowest `.version`/`.target` NVIDIA's ptxas 12.9 assembles each form for
/// (probed form by form, D277; the ISA text at hand is chapter 8 only):
/// 7.0 / sm_80.
pub const MBARRIER: Feature = Feature { ptx: 70, sm: 80, what: "mbarrier" };

/// `mbarrier.test_wait.parity`: 7.1 / sm_80.
pub const MBARRIER_PARITY: Feature = Feature { ptx: 71, sm: 80, what: "mbarrier.test_wait.parity" };

/// `mbarrier.try_wait{.parity}`, and an arrive with an explicit count: 7.8 / sm_90.
pub const MBARRIER_SM90: Feature = Feature { ptx: 78, sm: 90, what: "mbarrier.try_wait / arrive count" };

/// `.release`/`.acquire` and `.cta` written on an mbarrier arrive or wait: 8.0 / sm_80.
pub const MBARRIER_SEM: Feature = Feature { ptx: 80, sm: 80, what: "mbarrier .sem/.scope" };

/// `.relaxed` on an mbarrier arrive or wait: 8.6 / sm_90.
pub const MBARRIER_RELAXED: Feature = Feature { ptx: 86, sm: 90, what: "mbarrier .relaxed" };

/// The oldest CUDA driver (as `cuDriverGetVersion` reports it: 12070 = 12.7)
/// whose JIT reads PTX ISA version `ptx` (the ISA's "PTX release history":
/// each ISA version with the CUDA release that introduced it), for the
/// versions the features above name; `None` for any other.
pub fn min_driver(ptx: u32) -> Option<i32> {
    const TABLE: &[(u32, i32)] =
        &[(60, 9000), (70, 11000), (71, 11010), (75, 11050), (78, 11080), (80, 12000), (82, 12020), (86, 12070)];
    TABLE.iter().find(|(v, _)| *v == ptx).map(|&(_, d)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drivers_follow_the_release_history() {
        assert_eq!(min_driver(60), Some(9000));
        assert_eq!(min_driver(78), Some(11080));
        // 8.6 came with CUDA 12.7 (12.6 shipped 8.5).
        assert_eq!(min_driver(86), Some(12070));
        assert_eq!(min_driver(90), None);
        for f in [
            SCOPED_MEMORY,
            CLUSTER_SCOPE,
            CLUSTER_LAUNCH,
            BARRIER_CLUSTER,
            BARRIER_CLUSTER_RELAXED,
            FENCE_ACQUIRE_RELEASE,
            FENCE_PROXY,
            MMIO,
            MBARRIER,
            MBARRIER_PARITY,
            MBARRIER_SM90,
            MBARRIER_SEM,
            MBARRIER_RELAXED,
        ] {
            assert!(min_driver(f.ptx).is_some(), "{}: PTX {} has no driver", f.what, f.ptx);
        }
    }
}
