//! The JSON fields `executions` and `explanation` (schema: `schema/result.schema.json`).

use super::show::{ExecKind, Shown, ShownExec};
use crate::program::Program;
use serde_json::{json, Map, Value};

fn state(p: &Program, s: &[i64]) -> Value {
    let mut m = Map::new();
    for (o, v) in p.observables.iter().zip(s) {
        m.insert(p.json_name(o), json!(v));
    }
    Value::Object(m)
}

fn execution(p: &Program, x: &ShownExec) -> Value {
    let name = |i: usize| x.events[i].name.clone();
    let events: Vec<Value> = x
        .events
        .iter()
        .map(|e| {
            json!({
                "id": e.name,
                "event": e.event,
                "thread": e.thread,
                "text": e.text,
                "line": if e.thread.is_some() { Some(e.line) } else { None },
                "detail": e.detail,
            })
        })
        .collect();
    let edges: Vec<Value> = x
        .edges
        .iter()
        .map(
            |e| json!({ "kind": e.kind.label(), "from": name(e.from), "to": name(e.to), "highlighted": e.highlighted }),
        )
        .collect();
    json!({
        "kind": match x.kind { ExecKind::Witness => "witness", ExecKind::Forbidden => "forbidden" },
        "state": state(p, &x.state),
        "state_index": x.state_index,
        "candidate": x.candidate,
        "events": events,
        "edges": edges,
        "proxy_gaps": x.proxy_gaps,
    })
}

/// The fields to add to a test's JSON object when `--show` is given.
pub fn fields(p: &Program, s: &Shown) -> Map<String, Value> {
    let all = s.executions();
    let executions: Vec<Value> = all.iter().map(|x| execution(p, x)).collect();
    let mut explanation = Vec::new();
    for (i, x) in all.iter().enumerate() {
        let Some(v) = x.violations.first() else { continue };
        let name = |k: usize| x.events[k].name.clone();
        let cycle: Vec<Value> = v
            .cycle
            .iter()
            .map(|st| json!({ "from": name(st.from), "kind": st.kind.label(), "to": name(st.to) }))
            .collect();
        explanation.push(json!({
            "execution": i,
            "state": state(p, &x.state),
            "candidate": x.candidate,
            "axiom": v.axiom.name(),
            "section": v.axiom.section,
            "text": v.text,
            "notes": v.notes,
            "cycle": cycle,
            "also_violated": x.violations[1..].iter().map(|o| o.axiom.name()).collect::<Vec<_>>(),
        }));
    }
    let mut m = Map::new();
    m.insert("executions".into(), Value::Array(executions));
    m.insert("explanation".into(), Value::Array(explanation));
    m
}

/// Add the `--show` fields to a test's JSON object (objects without a result are left alone).
pub fn extend(obj: &mut Value, p: &Program, s: &Shown) {
    if let Value::Object(m) = obj {
        m.extend(fields(p, s));
    }
}
