//! The herd-style histogram of one hardware run, each state judged by the
//! model: `allowed` (the SAT engine found an allowed execution ending there)
//! or `FORBIDDEN` (none exists: the hardware or the model is wrong).

use super::launch::Plan;
use super::run::{RunArgs, Tally};
use super::Module;
use crate::check::TestResult;
use crate::error::{EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK};
use crate::outcome::{eval, Verdict};
use serde_json::json;

/// Digits grouped by thousands: 15045 -> "15,045".
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn state_text(res: &TestResult, s: &[i64]) -> String {
    res.program
        .observables
        .iter()
        .zip(s)
        .map(|(o, v)| format!("{}={};", res.program.observable_name(o), v))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The numbers both output forms show.
struct Summary<'a> {
    /// Observed instances satisfying / not satisfying the condition's proposition.
    pos: u64,
    judged: u64,
    /// Observed states the model forbids, with their counts.
    forbidden: Vec<(&'a Vec<i64>, u64)>,
    model: &'static str,
}

fn summarize<'a>(res: &TestResult, t: &'a Tally) -> Summary<'a> {
    let p = &res.program;
    let pos = t.states.iter().filter(|(s, _)| eval(p, &p.condition, s)).map(|(_, n)| n).sum();
    let forbidden =
        t.states.iter().filter(|(s, _)| !res.outcome.states.contains_key(*s)).map(|(s, n)| (s, *n)).collect();
    let model = if res.summary.verdict == Verdict::Ok { "Ok" } else { "No" };
    Summary { pos, judged: t.states.values().sum(), forbidden, model }
}

/// Print the result of one test; the exit code it deserves.
pub fn print(json_out: bool, device: &str, shown: &str, m: &Module, res: &TestResult, t: &Tally, a: &RunArgs) -> i32 {
    let sum = summarize(res, t);
    if json_out {
        print_json(device, shown, m, res, t, a, &sum);
    } else {
        print_text(device, shown, res, t, a, &sum);
    }
    if t.unfinished > 0 {
        eprintln!("{}: error: {} instances never finished: the kernel or its launch is wrong", shown, t.unfinished);
        return EXIT_INTERNAL;
    }
    if sum.forbidden.is_empty() {
        EXIT_OK
    } else {
        EXIT_MISMATCH
    }
}

fn print_json(device: &str, shown: &str, m: &Module, res: &TestResult, t: &Tally, a: &RunArgs, sum: &Summary) {
    let p = &res.program;
    let hist: Vec<_> = t
        .states
        .iter()
        .map(|(s, n)| {
            let vals: serde_json::Map<String, serde_json::Value> = p.observables.iter().zip(s).map(|(o, v)| (p.json_name(o), json!(v))).collect();
            json!({"state": vals, "count": n, "allowed": res.outcome.states.contains_key(s), "condition": eval(p, &p.condition, s)})
        })
        .collect();
    let v = json!({"file": shown, "test": p.name, "status": "ran", "device": device, "histogram": hist,
        "instances": t.instances, "launches": t.launches, "judged": sum.judged, "positive": sum.pos, "negative": sum.judged - sum.pos,
        "abandoned": t.abandoned, "beyond_unroll": t.beyond_unroll, "filtered": t.filtered, "unfinished": t.unfinished,
        "forbidden_observed": sum.forbidden.iter().map(|(_, n)| n).sum::<u64>(), "model": sum.model,
        "stress": a.stress, "stress_iters": a.stress_iters, "pre_stress": a.pre_stress, "shuffled_ctas": !a.fixed_ctas,
        "seed": a.seed, "iterations": a.iterations, "per_launch": a.per_launch,
        "allowed_unseen": allowed_unseen(res, t), "version": m.needs.version(), "target": format!("sm_{}", m.needs.sm)});
    println!("{}", v);
}

/// The states the model allows that no instance ended in (how weak the device showed itself).
fn allowed_unseen(res: &TestResult, t: &Tally) -> Vec<serde_json::Value> {
    let p = &res.program;
    res.outcome
        .states
        .keys()
        .filter(|s| !t.states.contains_key(*s))
        .map(|s| {
            let vals: serde_json::Map<String, serde_json::Value> =
                p.observables.iter().zip(s).map(|(o, v)| (o.to_string(), json!(v))).collect();
            json!({"state": vals, "condition": eval(p, &p.condition, s)})
        })
        .collect()
}

