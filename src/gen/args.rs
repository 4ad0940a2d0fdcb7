//! The options of `ptx-litmus gen`: clap arguments and the crossed option
//! values (`--sem`, `--fence`, `--scope`, `--placement`, `--proxy`).

use super::cycle::Scope;
use std::path::PathBuf;

const GEN_HELP: &str = "\
SHAPES
  Named:    MP SB LB S R 2+2W IRIW WRC ISA2 RWC WWC CoRR CoRW CoWR CoWW  (`all`: all fifteen)
  Families: MP-chain:N  message passing relayed through N threads (N=2 is MP, N=3 is ISA2)
            IRIW:N      N writers and N observers, 2N threads (N=2 is IRIW)
            RA-ring:N   ring of N threads, each ld.acquire of its location then st.release
                        of the next one (always release/acquire: --sem is ignored)
            LB-ring:N   the same ring with --sem semantics (N=2 is LB)
            SB-ring:N   ring of N threads, each writes its location then reads the next (N=2 is SB)
  Each shape is a diy7 cycle; `--cycle` gives one directly.

OPTIONS CROSSED (comma lists; `all` = every value; the cross product is generated)
  --sem        weak     every access weak (st.weak / ld.weak)
               relaxed  every access .relaxed.<scope>
               relacq   every write st.release.<scope>, every read ld.acquire.<scope>
               sync     release only on writes that end their thread's program order
                        before an external edge (the flag), acquire only on reads that
                        start it after one; the other accesses weak (MP+rel+acq style)
  --fence      none | acq_rel | sc    fence.<sem>.<scope> between consecutive accesses
               rel-acq                fence.acquire after a read, fence.release before
                                      anything else (between consecutive accesses)
  --scope      cta | cluster | gpu | sys   scope of every strong access and fence
  --placement  same-cta      all threads in CTA 0 (header P0@cta 0,gpu 0)
               same-cluster  one CTA per thread, one cluster (P1@cta 1,cluster 0,gpu 0)
               same-gpu      one CTA per thread, each its own cluster (P1@cta 1,gpu 0);
                             `diff-cta` is accepted as a synonym
               diff-gpu      one GPU per thread (P1@cta 0,gpu 1)
  --proxy      generic      plain accesses
               alias        every read that is not its thread's first instruction (the
                            data reads; the first read, e.g. MP's flag, stays generic)
                            goes through the virtual alias `x_a @ generic aliases x`
               alias-fence  the same, with fence.proxy.alias just before each aliased read
  Defaults: --sem weak --fence none --scope gpu --placement same-gpu --proxy generic.

CYCLES (--cycle, repeatable; tokens separated by spaces)
  Edges:       Rfe Rfi Fre Fri Wse Wsi (Coe Coi are synonyms of Wse Wsi)
               PodRR PodRW PodWR PodWW  program order, different locations
               PosRR PosRW PosWR PosWW  program order, same location
               Fence.<sem>.<scope>d<XY> (or s<XY>) a Pod (Pos) edge with a fence
                                       between its accesses, e.g. Fence.sc.gpudWR;
                                       FencedWR.sc.gpu is the same edge
  Fences:      Fence.<sem>[.<scope>] alone puts that fence on the NEXT edge, which must
               be a PodXY/PosXY: `PodWW Rfe Fence.sc.gpu PodRR Fre`.
               <sem> is sc, acq_rel, acquire or release.
  Annotations: Rel[.<scope>] Acq[.<scope>] Rlx[.<scope>] Weak, written between two
               edges, set the semantics of the access between them (the target of
               the edge before, the source of the edge after):
               `PodWW Rel.gpu Rfe Acq.gpu PodRR Fre` is MP with a release flag write
               and an acquire flag read; in `Rfe Acq.gpu PodRR Fre Rel.gpu PodWW` the
               Rel.gpu falls on the access after Fre, the data write x. A token at the
               very start or end annotates the access where the cycle closes.
               Unannotated accesses follow --sem; a missing scope, on an annotation or
               a fence, is --scope.
  Layout (diy7): threads change at external edges (P0 starts after the last external
  edge); locations x, y, z, a, ... change at Pod edges (so a cycle has zero or at least
  two Pod edges); writes to a location get 1, 2 in coherence order along the cycle;
  the condition is `exists` of the cycle's witness: an Rf read equals its write, an
  Fr read equals the value before its target write, and a location with two writes
  ends with 2. A cycle with no external edge is one thread and needs exactly one
  internal edge (Rfi/Fri/Wsi), read backwards in program order (CoWW is PosWW Wsi).

