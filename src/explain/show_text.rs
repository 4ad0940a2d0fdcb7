//! The text of `check --show`: shown executions, their relations and the
//! violated row's cycle, printed after a test's herd7-style block.

use super::show::{Shown, ShownExec};
use super::view::View;
use super::words::fmt_path;
use crate::ast::Quantifier;
use crate::model::rows::Model;
use crate::program::Program;

fn state_text(p: &Program, s: &[i64]) -> String {
    p.observables.iter().zip(s).map(|(o, v)| format!("{}={};", p.observable_name(o), v)).collect::<Vec<_>>().join(" ")
}

fn placement_text(p: &Program, t: usize) -> String {
    p.threads[t].written.label()
}

/// The events of one execution, per thread.
fn events_text(p: &Program, x: &ShownExec, out: &mut String) {
    let width = x.events.iter().map(|e| e.text.chars().count()).max().unwrap_or(0);
    let inits: Vec<String> =
        x.events.iter().filter(|e| e.thread.is_none()).map(|e| format!("{} {}", e.name, e.detail)).collect();
    out.push_str(&format!("    initial writes: {}\n", inits.join(", ")));
    let mut threads: Vec<usize> = x.events.iter().filter_map(|e| e.thread).collect();
    threads.dedup();
    for t in threads {
        out.push_str(&format!("    P{} ({})\n", t, placement_text(p, t)));
        for e in x.events.iter().filter(|e| e.thread == Some(t)) {
            let line = format!("      {:<5} {:<w$}  line {:<3} {}", e.name, e.text, e.line, e.detail, w = width);
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
}

fn exec_text(p: &Program, x: &ShownExec, out: &mut String) {
    events_text(p, x, out);
    for (name, items) in &x.relations {
        let body = if items.is_empty() { "none".to_string() } else { items.join("; ") };
        out.push_str(&format!("    {:<9} {}\n", name, body));
    }
}

fn violation_text(x: &ShownExec, out: &mut String) {
    let Some(first) = x.violations.first() else {
        out.push_str("    violates no axiom (internal inconsistency: please report)\n");
        return;
    };
    out.push_str(&format!("    Forbidden by {}: {}\n", first.axiom, first.text));
    for n in &first.notes {
        out.push_str(&format!("      where {}\n", n));
    }
    let mut seen = Vec::new();
    for s in &first.cycle {
        for e in [s.from, s.to] {
            if !seen.contains(&e) {
                seen.push(e);
            }
        }
    }
    let legend: Vec<String> = seen
        .iter()
        .map(|&i| {
            let e = &x.events[i];
            match e.thread {
                Some(t) => format!("{} = P{} line {} `{}`", e.name, t, e.line, e.text),
                None => format!("{} = initial write {}", e.name, e.detail),
            }
        })
        .collect();
    out.push_str(&format!("      events: {}\n", legend.join("; ")));
    if x.violations.len() > 1 {
        let also: Vec<String> = x.violations[1..].iter().map(|v| v.axiom.to_string()).collect();
        out.push_str(&format!("    Also violated: {}\n", also.join(", ")));
    }
}

/// The text of `--show` for one test (printed after its herd7-style block).
pub fn text(p: &Program, s: &Shown) -> String {
    let mut out = String::new();
    if s.want_witness {
        if s.witnesses.is_empty() {
            out.push_str("Witnesses: no allowed final state satisfies the condition's proposition\n");
        }
        for x in &s.witnesses {
            out.push_str(&format!(
                "Witness {}: allowed execution ending in {}\n",
                x.state_index,
                state_text(p, &x.state)
            ));
            exec_text(p, x, &mut out);
            for g in &x.proxy_gaps {
                out.push_str(&format!("    Allowed because {}\n", g.text));
            }
        }
        if s.more_witnesses {
            out.push_str("(more allowed states satisfy the proposition; raise --max-show to see them)\n");
        }
    }
    if s.want_forbidden {
        let what = if p.quantifier == Quantifier::Forall { "violates" } else { "satisfies" };
        if let Some(why) = &s.no_forbidden {
            out.push_str(&format!("Forbidden: {}\n", why));
        } else if s.forbidden.is_empty() {
            out.push_str(&format!(
                "Forbidden: no candidate execution reaches a forbidden final state that {} the proposition\n",
                what
            ));
        }
        for f in &s.forbidden {
            out.push_str(&format!(
                "Forbidden state {}: {} ({} the proposition; no allowed execution ends here)\n",
                f.index,
                state_text(p, &f.state),
                what
            ));
            for x in &f.candidates {
                out.push_str(&format!("  Candidate {}:\n", x.candidate));
                exec_text(p, x, &mut out);
                violation_text(x, &mut out);
            }
            if f.more {
                out.push_str("  (more candidate executions end in this state; raise --max-show to see them)\n");
            }
        }
        if s.more_forbidden {
            out.push_str("(more forbidden states; raise --max-show to see them)\n");
        }
    }
    out
}

/// The axiom and cycle of a forbidden execution, in one line (for tests and tools).
pub fn reason_line(x: &ShownExec) -> Option<String> {
    x.violations.first().map(|v| format!("{}: {}", v.axiom, v.text))
}

/// `W1 -po-> F1 -sync-> F2` for a cycle given in local numbers of `x`.
pub fn cycle_text(p: &Program, model: &Model, x: &ShownExec) -> Option<String> {
    let v = View::new(p, &x.execution, model);
    x.violations.first().map(|viol| fmt_path(&v, &viol.cycle))
}
