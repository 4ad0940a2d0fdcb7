//! One generated test: a cycle resolved with one option combination (access
//! semantics, fences, proxies), named after what it is, and printed as litmus
//! text.

use super::args::{FenceOpt, Placement, ProxyOpt, SemOpt, Variant};
use super::cycle::{self, AccSem, Ann, Cycle, Dir, Fence, FenceSem, Layout, Scope};
use super::GenTest;
use std::collections::BTreeSet;
use std::fmt::Write as _;

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
                    // Sc never reaches a PTX test: `build` refuses it.
                    (AccSem::Weak | AccSem::Sc, _) | (_, None) => "weak".to_string(),
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

/// What resolving the options did, for the test's name.
#[derive(Default)]
pub(super) struct Used {
    /// Some access or fence took `--scope`.
    pub scope: bool,
    /// Accesses without annotation in the cycle, and whether `--sem` made one strong.
    pub default_count: usize,
    pub default_strong: bool,
    /// `--fence` put a fence somewhere.
    pub option_fence: bool,
    /// Reads through an alias (locations), and whether a proxy fence precedes them.
    pub aliased: BTreeSet<usize>,
    pub proxy_fence: bool,
}

/// The semantics `--sem` gives an unannotated access `i` of the cycle.
pub(super) fn default_sem(c: &Cycle, i: usize, sem: SemOpt) -> AccSem {
    let (e, n) = (&c.edges, c.edges.len());
    let dir = e[i].src;
    match sem {
        SemOpt::Weak => AccSem::Weak,
        SemOpt::Relaxed => AccSem::Relaxed,
        SemOpt::RelAcq if dir == Dir::W => AccSem::Release,
        SemOpt::RelAcq => AccSem::Acquire,
        SemOpt::Sc => AccSem::Sc,
        SemOpt::Sync => {
            let (inc, out) = (&e[(i + n - 1) % n], &e[i]);
            match dir {
                Dir::W if out.is_external() && !inc.is_external() => AccSem::Release,
                Dir::R if inc.is_external() && !out.is_external() => AccSem::Acquire,
                _ => AccSem::Weak,
            }
        }
    }
}

/// Access semantics: the cycle's annotations, else `--sem`; strong accesses get `--scope` unless scoped.
pub(super) fn annotations(c: &Cycle, v: &Variant, force_relacq: bool, used: &mut Used) -> Vec<Ann> {
    let sem = if force_relacq { SemOpt::RelAcq } else { v.sem };
    (0..c.edges.len())
        .map(|i| {
            let mut a = c.anns[i].unwrap_or_else(|| {
                used.default_count += 1;
                let s = default_sem(c, i, sem);
                used.default_strong |= s != AccSem::Weak;
                Ann { sem: s, scope: None }
            });
            if a.sem == AccSem::Weak {
                a.scope = None;
            } else if a.scope.is_none() {
                a.scope = Some(v.scope);
                used.scope = true;
            }
            a
        })
        .collect()
}

/// Fences on the program-order steps of each thread: the cycle's, else `--fence`.
pub(super) fn fences(c: &Cycle, lay: &Layout, v: &Variant, used: &mut Used) -> Vec<Option<Fence>> {
    let e = &c.edges;
    let mut fences: Vec<Option<Fence>> = vec![None; e.len()];
    for t in &lay.threads {
        // No fence goes between the read and the write of one read-modify-write.
        for w in t.windows(2).filter(|w| !e[w[0]].is_rmw()) {
            let i = w[0];
            let f = e[i].fence.or_else(|| {
                let f = match v.fence {
                    FenceOpt::None => None,
                    FenceOpt::AcqRel => Some(FenceSem::AcqRel),
                    FenceOpt::Sc => Some(FenceSem::Sc),
                    FenceOpt::RelAcq => Some(if e[i].src == Dir::R { FenceSem::Acquire } else { FenceSem::Release }),
                };
                used.option_fence |= f.is_some();
                f.map(|sem| Fence { sem, scope: None })
            });
            fences[i] = f.map(|mut f| {
                if f.scope.is_none() {
                    f.scope = Some(v.scope);
                    used.scope = true;
                }
                f
            });
        }
    }
    fences
}

/// Each thread's instructions and the condition's clauses.
fn instructions(
    lay: &Layout,
    anns: &[Ann],
    fences: &[Option<Fence>],
    v: &Variant,
    used: &mut Used,
) -> (Vec<Vec<Instr>>, Vec<String>) {
    let alias = v.proxy != ProxyOpt::Generic;
    let mut code: Vec<Vec<Instr>> = Vec::new();
    let mut cond: Vec<String> = Vec::new();
    for (ti, t) in lay.threads.iter().enumerate() {
        let mut instrs = Vec::new();
        let mut nreg = 0;
        for (k, &i) in t.iter().enumerate() {
            if let Some(f) = k.checked_sub(1).and_then(|prev| fences[t[prev]]) {
                instrs.push(Instr::Fence(f.sem, f.scope.unwrap_or(v.scope)));
            }
            let ev = &lay.events[i];
            let mut loc = cycle::loc_name(ev.loc);
            let mut reg = None;
            if ev.dir == Dir::R {
                // Reads after the first instruction of their thread (the "data"
                // reads; the first read is the flag reached from another thread)
                // go through the alias.
                if alias && k > 0 {
                    used.aliased.insert(ev.loc);
                    loc = format!("{}_a", loc);
                    if v.proxy == ProxyOpt::AliasFence {
                        instrs.push(Instr::ProxyAlias);
                        used.proxy_fence = true;
                    }
                }
                reg = Some(nreg);
                if let Some(val) = ev.value {
                    cond.push(format!("P{}:r{} == {}", ti, nreg, val));
                }
                nreg += 1;
            }
            instrs.push(Instr::Access {
                dir: ev.dir,
                sem: anns[i].sem,
                scope: anns[i].scope,
                loc,
                reg,
                value: ev.value.unwrap_or(0),
            });
        }
        code.push(instrs);
    }
    for &(l, val) in &lay.finals {
        cond.push(format!("{} == {}", cycle::loc_name(l), val));
    }
    (code, cond)
}