C TESTS (--lang c)
  The same shapes and cycles written in herd's C format (decided under rc11, read by herd7):
  --sem weak is a plain access, relaxed/relacq/sync the C orders, sc memory_order_seq_cst;
  --fence gives atomic_thread_fence; the default --scope is sys, written as no scope argument
  (narrower scopes: cuda::thread_scope_block|cluster|device as the last argument and herd's
  `scopes:` tree for --placement). Cycles may also use `Sc[.<scope>]` annotations and the
  `Rmw` edge (the read and the write of one read-modify-write), which --rmw makes
  exchange, fetch_add or cas (a strong compare-exchange that must succeed).
  --random N [--seed S] [--max-edges K] adds N random cycles (2-4 threads, 4-K edges, random
  orders and fences), the same for the same seed.

NAMES
  <shape>+<sem>[.<scope>][+fence.<f>.<scope>][+<placement>][+alias|+alias-fence].litmus,
  e.g. MP+relacq.gpu+same-gpu.litmus, SB+weak+fence.sc.cta+same-cta.litmus; for --cycle
  the shape is the cycle's tokens joined by `+`. Parts that do not change the test are
  left out (a scope when nothing is strong, a placement for one thread), and tests with
  the same name are written once. Each file's doc lines give the generator command that
  makes exactly it and the cycle with every access's semantics.

EXAMPLES
  ptx-litmus gen MP SB --sem weak,relacq --placement same-cta,diff-gpu --out gen/
  ptx-litmus gen all --sem all --fence all --scope all --placement all --out fam/ --expect-csv fam/expected.csv
  ptx-litmus gen MP-chain:4 IRIW:3 --sem relacq --out gen/
  ptx-litmus gen --cycle 'PodWW Rel.gpu Rfe Acq.gpu PodRR Fre' --out gen/
  ptx-litmus gen --cycle 'PodWR Fre Fence.sc.gpudWR Fre' --placement same-cta,diff-gpu --out gen/
  ptx-litmus gen --lang c all --sem all --fence none,sc --out c/ && ptx-litmus map c/
  ptx-litmus gen --lang c --random 2000 --seed 1 --max-edges 7 --out c/ -q && ptx-litmus map c/

Exit codes: 0 success; 2 bad options or cycles; 3 a generated test could not be checked (--expect-csv).";

/// Arguments of `ptx-litmus gen`.
#[derive(clap::Args, Debug, Clone)]
#[command(after_help = GEN_HELP)]
pub struct GenArgs {
    /// Shapes: MP SB LB S R 2+2W IRIW WRC ISA2 RWC WWC CoRR CoRW CoWR CoWW, `all`, or a family MP-chain:N, IRIW:N, RA-ring:N, LB-ring:N, SB-ring:N.
    pub shapes: Vec<String>,
    /// A diy7-style cycle, e.g. 'PodWW Rel.gpu Rfe Acq.gpu PodRR Fre' (repeatable; syntax below).
    #[arg(long = "cycle", value_name = "EDGES")]
    pub cycles: Vec<String>,
    /// Language of the tests: ptx (default) or c (herd's C format, decided under rc11).
    #[arg(long, default_value = "ptx", value_name = "LANG")]
    pub lang: String,
    /// Access semantics: weak, relaxed, relacq, sync; for C also sc (or all; weak is a plain access in C).
    #[arg(long, value_delimiter = ',', default_value = "weak", value_name = "LIST")]
    pub sem: Vec<String>,
    /// Fences between consecutive accesses of a thread: none, acq_rel, sc, rel-acq (or all).
    #[arg(long, value_delimiter = ',', default_value = "none", value_name = "LIST")]
    pub fence: Vec<String>,
    /// Scope of strong accesses and fences: cta, cluster, gpu, sys (or all); default gpu (PTX), sys (C).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub scope: Vec<String>,
    /// Thread placement: same-cta, same-cluster, same-gpu (= diff-cta), diff-gpu (or all).
    #[arg(long, value_delimiter = ',', default_value = "same-gpu", value_name = "LIST")]
    pub placement: Vec<String>,
    /// Proxies: generic, alias (data reads through a virtual alias), alias-fence (or all).
    #[arg(long, value_delimiter = ',', default_value = "generic", value_name = "LIST")]
    pub proxy: Vec<String>,
    /// C tests: what an `Rmw` edge of a cycle becomes: exchange, fetch_add, cas (or all).
    #[arg(long, value_delimiter = ',', default_value = "exchange", value_name = "LIST")]
    pub rmw: Vec<String>,
    /// Also generate N random cycles (C tests: `--lang c`), each access with a random order.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub random: usize,
    /// Seed of `--random`.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,
    /// Most edges of a `--random` cycle (at least 4).
    #[arg(long = "max-edges", value_name = "K", default_value_t = 6)]
    pub max_edges: usize,
    /// Directory to write the tests into (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also check every generated test and write `test,expected` (paths relative to the CSV's folder).
    #[arg(long = "expect-csv", value_name = "FILE.csv")]
    pub expect_csv: Option<PathBuf>,
    /// Do not print one line per written file.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write only shard K of N (K from 0): the tests of the whole run whose index modulo N is K, so the N
    /// shards write the whole run, test for test. Default: a job array's SLURM_ARRAY_TASK_ID of
    /// SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX of JOB_COMPLETIONS (Kubernetes).
    #[arg(long, value_name = "K/N", value_parser = crate::shard::parse)]
    pub shard: Option<crate::shard::Shard>,
}

