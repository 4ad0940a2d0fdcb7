//! JSON against a JSON schema: a small validator for the keywords the
//! project's schemas use (type, enum, properties, required,
//! additionalProperties, items, minimum, oneOf, $ref to #/$defs).

// Each test binary uses some of tests/common only.
#![allow(dead_code)]

use serde_json::Value;

fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(|r| r.as_str()) {
        Some(r) => {
            let name = r.strip_prefix("#/$defs/").unwrap_or_else(|| panic!("unsupported $ref {}", r));
            resolve(root, &root["$defs"][name])
        }
        None => s,
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => panic!("unsupported type {}", t),
    }
}

pub fn validate(root: &Value, schema: &Value, v: &Value, path: &str, errs: &mut Vec<String>) {
    let s = resolve(root, schema);
    if let Some(alts) = s.get("oneOf").and_then(|a| a.as_array()) {
        let ok = alts
            .iter()
            .filter(|alt| {
                let mut e = Vec::new();
                validate(root, alt, v, path, &mut e);
                e.is_empty()
            })
            .count();
        if ok != 1 {
            errs.push(format!("{}: matches {} of the oneOf alternatives", path, ok));
        }
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().any(|t| type_ok(t.as_str().unwrap(), v)),
            _ => panic!("bad type"),
        };
        if !ok {
            errs.push(format!("{}: {} is not of type {}", path, v, t));
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(|e| e.as_array()) {
        if !e.contains(v) {
            errs.push(format!("{}: {} is not one of {:?}", path, v, e));
        }
    }
    if let (Some(m), Some(x)) = (s.get("minimum").and_then(|m| m.as_f64()), v.as_f64()) {
        if x < m {
            errs.push(format!("{}: {} < {}", path, x, m));
        }
    }
    if let Value::Object(o) = v {
        for r in s.get("required").and_then(|r| r.as_array()).into_iter().flatten() {
            if !o.contains_key(r.as_str().unwrap()) {
                errs.push(format!("{}: missing {}", path, r));
            }
        }
        let props = s.get("properties").and_then(|p| p.as_object());
        for (k, x) in o {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => validate(root, ps, x, &format!("{}.{}", path, k), errs),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => errs.push(format!("{}: unexpected field {}", path, k)),
                    Some(a @ Value::Object(_)) => validate(root, a, x, &format!("{}.{}", path, k), errs),
                    _ => {}
                },
            }
        }
    }
    if let (Value::Array(a), Some(items)) = (v, s.get("items")) {
        for (i, x) in a.iter().enumerate() {
            validate(root, items, x, &format!("{}[{}]", path, i), errs);
        }
    }
}
