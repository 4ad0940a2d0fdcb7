//! `ptx-litmus advise` (issue 16): which fences and qualifiers a test needs to
//! forbid its outcome (every minimum-cost repair from a fixed menu), and which
//! it can do without (single weakenings and one maximal set of them).
//!
//! - [`menu`]: levels, their strength order, the cost table.
//! - [`sites`]: what may change in a test.
//! - [`edit`]: variants as edited source text (what `--out` writes).
//! - [`oracle`]: one SAT query per variant; confirmation by `check`.
//! - [`search`]: the exact search (paper-notes/advisor.md).
//! - [`render`]: text, JSON and the directory summary.

pub mod edit;
pub mod hitting;
pub mod menu;
pub mod oracle;
pub mod render;
pub mod search;
pub mod sites;

use crate::ast::{Litmus, Quantifier};
use crate::check::CheckOptions;
use crate::error::{Error, Result};
use menu::{CostTable, Level};
use sites::{Mode, Site};
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct AdviseOptions {
    pub check: CheckOptions,
    pub costs: CostTable,
    /// Only the weakening analysis (a reachable outcome gets none).
    pub weaken_only: bool,
    /// Name the axiom forbidding the outcome in each answer (costs one
    /// explanation per answer; the directory summary does without).
    pub explain: bool,
}

impl Default for AdviseOptions {
    fn default() -> Self {
        AdviseOptions { check: CheckOptions::default(), costs: CostTable::default(), weaken_only: false, explain: true }
    }
}

/// Where in a PTX module a changed instruction is (D254): the module file
/// and the function it was inlined from.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ModulePlace {
    pub file: String,
    pub function: String,
}

/// One changed instruction (or inserted fence) of an answer.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Change {
    pub thread: usize,
    /// Source line of the instruction (for an insertion: the line it follows):
    /// in the module when `module` is given, else in the test's file.
    pub line: usize,
    /// The module function the instruction is inlined from, for a test that
    /// calls one (D254); absent for an instruction of the test's own cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<ModulePlace>,
    /// `change`, `insert` or `remove`.
    pub action: &'static str,
    pub before: String,
    pub after: String,
    pub cost: u32,
}

/// One repair or weakening, confirmed by `check`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Answer {
    pub changes: Vec<Change>,
    pub cost: u32,
    /// The axiom forbidding the outcome in the changed test, as `check --show forbidden` names it.
    pub forbidden_by: String,
    /// The changed test's source text (empty for a test that calls a PTX
    /// module: its changes are the module's, D254).
    #[serde(skip)]
    pub source: String,
    /// (index into `sites::sites(.., mode)`, level) of each change.
    #[serde(skip)]
    pub picks: Vec<(usize, Level)>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Advice {
    pub test: String,
    pub quantifier: Quantifier,
    pub verdict: crate::outcome::Verdict,
    /// The outcome the condition is about can happen (the test does not yet forbid it).
    pub reachable: bool,
    /// Cost of the cheapest repairs; `None` when forbidden already or when no repair exists in the menu.
    pub min_cost: Option<u32>,
    pub repairs: Vec<Answer>,
    /// Single weakenings (forbidden tests).
    pub weakenings: Vec<Answer>,
    /// One maximal set of simultaneous weakenings (forbidden tests; `None` when nothing can be weakened).
    pub maximal_weakening: Option<Answer>,
    /// Variants decided by the search with a SAT query.
    pub queries: usize,
    /// Variants decided by re-checking an earlier witness execution instead.
    pub reused: usize,
    pub time_ms: f64,
}

/// Run one step (deciding or confirming one variant) under its own memory
/// budget and what is left of the test's time limit: the budget of
/// `crate::budget` adds up what one test builds, and the advisor builds one
/// encoding per variant.
pub fn budgeted<T>(opts: &CheckOptions, deadline: Option<Instant>, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let timeout = match deadline {
        Some(d) => Some(
            d.checked_duration_since(Instant::now())
                .ok_or_else(|| Error::limit("timeout: the advice took longer than --timeout"))?,
        ),
        None => None,
    };
    let limits = crate::budget::Limits { timeout, ..opts.ctx.limits };
    match crate::budget::run(limits, f) {
        Ok(r) => r,
        Err(crate::budget::Exceeded(m)) if deadline.is_some_and(|d| Instant::now() >= d) => Err(Error::limit(format!(
            "timeout: no advice within --timeout (the last variant was {})",
            m.rsplit(", ").next().unwrap_or(&m)
        ))),
        Err(crate::budget::Exceeded(m)) => Err(Error::limit(m)),
    }
}

