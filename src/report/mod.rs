//! Results for people (herd7-style text) and machines (JSON, one object per test).

pub mod expect;
pub mod herd;

use crate::check::{FileReport, TestResult};
use crate::outcome::Verdict;
use serde_json::{json, Value};

fn observation(r: &TestResult) -> &'static str {
    r.summary.observation()
}

/// `Allowed` when some allowed final state satisfies the condition's proposition
/// (the JSON `kind`; herd's kind, from the quantifier, is `herd::kind`).
pub fn kind(r: &TestResult) -> &'static str {
    if r.summary.some_positive {
        "Allowed"
    } else {
        "Forbidden"
    }
}

pub fn flags(r: &TestResult) -> Vec<&'static str> {
    let f = &r.outcome.flags;
    let mut v = Vec::new();
    if f.data_race {
        // herd's flag for `undefined_unless` (a race on a plain access in C).
        v.push(if r.program.c11.is_some() { "*undef*" } else { "data-race" });
    }
    if f.deadlock {
        v.push("deadlock");
    }
    if f.unroll_bound_hit {
        v.push("unroll-bound-hit");
    }
    if f.mixed_size {
        v.push("mixed-size");
    }
    v
}

/// The block of one test in herd7's log format (README, "Output"): what
/// herd's own `mcompare7`/`msum7` read. A test without a condition lists its
/// final states and has no verdict lines.
pub fn text(r: &TestResult) -> String {
    let p = &r.program;
    let mut s = String::new();
    s.push_str(&format!("Test {} {}\n", p.name, herd::kind(p)));
    if r.summary.complete {
        s.push_str(&format!("States {}\n", r.outcome.states.len()));
    } else {
        s.push_str(&format!("States >= {} (more not listed)\n", r.outcome.states.len()));
    }
    for line in herd::state_lines(r) {
        s.push_str(&line);
        s.push('\n');
    }
    if p.condition_given {
        // herd prints `Undef` for the verdict of a C test with a racy execution.
        let undefined = p.c11.is_some() && r.outcome.flags.data_race;
        s.push_str(if undefined {
            "Undef\n"
        } else if r.summary.verdict == Verdict::Ok {
            "Ok\n"
        } else {
            "No\n"
        });
        s.push_str("Witnesses\n");
        s.push_str(&format!("Positive: {} Negative: {}\n", r.summary.positive, r.summary.negative));
    }
    for f in flags(r) {
        s.push_str(&format!("Flag {}\n", f));
    }
    if p.condition_given {
        s.push_str(&format!("Condition {}\n", herd::condition(p)));
        s.push_str(&format!("Observation {} {} {} {}\n", p.name, observation(r), r.summary.positive, r.summary.negative));
    }
    s.push_str(&format!("Time {} {:.2}\n", p.name, r.time.as_secs_f64()));
    s
}

/// The JSON object of one file (result or error). Field names are documented in the README.
pub fn json(f: &FileReport) -> Value {
    let file = f.path.display().to_string();
    match &f.result {
        Ok(r) => {
            let p = &r.program;
            let states: Vec<Value> = r
                .outcome
                .states
                .keys()
                .map(|st| {
                    let mut m = serde_json::Map::new();
                    for (o, v) in p.observables.iter().zip(st) {
                        m.insert(o.to_string(), json!(v));
                    }
                    Value::Object(m)
                })
                .collect();
            json!({
                "name": p.name,
                "file": file,
                "verdict": match (p.condition_given, r.summary.verdict) {
                    (false, _) => Value::Null,
                    (true, Verdict::Ok) => json!("Ok"),
                    (true, Verdict::No) => json!("No"),
                },
                "kind": kind(r),
                "herd_kind": herd::kind(p),
                "condition": p.condition_text,
                "states": states,
                "states_complete": r.summary.complete,
                "observation": { "kind": observation(r), "positive": r.summary.positive, "negative": r.summary.negative },
                "flags": {
                    "data_race": r.outcome.flags.data_race,
                    "deadlock": r.outcome.flags.deadlock,
                    "unroll_bound_hit": r.outcome.flags.unroll_bound_hit,
                    "mixed_size": r.outcome.flags.mixed_size,
                },
                "time_ms": r.time.as_secs_f64() * 1000.0,
            })
        }
        Err(e) => json!({
            "file": file,
            "error": {
                "kind": format!("{:?}", e.kind).to_lowercase(),
                "message": e.message,
                "line": e.span.map(|s| s.line),
                "column": e.span.map(|s| s.col),
                "exit_code": e.exit_code(),
            }
        }),
    }
}
