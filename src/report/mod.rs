//! Results for people (herd7-style text) and machines (JSON, one object per test).

pub mod expect;
pub mod herd;

use crate::batch::FileReport;
use crate::check::TestResult;
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
    if r.other_reading.is_some() {
        v.push("proxy-fence-reading");
    }
    v
}

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Ok => "Ok",
        Verdict::No => "No",
    }
}

/// Where the verdict depends on which thread's `fence.proxy.async` counts
/// (D263, issue 41), the sentence that says so.
pub fn reading_note(r: &TestResult) -> Option<String> {
    let o = r.other_reading.as_ref()?;
    Some(format!(
        "the verdict {} is under the {} reading of fence.proxy.async (the fence must follow the generic access in its own thread; the default, D263); under the {} reading (a proxy fence anywhere on the causality path orders them) it is {}: `--model {}` decides under that reading",
        verdict_word(r.summary.verdict),
        o.decided_under,
        o.reading,
        verdict_word(o.verdict),
        crate::model::CUMULATIVE_PTX
    ))
}

/// The note of [`crate::check::foreign_wait`] for a result.
pub fn foreign_wait_note(r: &TestResult) -> Option<String> {
    r.foreign_wait.clone()
}

/// Where the test reads a variable the ISA gives no initial value (8.2.6),
/// the sentence that says the verdict holds for every value (D311).
pub fn unknown_note(r: &TestResult) -> Option<String> {
    let u = r.unknown_initial.as_ref()?;
    let verdict = verdict_word(r.summary.verdict);
    if let Some(why) = &u.not_shown {
        return Some(format!(
            "`{}` has no initial value (8.2.6: \"an unknown but constant value\"); with its bytes all 0 and all 0xa5 the final states and the verdict {} are the same, but that they are for every value is not shown ({})",
            u.variable, verdict, why
        ));
    }
    if u.cells.is_empty() {
        return Some(format!(
            "`{}` has no initial value (8.2.6: \"an unknown but constant value\"); no value read from it decides the verdict {}, which holds for every value",
            u.variable, verdict
        ));
    }
    let cells: Vec<String> = u.cells.iter().map(|c| format!("`{}`", c)).collect();
    Some(format!(
        "{} {} no initial value (8.2.6: \"an unknown but constant value\"); the verdict {} is the same for every value ({} {} standing for all of them checked), and the states listed take {} as 0",
        cells.join(", "),
        if cells.len() == 1 { "has" } else { "have" },
        verdict,
        u.values_checked,
        if u.values_checked == 1 { "value" } else { "combinations of values" },
        if cells.len() == 1 { "it" } else { "them" }
    ))
}

/// Why a result has no final state when a thread never leaves its spin loop
/// (D299): said beside the listing, whose `Flag deadlock` is the short form.
pub fn spin_note(r: &TestResult) -> Option<String> {
    let p = &r.program;
    if p.spinning_forever.is_empty() {
        return None;
    }
    let threads: Vec<String> = p.spinning_forever.iter().map(|t| format!("P{}", t)).collect();
    let one = threads.len() == 1;
    // The loop the unroll bound cut in a spinning thread, not another thread's.
    let cut = p.spinning_forever.iter().find_map(|t| p.unroll_cuts.get(t));
    let at = cut.map_or(String::new(), |(_, what)| format!(" (the first at {})", what));
    Some(format!(
        "{} never leave{} {} spin loop{}{}: no value that any execution writes ends it (D299), so no execution reaches a final state (Flag deadlock)",
        threads.join(", "),
        if one { "s" } else { "" },
        if one { "its" } else { "their" },
        if one { "" } else { "s" },
        at
    ))
}

