//! A proptest strategy for well-formed random litmus tests, kept as a small
//! structure so metamorphic transformations can be applied before printing it
//! in litmus syntax.

#![allow(dead_code)]

use proptest::prelude::*;

pub const LOCS: [&str; 2] = ["x", "y"];
pub const SCOPES: [&str; 4] = ["cta", "cluster", "gpu", "sys"];
pub const PROXY_FENCES: [&str; 4] = ["alias", "texture", "surface", "constant"];
/// The fences restricted to shared memory (9.7.13.4, D316).
pub const SHARED_FENCES: [&str; 4] = [
    "fence.release.sync_restrict::shared::cta.cluster",
    "fence.acquire.sync_restrict::shared::cluster.cluster",
    "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
    "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
];
/// Non-generic proxies: their read instruction and the names of x through them
/// (same address, and through the virtual alias `a`).
pub const PROXIES: [(&str, &str, &str); 3] = [("tld", "t", "t2"), ("suld", "s", "s2"), ("cold", "c", "c2")];

#[derive(Clone, Debug, PartialEq)]
pub enum Sem {
    Weak,
    Relaxed,
    Strong, // acquire for reads, release for writes, acq_rel for atomics
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Ld {
        sem: Sem,
        scope: usize,
        reg: usize,
        loc: usize,
        alias: bool,
    },
    St {
        sem: Sem,
        scope: usize,
        loc: usize,
        val: i64,
        from_reg: Option<usize>,
        alias: bool,
    },
    Atom {
        sem: Sem,
        scope: usize,
        reg: usize,
        loc: usize,
        kind: usize,
    },
    Red {
        release: bool,
        scope: usize,
        loc: usize,
    },
    Fence {
        kind: usize,
        scope: usize,
    },
    /// A `.sync_restrict` fence (SHARED_FENCES, D316).
    SharedFence {
        kind: usize,
    },
    /// `fence.proxy.{alias,texture,surface,constant}` (PROXY_FENCES).
    ProxyFence {
        proxy: usize,
    },
    /// A read of x through a non-generic proxy (PROXIES: texture, surface,
    /// constant), either at x's address or through the virtual alias `a`.
    ProxyLd {
        proxy: usize,
        reg: usize,
        via_alias: bool,
    },
    /// `sust` of x (or of its virtual alias `a`) through the surface proxy.
    Sust {
        val: i64,
        via_alias: bool,
    },
    Bar {
        id: usize,
    },
    /// `bar.cta.red.{popc,and,or}` of register `src`'s truth into `dst`.
    BarRed {
        op: usize,
        id: usize,
        dst: usize,
        src: usize,
    },
    Add {
        dst: usize,
        src: usize,
    },
    /// Forward branch over the next instructions when `reg != 0`.
    SkipIfNonZero {
        reg: usize,
    },
    /// A `cas` loop incrementing `loc` (label `CAS<at>`; registers r0-r2).
    CasLoop {
        loc: usize,
        at: usize,
    },
    /// A spin loop: load `loc` into `reg` until it is not 0 (label `SPIN<at>`).
    Spin {
        sem: Sem,
        scope: usize,
        reg: usize,
        loc: usize,
        at: usize,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub cta: u32,
    pub cluster: u32,
    pub gpu: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    pub threads: Vec<(Place, Vec<Op>)>,
    /// Declare `a @ generic aliases x` and texture/surface/constant names of x and of a.
    pub aliases: bool,
    /// y is in shared memory (every access to it `.shared`): the fences
    /// restricted to shared memory order its accesses and not x's.
    pub shared_y: bool,
}

pub(crate) fn sem() -> impl Strategy<Value = Sem> {
    prop_oneof![Just(Sem::Weak), Just(Sem::Relaxed), Just(Sem::Strong)]
}

pub(crate) fn op(aliases: bool) -> impl Strategy<Value = Op> {
    let a = aliases;
    prop_oneof![
        4 => (sem(), 0..4usize, 0..3usize, 0..2usize, any::<bool>()).prop_map(move |(sem, scope, reg, loc, al)| Op::Ld { sem, scope, reg, loc, alias: al && a }),
        4 => (sem(), 0..4usize, 0..2usize, 1..3i64, proptest::option::weighted(0.2, 0..3usize), any::<bool>())
            .prop_map(move |(sem, scope, loc, val, from_reg, al)| Op::St { sem, scope, loc, val, from_reg, alias: al && a }),
        1 => (sem(), 0..4usize, 0..3usize, 0..2usize, 0..5usize).prop_map(|(sem, scope, reg, loc, kind)| Op::Atom { sem, scope, reg, loc, kind }),
        1 => (any::<bool>(), 0..4usize, 0..2usize).prop_map(|(release, scope, loc)| Op::Red { release, scope, loc }),
        2 => (0..4usize, 0..4usize).prop_map(|(kind, scope)| Op::Fence { kind, scope }),
        1 => (0..4usize).prop_map(|kind| Op::SharedFence { kind }),
        1 => (0..3usize).prop_map(|reg| Op::Add { dst: (reg + 1) % 3, src: reg }),
        1 => (0..3usize).prop_map(|reg| Op::SkipIfNonZero { reg }),
        1 => (0..2usize).prop_map(|id| Op::Bar { id }),
        1 => (0..3usize, 0..2usize, 0..3usize, 0..3usize).prop_map(|(op, id, dst, src)| Op::BarRed { op, id, dst, src }),
        // Proxy fences in random order and placement, and accesses through proxies.
        2 => (0..4usize).prop_map(move |proxy| if a { Op::ProxyFence { proxy } } else { Op::Fence { kind: 1, scope: 2 } }),
        1 => (0..3usize, 0..3usize, any::<bool>())
            .prop_map(move |(proxy, reg, via_alias)| if a { Op::ProxyLd { proxy, reg, via_alias } } else { Op::Fence { kind: 2, scope: 3 } }),
        1 => (1..3i64, any::<bool>()).prop_map(move |(val, via_alias)| if a { Op::Sust { val, via_alias } } else { Op::Fence { kind: 0, scope: 0 } }),
    ]
}

pub(crate) fn place() -> impl Strategy<Value = Place> {
    (0..2u32, 0..2u32, 0..2u32).prop_map(|(cta, cluster, gpu)| Place { cta, cluster, gpu })
}

pub fn test_strategy() -> impl Strategy<Value = Test> {
    (any::<bool>(), any::<bool>()).prop_flat_map(|(aliases, shared_y)| {
        (proptest::collection::vec((place(), proptest::collection::vec(op(aliases), 1..=5)), 1..=4), Just(aliases))
            .prop_map(move |(threads, aliases)| Test { threads, aliases, shared_y })
    })
}

fn sem_str(s: &Sem, strong: &str, scope: usize) -> String {
    match s {
        Sem::Weak => "weak".into(),
        Sem::Relaxed => format!("relaxed.{}", SCOPES[scope]),
        Sem::Strong => format!("{}.{}", strong, SCOPES[scope]),
    }
}

fn loc(l: usize, alias: bool) -> &'static str {
    if alias && l == 0 {
        "a"
    } else {
        LOCS[l]
    }
}

