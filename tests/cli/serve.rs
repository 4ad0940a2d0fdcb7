//! `ptx-litmus serve` (issue 29): the playground's JSON API answers with the
//! command line's JSON (validated by `schema/`), the page and its menus come
//! from the binary, and the server's limits hold: a body over the cap, 100
//! requests at once, a request past its timeout while others are answered.

use crate::common;

use common::http::{get, post, request, Server};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cli(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(args).current_dir(dir).output().unwrap()
}

fn valid(schema: &str, v: &Value) {
    let errs: Vec<String> =
        common::schema::validator(schema).iter_errors(v).map(|e| format!("{}: {}", e.instance_path(), e)).collect();
    assert!(errs.is_empty(), "{} breaks {}:\n{}", v, schema, errs.join("\n"));
}

const MP_REL_ACQ: &str = "litmus/classic/MP+rel+acq.litmus";

/// MP with st.release.gpu / ld.acquire.gpu in two CTAs of one GPU: the pair on
/// the flag is morally strong (8.7: both strong, each .gpu scope includes the
/// other thread), so the release synchronizes with the acquire (8.9.4) and
/// Causality (8.10.6) forbids reading the flag's 1 and then the data's 0: the
/// verdict of `exists` is No. The API's objects are the CLI's, schema-valid.
#[test]
fn check_answers_with_the_command_lines_json() {
    let s = Server::start(&["-j", "2"]);
    let source = std::fs::read_to_string(root().join(MP_REL_ACQ)).unwrap();
    let r = post(&s.addr, "/api/check", &json!({ "source": source }));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let check = &v["check"];
    valid("result.schema.json", check);
    valid("explain.schema.json", &v["explain"]);
    assert_eq!(check["verdict"], "No", "{}", check);
    let explanation = check["explanation"].as_array().unwrap();
    assert_eq!(explanation[0]["axiom"], "Causality", "{}", check);
    // One picture per shown execution; the forbidden one names its axiom.
    let executions = check["executions"].as_array().unwrap();
    let svg = v["svg"].as_array().unwrap();
    assert_eq!(svg.len(), executions.len());
    let forbidden = explanation[0]["execution"].as_u64().unwrap() as usize;
    assert!(svg[forbidden].as_str().unwrap().contains("Causality"));
    // The condition's state is forbidden, so no allowed state is marked.
    assert_eq!(v["marked"].as_array().unwrap().len(), check["states"].as_array().unwrap().len());
    assert!(v["marked"].as_array().unwrap().iter().all(|m| m == false));
    // The same states and verdict as `check --json` of the file.
    let out = cli(&["check", "--json", "--show", "witness,forbidden", MP_REL_ACQ], root());
    let want: Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in ["verdict", "states", "kind", "condition", "flags", "explanation"] {
        assert_eq!(check[field], want[field], "{}", field);
    }
    // Under ptx-alloy (the other PTX model) the same test is decided too.
    let r = post(&s.addr, "/api/check", &json!({ "source": source, "model": "ptx-alloy" }));
    valid("result.schema.json", &r.json()["check"]);
    assert_eq!(r.json()["check"]["verdict"], "No");
}

/// Every model the API offers is one `--model` takes; an unknown one is refused with the list.
#[test]
fn models_are_the_command_lines() {
    let s = Server::start(&[]);
    let info = get(&s.addr, "/api/info").json();
    let models: Vec<&str> = info["models"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert!(models.contains(&"ptx") && models.contains(&"ptx-alloy"), "{:?}", models);
    for m in &models {
        assert_eq!(cli(&["model", "--model", m], root()).status.code(), Some(0), "{}", m);
    }
    let r = post(&s.addr, "/api/check", &json!({ "source": "PTX t", "model": "tso" }));
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("ptx-alloy"), "{}", r.text());
}

