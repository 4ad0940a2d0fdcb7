//! `ptx-litmus explain FILE`: the static side of the model for one test.
//!
//! - every pair of operations: morally strong (8.7) or not, and the first
//!   condition that fails;
//! - the release and acquire patterns (8.8);
//! - the pairs that may synchronize (8.9.4), each asked of the SAT engine: is
//!   there an allowed execution (all axioms on) with this synchronizes-with edge?

use super::names::event_names;
use crate::ast::{FenceSem, Proxy, Scope};
use crate::check::CheckOptions;
use crate::error::Result;
use crate::model::patterns::{acquire_patterns, release_patterns, Pattern};
use crate::model::strong::{self, NotStrong, Strong};
use crate::program::{Event, EventId, EventKind, MemSem, Program, SyncRole};
use crate::sat::candidates::Candidates;
use std::collections::BTreeMap;

/// Parse, build and explain a litmus test given as text; `base` is the folder
/// its `ptx "FILE";` modules are relative to (calls are inlined first).
pub fn explain_source(source: &str, base: &std::path::Path, opts: &CheckOptions) -> Result<String> {
    Ok(explanation_of_source(source, base, opts)?.text())
}

/// `explain_source` as data (`explain --json`, schema/explain.schema.json).
pub fn explanation_of_source(source: &str, base: &std::path::Path, opts: &CheckOptions) -> Result<Explanation> {
    let ast = crate::check::parse_and_expand(source, base)?;
    let model = crate::check::model_for(ast.c11.is_some(), opts)?;
    let p = crate::check::build(&ast, &opts.build, &model)?;
    explanation(&p, &model)
}

fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

fn sem_name(s: MemSem) -> &'static str {
    match s {
        MemSem::Weak => "weak",
        MemSem::Relaxed => "relaxed",
        MemSem::Acquire => "acquire",
        MemSem::Release => "release",
        MemSem::AcqRel => "acq_rel",
    }
}

fn proxy_name(p: Proxy) -> &'static str {
    match p {
        Proxy::Generic => "generic",
        Proxy::Texture => "texture",
        Proxy::Surface => "surface",
        Proxy::Constant => "constant",
    }
}

/// `relaxed .gpu read of y`, `weak write of x`, `fence.sc .sys`.
pub fn describe(p: &Program, e: &Event) -> String {
    match &e.kind {
        EventKind::Init => "initial write".into(),
        EventKind::Mem(a) => {
            let what = match (a.reads, a.writes, a.atomic) {
                (_, _, true) if a.is_red => "reduction (read-modify-write)",
                (_, _, true) => "atomic read-modify-write",
                (true, false, _) => "read",
                _ => "write",
            };
            let mut s = String::from(sem_name(a.sem));
            if a.sem.is_strong() {
                s.push(' ');
                s.push_str(scope_name(a.scope));
            }
            s.push_str(&format!(" {} of {}", what, p.locations[a.loc].name));
            if a.vaddr != p.locations[a.loc].name {
                s.push_str(&format!(" through {}", a.vaddr));
            }
            if a.proxy != Proxy::Generic {
                s.push_str(&format!(", {} proxy", proxy_name(a.proxy)));
            }
            s
        }
        EventKind::Fence { sem, scope } => {
            let k = match sem {
                FenceSem::Sc => "sc",
                FenceSem::AcqRel => "acq_rel",
                FenceSem::Acquire => "acquire",
                FenceSem::Release => "release",
            };
            format!("fence.{} {}", k, scope_name(*scope))
        }
        EventKind::ProxyFence { proxy } => match proxy {
            Proxy::Generic => "proxy fence (alias)".into(),
            q => format!("proxy fence ({})", proxy_name(*q)),
        },
        EventKind::Sync(s) => match s.role {
            SyncRole::Arrive if !s.orders_memory => format!("{} arrive (relaxed)", s.key.kind.noun()),
            SyncRole::Arrive => format!("{} arrive", s.key.kind.noun()),
            SyncRole::Wait => format!("{} wait", s.key.kind.noun()),
        },
    }
}

/// A C test's operation in C terms (`seq_cst write of x`, `plain read of y`,
/// `acq_rel read-modify-write of y`, `seq_cst fence`), with its CUDA scope
/// when narrower than the system (C's own scope).
pub fn describe_c(p: &Program, e: &Event) -> String {
    let writes = e.access().is_some_and(|a| a.writes);
    let order = e.thread.zip(e.instance).and_then(|(t, i)| p.c11.as_ref()?.of_event(t, i.pc, writes));
    let word = order.map_or("plain", |o| o.c_name().trim_start_matches("memory_order_"));
    let scope = |s: Scope| match s {
        Scope::Sys => String::new(),
        Scope::Cta => " (thread_scope_block)".into(),
        Scope::Cluster => " (thread_scope_cluster)".into(),
        Scope::Gpu => " (thread_scope_device)".into(),
    };
    match &e.kind {
        EventKind::Mem(a) => {
            let what = match (a.reads, a.writes, a.atomic) {
                (_, _, true) => "read-modify-write",
                (true, false, _) => "read",
                _ => "write",
            };
            let sc = if a.sem.is_strong() { scope(a.scope) } else { String::new() };
            format!("{} {} of {}{}", word, what, p.locations[a.loc].name, sc)
        }
        EventKind::Fence { scope: s, .. } => format!("{} fence{}", word, scope(*s)),
        _ => describe(p, e),
    }
}

