//! `check --show witness|forbidden`: pick the executions to show and render them as text.

use super::axioms::{violations, Violation};
pub use super::show_text::{cycle_text, reason_line, text};
use super::view::{EdgeKind, Mat, Step, View};
use super::words::why_sync;
use crate::ast::{Prop, Quantifier};
pub use crate::check::ShowOptions;
use crate::check::TestResult;
use crate::error::Result;
use crate::model::eval::Violation as Check;
use crate::model::rows::Model;
use crate::outcome::{eval, Execution, State};
use crate::program::{EventId, EventKind, Program};
use crate::sat::candidates::{closure, least_orders, Candidates};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum ShowKind {
    /// One allowed execution per allowed final state satisfying the condition.
    Witness,
    /// Why final states satisfying the condition are forbidden: candidate executions and the axiom each violates.
    Forbidden,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecKind {
    Witness,
    Forbidden,
}

/// An event as shown.
#[derive(Clone, Debug)]
pub struct EventInfo {
    pub event: EventId,
    pub name: String,
    pub thread: Option<usize>,
    /// Position in the thread's trace.
    pub po: usize,
    pub text: String,
    pub line: usize,
    /// `writes x=1`, `reads y=0`, `reads x=0, writes x=1`, or empty.
    pub detail: String,
}

/// An edge as shown (local event numbers, indices into `ShownExec::events`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeInfo {
    pub kind: EdgeKind,
    pub from: usize,
    pub to: usize,
    /// Part of the violated axiom's cycle.
    pub highlighted: bool,
}

#[derive(Clone, Debug)]
pub struct ViolationInfo {
    /// The violated check row's name and section.
    pub axiom: Check,
    pub text: String,
    pub notes: Vec<String>,
    pub cycle: Vec<Step>,
}

/// One shown execution.
#[derive(Clone, Debug)]
pub struct ShownExec {
    pub kind: ExecKind,
    pub state: State,
    /// 1-based number of the state among those shown of its kind.
    pub state_index: usize,
    /// 1-based number of the candidate for its state (1 for witnesses).
    pub candidate: usize,
    pub execution: Execution,
    pub events: Vec<EventInfo>,
    pub edges: Vec<EdgeInfo>,
    /// Violated axioms, the reason first (empty for witnesses).
    pub violations: Vec<ViolationInfo>,
    /// Lines of text: rf, co, Fence-SC, sync.
    pub relations: Vec<(String, Vec<String>)>,
    /// Why a witness is allowed where a missing `fence.proxy.async` is the
    /// reason (empty for forbidden candidates).
    pub proxy_gaps: Vec<super::proxy_gap::ProxyGap>,
}

impl ShownExec {
    /// File name stem for pictures: `MP-witness-1`, `MP-forbidden-1-2`.
    pub fn stem(&self, test: &str) -> String {
        let t: String = test
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '+' || c == '.' { c } else { '_' })
            .collect();
        match self.kind {
            ExecKind::Witness => format!("{}-witness-{}", t, self.state_index),
            ExecKind::Forbidden => format!("{}-forbidden-{}-{}", t, self.state_index, self.candidate),
        }
    }
}

#[derive(Clone, Debug)]
pub struct ForbiddenState {
    /// 1-based number among the forbidden states shown.
    pub index: usize,
    pub state: State,
    pub candidates: Vec<ShownExec>,
    /// More candidate executions produce this state than are shown.
    pub more: bool,
}

/// What `--show` computed for one test.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    pub want_witness: bool,
    pub want_forbidden: bool,
    pub witnesses: Vec<ShownExec>,
    pub more_witnesses: bool,
    pub forbidden: Vec<ForbiddenState>,
    pub more_forbidden: bool,
    /// Why forbidden states are not explained, where they are asked for but cannot be.
    pub no_forbidden: Option<String>,
}

impl Shown {
    /// Every shown execution, witnesses first.
    pub fn executions(&self) -> Vec<&ShownExec> {
        self.witnesses.iter().chain(self.forbidden.iter().flat_map(|f| f.candidates.iter())).collect()
    }
}