/// Rename locations `x`/`y` in one rendered instruction or condition.
fn rename(text: &str, names: [&str; 2]) -> String {
    text.split_inclusive(|c: char| !c.is_alphanumeric() && c != '_')
        .map(|tok| {
            let (word, rest) = tok.split_at(tok.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_').len());
            let w = match word {
                "x" => names[0],
                "y" => names[1],
                w => w,
            };
            format!("{}{}", w, rest)
        })
        .collect()
}

/// An access to y with `.shared` after its mnemonic when y is in shared memory.
fn in_space(line: &str, shared_y: bool) -> String {
    let accesses = ["ld.", "st.", "atom.", "red."].iter().any(|m| line.starts_with(m));
    let names_y = line.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "y");
    match line.split_once(' ') {
        Some((mnemonic, rest)) if shared_y && accesses && names_y => format!("{}.shared {}", mnemonic, rest),
        _ => line.to_string(),
    }
}

fn op_text(o: &Op) -> String {
    match o {
        Op::Ld { sem, scope, reg, loc: l, alias } => {
            format!("ld.{} r{}, {}", sem_str(sem, "acquire", *scope), reg, loc(*l, *alias))
        }
        Op::St { sem, scope, loc: l, val, from_reg, alias } => {
            let v = from_reg.map_or(val.to_string(), |r| format!("r{}", r));
            format!("st.{} {}, {}", sem_str(sem, "release", *scope), loc(*l, *alias), v)
        }
        Op::Atom { sem, scope, reg, loc: l, kind } => {
            let s = match sem {
                Sem::Weak => "relaxed",
                Sem::Relaxed => "relaxed",
                Sem::Strong => "acq_rel",
            };
            let k = match kind {
                0 => format!("add r{}, {}, 1", reg, LOCS[*l]),
                1 => format!("exch r{}, {}, 2", reg, LOCS[*l]),
                2 => format!("cas r{}, {}, 0, 2", reg, LOCS[*l]),
                // Idempotent operations: a reads-from cycle of them would be consistent.
                3 => format!("or.b32 r{}, {}, 1", reg, LOCS[*l]),
                _ => format!("max.s32 r{}, {}, 2", reg, LOCS[*l]),
            };
            format!("atom.{}.{}.{}", s, SCOPES[*scope], k)
        }
        Op::Red { release, scope, loc: l } => {
            format!("red.{}.{}.add {}, 1", if *release { "release" } else { "relaxed" }, SCOPES[*scope], LOCS[*l])
        }
        Op::Fence { kind, scope } => {
            format!("fence.{}.{}", ["sc", "acq_rel", "acquire", "release"][*kind], SCOPES[*scope])
        }
        Op::SharedFence { kind } => SHARED_FENCES[*kind].to_string(),
        Op::ProxyFence { proxy } => format!("fence.proxy.{}", PROXY_FENCES[*proxy]),
        Op::ProxyLd { proxy, reg, via_alias } => {
            let (ins, same, alias) = PROXIES[*proxy];
            format!("{}.weak r{}, {}", ins, reg, if *via_alias { alias } else { same })
        }
        Op::Sust { val, via_alias } => format!("sust.weak {}, {}", if *via_alias { "s2" } else { "s" }, val),
        Op::Bar { id } => format!("bar.cta.sync {}", id),
        Op::BarRed { op, id, dst, src } => {
            let (red, ty) = [("popc", "u32"), ("and", "pred"), ("or", "pred")][*op];
            format!("bar.cta.red.{}.{} r{}, {}, r{}", red, ty, dst, id, src)
        }
        Op::Add { dst, src } => format!("add r{}, r{}, 1", dst, src),
        Op::SkipIfNonZero { reg } => format!("bne r{}, 0, END", reg),
        Op::CasLoop { loc: l, at } => {
            let x = LOCS[*l];
            format!("CAS{at}:\nld.relaxed.gpu r0, {x}\nadd r1, r0, 1\natom.relaxed.gpu.cas.b32 r2, {x}, r0, r1\nbne r2, r0, CAS{at}")
        }
        Op::Spin { sem, scope, reg, loc: l, at } => {
            format!(
                "SPIN{}:\nld.{} r{}, {}\nbeq r{}, 0, SPIN{}",
                at,
                sem_str(sem, "acquire", *scope),
                reg,
                LOCS[*l],
                reg,
                at
            )
        }
    }
}

