//! `ptx-litmus gen`: diy7-style generation of litmus test families.
//!
//! Every test comes from a cycle of relaxation edges (`cycle.rs`): the named
//! shapes and N-thread families (`shapes.rs`) are fixed cycles, `--cycle` takes
//! one from the user. A cycle fixes the threads (they change at external
//! edges), the locations (they change at `Pod` edges), the written values
//! (1, 2 in coherence order) and the final condition: `exists` of the values
//! that witness the cycle, exactly as diy7 does. Options (`--sem`, `--fence`,
//! `--scope`, `--placement`, `--proxy`) are crossed and each combination
//! becomes one file whose name says what it is.

pub mod cycle;
pub mod shapes;

use crate::check::{check_source, CheckOptions};
use crate::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_OK};
use crate::outcome::Verdict;
pub use cycle::Scope;
use cycle::{AccSem, Ann, Cycle, Dir, Fence, FenceSem};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
    /// Access semantics: weak, relaxed, relacq, sync (or all).
    #[arg(long, value_delimiter = ',', default_value = "weak", value_name = "LIST")]
    pub sem: Vec<String>,
    /// Fences between consecutive accesses of a thread: none, acq_rel, sc, rel-acq (or all).
    #[arg(long, value_delimiter = ',', default_value = "none", value_name = "LIST")]
    pub fence: Vec<String>,
    /// Scope of strong accesses and fences: cta, cluster, gpu, sys (or all).
    #[arg(long, value_delimiter = ',', default_value = "gpu", value_name = "LIST")]
    pub scope: Vec<String>,
    /// Thread placement: same-cta, same-cluster, same-gpu (= diff-cta), diff-gpu (or all).
    #[arg(long, value_delimiter = ',', default_value = "same-gpu", value_name = "LIST")]
    pub placement: Vec<String>,
    /// Proxies: generic, alias (data reads through a virtual alias), alias-fence (or all).
    #[arg(long, value_delimiter = ',', default_value = "generic", value_name = "LIST")]
    pub proxy: Vec<String>,
    /// Directory to write the tests into (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also check every generated test and write `test,expected` (paths relative to the CSV's folder).
    #[arg(long = "expect-csv", value_name = "FILE.csv")]
    pub expect_csv: Option<PathBuf>,
    /// Do not print one line per written file.
    #[arg(long, short)]
    pub quiet: bool,
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
    /// `--sem`: how unannotated accesses are made.
    SemOpt { Weak => "weak", Relaxed => "relaxed", RelAcq => "relacq", Sync => "sync" }
);
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
}

impl Default for Variant {
    fn default() -> Self {
        Variant { sem: SemOpt::Weak, fence: FenceOpt::None, scope: Scope::Gpu, placement: Placement::SameGpu, proxy: ProxyOpt::Generic }
    }
}

impl Variant {
    fn command_options(&self) -> String {
        format!("--sem {} --fence {} --scope {} --placement {} --proxy {}", self.sem.name(), self.fence.name(), self.scope.name(), self.placement.name(), self.proxy.name())
    }
}

/// A generated test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenTest {
    /// Test name, also the file name without `.litmus`.
    pub name: String,
    /// Litmus source.
    pub source: String,
    pub threads: usize,
    /// Memory accesses (fences not counted).
    pub accesses: usize,
}

/// What a test is generated from.
#[derive(Clone, Debug)]
pub enum Source {
    Shape(String),
    Cycle(String),
}

/// Generate one test from a shape (`MP`, `MP-chain:4`) and one option combination.
pub fn shape_test(shape: &str, v: &Variant) -> Result<GenTest, String> {
    let spec = shapes::shape(shape)?;
    let c = cycle::parse_cycle(&spec.cycle).map_err(|e| format!("{}: {}", shape, e))?;
    build(&spec.stem, &format!("ptx-litmus gen {}", spec.arg), true, spec.force_relacq, &c, v)
}