/// When `a` synchronizes with `b` under the C model's `sw` (rc11.cat: a
/// release write or fence, an acquire read or fence, and a read that reads
/// from the release sequence of the write).
fn c_sync_rule(p: &Program, a: EventId, b: EventId, n: &dyn Fn(EventId) -> String) -> String {
    let (fa, fb) = (p.events[a].access().is_none(), p.events[b].access().is_none());
    let reader = if fb { format!("a read before {}", n(b)) } else { n(b) };
    let writer = if fa { format!("a write after {}", n(a)) } else { n(a) };
    format!("if {} reads from the release sequence of {}", reader, writer)
}

fn placement(p: &Program, t: usize) -> String {
    p.threads[t].written.label()
}

/// 8.7 for one pair, in words: `Ok(why yes)` or `Err(first reason why not)`,
/// from the one decision (`strong::moral_strength`).
pub fn moral_strength(p: &Program, x: &Event, y: &Event, nx: &str, ny: &str) -> std::result::Result<String, String> {
    let why = strong::moral_strength(p, x, y).map_err(|no| not_strong_text(p, x, y, nx, ny, no))?;
    let why1 = match why {
        Strong::SameThread => "related in program order (same thread)".to_string(),
        Strong::CTest => "threads of a C test: coherence is total, so every pair is ordered (D101)".to_string(),
        Strong::Scopes(sx, sy) => {
            format!("both strong, and the {} and {} scopes include each other's thread", scope_name(sx), scope_name(sy))
        }
    };
    if x.access().is_some() && y.access().is_some() {
        return Ok(format!("{}, same proxy, same address", why1));
    }
    Ok(format!("{}, same proxy", why1))
}

/// Why not, in words (8.7's condition named).
fn not_strong_text(p: &Program, x: &Event, y: &Event, nx: &str, ny: &str, no: NotStrong) -> String {
    let (tx, ty) = (x.thread.unwrap_or(0), y.thread.unwrap_or(0));
    match no {
        NotStrong::InitialWrite => "an initial write is no thread's operation".into(),
        NotStrong::OtherPaths => "one thread, but no path performs both (8.7 condition 1)".into(),
        NotStrong::NotStrongOp { first } => {
            let (e, n) = if first { (x, nx) } else { (y, ny) };
            let what = match &e.kind {
                EventKind::Mem(_) => "a weak operation",
                EventKind::ProxyFence { .. } => "a proxy fence, not a strong operation",
                _ => "a barrier operation, not a strong operation",
            };
            format!("not related in program order, and {} is {} (8.7 condition 1)", n, what)
        }
        NotStrong::ScopeExcludes { first, scope } => {
            let (n, other) = if first { (nx, ty) } else { (ny, tx) };
            format!(
                "not related in program order, and the {} scope of {} does not include P{} (P{}: {}; P{}: {}) (8.7 condition 1)",
                scope_name(scope),
                n,
                other,
                tx,
                placement(p, tx),
                ty,
                placement(p, ty)
            )
        }
        NotStrong::Proxies(qx, qy) => {
            format!("different proxies ({}: {}, {}: {}) (8.7 condition 2)", nx, proxy_name(qx), ny, proxy_name(qy))
        }
        NotStrong::NoOverlap => {
            let (Some(a), Some(b)) = (x.access(), y.access()) else {
                return "no complete overlap (8.7 condition 3)".into();
            };
            let why = if a.loc != b.loc {
                format!("different addresses ({}, {})", p.locations[a.loc].name, p.locations[b.loc].name)
            } else if a.vaddr != b.vaddr {
                format!("different virtual addresses of one location ({} and {} are aliases)", a.vaddr, b.vaddr)
            } else {
                format!("partial overlap ({} bytes and {} bytes of {})", a.size, b.size, p.locations[a.loc].name)
            };
            format!("{} (8.7 condition 3)", why)
        }
    }
}

fn release_rule(p: &Program, x: &Pattern) -> &'static str {
    if x.bound == x.access {
        "release operation (rule 1)"
    } else if p.events[x.bound].access().is_some() {
        "release operation followed by a strong write on the same location (rule 2)"
    } else {
        "release fence followed by a strong write (rule 3)"
    }
}