impl Test {
    /// The test with every `bar.red` a plain `bar.sync` of its barrier.
    pub fn without_reductions(&self) -> Test {
        let plain = |op: &Op| match op {
            Op::BarRed { id, .. } => Op::Bar { id: *id },
            o => o.clone(),
        };
        let threads = self.threads.iter().map(|(p, ops)| (p.clone(), ops.iter().map(plain).collect())).collect();
        Test { threads, ..self.clone() }
    }

    /// Print as a litmus file. Every register and location is observed.
    pub fn render(&self, name: &str) -> String {
        self.render_with(name, ["x", "y"], 0)
    }

    /// Print with locations renamed and the condition about thread `cond_thread`'s r0.
    pub fn render_with(&self, name: &str, names: [&str; 2], cond_thread: usize) -> String {
        let mut s = format!("PTX {}\n{{\nx = 0; y = 0;\n", name);
        // Every observed register is initialised (to 0, its default), so the
        // condition and `locations` may name those a thread never writes (D14).
        for i in 0..self.threads.len() {
            s.push_str(&format!("P{}:r0 = 0; P{}:r1 = 0; P{}:r2 = 0;\n", i, i, i));
        }
        if self.aliases {
            s.push_str("a @ generic aliases x;\n");
            for (_, same, alias) in PROXIES {
                let proxy = match same {
                    "t" => "texture",
                    "s" => "surface",
                    _ => "constant",
                };
                s.push_str(&format!("{} @ {} aliases x; {} @ {} aliases a;\n", same, proxy, alias, proxy));
            }
        }
        s.push_str("}\n");
        let cells: Vec<Vec<String>> = self
            .threads
            .iter()
            .map(|(_, ops)| {
                // An op may print several lines (a spin loop's label, load and branch).
                let mut v: Vec<String> = ops
                    .iter()
                    .flat_map(|o| op_text(o).lines().map(|l| in_space(l, self.shared_y)).collect::<Vec<_>>())
                    .collect();
                if ops.iter().any(|o| matches!(o, Op::SkipIfNonZero { .. })) {
                    v.push("END:".into());
                }
                v
            })
            .collect();
        let header: Vec<String> = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, (p, _))| format!("P{}@cta {},cluster {},gpu {}", i, p.cta, p.cluster, p.gpu))
            .collect();
        s.push_str(&format!(" {} ;\n", header.join(" | ")));
        let rows = cells.iter().map(|c| c.len()).max().unwrap_or(0);
        for r in 0..rows {
            let row: Vec<String> = cells.iter().map(|c| c.get(r).cloned().unwrap_or_default()).collect();
            s.push_str(&format!(" {} ;\n", row.join(" | ")));
        }
        let mut obs = vec!["x".to_string(), "y".to_string()];
        for (i, _) in self.threads.iter().enumerate() {
            for r in 0..3 {
                obs.push(format!("P{}:r{}", i, r));
            }
        }
        s.push_str(&format!("locations [{};]\n", obs.join("; ")));
        s.push_str(&format!("exists (x == 1 /\\ P{}:r0 == 0)\n", cond_thread));
        if names == ["x", "y"] {
            return s;
        }
        // Rename everything after the test name.
        let (head, body) = s.split_at(s.find('\n').unwrap_or(0));
        format!("{}{}", head, rename(body, names))
    }

    /// Threads in another order: thread i moves to position perm[i].
    pub fn permuted(&self, perm: &[usize]) -> Test {
        let mut t = self.clone();
        for (i, th) in self.threads.iter().enumerate() {
            t.threads[perm[i]] = th.clone();
        }
        t
    }

    /// Every strong-able access one step stronger (weak -> relaxed -> acquire/release).
    pub fn strengthened(&self, which: usize) -> Test {
        let mut t = self.clone();
        let mut k = 0;
        for (_, ops) in &mut t.threads {
            for o in ops.iter_mut() {
                let s = match o {
                    Op::Ld { sem, .. } | Op::St { sem, .. } => sem,
                    _ => continue,
                };
                if k == which {
                    *s = match s {
                        Sem::Weak => Sem::Relaxed,
                        _ => Sem::Strong,
                    };
                }
                k += 1;
            }
        }
        t
    }

    /// Widen the scope of one strong operation.
    pub fn widened(&self, which: usize) -> Test {
        let mut t = self.clone();
        let mut k = 0;
        for (_, ops) in &mut t.threads {
            for o in ops.iter_mut() {
                let sc = match o {
                    Op::Ld { scope, .. }
                    | Op::St { scope, .. }
                    | Op::Atom { scope, .. }
                    | Op::Red { scope, .. }
                    | Op::Fence { scope, .. } => scope,
                    _ => continue,
                };
                if k == which {
                    *sc = (*sc + 1).min(3);
                }
                k += 1;
            }
        }
        t
    }

    /// Insert a fence.sc.sys into thread `t` at position `at`.
    pub fn with_fence_sc(&self, t: usize, at: usize) -> Test {
        self.with_op(t, at, Op::Fence { kind: 0, scope: 3 })
    }

    /// Insert `op` into thread `t` at position `at` (both taken modulo).
    pub fn with_op(&self, t: usize, at: usize, op: Op) -> Test {
        let mut x = self.clone();
        let n = x.threads.len();
        let ops = &mut x.threads[t % n].1;
        let at = at % (ops.len() + 1);
        ops.insert(at, op);
        x
    }

    /// Every fence restricted to shared memory made the full fence of its
    /// semantics at `.cluster` scope (D316: the restriction only takes away).
    pub fn unrestricted(&self) -> Test {
        let full = |op: &Op| match op {
            Op::SharedFence { kind } => Op::Fence { kind: if kind % 2 == 0 { 3 } else { 2 }, scope: 1 },
            o => o.clone(),
        };
        let threads = self.threads.iter().map(|(p, ops)| (p.clone(), ops.iter().map(full).collect())).collect();
        Test { threads, ..self.clone() }
    }

    /// All threads in CTA 0 of cluster 0 of GPU 0.
    pub fn one_cta(&self) -> Test {
        let mut t = self.clone();
        for (p, _) in &mut t.threads {
            *p = Place { cta: 0, cluster: 0, gpu: 0 };
        }
        t
    }
}