/// A test in which a thread never leaves its spin loop (D299) has no final
/// state under any variant: the proof is about the values the test writes,
/// which no fence or qualifier changes. There is nothing to advise, and
/// `check`'s "no final state" is not a forbidden outcome a weakening could keep.
fn refuse_hang(p: &crate::program::Program) -> Result<()> {
    let Some(t) = p.spinning_forever.first() else { return Ok(()) };
    let at = p.unroll_cuts.get(t).map_or(String::new(), |(_, what)| format!(" (at {})", what));
    Err(Error::input_nospan(format!(
        "P{} never leaves its spin loop{}: no value any execution writes ends it (D299), so the test hangs whatever \
         fences and qualifiers it has; nothing to advise until the hang is fixed (`check` says Flag deadlock)",
        t, at
    )))
}

/// Seconds one test's advice may take when `--timeout` is not given.
pub const DEFAULT_TIMEOUT_S: u64 = 300;

/// Advise on one test given as text (its `ptx "FILE";` paths relative to the
/// working directory).
pub fn advise_source(source: &str, opts: &AdviseOptions) -> Result<Advice> {
    advise_source_at(source, std::path::Path::new("."), opts)
}

/// Advise on one test given as text whose `ptx "FILE";` paths are relative
/// to `base`. A test that calls functions of a PTX module is advised on its
/// inlined program (D254): each change names the module's function and line,
/// and each answer is re-checked by `check` on that program.
pub fn advise_source_at(source: &str, base: &std::path::Path, opts: &AdviseOptions) -> Result<Advice> {
    let start = Instant::now();
    let deadline = opts.check.ctx.limits.timeout.map(|t| start + t);
    let mut lit = crate::parse::parse_litmus(source)?;
    let harness = !lit.modules.is_empty();
    if harness {
        crate::check::expand_modules(&mut lit, base)?;
    }
    // The program `check` decides (D188): past the path builder's limit, the symbolic one (D217).
    let p = crate::check::build_encoded(&lit, &opts.check)?;
    refuse_hang(&p)?;
    let reachable = budgeted(&opts.check, deadline, || oracle::reachable(&p, &opts.check.ctx.model))?;
    let first = budgeted(&opts.check, deadline, || match harness {
        true => oracle::confirm_parsed(&lit, &opts.check, false),
        false => oracle::confirm(source, &opts.check, false),
    })?;
    if first.reachable != reachable {
        return Err(oracle::disagreement("the original test"));
    }
    let verdict = if reachable == (p.quantifier == Quantifier::Exists) {
        crate::outcome::Verdict::Ok
    } else {
        crate::outcome::Verdict::No
    };
    let mut adv = Advice {
        test: p.name.clone(),
        quantifier: p.quantifier,
        verdict,
        reachable,
        min_cost: None,
        repairs: Vec::new(),
        weakenings: Vec::new(),
        maximal_weakening: None,
        queries: 0,
        reused: 0,
        time_ms: 0.0,
    };
    if reachable && !opts.weaken_only {
        let sites = sites::sites(&lit, &p, Mode::Repair);
        let mut d = search::Decider::new(source, &lit, &sites, &opts.check, deadline);
        let r = search::repair(&mut d, &opts.costs)?;
        adv.min_cost = r.cost;
        for levels in &r.repairs {
            let a = answer(&d, &opts.costs, levels, opts.explain)?;
            // A proxy fence on either side of an absent thread fence is one edit (sites.rs, ProxyGap).
            if !adv.repairs.iter().any(|b| same_changes(b, &a)) {
                adv.repairs.push(a);
            }
        }
        adv.queries += d.queries - d.reused;
        adv.reused += d.reused;
    } else if !reachable {
        let sites = sites::sites(&lit, &p, Mode::Weaken);
        let mut d = search::Decider::new(source, &lit, &sites, &opts.check, deadline);
        let w = search::weaken(&mut d, &opts.costs)?;
        let orig = d.original();
        for &(i, l) in &w.singles {
            let mut v = orig.clone();
            v[i] = l;
            adv.weakenings.push(answer(&d, &opts.costs, &v, opts.explain)?);
        }
        if w.maximal != orig {
            adv.maximal_weakening = Some(answer(&d, &opts.costs, &w.maximal, opts.explain)?);
        }
        adv.queries += d.queries - d.reused;
        adv.reused += d.reused;
    }
    adv.time_ms = crate::report::millis(start.elapsed());
    Ok(adv)
}

/// The answer for a variant the search found forbidding the outcome,
/// confirmed by `check`: on its edited text, or for a test that calls a PTX
/// module on its edited inlined program (D254), which has no text.
fn answer(d: &search::Decider, costs: &CostTable, levels: &[Level], explain: bool) -> Result<Answer> {
    let (text, c) = if d.lit.modules.is_empty() {
        let text = edit::variant_source(d.source, d.lit, d.sites, levels)?;
        edit::verify(&text, d.lit, d.sites, levels)?;
        let c = budgeted(d.opts, d.deadline, || oracle::confirm(&text, d.opts, explain))?;
        (text, c)
    } else {
        let variant = edit::variant_ast(d.lit, d.sites, levels);
        (String::new(), budgeted(d.opts, d.deadline, || oracle::confirm_parsed(&variant, d.opts, explain))?)
    };
    if c.reachable {
        return Err(oracle::disagreement("a changed test"));
    }
    let changes = changes(d.lit, d.sites, costs, levels);
    let cost = changes.iter().map(|c| c.cost).sum();
    let picks = d
        .sites
        .iter()
        .zip(levels)
        .enumerate()
        .filter(|(_, (s, &l))| l != s.original)
        .map(|(i, (_, &l))| (i, l))
        .collect();
    Ok(Answer {
        changes,
        cost,
        forbidden_by: c.reason.unwrap_or_else(|| "(not explained in the summary)".into()),
        source: text,
        picks,
    })
}