/// The states `--show forbidden` explains: those satisfying the proposition
/// (`exists`, `~exists`), or violating it (`forall`: counterexamples).
pub fn forbidden_matches(p: &Program, s: &State) -> bool {
    let sat = eval(p, &p.condition, s);
    let filtered = p.filter.as_ref().is_none_or(|f| eval(p, f, s));
    filtered && if p.quantifier == Quantifier::Forall { !sat } else { sat }
}

/// Compute what to show for one checked test.
pub fn show(r: &TestResult, opts: &ShowOptions) -> Result<Shown> {
    let p = &r.program;
    let mut out = Shown { want_witness: opts.witness, want_forbidden: opts.forbidden, ..Default::default() };
    if opts.witness {
        let matching: Vec<(&State, &Execution)> =
            r.outcome.states.iter().filter(|(s, _)| eval(p, &p.condition, s)).collect();
        out.more_witnesses = matching.len() > opts.max;
        for (i, (s, x)) in matching.into_iter().take(opts.max).enumerate() {
            let x = tidy_witness(p, x, &opts.ctx.model);
            out.witnesses.push(shown_exec(p, &x, &opts.ctx.model, ExecKind::Witness, s.clone(), i + 1, 1));
        }
    }
    if opts.forbidden {
        // A projected program's candidates are the symbolic program's (D218).
        match (p.projected, r.symbolic.as_deref()) {
            (true, None) => out.no_forbidden = Some(NOT_EXPLAINED.into()),
            (_, q) => explain_forbidden(r, q.unwrap_or(p), opts, &mut out)?,
        }
    }
    Ok(out)
}

/// Why a projected program without its symbolic program has no forbidden states explained.
const NOT_EXPLAINED: &str = "not explained: the symbolic program this test was decided on is not kept with its result";

/// The forbidden states of checked test `r` satisfying its condition, each
/// with its candidate executions (of `q`: the program `r` was decided on, or
/// for a symbolic one projected as `r.program`'s executions are, D218) and
/// the axiom each violates.
fn explain_forbidden(r: &TestResult, q: &Program, opts: &ShowOptions, out: &mut Shown) -> Result<()> {
    let p = &r.program;
    let mut cands = Candidates::new(q, &opts.ctx.model)?;
    // The test's own deadline (crate::budget) covers explanations too.
    cands.deadline = opts.ctx.deadline.or(crate::budget::deadline());
    let allowed: BTreeSet<State> = r.outcome.states.keys().cloned().collect();
    let prop =
        if p.quantifier == Quantifier::Forall { Prop::Not(Box::new(p.condition.clone())) } else { p.condition.clone() };
    let want = match &p.filter {
        Some(f) => Prop::And(Box::new(prop), Box::new(f.clone())),
        None => prop,
    };
    let (states, more) = cands.forbidden_states(&allowed, &want, |s| forbidden_matches(p, s), opts.max)?;
    out.more_forbidden = more;
    let mut found = Vec::new();
    for s in states {
        let (xs, more) = cands.executions(&s, opts.max)?;
        found.push((s, xs, more));
    }
    // Rendered once every candidate is decoded: a projection only grows.
    let q = cands.program();
    for (i, (s, xs, more)) in found.into_iter().enumerate() {
        let candidates = xs
            .iter()
            .enumerate()
            .map(|(k, x)| shown_exec(q, x, &opts.ctx.model, ExecKind::Forbidden, s.clone(), i + 1, k + 1))
            .collect();
        out.forbidden.push(ForbiddenState { index: i + 1, state: s, candidates, more });
    }
    Ok(())
}