/// A syntax error gets the CLI's message, with the line and column, and the
/// caret the CLI prints; JSON that is not a request and a test reading a file
/// are refused; the server goes on answering.
#[test]
fn bad_input_gets_the_command_lines_message() {
    let s = Server::start(&[]);
    let source = "PTX bad\n{\nx = 0;\n}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n ld.bogus r0, x ;\nexists (x == 1)\n";
    let v = post(&s.addr, "/api/check", &json!({ "source": source })).json();
    valid("result.schema.json", &v["check"]);
    let err = &v["check"]["error"];
    assert_eq!((err["kind"].as_str(), err["line"].as_u64()), (Some("input"), Some(7)), "{}", v);
    let text = v["error_text"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("editor.litmus"), source).unwrap();
    let out = cli(&["check", "editor.litmus"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), text.trim_end());
    assert!(text.contains('^'), "{}", text);
    // Not the API's JSON.
    let r = request(&s.addr, "POST", "/api/check", b"{\"source\": 3").unwrap();
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("JSON"));
    // D140: a `ptx "FILE";` line would have the server read its files.
    let with_module =
        "PTX m\n{\nx = 0;\n}\nptx \"/etc/passwd\";\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let v = post(&s.addr, "/api/check", &json!({ "source": with_module })).json();
    assert_eq!(v["check"]["error"]["line"], 5, "{}", v);
    assert!(v["error_text"].as_str().unwrap().contains("reads no files"), "{}", v);
    assert_eq!(get(&s.addr, "/nope").status, 404);
    // A page of another site whose name resolves to 127.0.0.1 is not answered.
    let r = common::http::request_for(&s.addr, "evil.example:8117", "GET", "/api/info", b"").unwrap();
    assert_eq!(r.status, 403);
    let port = s.addr.rsplit(':').next().unwrap();
    assert_eq!(
        common::http::request_for(&s.addr, &format!("localhost:{}", port), "GET", "/", b"").unwrap().status,
        200
    );
    assert_eq!(get(&s.addr, "/api/info").status, 200);
}

/// A 1 MiB body is refused (413, the JSON error shape) without harm.
#[test]
fn a_body_over_the_cap_is_refused() {
    let mut s = Server::start(&[]);
    let big = vec![b' '; 1 << 20];
    let r = request(&s.addr, "POST", "/api/check", &big).unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    valid("result.schema.json", &r.json());
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("longer than"));
    assert!(s.alive());
    let source = std::fs::read_to_string(root().join(MP_REL_ACQ)).unwrap();
    assert_eq!(post(&s.addr, "/api/check", &json!({ "source": source })).json()["check"]["verdict"], "No");
}