fn acquire_rule(p: &Program, y: &Pattern) -> &'static str {
    if y.bound == y.access {
        "acquire operation (rule 1)"
    } else if p.events[y.bound].access().is_some() {
        "strong read followed by an acquire operation on the same location (rule 2)"
    } else {
        "strong read followed by an acquire fence (rule 3)"
    }
}

/// The static explanation of one test: what `explain` prints.
#[derive(serde::Serialize)]
pub struct Explanation {
    pub name: String,
    pub threads: Vec<ThreadRow>,
    pub operations: Vec<OperationRow>,
    /// Every pair of operations some path has both of (8.7).
    pub morally_strong: Vec<PairRow>,
    pub release_patterns: Vec<PatternRow>,
    pub acquire_patterns: Vec<PatternRow>,
    /// The pairs that may synchronize (8.9.4; in a C test the C model's `sw`),
    /// each decided by the SAT engine.
    pub synchronization: Vec<SyncRow>,
    /// A C test: no moral strength or patterns (PTX notions), operations in C terms.
    #[serde(skip)]
    pub c_test: bool,
}

#[derive(serde::Serialize)]
pub struct ThreadRow {
    pub thread: usize,
    pub placement: String,
    pub paths: usize,
}

#[derive(serde::Serialize)]
pub struct OperationRow {
    pub event: String,
    pub thread: usize,
    pub line: usize,
    pub text: String,
    pub description: String,
    /// Which of its thread's paths (from 1), when the thread has several.
    pub path: Option<usize>,
}

#[derive(serde::Serialize)]
pub struct PairRow {
    pub a: String,
    pub b: String,
    pub morally_strong: bool,
    /// Why they are, or the first condition of 8.7 that fails.
    pub reason: String,
}

#[derive(serde::Serialize)]
pub struct PatternRow {
    pub pattern: String,
    pub location: String,
    pub rule: String,
}

#[derive(serde::Serialize)]
pub struct SyncRow {
    pub from: String,
    pub to: String,
    pub in_some_allowed_execution: bool,
    pub rules: String,
}

/// The whole explanation of a program, as data.
pub fn explanation(p: &Program, model: &crate::model::Model) -> Result<Explanation> {
    let ids: Vec<EventId> = p.events.iter().filter(|e| e.thread.is_some()).map(|e| e.id).collect();
    let names: BTreeMap<EventId, String> = ids.iter().copied().zip(event_names(p, &ids)).collect();
    let n = |e: EventId| names.get(&e).cloned().unwrap_or_default();
    let c_test = p.c11.is_some();
    let threads = p
        .threads
        .iter()
        .map(|t| ThreadRow { thread: t.id, placement: placement(p, t.id), paths: t.traces.len() })
        .collect();
    let operations = ids
        .iter()
        .map(|&e| {
            let ev = &p.events[e];
            let t = ev.thread.unwrap_or(0);
            let path = (p.threads[t].traces.len() > 1)
                .then(|| p.threads[t].traces.iter().position(|&x| Some(x) == ev.trace).map_or(0, |i| i + 1));
            OperationRow {
                event: n(e),
                thread: t,
                line: ev.line,
                text: ev.text.clone(),
                description: if c_test { describe_c(p, ev) } else { describe(p, ev) },
                path,
            }
        })
        .collect();
    let mut pairs = Vec::new();
    // Moral strength and release/acquire patterns are PTX's (8.7, 8.8): a C test has neither.
    for (i, &a) in ids.iter().enumerate().filter(|_| !c_test) {
        for &b in ids[i + 1..].iter().filter(|&&b| p.compatible(a, b)) {
            let (ea, eb) = (&p.events[a], &p.events[b]);
            let r = moral_strength(p, ea, eb, &n(a), &n(b));
            let (strong, reason) = match r {
                Ok(why) => (true, why),
                Err(why) => (false, why),
            };
            pairs.push(PairRow { a: n(a), b: n(b), morally_strong: strong, reason });
        }
    }
    let (rels, acqs) = if c_test { (Vec::new(), Vec::new()) } else { (release_patterns(p), acquire_patterns(p)) };
    let on = |x: &Pattern| p.events[x.access].access().map(|a| p.locations[a.loc].name.clone()).unwrap_or_default();
    let release = rels.iter().map(|x| {
        let pattern = if x.bound == x.access { n(x.access) } else { format!("{}; {}", n(x.bound), n(x.access)) };
        PatternRow { pattern, location: on(x), rule: release_rule(p, x).to_string() }
    });
    let acquire = acqs.iter().map(|y| {
        let pattern = if y.bound == y.access { n(y.access) } else { format!("{}; {}", n(y.access), n(y.bound)) };
        PatternRow { pattern, location: on(y), rule: acquire_rule(p, y).to_string() }
    });
    let (release_patterns, acquire_patterns) = (release.collect(), acquire.collect());
    let mut cands = Candidates::new(p, model)?;
    // One query per pair: the test's deadline (crate::budget) is checked before each.
    cands.deadline = crate::budget::deadline();
    let mut keys: Vec<(EventId, EventId)> = cands.enc.sw_pairs().collect();
    keys.sort();
    let mut synchronization = Vec::new();
    for (a, b) in keys {
        let rules = if c_test { c_sync_rule(p, a, b, &n) } else { sync_rules(p, a, b, &rels, &acqs, &n) };
        let yes = cands.can_synchronize(a, b)?;
        synchronization.push(SyncRow { from: n(a), to: n(b), in_some_allowed_execution: yes, rules });
    }
    Ok(Explanation {
        name: p.name.clone(),
        threads,
        operations,
        morally_strong: pairs,
        release_patterns,
        acquire_patterns,
        synchronization,
        c_test,
    })
}

