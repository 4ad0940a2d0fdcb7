//! The playground's JSON API. `GET` requests (the page, the menus, a generated
//! test) are answered at once; `POST /api/check` and `POST /api/advise` decide
//! a test and run on a worker under the request's budget.
//!
//! - `GET /api/info`: models, library, `gen` options, limits;
//! - `GET /api/library?path=P`, `GET /api/gen?shape=MP&sem=..&scope=..`: `{name, source}`;
//! - `POST /api/check {source, model?, timeout?}`: `{check, svg, marked, explain, error_text}`,
//!   `check` being `check --json --show witness,forbidden`'s object, `svg` one
//!   picture per execution of it (`--svg`), `marked` whether each of its states
//!   is one the condition is about, `explain` being `explain --json`'s object;
//! - `POST /api/advise {source, model?, timeout?}`: `{advise, sources, error_text}`,
//!   `advise` being `advise --json`'s object and `sources` the changed test of
//!   each repair or weakening, in the object's order.

use super::{assets, Reply, ServeOptions};
use crate::batch::check_text;
use crate::check::{guarded, CheckOptions};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::explain::{self, ShowOptions};
use crate::gen::{self, FenceOpt, Placement, ProxyOpt, Scope, SemOpt, Variant};
use crate::model::ModelKind;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// The file name errors and JSON objects give the editor's text.
pub(crate) const EDITOR: &str = "editor.litmus";

/// Every built-in model, by the names `--model` takes (a model file is not
/// offered: the playground reads no files, D140).
pub(crate) fn model_names() -> Vec<&'static str> {
    ModelKind::BUILTIN.iter().map(|m| m.name()).collect()
}

fn model_named(name: &str) -> Option<ModelKind> {
    ModelKind::from_name(name)
}

/// Requests that decide a test (queued for a worker).
pub(crate) fn is_work(method: &tiny_http::Method, url: &str) -> bool {
    *method == tiny_http::Method::Post && matches!(path_of(url), "/api/check" | "/api/advise")
}

fn path_of(url: &str) -> &str {
    url.split('?').next().unwrap_or(url)
}

/// The answer to a request that decides nothing.
pub fn immediate(method: &tiny_http::Method, url: &str) -> Reply {
    if *method != tiny_http::Method::Get {
        return Reply::error(405, "input", &format!("{} {}: not a request the playground answers", method, url));
    }
    let page = |content_type, text: &str| Reply { status: 200, content_type, body: text.as_bytes().to_vec() };
    match path_of(url) {
        "/" | "/index.html" => page("text/html; charset=utf-8", assets::INDEX_HTML),
        "/app.css" => page("text/css; charset=utf-8", assets::APP_CSS),
        "/app.js" => page("text/javascript; charset=utf-8", assets::APP_JS),
        "/api/info" => Reply::json(200, &info()),
        "/api/library" => library(&query(url)),
        "/api/gen" => generate(&query(url)),
        path => Reply::error(404, "input", &format!("{}: no such page", path)),
    }
}

fn info() -> Value {
    let names = |it: &mut dyn Iterator<Item = &'static str>| it.collect::<Vec<_>>();
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "models": model_names(),
        "default_model": ModelKind::Ptx.name(),
        "library": assets::LIBRARY.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        "gen": {
            "shapes": names(&mut gen::shapes::NAMED.iter().map(|(n, _)| *n)),
            "sem": names(&mut SemOpt::ALL.iter().map(|x| x.name())),
            "fence": names(&mut FenceOpt::ALL.iter().map(|x| x.name())),
            "scope": names(&mut Scope::ALL.iter().map(|x| x.name())),
            "placement": names(&mut Placement::ALL.iter().map(|x| x.name())),
            "proxy": names(&mut ProxyOpt::ALL.iter().map(|x| x.name())),
        },
        "limits": { "max_body_bytes": super::MAX_BODY_BYTES },
    })
}

fn library(q: &[(String, String)]) -> Reply {
    let path = param(q, "path").unwrap_or_default();
    match assets::library_test(path) {
        Some(text) => Reply::json(200, &json!({ "name": path, "source": text })),
        None => Reply::error(404, "input", &format!("`{}` is not a test of the library", path)),
    }
}