/// `run --dry-run`: what one test would launch, without a GPU (D280).
pub fn dry_run(a: &RunArgs, shown: &str, m: &Module, res: &TestResult, plan: &Plan, ptx: Option<&std::path::Path>) {
    let digest = super::launch::digest(&m.ptx);
    let order = if a.fixed_ctas { "in grid order" } else { "shuffled" };
    if a.json {
        let v = json!({"file": shown, "test": m.name, "status": "dry-run", "launch": plan, "iterations": a.iterations,
            "seed": a.seed, "stress": a.stress, "stress_iters": a.stress_iters, "pre_stress": a.pre_stress,
            "shuffled_ctas": !a.fixed_ctas, "allowed_states": res.outcome.states.len(), "model": summarize(res, &Tally::default()).model,
            "version": m.needs.version(), "target": format!("sm_{}", m.needs.sm), "digest": digest,
            "ptx": ptx.map(|p| p.display().to_string())});
        println!("{}", v);
        return;
    }
    println!(
        "Would run {} ({}): model {}, {} allowed state(s)",
        m.name,
        shown,
        summarize(res, &Tally::default()).model,
        res.outcome.states.len()
    );
    println!(
        "  {} launch(es) of {} CTAs ({} groups x {} + {} stress) of {} threads, {} CTA(s) per cluster, {} bytes .shared per CTA",
        plan.launches,
        plan.grid,
        plan.groups,
        m.layout.blocks_per_group(),
        plan.stress_ctas,
        plan.cta_threads,
        plan.cluster,
        plan.shared_bytes
    );
    println!(
        "  {} instances (--iterations {}), seed {}, stress {} x {} iterations, pre-stress {}, CTAs {}",
        grouped(plan.instances),
        grouped(a.iterations),
        a.seed,
        plan.stress_ctas,
        a.stress_iters,
        a.pre_stress,
        order
    );
    let at = ptx.map_or(String::new(), |p| format!(" -> {}", p.display()));
    println!("  module .version {} / sm_{}, fnv64 {}{}\n", m.needs.version(), m.needs.sm, digest, at);
}

fn print_text(device: &str, shown: &str, res: &TestResult, t: &Tally, a: &RunArgs, sum: &Summary) {
    let p = &res.program;
    println!("Test {}  ({})", p.name, device);
    let width = t.states.values().map(|n| grouped(*n).len()).max().unwrap_or(1);
    for (s, n) in &t.states {
        let verdict = if res.outcome.states.contains_key(s) { "allowed  " } else { "FORBIDDEN" };
        // Mark the outcome the test is about: the witness of `exists`/`~exists`, the counterexample of `forall`.
        let mark = match (p.quantifier, eval(p, &p.condition, s)) {
            (crate::ast::Quantifier::Forall, false) => "   <- violates the forall condition",
            (crate::ast::Quantifier::Forall, true) | (_, false) => "",
            (_, true) => "   <- the condition's outcome",
        };
        println!("  {}   {:>w$}   {}{}", state_text(res, s), grouped(*n), verdict, mark, w = width);
    }
    for (what, n) in [
        ("beyond the unroll bound (not judged)", t.beyond_unroll),
        ("abandoned at --spin-limit", t.abandoned),
        ("removed by the filter", t.filtered),
        ("UNFINISHED (a thread never ended: bug)", t.unfinished),
    ] {
        if n > 0 {
            println!("  {} instances {}", grouped(n), what);
        }
    }
    let (pos, neg) = (sum.pos, sum.judged - sum.pos);
    let obs = match (pos, neg) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    };
    println!("Observation {} {} {} {}", p.name, obs, pos, neg);
    let seen = if pos > 0 { "seen" } else { "not seen" };
    if sum.forbidden.is_empty() {
        println!("Model: {}; hardware: {}  (no forbidden state observed)", sum.model, seen);
    } else {
        let n: u64 = sum.forbidden.iter().map(|(_, n)| n).sum();
        println!(
            "Model: {}; hardware: {}  (!!! {} FORBIDDEN state(s) observed, {} times)",
            sum.model,
            seen,
            sum.forbidden.len(),
            grouped(n)
        );
        for (s, n) in &sum.forbidden {
            eprintln!("{}: FORBIDDEN STATE OBSERVED {} times: {}", shown, grouped(*n), state_text(res, s));
        }
    }
    println!(
        "Instances {} in {} launch(es), stress {} CTAs x {}, seed {}\n",
        grouped(t.instances),
        t.launches,
        a.stress,
        a.stress_iters,
        a.seed
    );
}