fn same_changes(a: &Answer, b: &Answer) -> bool {
    let key = |x: &Answer| -> Vec<(usize, usize, &'static str, String)> {
        x.changes.iter().map(|c| (c.thread, c.line, c.action, c.after.clone())).collect()
    };
    key(a) == key(b)
}

/// The changes of a variant, in thread and line order.
fn changes(lit: &Litmus, sites: &[Site], costs: &CostTable, levels: &[Level]) -> Vec<Change> {
    let mut out = Vec::new();
    for (s, &l) in sites.iter().zip(levels) {
        if l == s.original {
            continue;
        }
        let before = lit.code[s.thread][s.index].text.trim_end_matches(';').trim().to_string();
        let after = edit::instr_text(s, l);
        let (action, before) = match (s.kind, l) {
            (k, _) if k.inserts() => ("insert", String::new()),
            (_, Level::Absent) => ("remove", before),
            _ => ("change", before),
        };
        let cost = costs.cost(l).abs_diff(costs.cost(s.original));
        let module = lit.code[s.thread][s.index]
            .origin
            .as_ref()
            .map(|o| ModulePlace { file: o.file.clone(), function: o.function().unwrap_or("?").to_string() });
        out.push(Change { thread: s.thread, line: s.line, module, action, before, after, cost });
    }
    // Stable: a thread fence and a proxy fence inserted after one line keep site order.
    out.sort_by_key(|c| (c.thread, c.line, c.action == "insert"));
    out
}

/// A file name stem for `--out` files.
pub fn stem(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_+.".contains(c) { c } else { '_' }).collect()
}

/// Write every answer of `adv` into `dir` as litmus files; returns their
/// paths. The answers of a test that calls a PTX module are edits of the
/// module (D254), which `--out` does not write.
pub fn write_out(dir: &std::path::Path, adv: &Advice) -> Result<Vec<std::path::PathBuf>> {
    let answers = adv.repairs.iter().chain(&adv.weakenings).chain(&adv.maximal_weakening);
    if answers.flat_map(|a| &a.changes).any(|c| c.module.is_some()) {
        return Err(Error::input_nospan(
            "--out writes edited litmus files, and this test's changes are edits of its PTX module (listed with their function and line)",
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::input_nospan(format!("cannot create {}: {}", dir.display(), e)))?;
    let s = stem(&adv.test);
    let mut files: Vec<(String, &Answer)> = Vec::new();
    files.extend(adv.repairs.iter().enumerate().map(|(k, a)| (format!("{}.repair{}.litmus", s, k + 1), a)));
    files.extend(adv.weakenings.iter().enumerate().map(|(k, a)| (format!("{}.weaken{}.litmus", s, k + 1), a)));
    files.extend(adv.maximal_weakening.iter().map(|a| (format!("{}.weaken-max.litmus", s), a)));
    let mut out = Vec::new();
    for (name, a) in files {
        let path = dir.join(&name);
        // Each variant is a test of its own, named like its file: checked
        // together, no two share a name.
        let source = renamed(&a.source, &adv.test, name.trim_end_matches(".litmus"));
        crate::out::write_atomic(&path, source.as_bytes())
            .map_err(|e| Error::input_nospan(format!("cannot write {}: {}", path.display(), e)))?;
        out.push(path);
    }
    Ok(out)
}

/// `source` with the name in its `PTX NAME` line changed from `old` to `new`
/// (unchanged when that line does not name `old`).
fn renamed(source: &str, old: &str, new: &str) -> String {
    let Some(line_start) = source.find(|c: char| !c.is_whitespace() && c != '\u{feff}') else {
        return source.to_string();
    };
    let line_end = source[line_start..].find('\n').map_or(source.len(), |k| line_start + k);
    let line = &source[line_start..line_end];
    let mut words = line.split_whitespace();
    match (words.next(), words.next()) {
        (Some(arch), Some(name)) if name == old => {
            let at = line_start + line.find(arch).unwrap_or(0) + arch.len();
            let name_at = at + source[at..line_end].find(name).unwrap_or(0);
            format!("{}{}{}", &source[..name_at], new, &source[name_at + name.len()..])
        }
        _ => source.to_string(),
    }
}