/// A `gen` test: the shape and one value of each option (defaults as `gen`'s).
fn generate(q: &[(String, String)]) -> Reply {
    fn pick<T: Copy>(q: &[(String, String)], key: &str, default: T, parse: fn(&str) -> Option<T>) -> Result<T> {
        match param(q, key) {
            None => Ok(default),
            Some(v) => parse(v).ok_or_else(|| Error::input_nospan(format!("--{}: unknown value `{}`", key, v))),
        }
    }
    let d = Variant::default();
    let variant = (|| {
        Ok::<_, Error>(Variant {
            sem: pick(q, "sem", d.sem, SemOpt::parse)?,
            fence: pick(q, "fence", d.fence, FenceOpt::parse)?,
            scope: pick(q, "scope", d.scope, Scope::parse)?,
            placement: pick(q, "placement", d.placement, Placement::parse)?,
            proxy: pick(q, "proxy", d.proxy, ProxyOpt::parse)?,
            ..d
        })
    })();
    let test = variant.map_err(|e| e.message).and_then(|v| gen::shape_test(param(q, "shape").unwrap_or("MP"), &v));
    match test {
        Ok(t) => Reply::json(200, &json!({ "name": t.name, "source": t.source })),
        Err(m) => Reply::error(400, "input", &m),
    }
}

/// A request to decide a test.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Decide {
    source: String,
    #[serde(default)]
    model: Option<String>,
    /// Seconds; the server's `--timeout` is the most a request gets.
    #[serde(default)]
    timeout: Option<f64>,
}

/// The answer to `POST /api/check` or `/api/advise` with `body`.
pub fn work(url: &str, body: &[u8], opts: &ServeOptions) -> Reply {
    let decide: Decide = match serde_json::from_slice(body) {
        Ok(d) => d,
        Err(e) => return Reply::error(400, "input", &format!("the request is not the JSON the API takes: {}", e)),
    };
    let copts = match check_options(&decide, opts) {
        Ok(c) => c,
        Err(m) => return Reply::error(400, "input", &m),
    };
    let answer = match path_of(url) {
        "/api/advise" => advise(&decide.source, copts),
        _ => check(&decide.source, &copts),
    };
    Reply::json(200, &answer)
}

/// A request that decides a test and got no answer (its process ended, or
/// ran past its hard limit): `message` in the endpoint's own shape, so the
/// page shows it as it shows a failed check or advice.
pub(crate) fn failure(url: &str, status: u16, kind: &str, message: &str) -> Reply {
    let error = Error { kind: error_kind(kind), message: message.to_string(), span: None, origin: None };
    let v = match path_of(url) {
        "/api/advise" => json!({ "advise": crate::advise::render::failure_json(EDITOR, &error),
            "sources": [], "error_text": message }),
        _ => {
            let check = Reply::error(status, kind, message);
            let check: Value = serde_json::from_slice(&check.body).unwrap_or(Value::Null);
            json!({ "check": check, "svg": [], "marked": [], "explain": null, "error_text": message })
        }
    };
    Reply::json(status, &v)
}

fn error_kind(kind: &str) -> crate::error::ErrorKind {
    match kind {
        "input" => crate::error::ErrorKind::Input,
        "limit" => crate::error::ErrorKind::Limit,
        _ => crate::error::ErrorKind::Internal,
    }
}

/// The command line's options for one request: its model, the budget.
fn check_options(d: &Decide, opts: &ServeOptions) -> std::result::Result<CheckOptions, String> {
    let model = match &d.model {
        None => None,
        Some(name) => Some(
            model_named(name).ok_or_else(|| format!("no model `{}` (one of: {})", name, model_names().join(", ")))?,
        ),
    };
    let asked = match d.timeout {
        None => opts.timeout,
        Some(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t.min(opts.timeout.as_secs_f64())),
        Some(t) => return Err(format!("timeout `{}`: the timeout must be a number of seconds more than 0", t)),
    };
    let kind = model.unwrap_or_default();
    let limits = crate::budget::Limits { timeout: Some(asked), max_bytes: opts.max_memory, max_work: None };
    let ctx = Ctx::of_command(kind.shared(), model.is_some(), limits);
    Ok(CheckOptions {
        show: Some(ShowOptions { ctx: ctx.clone(), ..ShowOptions::default() }),
        ctx,
        ..CheckOptions::default()
    })
}