/// A witness with the least coherence order that keeps it allowed: the initial
/// writes first, the morally strong pairs as chosen, and the causality pairs
/// 8.10.1 requires; other edges the solver chose between racy writes are
/// dropped. When that would change anything (a final write no longer maximal,
/// or an axiom violated) the witness is shown as found.
pub fn tidy_witness(p: &Program, x: &Execution, model: &Model) -> Execution {
    let mut least = least_orders(p, x);
    let v = View::new(p, &least, model);
    let mut co = least.co.clone();
    for w in 0..v.n() {
        for w2 in 0..v.n() {
            if w != w2
                && v.is_write(w)
                && v.is_write(w2)
                && !v.is_init(w)
                && !v.is_init(w2)
                && v.loc(w) == v.loc(w2)
                && v.cause.has(w, w2)
            {
                co.insert((v.ev[w], v.ev[w2]));
            }
        }
    }
    least.co = closure(co);
    let cyclic = least.co.iter().any(|&(a, b)| a == b);
    let finals_max = least.finals.values().all(|&w| !least.co.iter().any(|&(a, _)| a == w));
    if cyclic || !finals_max || !violations(&View::new(p, &least, model)).is_empty() || least.state(p) != x.state(p) {
        return x.clone();
    }
    least
}

fn detail(v: &View, i: usize) -> String {
    let e = v.event(i);
    match &e.kind {
        EventKind::Init => format!("{}={}", v.loc_name(i), e.written_value(v.p).unwrap_or(0)),
        EventKind::Mem(a) => {
            let mut parts = Vec::new();
            if a.reads {
                parts.push(format!(
                    "reads {}={}",
                    v.loc_name(i),
                    v.read_value(i).map(|x| x.to_string()).unwrap_or_else(|| "?".into())
                ));
            }
            if a.writes {
                parts.push(format!(
                    "writes {}={}",
                    v.loc_name(i),
                    v.write_value(i).map(|x| x.to_string()).unwrap_or_else(|| "?".into())
                ));
            }
            parts.join(", ")
        }
        _ => String::new(),
    }
}

/// Build the shown form of one execution.
pub fn shown_exec(
    p: &Program,
    x: &Execution,
    model: &Model,
    kind: ExecKind,
    state: State,
    state_index: usize,
    candidate: usize,
) -> ShownExec {
    let v = View::new(p, x, model);
    let events: Vec<EventInfo> = (0..v.n())
        .map(|i| {
            let e = v.event(i);
            EventInfo {
                event: e.id,
                name: v.names[i].clone(),
                thread: e.thread,
                po: e.po,
                text: e.text.clone(),
                line: e.line,
                detail: detail(&v, i),
            }
        })
        .collect();
    let vs: Vec<Violation> = if kind == ExecKind::Forbidden { violations(&v) } else { Vec::new() };
    let edges = edges(&v, vs.first());
    let violations = vs
        .iter()
        .map(|x| ViolationInfo {
            axiom: x.axiom.clone(),
            text: x.text.clone(),
            notes: x.notes.clone(),
            cycle: x.steps.clone(),
        })
        .collect();
    let relations = relation_lines(&v);
    let proxy_gaps = if kind == ExecKind::Witness { super::proxy_gap::proxy_gaps(&v) } else { Vec::new() };
    ShownExec {
        kind,
        state,
        state_index,
        candidate,
        execution: x.clone(),
        events,
        edges,
        violations,
        relations,
        proxy_gaps,
    }
}

