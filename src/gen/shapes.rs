//! Named shapes and N-thread families, each given as a diy7 cycle.

/// The classic shapes and their cycles (diy7 conventions).
pub const NAMED: [(&str, &str); 15] = [
    ("MP", "PodWW Rfe PodRR Fre"),
    ("SB", "PodWR Fre PodWR Fre"),
    ("LB", "PodRW Rfe PodRW Rfe"),
    ("S", "PodWW Rfe PodRW Wse"),
    ("R", "PodWW Wse PodWR Fre"),
    ("2+2W", "PodWW Wse PodWW Wse"),
    ("IRIW", "Rfe PodRR Fre Rfe PodRR Fre"),
    ("WRC", "Rfe PodRW Rfe PodRR Fre"),
    ("ISA2", "PodWW Rfe PodRW Rfe PodRR Fre"),
    ("RWC", "Rfe PodRR Fre PodWR Fre"),
    ("WWC", "Rfe PodRW Rfe PodRW Wse"),
    ("CoRR", "Rfe PosRR Fre"),
    ("CoRW", "Rfe PosRW Wse"),
    ("CoWR", "PosWR Fre Wse"),
    ("CoWW", "PosWW Wsi"),
];

/// The N-thread families: name, what N counts, description.
pub const FAMILIES: [(&str, &str); 5] = [
    ("MP-chain", "message passing through N threads: P0 writes data x and flag 1, each next thread reads the previous flag and writes its own, the last reads the last flag then x (N=2: MP, N=3: ISA2)"),
    ("IRIW", "N writers of N locations and N observers, observer i reads location i then i+1 (N=2: IRIW); 2N threads"),
    ("RA-ring", "N threads in a ring, thread i reads (acquire) location i and writes (release) location i+1; accesses are always release/acquire (--sem is ignored)"),
    ("LB-ring", "the same ring, semantics from --sem (N=2: LB)"),
    ("SB-ring", "N threads in a ring, thread i writes location i then reads location i+1 (N=2: SB)"),
];

/// A shape after resolution: the name stem, the cycle, and whether --sem applies.
#[derive(Clone, Debug)]
pub struct ShapeSpec {
    /// The user's spelling (`MP`, `MP-chain:4`), for the reproduction command.
    pub arg: String,
    /// The name stem in file names (`MP`, `MP-chain-4`).
    pub stem: String,
    pub cycle: String,
    /// RA-ring: all release/acquire regardless of --sem.
    pub force_relacq: bool,
}

fn repeat(body: &str, n: usize) -> String {
    vec![body; n].join(" ")
}

/// Largest N of a family (`MP-chain:N`, ...).
pub const MAX_FAMILY_SIZE: usize = 64;

/// Resolve a shape name (`MP`, `mp`, `MP-chain:4`).
pub fn shape(arg: &str) -> Result<ShapeSpec, String> {
    if let Some((fam, n)) = arg.split_once(':') {
        let n: usize =
            n.trim().parse().map_err(|_| format!("`{}`: the thread count after `:` must be a number", arg))?;
        // A family of N threads has about 2N accesses; past this no test is
        // decidable in reasonable time and the cycle text itself grows with N.
        if n > MAX_FAMILY_SIZE {
            return Err(format!("`{}`: N may be at most {}", arg, MAX_FAMILY_SIZE));
        }
        let fam_l = fam.to_ascii_lowercase();
        let (stem, cycle, force) = match fam_l.as_str() {
            "mp-chain" => {
                if n < 2 {
                    return Err(format!("`{}`: MP-chain needs N >= 2", arg));
                }
                ("MP-chain", format!("PodWW Rfe {} PodRR Fre", repeat("PodRW Rfe", n - 2)), false)
            }
            "iriw" => {
                if n < 2 {
                    return Err(format!("`{}`: IRIW needs N >= 2 observers", arg));
                }
                ("IRIW", repeat("Rfe PodRR Fre", n), false)
            }
            "ra-ring" | "lb-ring" => {
                if n < 2 {
                    return Err(format!("`{}`: a ring needs N >= 2 threads", arg));
                }
                (if fam_l == "ra-ring" { "RA-ring" } else { "LB-ring" }, repeat("PodRW Rfe", n), fam_l == "ra-ring")
            }
            "sb-ring" => {
                if n < 2 {
                    return Err(format!("`{}`: a ring needs N >= 2 threads", arg));
                }
                ("SB-ring", repeat("PodWR Fre", n), false)
            }
            _ => return Err(format!("unknown family `{}` (MP-chain, IRIW, RA-ring, LB-ring, SB-ring)", fam)),
        };
        let cycle = cycle.split_whitespace().collect::<Vec<_>>().join(" ");
        return Ok(ShapeSpec {
            arg: format!("{}:{}", stem, n),
            stem: format!("{}-{}", stem, n),
            cycle,
            force_relacq: force,
        });
    }
    for (name, cycle) in NAMED {
        if name.eq_ignore_ascii_case(arg) {
            return Ok(ShapeSpec {
                arg: name.to_string(),
                stem: name.to_string(),
                cycle: cycle.to_string(),
                force_relacq: false,
            });
        }
    }
    let names: Vec<&str> = NAMED.iter().map(|x| x.0).collect();
    Err(format!("unknown shape `{}`: expected one of {}, a family MP-chain:N, IRIW:N, RA-ring:N, LB-ring:N, SB-ring:N, or `all`", arg, names.join(" ")))
}
