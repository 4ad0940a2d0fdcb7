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

mod args;
mod build;
mod c;
pub mod cycle;
mod cycle_parse;
mod layout;
pub mod random;
pub mod shapes;

use crate::check::{check_source, CheckOptions};
use crate::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_OK};
use crate::outcome::Verdict;
pub use args::{FenceOpt, GenArgs, Lang, Placement, ProxyOpt, RmwOpt, SemOpt, Variant};
use build::build;
pub use cycle::Scope;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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

/// Generate one PTX test from a shape (`MP`, `MP-chain:4`) and one option combination.
pub fn shape_test(shape: &str, v: &Variant) -> Result<GenTest, String> {
    shape_test_in(Lang::Ptx, shape, v)
}

/// Generate one PTX test from a diy7-style cycle and one option combination.
pub fn cycle_test(text: &str, v: &Variant) -> Result<GenTest, String> {
    cycle_test_in(Lang::Ptx, text, v)
}

/// Generate one test of `lang` from a shape and one option combination.
pub fn shape_test_in(lang: Lang, shape: &str, v: &Variant) -> Result<GenTest, String> {
    let spec = shapes::shape(shape)?;
    let c = cycle::parse_cycle(&spec.cycle).map_err(|e| format!("{}: {}", shape, e))?;
    let command = format!("ptx-litmus gen {}", spec.arg);
    match lang {
        Lang::Ptx => build(&spec.stem, &command, true, spec.force_relacq, &c, v),
        Lang::C => c::build_c(&spec.stem, &command, true, spec.force_relacq, &c, v),
    }
}

/// Generate one test of `lang` from a diy7-style cycle and one option combination.
pub fn cycle_test_in(lang: Lang, text: &str, v: &Variant) -> Result<GenTest, String> {
    let c = cycle::parse_cycle(text).map_err(|e| format!("--cycle '{}': {}", text, e))?;
    let stem = c.tokens().join("+");
    let command = format!("ptx-litmus gen --cycle '{}'", c);
    match lang {
        Lang::Ptx => build(&stem, &command, false, false, &c, v),
        Lang::C => c::build_c(&stem, &command, false, false, &c, v),
    }
}

/// `--lang`.
pub fn lang_of(args: &GenArgs) -> Result<Lang, String> {
    Lang::parse(&args.lang).ok_or_else(|| format!("--lang: unknown value `{}` (expected ptx or c)", args.lang))
}

fn parse_list<T: Copy>(
    opt: &str,
    items: &[String],
    all: &[T],
    parse: impl Fn(&str) -> Option<T>,
    names: &str,
) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    for it in items {
        let it = it.trim();
        if it.eq_ignore_ascii_case("all") {
            out.extend_from_slice(all);
        } else {
            out.push(
                parse(it).ok_or_else(|| format!("--{}: unknown value `{}` (expected {} or all)", opt, it, names))?,
            );
        }
    }
    Ok(out)
}

/// The option combinations of `args`, in the order given.
pub fn variants(args: &GenArgs) -> Result<Vec<Variant>, String> {
    let lang = lang_of(args)?;
    let sems = parse_list("sem", &args.sem, SemOpt::all_for(lang), SemOpt::parse, "weak, relaxed, relacq, sync, sc")?;
    if lang == Lang::Ptx && sems.contains(&SemOpt::Sc) {
        return Err("--sem sc: PTX has no seq_cst access (it is for C tests, --lang c)".into());
    }
    let fences = parse_list("fence", &args.fence, FenceOpt::ALL, FenceOpt::parse, "none, acq_rel, sc, rel-acq")?;
    // C's default scope is the system (no scope argument); PTX's is the GPU.
    let default_scope = [if lang == Lang::C { "sys" } else { "gpu" }.to_string()];
    let scope_list = if args.scope.is_empty() { &default_scope[..] } else { &args.scope[..] };
    let scopes = parse_list("scope", scope_list, &Scope::ALL, Scope::parse, "cta, cluster, gpu, sys")?;
    let rmws = parse_list("rmw", &args.rmw, RmwOpt::ALL, RmwOpt::parse, "exchange, fetch_add, cas")?;
    let places = parse_list(
        "placement",
        &args.placement,
        Placement::ALL,
        Placement::parse,
        "same-cta, same-cluster, same-gpu, diff-gpu",
    )?;
    let proxies = parse_list("proxy", &args.proxy, ProxyOpt::ALL, ProxyOpt::parse, "generic, alias, alias-fence")?;
    if lang == Lang::C && proxies.iter().any(|&p| p != ProxyOpt::Generic) {
        return Err("--proxy: C tests have no proxies (alias and alias-fence are for PTX tests)".into());
    }
    let mut out = Vec::new();
    for &sem in &sems {
        for &fence in &fences {
            for &scope in &scopes {
                for &placement in &places {
                    for &proxy in &proxies {
                        for &rmw in &rmws {
                            out.push(Variant { sem, fence, scope, placement, proxy, rmw });
                        }
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
    let lang = lang_of(args)?;
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
    sources.extend(random::random_cycles(args.random, args.seed, args.max_edges, lang).into_iter().map(Source::Cycle));
    if sources.is_empty() {
        return Err(
            "nothing to generate: give shapes (MP, SB, ..., MP-chain:4, all), --cycle or --random (see --help)".into(),
        );
    }
    let vs = variants(args)?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in &sources {
        for v in &vs {
            let t = match s {
                Source::Shape(name) => shape_test_in(lang, name, v)?,
                Source::Cycle(c) => cycle_test_in(lang, c, v)?,
            };
            if seen.insert(t.name.clone()) {
                out.push(t);
            }
        }
    }
    Ok(out)
}

/// `to` relative to the directory `from` (both made absolute).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let abs =
        |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| std::env::current_dir().unwrap_or_default().join(p));
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
    let shard = args.shard.map_or_else(|| crate::shard::from_env(|k| std::env::var(k).ok()), |s| Ok(Some(s)));
    // The shard is of the whole run's tests, by index: the same on every machine (D281).
    let tests = match shard.and_then(|s| Ok((s, generate(args)?))) {
        Ok((None, t)) => t,
        Ok((Some(s), t)) => s.select(t),
        Err(e) => {
            crate::out::eprintln(&format!("error: {}", e));
            return EXIT_INPUT;
        }
    };
    // Every output is refused before anything is written if it would replace
    // something other than a regular file (a FIFO, a device).
    let targets = tests.iter().map(|t| args.out.join(format!("{}.litmus", t.name))).chain(args.expect_csv.clone());
    for p in targets {
        if let Err(e) = crate::out::output_target(&p) {
            crate::out::eprintln(&format!("error: cannot write {}: {}", p.display(), e));
            return EXIT_INPUT;
        }
    }
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
    let verdicts: Vec<Result<Verdict, String>> = tests
        .par_iter()
        .map(|t| {
            crate::check::guarded(&opts, || check_source(&t.source, &opts))
                .map(|r| r.summary.verdict)
                .map_err(|e| e.message)
        })
        .collect();
    let dir =
        csv.parent().filter(|d| !d.as_os_str().is_empty()).map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
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