/// 100 requests at once on 2 workers: each is answered, with the verdict or
/// (past the queue) a clean 503; at least a queue's worth are decided.
#[test]
fn a_hundred_requests_at_once() {
    let mut s = Server::start(&["-j", "2"]);
    let source = std::fs::read_to_string(root().join(MP_REL_ACQ)).unwrap();
    let body = json!({ "source": source });
    let answers: Vec<(u16, Value)> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..100)
            .map(|_| {
                sc.spawn(|| {
                    let r = post(&s.addr, "/api/check", &body);
                    (r.status, r.json())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let decided = answers.iter().filter(|(st, v)| *st == 200 && v["check"]["verdict"] == "No").count();
    let busy = answers.iter().filter(|(st, v)| *st == 503 && v["error"]["kind"] == "limit").count();
    assert_eq!(decided + busy, 100, "{:?}", answers.iter().map(|a| a.0).collect::<Vec<_>>());
    assert!(decided >= 64, "{} decided", decided);
    assert!(s.alive());
    assert_eq!(post(&s.addr, "/api/check", &body).status, 200);
}

/// A test past its timeout ends as the CLI's limit error, and while it runs
/// the other worker answers: the quick request's answer comes first.
#[test]
fn a_request_past_its_timeout_does_not_stop_the_others() {
    let mut s = Server::start(&["-j", "2", "--timeout", "60"]);
    // 14 threads adding to one location: minutes for the solver.
    let n = 14;
    let head: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let row: Vec<String> = (0..n).map(|i| format!("atom.relaxed.gpu.add r0, x, {}", 1 + usize::from(i == 0))).collect();
    let slow =
        format!("PTX slow\n{{\nx = 0;\n}}\n {} ;\n {} ;\nforall (x == {})\n", head.join(" | "), row.join(" | "), n + 1);
    let mp = std::fs::read_to_string(root().join(MP_REL_ACQ)).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|sc| {
        let tx2 = tx.clone();
        let addr = &s.addr;
        sc.spawn(move || {
            let r = post(addr, "/api/check", &json!({ "source": slow, "timeout": 3 }));
            tx2.send(("slow", r.json())).unwrap();
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        let r = post(addr, "/api/check", &json!({ "source": mp }));
        tx.send(("quick", r.json())).unwrap();
    });
    let (first, quick) = rx.recv().unwrap();
    let (second, slow) = rx.recv().unwrap();
    assert_eq!((first, second), ("quick", "slow"));
    assert_eq!(quick["check"]["verdict"], "No");
    valid("result.schema.json", &slow["check"]);
    assert_eq!(slow["check"]["error"]["kind"], "limit", "{}", slow);
    assert!(slow["check"]["error"]["message"].as_str().unwrap().contains("timeout"), "{}", slow);
    assert!(s.alive());
}

/// MP with relaxed accesses is allowed (nothing synchronizes, 8.9.4); advise's
/// repairs come with their changed tests, and the first one checks to No.
#[test]
fn advise_offers_repairs_that_check() {
    let s = Server::start(&[]);
    let t = get(&s.addr, "/api/gen?shape=MP&sem=relaxed").json();
    let v = post(&s.addr, "/api/advise", &json!({ "source": t["source"] })).json();
    valid("advise.schema.json", &v["advise"]);
    assert_eq!(v["advise"]["reachable"], true, "{}", v);
    let sources = v["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{}", v);
    let r = post(&s.addr, "/api/check", &json!({ "source": sources[0] })).json();
    assert_eq!(r["check"]["verdict"], "No", "{}", r);
}

/// The page and its menus: the library is the files of `litmus/`, a `gen`
/// test is the one `ptx-litmus gen` writes.
#[test]
fn page_library_and_gen() {
    let s = Server::start(&[]);
    let page = get(&s.addr, "/");
    assert!(page.status == 200 && page.text().contains("<textarea"), "{}", page.text());
    for asset in ["/app.js", "/app.css"] {
        assert_eq!(get(&s.addr, asset).status, 200, "{}", asset);
    }
    let info = get(&s.addr, "/api/info").json();
    let library = info["library"].as_array().unwrap();
    assert!(library.len() > 100, "{}", library.len());
    for path in library.iter().map(|p| p.as_str().unwrap()) {
        let q = path.replace('+', "%2B");
        let t = get(&s.addr, &format!("/api/library?path={}", q)).json();
        assert_eq!(
            t["source"].as_str(),
            Some(std::fs::read_to_string(root().join("litmus").join(path)).unwrap().as_str())
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = cli(&["gen", "MP", "--scope", "cta", "--placement", "same-cta", "--out", "g", "-q"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let t = get(&s.addr, "/api/gen?shape=MP&scope=cta&placement=same-cta").json();
    let file = dir.path().join("g").join(format!("{}.litmus", t["name"].as_str().unwrap()));
    assert_eq!(t["source"].as_str(), Some(std::fs::read_to_string(file).unwrap().as_str()));
    assert_eq!(get(&s.addr, "/api/gen?shape=MP&scope=warp").status, 400);
    assert_eq!(get(&s.addr, "/api/library?path=../Cargo.toml").status, 404);
}

/// A port already taken is a clear error (exit 3), not a panic; bad option
/// values are refused as the other subcommands refuse them (exit 2).
#[test]
fn a_taken_port_and_bad_options() {
    let s = Server::start(&[]);
    let port = s.addr.rsplit(':').next().unwrap();
    let out = cli(&["serve", "--port", port], root());
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen on 127.0.0.1"));
    for bad in [&["serve", "--port", "70000"][..], &["serve", "--timeout", "0"], &["serve", "-j", "0"]] {
        assert_eq!(cli(bad, root()).status.code(), Some(2), "{:?}", bad);
    }
}