/// The edges to draw: po (consecutive), rf, co and Fence-SC (transitively
/// reduced), fr (to the next write in coherence), sync, dependencies, the
/// asynchronous operations' issue and completion steps, and causality
/// between threads where no rf or sync edge already says it.
fn edges(v: &View, violation: Option<&Violation>) -> Vec<EdgeInfo> {
    let mut out = Vec::new();
    let mut push = |kind, from, to| out.push(EdgeInfo { kind, from, to, highlighted: false });
    let co_red = v.co.reduction();
    for (a, b) in v.po_next.pairs() {
        push(EdgeKind::Po, a, b);
    }
    for (a, b) in v.rf.pairs() {
        push(EdgeKind::Rf, a, b);
    }
    for (a, b) in co_red.pairs() {
        push(EdgeKind::Co, a, b);
    }
    for (r, w) in v.fr.pairs() {
        if v.rf_source(r).is_some_and(|s| co_red.has(s, w)) {
            push(EdgeKind::Fr, r, w);
        }
    }
    for (a, b) in v.sc.reduction().pairs() {
        push(EdgeKind::Sc, a, b);
    }
    for (a, b) in v.sw.pairs() {
        push(EdgeKind::Sync, a, b);
    }
    for (a, b) in v.dep.pairs() {
        push(EdgeKind::Dep, a, b);
    }
    for (a, b) in async_edges(v).pairs() {
        push(EdgeKind::Async, a, b);
    }
    let cross = cross_cause(v);
    for (a, b) in cross.pairs() {
        push(EdgeKind::Cause, a, b);
    }
    if let Some(viol) = violation {
        for s in &viol.steps {
            // An observation step is drawn as the reads-from edge it stands for.
            let (kind, from, to) = if s.kind == EdgeKind::Obs && v.rf.has(s.from, s.to) {
                (EdgeKind::Rf, s.from, s.to)
            } else {
                (s.kind, s.from, s.to)
            };
            match out.iter_mut().find(|e| e.kind == kind && e.from == from && e.to == to) {
                Some(e) => e.highlighted = true,
                None => out.push(EdgeInfo { kind, from, to, highlighted: true }),
            }
        }
    }
    out
}

/// The issue and completion steps of asynchronous operations (8.9.1.1) that
/// program order and shorter such steps do not already show: the union with
/// program order, transitively reduced, less its program-order pairs.
fn async_edges(v: &View) -> Mat {
    let mut both = Mat::new(v.n());
    for (a, b) in v.po.pairs().into_iter().chain(v.async_steps.pairs()) {
        both.add(a, b);
    }
    let mut m = Mat::new(v.n());
    for (a, b) in both.reduction().pairs() {
        if v.async_steps.has(a, b) && !v.po.has(a, b) {
            m.add(a, b);
        }
    }
    m
}

/// Causality edges between different threads that no rf or sync edge shows,
/// and that do not follow from two shorter causality edges.
fn cross_cause(v: &View) -> Mat {
    let mut m = Mat::new(v.n());
    for (a, b) in v.cause.pairs() {
        let (ta, tb) = (v.event(a).thread, v.event(b).thread);
        if ta.is_none() || ta == tb || v.sw.has(a, b) || v.rf.has(a, b) {
            continue;
        }
        if (0..v.n()).any(|z| z != a && z != b && v.cause.has(a, z) && v.cause.has(z, b)) {
            continue;
        }
        m.add(a, b);
    }
    m
}

fn relation_lines(v: &View) -> Vec<(String, Vec<String>)> {
    let n = |i: usize| v.names[i].clone();
    let rf: Vec<String> =
        v.rf.pairs()
            .into_iter()
            .map(|(w, r)| format!("{} -> {} ({}={})", n(w), n(r), v.loc_name(r), v.read_value(r).unwrap_or(0)))
            .collect();
    let co: Vec<String> = v.co.reduction().pairs().into_iter().map(|(a, b)| format!("{} -> {}", n(a), n(b))).collect();
    let sc: Vec<String> = v.sc.reduction().pairs().into_iter().map(|(a, b)| format!("{} -> {}", n(a), n(b))).collect();
    let sw: Vec<String> =
        v.sw.pairs().into_iter().map(|(a, b)| format!("{} -> {}: {}", n(a), n(b), why_sync(v, a, b))).collect();
    if v.p.c11.is_some() {
        // A C test has no Fence-SC order (a PTX relation); its coherence is RC11's
        // `mo` and its synchronization the C model's `sw`.
        return vec![("rf".into(), rf), ("mo".into(), co), ("sw".into(), sw)];
    }
    vec![("rf".into(), rf), ("co".into(), co), ("Fence-SC".into(), sc), ("sync".into(), sw)]
}