/// Generate one test from a diy7-style cycle and one option combination.
pub fn cycle_test(text: &str, v: &Variant) -> Result<GenTest, String> {
    let c = cycle::parse_cycle(text).map_err(|e| format!("--cycle '{}': {}", text, e))?;
    let stem = c.tokens().join("+");
    build(&stem, &format!("ptx-litmus gen --cycle '{}'", c), false, false, &c, v)
}

fn parse_list<T: Copy>(opt: &str, items: &[String], all: &[T], parse: impl Fn(&str) -> Option<T>, names: &str) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    for it in items {
        let it = it.trim();
        if it.eq_ignore_ascii_case("all") {
            out.extend_from_slice(all);
        } else {
            out.push(parse(it).ok_or_else(|| format!("--{}: unknown value `{}` (expected {} or all)", opt, it, names))?);
        }
    }
    Ok(out)
}

/// The option combinations of `args`, in the order given.
pub fn variants(args: &GenArgs) -> Result<Vec<Variant>, String> {
    let sems = parse_list("sem", &args.sem, SemOpt::ALL, SemOpt::parse, "weak, relaxed, relacq, sync")?;
    let fences = parse_list("fence", &args.fence, FenceOpt::ALL, FenceOpt::parse, "none, acq_rel, sc, rel-acq")?;
    let scopes = parse_list("scope", &args.scope, &Scope::ALL, Scope::parse, "cta, cluster, gpu, sys")?;
    let places = parse_list("placement", &args.placement, Placement::ALL, Placement::parse, "same-cta, same-cluster, same-gpu, diff-gpu")?;
    let proxies = parse_list("proxy", &args.proxy, ProxyOpt::ALL, ProxyOpt::parse, "generic, alias, alias-fence")?;
    let mut out = Vec::new();
    for &sem in &sems {
        for &fence in &fences {
            for &scope in &scopes {
                for &placement in &places {
                    for &proxy in &proxies {
                        out.push(Variant { sem, fence, scope, placement, proxy });
                    }
                }
            }
        }
    }
    Ok(out)
}

/// All tests `args` asks for, deduplicated by name, in a deterministic order
/// (shapes, then cycles, each crossed with the options in the order given).
pub fn generate(args: &GenArgs) -> Result<Vec<GenTest>, String> {
    let mut sources = Vec::new();
    for s in &args.shapes {
        if s.eq_ignore_ascii_case("all") {
            sources.extend(shapes::NAMED.iter().map(|(n, _)| Source::Shape(n.to_string())));
        } else {
            shapes::shape(s)?;
            sources.push(Source::Shape(s.clone()));
        }
    }
    for c in &args.cycles {
        cycle::parse_cycle(c).map_err(|e| format!("--cycle '{}': {}", c, e))?;
        sources.push(Source::Cycle(c.clone()));
    }
    if sources.is_empty() {
        return Err("nothing to generate: give shapes (MP, SB, ..., MP-chain:4, all) or --cycle (see --help)".into());
    }
    let vs = variants(args)?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in &sources {
        for v in &vs {
            let t = match s {
                Source::Shape(name) => shape_test(name, v)?,
                Source::Cycle(c) => cycle_test(c, v)?,
            };
            if seen.insert(t.name.clone()) {
                out.push(t);
            }
        }
    }
    Ok(out)
}

enum Instr {
    Access { dir: Dir, sem: AccSem, scope: Option<Scope>, loc: String, reg: Option<usize>, value: i64 },
    Fence(FenceSem, Scope),
    ProxyAlias,
}