impl Test {
    /// Thread `which` (modulo the number of threads) copied `copies` times at
    /// the end, with its placement: the copies are interchangeable with it
    /// unless the condition tells them apart. Returns the test and the indices
    /// of the original and its copies.
    pub fn duplicated(&self, which: usize, copies: usize) -> (Test, Vec<usize>) {
        let mut t = self.clone();
        let w = which % t.threads.len();
        let mut same = vec![w];
        for _ in 0..copies {
            same.push(t.threads.len());
            t.threads.push(self.threads[w].clone());
        }
        (t, same)
    }

    /// Print with a condition over threads `same` of shape `shape`: 0, 1 and 2
    /// do not change when those threads are swapped (a disjunction, a
    /// conjunction, a location only); 3 names the first of them alone.
    pub fn render_symmetric(&self, name: &str, same: &[usize], shape: usize) -> String {
        let text = self.render(name);
        let body = &text[..text.rfind("exists").unwrap_or(text.len())];
        let each = |f: &dyn Fn(usize) -> String, sep: &str| same.iter().map(|&i| f(i)).collect::<Vec<_>>().join(sep);
        let cond = match shape % 4 {
            0 => format!("exists (x == 1 /\\ ({}))", each(&|i| format!("P{}:r0 == 0", i), " \\/ ")),
            1 => format!("exists ({} /\\ y != 2)", each(&|i| format!("P{}:r0 == 1", i), " /\\ ")),
            2 => "forall (x == 1 \\/ y == 1)".to_string(),
            _ => format!("exists (x == 1 /\\ P{}:r0 == 0)", same[0]),
        };
        format!("{}{}\n", body, cond)
    }
}