macro_rules! option_enum {
    ($(#[$m:meta])* $name:ident { $($var:ident => $s:literal),* $(,)? } $(aliases { $($alias:literal => $avar:ident),* })?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($var),* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            pub fn name(self) -> &'static str {
                match self { $($name::$var => $s),* }
            }
            pub fn parse(s: &str) -> Option<$name> {
                let s = s.trim();
                $($(if s.eq_ignore_ascii_case($alias) { return Some($name::$avar); })*)?
                $name::ALL.iter().copied().find(|x| x.name().eq_ignore_ascii_case(s))
            }
        }
    };
}

option_enum!(
    /// `--sem`: how unannotated accesses are made (`sc`, seq_cst, for C tests only).
    SemOpt { Weak => "weak", Relaxed => "relaxed", RelAcq => "relacq", Sync => "sync", Sc => "sc" } aliases { "plain" => Weak, "seq_cst" => Sc }
);
option_enum!(
    /// `--lang`: the language of the generated tests.
    Lang { Ptx => "ptx", C => "c" }
);
option_enum!(
    /// `--rmw`: the C call an `Rmw` edge of a cycle becomes.
    RmwOpt { Exchange => "exchange", FetchAdd => "fetch_add", Cas => "cas" } aliases { "fetch-add" => FetchAdd, "xchg" => Exchange }
);

impl SemOpt {
    /// The values `all` stands for in tests of `lang` (PTX has no seq_cst access).
    pub fn all_for(lang: Lang) -> &'static [SemOpt] {
        match lang {
            Lang::Ptx => &SemOpt::ALL[..4],
            Lang::C => SemOpt::ALL,
        }
    }
}
option_enum!(
    /// `--fence`: what goes between consecutive accesses of a thread.
    FenceOpt { None => "none", AcqRel => "acq_rel", Sc => "sc", RelAcq => "rel-acq" } aliases { "acq-rel" => AcqRel }
);
option_enum!(
    /// `--placement`: where the threads run.
    Placement { SameCta => "same-cta", SameCluster => "same-cluster", SameGpu => "same-gpu", DiffGpu => "diff-gpu" } aliases { "diff-cta" => SameGpu }
);
option_enum!(
    /// `--proxy`: how reads reach memory.
    ProxyOpt { Generic => "generic", Alias => "alias", AliasFence => "alias-fence" }
);

/// One combination of the crossed options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    pub sem: SemOpt,
    pub fence: FenceOpt,
    pub scope: Scope,
    pub placement: Placement,
    pub proxy: ProxyOpt,
    /// C tests: what an `Rmw` edge becomes.
    pub rmw: RmwOpt,
}

impl Default for Variant {
    fn default() -> Self {
        Variant {
            sem: SemOpt::Weak,
            fence: FenceOpt::None,
            scope: Scope::Gpu,
            placement: Placement::SameGpu,
            proxy: ProxyOpt::Generic,
            rmw: RmwOpt::Exchange,
        }
    }
}

impl Variant {
    pub(crate) fn command_options(&self) -> String {
        format!(
            "--sem {} --fence {} --scope {} --placement {} --proxy {}",
            self.sem.name(),
            self.fence.name(),
            self.scope.name(),
            self.placement.name(),
            self.proxy.name()
        )
    }

    /// The options of a C test (no proxies; `--rmw`).
    pub(crate) fn c_command_options(&self) -> String {
        format!(
            "--lang c --sem {} --fence {} --scope {} --placement {} --rmw {}",
            self.sem.name(),
            self.fence.name(),
            self.scope.name(),
            self.placement.name(),
            self.rmw.name()
        )
    }
}