impl Instr {
    fn text(&self) -> String {
        match self {
            Instr::Access { dir, sem, scope, loc, reg, value } => {
                let sem = match (sem, scope) {
                    (AccSem::Weak, _) | (_, None) => "weak".to_string(),
                    (AccSem::Relaxed, Some(s)) => format!("relaxed.{}", s.name()),
                    (AccSem::Release, Some(s)) => format!("release.{}", s.name()),
                    (AccSem::Acquire, Some(s)) => format!("acquire.{}", s.name()),
                };
                match dir {
                    Dir::W => format!("st.{} {}, {}", sem, loc, value),
                    Dir::R => format!("ld.{} r{}, {}", sem, reg.unwrap_or(0), loc),
                }
            }
            Instr::Fence(f, s) => format!("fence.{}.{}", f.name(), s.name()),
            Instr::ProxyAlias => "fence.proxy.alias".to_string(),
        }
    }
}

/// Resolve a cycle with one option combination and print the test.
fn build(stem: &str, command: &str, named: bool, force_relacq: bool, c: &Cycle, v: &Variant) -> Result<GenTest, String> {
    let lay = cycle::layout(c)?;
    let n = c.edges.len();
    let e = &c.edges;
    let mut scope_used = false;
    // Access semantics.
    let mut anns: Vec<Ann> = Vec::with_capacity(n);
    let (mut default_count, mut default_strong) = (0, false);
    for i in 0..n {
        let mut a = match c.anns[i] {
            Some(a) => a,
            None => {
                default_count += 1;
                let dir = e[i].src;
                let sem = if force_relacq { SemOpt::RelAcq } else { v.sem };
                let s = match sem {
                    SemOpt::Weak => AccSem::Weak,
                    SemOpt::Relaxed => AccSem::Relaxed,
                    SemOpt::RelAcq => {
                        if dir == Dir::W {
                            AccSem::Release
                        } else {
                            AccSem::Acquire
                        }
                    }
                    SemOpt::Sync => {
                        let (inc, out) = (&e[(i + n - 1) % n], &e[i]);
                        match dir {
                            Dir::W if out.is_external() && !inc.is_external() => AccSem::Release,
                            Dir::R if inc.is_external() && !out.is_external() => AccSem::Acquire,
                            _ => AccSem::Weak,
                        }
                    }
                };
                default_strong |= s != AccSem::Weak;
                Ann { sem: s, scope: None }
            }
        };
        if a.sem == AccSem::Weak {
            a.scope = None;
        } else if a.scope.is_none() {
            a.scope = Some(v.scope);
            scope_used = true;
        }
        anns.push(a);
    }
    // Fences on the program-order steps of each thread.
    let mut fences: Vec<Option<Fence>> = vec![None; n];
    let mut option_fence = false;
    for t in &lay.threads {
        for w in t.windows(2) {
            let i = w[0];
            let f = match e[i].fence {
                Some(f) => Some(f),
                None => {
                    let f = match v.fence {
                        FenceOpt::None => None,
                        FenceOpt::AcqRel => Some(FenceSem::AcqRel),
                        FenceOpt::Sc => Some(FenceSem::Sc),
                        FenceOpt::RelAcq => Some(if e[i].src == Dir::R { FenceSem::Acquire } else { FenceSem::Release }),
                    };
                    option_fence |= f.is_some();
                    f.map(|sem| Fence { sem, scope: None })
                }
            };
            fences[i] = f.map(|mut f| {
                if f.scope.is_none() {
                    f.scope = Some(v.scope);
                    scope_used = true;
                }
                f
            });
        }
    }
    // Instructions.
    let alias = v.proxy != ProxyOpt::Generic;
    let mut aliased: BTreeSet<usize> = BTreeSet::new();
    let mut proxy_fence = false;
    let mut code: Vec<Vec<Instr>> = Vec::new();
    let mut cond: Vec<String> = Vec::new();
    for (ti, t) in lay.threads.iter().enumerate() {
        let mut instrs = Vec::new();
        let mut nreg = 0;
        for (k, &i) in t.iter().enumerate() {
            if k > 0 {
                if let Some(f) = fences[t[k - 1]] {
                    instrs.push(Instr::Fence(f.sem, f.scope.unwrap()));
                }
            }
            let ev = &lay.events[i];
            let mut loc = cycle::loc_name(ev.loc);
            let mut reg = None;
            if ev.dir == Dir::R {
                // Reads after the first instruction of their thread (the "data"
                // reads; the first read is the flag reached from another thread)
                // go through the alias.
                if alias && k > 0 {
                    aliased.insert(ev.loc);
                    loc = format!("{}_a", loc);
                    if v.proxy == ProxyOpt::AliasFence {
                        instrs.push(Instr::ProxyAlias);
                        proxy_fence = true;
                    }
                }
                reg = Some(nreg);
                if let Some(val) = ev.value {
                    cond.push(format!("P{}:r{} == {}", ti, nreg, val));
                }
                nreg += 1;
            }
            instrs.push(Instr::Access { dir: ev.dir, sem: anns[i].sem, scope: anns[i].scope, loc, reg, value: ev.value.unwrap_or(0) });
        }
        code.push(instrs);
    }
    for &(l, val) in &lay.finals {
        cond.push(format!("{} == {}", cycle::loc_name(l), val));
    }
    // Name.
    let mut parts = vec![stem.to_string()];
    let mut scope_shown = false;
    if named || force_relacq || (default_count > 0 && default_strong) {
        if force_relacq || default_strong {
            let s = if force_relacq { SemOpt::RelAcq } else { v.sem };
            parts.push(format!("{}.{}", s.name(), v.scope.name()));
            scope_shown = true;
        } else {
            parts.push("weak".into());
        }
    }
    if option_fence {
        parts.push(format!("fence.{}.{}", v.fence.name(), v.scope.name()));
        scope_shown = true;
    }
    if scope_used && !scope_shown {
        parts.push(v.scope.name().into());
    }
    if lay.threads.len() > 1 {
        parts.push(v.placement.name().into());
    }
    if proxy_fence {
        parts.push("alias-fence".into());
    } else if !aliased.is_empty() {
        parts.push("alias".into());
    }
    let name = parts.join("+");
    // The resolved cycle, every access's semantics and every fence spelled out.
    let mut resolved = c.clone();
    for i in 0..n {
        resolved.anns[i] = Some(anns[i]);
        if let Some(f) = fences[i] {
            resolved.edges[i].fence = Some(f);
        }
    }
    let resolved_text = resolved.edges.iter().zip(&resolved.anns).map(|(edge, a)| format!("{} {}", a.unwrap(), edge)).collect::<Vec<_>>().join(" ");
    // Text.
    let mut s = String::new();
    writeln!(s, "PTX {}", name).unwrap();
    writeln!(s, "\"generated by: {} {}\"", command, v.command_options()).unwrap();
    writeln!(s, "\"cycle: {}\"", resolved_text).unwrap();
    writeln!(s, "{{").unwrap();
    let inits: Vec<String> = (0..lay.nlocs).map(|l| format!("{} = 0;", cycle::loc_name(l))).collect();
    writeln!(s, "{}", inits.join(" ")).unwrap();
    for l in &aliased {
        let x = cycle::loc_name(*l);
        writeln!(s, "{}_a @ generic aliases {};", x, x).unwrap();
    }
    writeln!(s, "}}").unwrap();
    let heads: Vec<String> = (0..lay.threads.len())
        .map(|t| match v.placement {
            Placement::SameCta => format!("P{}@cta 0,gpu 0", t),
            Placement::SameCluster => format!("P{}@cta {},cluster 0,gpu 0", t, t),
            Placement::SameGpu => format!("P{}@cta {},gpu 0", t, t),
            Placement::DiffGpu => format!("P{}@cta 0,gpu {}", t, t),
        })
        .collect();
    let texts: Vec<Vec<String>> = code.iter().map(|is| is.iter().map(Instr::text).collect()).collect();
    let widths: Vec<usize> = heads.iter().zip(&texts).map(|(h, ts)| ts.iter().map(String::len).chain([h.len()]).max().unwrap()).collect();
    let rows = texts.iter().map(Vec::len).max().unwrap_or(0);
    let line = |cells: Vec<&str>| -> String {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!(" {:<w$} ", c, w = *w)).collect();
        format!("{};", padded.join("|"))
    };
    writeln!(s, "{}", line(heads.iter().map(String::as_str).collect())).unwrap();
    for r in 0..rows {
        writeln!(s, "{}", line(texts.iter().map(|ts| ts.get(r).map(String::as_str).unwrap_or("")).collect())).unwrap();
    }
    if cond.is_empty() {
        cond.push("true".into());
    }
    writeln!(s, "exists ({})", cond.join(" /\\ ")).unwrap();
    Ok(GenTest { name, source: s, threads: lay.threads.len(), accesses: n })
}