/// The test's name: stem, then the options that made a difference.
pub(super) fn test_name(stem: &str, named: bool, force_relacq: bool, placed: bool, v: &Variant, used: &Used) -> String {
    let mut parts = vec![stem.to_string()];
    let mut scope_shown = false;
    if named || force_relacq || (used.default_count > 0 && used.default_strong) {
        if force_relacq || used.default_strong {
            let s = if force_relacq { SemOpt::RelAcq } else { v.sem };
            parts.push(format!("{}.{}", s.name(), v.scope.name()));
            scope_shown = true;
        } else {
            parts.push("weak".into());
        }
    }
    if used.option_fence {
        parts.push(format!("fence.{}.{}", v.fence.name(), v.scope.name()));
        scope_shown = true;
    }
    if used.scope && !scope_shown {
        parts.push(v.scope.name().into());
    }
    if placed {
        parts.push(v.placement.name().into());
    }
    if used.proxy_fence {
        parts.push("alias-fence".into());
    } else if !used.aliased.is_empty() {
        parts.push("alias".into());
    }
    parts.join("+")
}

/// The resolved cycle, every access's semantics and every fence spelled out.
pub(super) fn resolved_text(c: &Cycle, anns: &[Ann], fences: &[Option<Fence>]) -> String {
    let mut resolved = c.clone();
    for i in 0..c.edges.len() {
        resolved.anns[i] = Some(anns[i]);
        if let Some(f) = fences[i] {
            resolved.edges[i].fence = Some(f);
        }
    }
    resolved
        .edges
        .iter()
        .zip(&resolved.anns)
        .filter_map(|(edge, a)| a.map(|a| format!("{} {}", a, edge)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The thread table: one header per thread, then the instructions row by row.
fn table(s: &mut String, code: &[Vec<Instr>], placement: Placement) {
    let heads: Vec<String> = (0..code.len())
        .map(|t| match placement {
            Placement::SameCta => format!("P{}@cta 0,gpu 0", t),
            Placement::SameCluster => format!("P{}@cta {},cluster 0,gpu 0", t, t),
            Placement::SameGpu => format!("P{}@cta {},gpu 0", t, t),
            Placement::DiffGpu => format!("P{}@cta 0,gpu {}", t, t),
        })
        .collect();
    let texts: Vec<Vec<String>> = code.iter().map(|is| is.iter().map(Instr::text).collect()).collect();
    let widths: Vec<usize> = heads
        .iter()
        .zip(&texts)
        .map(|(h, ts)| ts.iter().map(String::len).chain([h.len()]).max().unwrap_or(0))
        .collect();
    let rows = texts.iter().map(Vec::len).max().unwrap_or(0);
    let line = |cells: Vec<&str>| -> String {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!(" {:<w$} ", c, w = *w)).collect();
        format!("{};", padded.join("|"))
    };
    // Writing into a String cannot fail.
    let _ = writeln!(s, "{}", line(heads.iter().map(String::as_str).collect()));
    for r in 0..rows {
        let _ = writeln!(s, "{}", line(texts.iter().map(|ts| ts.get(r).map(String::as_str).unwrap_or("")).collect()));
    }
}

/// Resolve a cycle with one option combination and print the test.
pub(super) fn build(
    stem: &str,
    command: &str,
    named: bool,
    force_relacq: bool,
    c: &Cycle,
    v: &Variant,
) -> Result<GenTest, String> {
    if c.edges.iter().any(|e| e.is_rmw()) || c.anns.iter().flatten().any(|a| a.sem == AccSem::Sc) || v.sem == SemOpt::Sc
    {
        return Err(
            "`Rmw` edges and seq_cst accesses (`Sc`, --sem sc) are generated for C tests only (--lang c)".into()
        );
    }
    let lay = cycle::layout(c)?;
    let mut used = Used::default();
    let anns = annotations(c, v, force_relacq, &mut used);
    let fences = fences(c, &lay, v, &mut used);
    let (code, mut cond) = instructions(&lay, &anns, &fences, v, &mut used);
    let name = test_name(stem, named, force_relacq, lay.threads.len() > 1, v, &used);
    // Writing into a String cannot fail.
    let mut s = String::new();
    let _ = writeln!(s, "PTX {}", name);
    let _ = writeln!(s, "\"generated by: {} {}\"", command, v.command_options());
    let _ = writeln!(s, "\"cycle: {}\"", resolved_text(c, &anns, &fences));
    let _ = writeln!(s, "{{");
    let inits: Vec<String> = (0..lay.nlocs).map(|l| format!("{} = 0;", cycle::loc_name(l))).collect();
    let _ = writeln!(s, "{}", inits.join(" "));
    for l in &used.aliased {
        let x = cycle::loc_name(*l);
        let _ = writeln!(s, "{}_a @ generic aliases {};", x, x);
    }
    let _ = writeln!(s, "}}");
    table(&mut s, &code, v.placement);
    if cond.is_empty() {
        cond.push("true".into());
    }
    let _ = writeln!(s, "exists ({})", cond.join(" /\\ "));
    Ok(GenTest { name, source: s, threads: lay.threads.len(), accesses: c.edges.len() })
}