/// The block of one test in herd7's log format (README, "Reading the
/// output"): what herd's own `mcompare7`/`msum7` read. `source` is the test's
/// text, for the `Hash=` line. A test without a condition is written as herd
/// writes one, `forall (true)`. A listing that `--states N` stopped starts
/// with a `Fatal:` line, which makes herd's tools skip the test instead of
/// reading the listed states as all of them (D111).
pub fn text(r: &TestResult, source: &str) -> String {
    let p = &r.program;
    let mut s = String::new();
    s.push_str(&format!("Test {} {}\n", p.name, herd::kind(p)));
    if r.summary.complete {
        s.push_str(&format!("States {}\n", r.outcome.states.len()));
    } else {
        s.push_str(&format!(
            "Fatal: {} lists {} of its final states (--states all lists every one)\n",
            p.name,
            r.outcome.states.len()
        ));
        s.push_str(&format!("States >= {} (more not listed)\n", r.outcome.states.len()));
    }
    for line in herd::state_lines(r) {
        s.push_str(&line);
        s.push('\n');
    }
    // Without a condition the verdict is herd's for `forall (true)`: Ok.
    let ok = r.summary.verdict == Verdict::Ok || !p.condition_given;
    // herd prints `Undef` for the verdict of a C test with a racy execution.
    let undefined = p.c11.is_some() && r.outcome.flags.data_race;
    s.push_str(if undefined {
        "Undef\n"
    } else if ok {
        "Ok\n"
    } else {
        "No\n"
    });
    s.push_str("Witnesses\n");
    let (positive, negative) = herd::witnesses(r);
    s.push_str(&format!("Positive: {} Negative: {}\n", positive, negative));
    for f in flags(r) {
        s.push_str(&format!("Flag {}\n", f));
    }
    s.push_str(&format!("Condition {}\n", herd::condition(r)));
    s.push_str(&format!("Observation {} {} {} {}\n", p.name, observation(r), r.summary.positive, r.summary.negative));
    s.push_str(&format!("Time {} {:.2}\n", p.name, r.time.as_secs_f64()));
    s.push_str(&format!("Hash={}\n", herd::hash(source)));
    s
}

/// Milliseconds to the microsecond: the clock's last digits are noise.
pub(crate) fn millis(d: std::time::Duration) -> f64 {
    d.as_micros() as f64 / 1000.0
}

/// The JSON object of one file (result or error). Field names are documented in the README.
pub fn json(f: &FileReport) -> Value {
    let file = f.path.display().to_string();
    match &f.result {
        Ok(r) => result_json(r, &file),
        Err(e) => failure_json(e, &file),
    }
}

/// One final state: observable name -> value.
pub(crate) fn state_json(p: &crate::program::Program, st: &crate::outcome::State) -> Value {
    let mut m = serde_json::Map::new();
    for (o, v) in p.observables.iter().zip(st) {
        m.insert(p.json_name(o), json!(v));
    }
    Value::Object(m)
}

/// The JSON object of one test's result (`result.schema.json#/$defs/result`).
pub(crate) fn result_json(r: &TestResult, file: &str) -> Value {
    let p = &r.program;
    let states: Vec<Value> = r.outcome.states.keys().map(|st| state_json(p, st)).collect();
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
        "time_ms": millis(r.time),
        "other_reading": r.other_reading.as_ref().map(|o| json!({
            "decided_under": o.decided_under,
            "reading": o.reading,
            "verdict": verdict_word(o.verdict),
            "note": reading_note(r),
        })),
        "unknown_initial": r.unknown_initial.as_ref().map(|u| json!({
            "variable": u.variable,
            "cells": u.cells,
            "values_checked": u.values_checked,
            "shown_for_every_value": u.not_shown.is_none(),
            "note": unknown_note(r),
        })),
    })
}

/// The JSON object of a file that failed (`result.schema.json#/$defs/failure`).
pub fn failure_json(e: &crate::error::Error, file: &str) -> Value {
    json!({
        "file": file,
        "error": {
            "kind": format!("{:?}", e.kind).to_lowercase(),
            "message": e.message,
            "line": e.span.map(|s| s.line),
            "column": e.span.map(|s| s.col),
            "exit_code": e.exit_code(),
        }
    })
}