/// The playground decides self-contained tests: a `ptx "FILE";` line would
/// have the server read its own files (D140).
fn refuse_modules(source: &str) -> Result<()> {
    if crate::c11::is_c_source(source) {
        return Ok(());
    }
    match crate::parse::parse_litmus(source) {
        Ok(ast) => match ast.modules.first() {
            Some(m) => Err(Error::input(
                "the playground reads no files: paste the module's functions into the test, or check it with `ptx-litmus check`",
                m.span,
            )),
            None => Ok(()),
        },
        // The check reports the syntax error itself.
        Err(_) => Ok(()),
    }
}

fn check(source: &str, copts: &CheckOptions) -> Value {
    let report = match refuse_modules(source) {
        Ok(()) => check_text(Path::new(EDITOR), source.to_string(), Path::new("."), copts),
        Err(e) => crate::batch::FileReport { path: EDITOR.into(), source: source.into(), result: Err(e), shown: None },
    };
    let mut obj = crate::report::json(&report);
    let Ok(r) = &report.result else {
        let text = report.result.as_ref().err().map(|e| e.render(EDITOR, source));
        return json!({ "check": obj, "svg": [], "marked": [], "explain": null, "error_text": text });
    };
    let (mut show_error, mut svg) = (None, Vec::new());
    match &report.shown {
        Some(Ok(s)) => {
            explain::json::extend(&mut obj, &r.program, s);
            svg = s.executions().iter().map(|x| explain::svg::render(&r.program, x)).collect();
        }
        Some(Err(e)) => show_error = Some(e.render(EDITOR, source)),
        None => {}
    }
    let explained = guarded(copts, || explain::pairs::explanation_of_source(source, Path::new("."), copts));
    let explain = match explained {
        Ok(x) => {
            let mut v = serde_json::to_value(&x).unwrap_or(Value::Null);
            v["file"] = EDITOR.into();
            v
        }
        Err(e) => json!({ "error": e.render(EDITOR, source) }),
    };
    // The states the condition is about (`exists`: satisfying it; `forall`: violating it).
    let marked: Vec<bool> =
        r.outcome.states.keys().map(|st| explain::show::forbidden_matches(&r.program, st)).collect();
    json!({ "check": obj, "svg": svg, "marked": marked, "explain": explain, "error_text": show_error })
}

fn advise(source: &str, check: CheckOptions) -> Value {
    use crate::advise::{advise_source, render, AdviseOptions};
    let opts = AdviseOptions { check: CheckOptions { show: None, ..check }, ..AdviseOptions::default() };
    let unbudgeted = CheckOptions { ctx: opts.check.ctx.with_timeout(None), ..opts.check.clone() };
    let advice = refuse_modules(source).and_then(|()| guarded(&unbudgeted, || advise_source(source, &opts)));
    match advice {
        Ok(a) => {
            let sources: Vec<&str> =
                a.repairs.iter().chain(&a.weakenings).chain(&a.maximal_weakening).map(|x| x.source.as_str()).collect();
            json!({ "advise": render::json(&a, EDITOR, &[]), "sources": sources, "error_text": null })
        }
        Err(e) => {
            json!({ "advise": render::failure_json(EDITOR, &e), "sources": [], "error_text": e.render(EDITOR, source) })
        }
    }
}

/// The `key=value` pairs of a URL's query, percent-decoded.
fn query(url: &str) -> Vec<(String, String)> {
    let Some((_, q)) = url.split_once('?') else { return Vec::new() };
    q.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (percent_decode(k), percent_decode(v))).collect()
}

fn param<'a>(q: &'a [(String, String)], key: &str) -> Option<&'a str> {
    q.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// `%2B` -> `+`, `+` -> ` ` (form encoding); a malformed escape stays as written.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_percent_decoded() {
        let q = query("/api/library?path=classic/MP%2Brel%2Bacq.litmus&x=a+b&bad=%zz%4");
        assert_eq!(param(&q, "path"), Some("classic/MP+rel+acq.litmus"));
        assert_eq!(param(&q, "x"), Some("a b"));
        assert_eq!(param(&q, "bad"), Some("%zz%4"));
        assert_eq!(param(&q, "none"), None);
        assert!(query("/api/info").is_empty());
    }

    #[test]
    fn every_model_is_found_by_its_name() {
        for name in model_names() {
            assert_eq!(model_named(name).map(|m| m.name()), Some(name));
        }
        assert_eq!(model_named("tso"), None);
    }
}
