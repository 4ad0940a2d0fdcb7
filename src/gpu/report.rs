//! The herd-style histogram of one hardware run, each state judged by the
//! model: `allowed` (the SAT engine found an allowed execution ending there)
//! or `FORBIDDEN` (none exists: the hardware or the model is wrong).

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
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn state_text(res: &TestResult, s: &[i64]) -> String {
    res.program.observables.iter().zip(s).map(|(o, v)| format!("{}={};", o, v)).collect::<Vec<_>>().join(" ")
}

/// Print the result of one test; the exit code it deserves.
pub fn print(json_out: bool, device: &str, shown: &str, m: &Module, res: &TestResult, t: &Tally, a: &RunArgs) -> i32 {
    let p = &res.program;
    let allowed = |s: &Vec<i64>| res.outcome.states.contains_key(s);
    let cond = |s: &Vec<i64>| eval(p, &p.condition, s);
    let pos: u64 = t.states.iter().filter(|(s, _)| cond(s)).map(|(_, n)| n).sum();
    let judged: u64 = t.states.values().sum();
    let forbidden: Vec<(&Vec<i64>, &u64)> = t.states.iter().filter(|(s, _)| !allowed(s)).collect();
    let model = if res.summary.verdict == Verdict::Ok { "Ok" } else { "No" };
    if json_out {
        let hist: Vec<_> = t
            .states
            .iter()
            .map(|(s, n)| {
                let vals: serde_json::Map<String, serde_json::Value> = p.observables.iter().zip(s).map(|(o, v)| (o.to_string(), json!(v))).collect();
                json!({"state": vals, "count": n, "allowed": allowed(s), "condition": cond(s)})
            })
            .collect();
        let v = json!({"file": shown, "test": p.name, "status": "ran", "device": device, "histogram": hist,
            "instances": t.instances, "launches": t.launches, "judged": judged, "positive": pos, "negative": judged - pos,
            "abandoned": t.abandoned, "beyond_unroll": t.beyond_unroll, "filtered": t.filtered, "unfinished": t.unfinished,
            "forbidden_observed": forbidden.iter().map(|(_, n)| **n).sum::<u64>(), "model": model,
            "stress": a.stress, "stress_iters": a.stress_iters, "seed": a.seed, "version": m.needs.version(), "target": format!("sm_{}", m.needs.sm)});
        println!("{}", v);
    } else {
        println!("Test {}  ({})", p.name, device);
        let width = t.states.values().map(|n| grouped(*n).len()).max().unwrap_or(1);
        for (s, n) in &t.states {
            let verdict = if allowed(s) { "allowed  " } else { "FORBIDDEN" };
            // Mark the outcome the test is about: the witness of `exists`/`~exists`, the counterexample of `forall`.
            let mark = match (p.quantifier, cond(s)) {
                (crate::ast::Quantifier::Forall, false) => "   <- violates the forall condition",
                (crate::ast::Quantifier::Forall, true) => "",
                (_, true) => "   <- the condition's outcome",
                (_, false) => "",
            };
            println!("  {}   {:>w$}   {}{}", state_text(res, s), grouped(*n), verdict, mark, w = width);
        }
        for (what, n) in [("beyond the unroll bound (not judged)", t.beyond_unroll), ("abandoned at --spin-limit", t.abandoned), ("removed by the filter", t.filtered), ("UNFINISHED (a thread never ended: bug)", t.unfinished)] {
            if n > 0 {
                println!("  {} instances {}", grouped(n), what);
            }
        }
        let obs = match (pos, judged - pos) {
            (0, _) => "Never",
            (_, 0) => "Always",
            _ => "Sometimes",
        };
        println!("Observation {} {} {} {}", p.name, obs, pos, judged - pos);
        let seen = if pos > 0 { "seen" } else { "not seen" };
        if forbidden.is_empty() {
            println!("Model: {}; hardware: {}  (no forbidden state observed)", model, seen);
        } else {
            let n: u64 = forbidden.iter().map(|(_, n)| **n).sum();
            println!("Model: {}; hardware: {}  (!!! {} FORBIDDEN state(s) observed, {} times)", model, seen, forbidden.len(), grouped(n));
            for (s, n) in &forbidden {
                eprintln!("{}: FORBIDDEN STATE OBSERVED {} times: {}", shown, grouped(**n), state_text(res, s));
            }
        }
        println!("Instances {} in {} launch(es), stress {} CTAs x {}, seed {}\n", grouped(t.instances), t.launches, a.stress, a.stress_iters, a.seed);
    }
    if t.unfinished > 0 {
        eprintln!("{}: error: {} instances never finished: the kernel or its launch is wrong", shown, t.unfinished);
        return EXIT_INTERNAL;
    }
    if forbidden.is_empty() {
        EXIT_OK
    } else {
        EXIT_MISMATCH
    }
}