/// `to` relative to the directory `from` (both made absolute).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| std::env::current_dir().unwrap_or_default().join(p));
    let (f, t) = (abs(from), abs(to));
    let fc: Vec<_> = f.components().collect();
    let tc: Vec<_> = t.components().collect();
    let common = fc.iter().zip(&tc).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..fc.len() {
        out.push("..");
    }
    for c in &tc[common..] {
        out.push(c);
    }
    out
}

/// Run `gen`; returns the exit code.
pub fn run(args: &GenArgs) -> i32 {
    let tests = match generate(args) {
        Ok(t) => t,
        Err(e) => {
            crate::out::eprintln(&format!("error: {}", e));
            return EXIT_INPUT;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        crate::out::eprintln(&format!("error: cannot create {}: {}", args.out.display(), e));
        return EXIT_INPUT;
    }
    let mut paths = Vec::with_capacity(tests.len());
    for t in &tests {
        let p = args.out.join(format!("{}.litmus", t.name));
        if let Err(e) = crate::out::write_atomic(&p, t.source.as_bytes()) {
            crate::out::eprintln(&format!("error: cannot write {}: {}", p.display(), e));
            return EXIT_INTERNAL;
        }
        if !args.quiet {
            crate::out::println(&p.display().to_string());
        }
        paths.push(p);
    }
    crate::out::eprintln(&format!("gen: wrote {} tests to {}", tests.len(), args.out.display()));
    let Some(csv) = &args.expect_csv else { return EXIT_OK };
    let opts = CheckOptions::default();
    let verdicts: Vec<Result<Verdict, String>> =
        tests.par_iter().map(|t| crate::check::guarded(&opts, || check_source(&t.source, &opts)).map(|r| r.summary.verdict).map_err(|e| e.message)).collect();
    let dir = csv.parent().filter(|d| !d.as_os_str().is_empty()).map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        crate::out::eprintln(&format!("error: cannot create {}: {}", dir.display(), e));
        return EXIT_INPUT;
    }
    let mut text = String::from("test,expected\n");
    let (mut ok, mut no, mut failed) = (0, 0, 0);
    for ((t, p), v) in tests.iter().zip(&paths).zip(&verdicts) {
        match v {
            Ok(v) => {
                let rel = relative(&dir, p);
                writeln!(text, "{},{}", rel.display(), if *v == Verdict::Ok { "Ok" } else { "No" }).unwrap();
                if *v == Verdict::Ok {
                    ok += 1
                } else {
                    no += 1
                }
            }
            Err(e) => {
                crate::out::eprintln(&format!("error: {}: {}", t.name, e));
                failed += 1;
            }
        }
    }
    if let Err(e) = crate::out::write_atomic(csv, text.as_bytes()) {
        crate::out::eprintln(&format!("error: cannot write {}: {}", csv.display(), e));
        return EXIT_INTERNAL;
    }
    crate::out::eprintln(&format!("gen: {} written: {} Ok, {} No, {} not checked", csv.display(), ok, no, failed));
    if failed > 0 {
        EXIT_INTERNAL
    } else {
        EXIT_OK
    }
}