impl Explanation {
    /// The text `explain` prints.
    pub fn text(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("Test {}\n", self.name));
        out.push_str("Threads\n");
        for t in &self.threads {
            let paths = if t.paths > 1 { format!(" ({} paths)", t.paths) } else { String::new() };
            out.push_str(&format!("  P{}: {}{}\n", t.thread, t.placement, paths));
        }
        out.push_str("Operations\n");
        let width = self.operations.iter().map(|o| o.text.chars().count()).max().unwrap_or(0);
        for o in &self.operations {
            let path = o.path.map(|k| format!(" [path {}]", k)).unwrap_or_default();
            out.push_str(&format!(
                "  {:<5} P{:<2} line {:<3} {:<w$}  {}{}\n",
                o.event,
                o.thread,
                o.line,
                o.text,
                o.description,
                path,
                w = width
            ));
        }
        if self.c_test {
            self.sync_text(&mut out, "Synchronizes-with (the C model's sw)");
            return out;
        }
        out.push_str("Morally strong pairs (8.7)\n");
        for x in &self.morally_strong {
            out.push_str(&format!(
                "  {} {}: {}: {}\n",
                x.a,
                x.b,
                if x.morally_strong { "yes" } else { "no" },
                x.reason
            ));
        }
        for (title, rows) in
            [("Release patterns (8.8)", &self.release_patterns), ("Acquire patterns (8.8)", &self.acquire_patterns)]
        {
            out.push_str(title);
            out.push('\n');
            if rows.is_empty() {
                out.push_str("  none\n");
            }
            for x in rows {
                out.push_str(&format!("  {} on {}: {}\n", x.pattern, x.location, x.rule));
            }
        }
        self.sync_text(&mut out, "Synchronization (8.9.4)");
        out
    }

    /// The pairs that may synchronize, under `title`.
    fn sync_text(&self, out: &mut String, title: &str) {
        out.push_str(&format!("{}: pairs that may synchronize, and whether some allowed execution has it\n", title));
        if self.synchronization.is_empty() {
            out.push_str("  none: no two operations can synchronize\n");
        }
        for x in &self.synchronization {
            let yes = if x.in_some_allowed_execution {
                "yes, in some allowed execution"
            } else {
                "never in an allowed execution"
            };
            out.push_str(&format!("  {} -> {}: {} ({})\n", x.from, x.to, yes, x.rules));
        }
    }
}

/// The 8.9.4 rules by which `a` may synchronize with `b`.
fn sync_rules(
    p: &Program,
    a: EventId,
    b: EventId,
    rels: &[Pattern],
    acqs: &[Pattern],
    n: &dyn Fn(EventId) -> String,
) -> String {
    let (ea, eb) = (&p.events[a], &p.events[b]);
    let mut how = Vec::new();
    if ea.is_fence_sc() && eb.is_fence_sc() {
        how.push(format!("if {} precedes {} in Fence-SC order, rule 1", n(a), n(b)));
    }
    if let (Some(x), Some(y)) = (ea.sync(), eb.sync()) {
        if x.role == SyncRole::Arrive && y.role == SyncRole::Wait && x.key.kind.noun() == y.key.kind.noun() {
            how.push(x.key.kind.rule().into());
        }
    }
    for x in rels.iter().filter(|x| x.bound == a) {
        for y in acqs.iter().filter(|y| y.bound == b) {
            let same_loc = p.events[x.access].access().map(|q| q.loc) == p.events[y.access].access().map(|q| q.loc);
            if same_loc && strong::morally_strong(p, ea, eb) {
                how.push(format!("if {} precedes {} in observation order, rule 4", n(x.access), n(y.access)));
            }
        }
    }
    how.dedup();
    how.join("; ")
}
