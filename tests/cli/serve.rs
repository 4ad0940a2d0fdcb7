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
    // The async proxy's lessons (issue 41), under their two-level folder.
    assert!(library.iter().any(|p| p.as_str().is_some_and(|p| p.starts_with("async/core/"))), "{:?}", library);
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

/// A C test of `n` blocks nested in one another (`{{{...}}}`) in its thread.
fn nested_blocks(n: usize) -> String {
    format!("C deep\n{{ x = 0; }}\nP0 (atomic_int* x) {{\n{}{}\n}}\nexists (x == 1)\n", "{".repeat(n), "}".repeat(n))
}

/// A C test storing `-...-1` (`n` unary minus signs) to x.
fn unary_minus(n: usize) -> String {
    format!(
        "C minus\n{{ x = 0; }}\nP0 (atomic_int* x) {{\n  int r0 = {}1;\n  atomic_store_explicit(x, r0, memory_order_relaxed);\n}}\nexists (x == 1)\n",
        "-".repeat(n)
    )
}

/// The answer to a test the server could not decide is the endpoint's own
/// shape (the page shows it as a failed check), with an error of `kind`.
fn failed_check(r: &common::http::Response, kind: &str) {
    let v = r.json();
    valid("result.schema.json", &v["check"]);
    assert_eq!(v["check"]["error"]["kind"], kind, "{}", v);
    assert!(v["error_text"].is_string(), "{}", v);
}

/// Issue 39: 50,000 nested blocks (100 KB) overflowed a worker's stack and
/// aborted the server; 100,000 unary minus signs are the other deep
/// test. Each is answered (a verdict, an input error, or an internal error
/// when its process ended) and the server goes on deciding: MP with
/// release/acquire at .gpu across CTAs is still No (Causality, 8.10.6).
#[test]
fn deep_tests_do_not_take_the_server_down() {
    let mut s = Server::start(&["-j", "1"]);
    for source in [nested_blocks(50_000), unary_minus(100_000)] {
        let r = post(&s.addr, "/api/check", &json!({ "source": source }));
        assert!(matches!(r.status, 200 | 500), "{}: {}", r.status, r.text());
        let v = r.json();
        valid("result.schema.json", &v["check"]);
        if r.status == 500 {
            failed_check(&r, "internal");
        }
        assert!(s.alive(), "the server ended");
        assert_eq!(get(&s.addr, "/api/info").status, 200);
    }
    let mp = std::fs::read_to_string(root().join(MP_REL_ACQ)).unwrap();
    assert_eq!(post(&s.addr, "/api/check", &json!({ "source": mp })).json()["check"]["verdict"], "No");
}

/// D245: a check whose process aborts (here on purpose, as a stack overflow
/// would abort it, whatever the parsers bound) is answered 500 with an
/// internal error in the endpoint's shape, for `check` and `advise`, and the
/// server answers the next request.
#[test]
fn an_aborting_check_is_answered_and_the_server_goes_on() {
    let mut s = Server::start_with_env(&["-j", "1"], &[("PTXL_SERVE_WORKER_ABORT", "1")]);
    let mp = std::fs::read_to_string(root().join(MP_REL_ACQ)).unwrap();
    for _ in 0..2 {
        let r = post(&s.addr, "/api/check", &json!({ "source": mp }));
        assert_eq!(r.status, 500, "{}", r.text());
        failed_check(&r, "internal");
        assert!(r.json()["error_text"].as_str().unwrap().contains("signal 6"), "{}", r.text());
        assert!(s.alive());
    }
    let r = post(&s.addr, "/api/advise", &json!({ "source": mp }));
    assert_eq!(r.status, 500, "{}", r.text());
    valid("advise.schema.json", &r.json()["advise"]);
    assert!(r.json()["error_text"].is_string());
    assert_eq!(get(&s.addr, "/api/info").status, 200);
    assert!(s.alive());
}

/// The resident size a process has peaked at, in bytes (`VmHWM`).
fn peak_resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid)).unwrap();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap();
    kb.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap() << 10
}

/// Issue 39: a header line was buffered without bound (two connections of one
/// 300 MiB line each took the server past 1.1 GB). Now a request's line and
/// headers are at most 64 KiB and 100 headers (D246): a longer line or more
/// headers get 431, the server stays small and goes on answering.
#[test]
fn request_headers_are_bounded() {
    let mut s = Server::start(&[]);
    let long = format!("GET /api/info HTTP/1.1\r\nHost: {}\r\nX-Long: {}", s.addr, "a".repeat(100 << 10));
    let r = common::http::raw(&s.addr, &long, b"").unwrap();
    assert_eq!(r.status, 431, "{}", r.text());
    let many: String = (0..1000).map(|i| format!("\r\nX-{}: 1", i)).collect();
    let r = common::http::raw(&s.addr, &format!("GET /api/info HTTP/1.1\r\nHost: {}{}", s.addr, many), b"").unwrap();
    assert_eq!(r.status, 431, "{}", r.text());
    // Under the bounds a request is answered as before.
    let fine: String = (0..90).map(|i| format!("\r\nX-{}: {}", i, "b".repeat(500))).collect();
    let r = common::http::raw(&s.addr, &format!("GET /api/info HTTP/1.1\r\nHost: {}{}", s.addr, fine), b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    // Two connections streaming one 300 MiB header line each: the server
    // stops reading them, and its resident size stays far below one line.
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| {
                use std::io::Write;
                let mut c = std::net::TcpStream::connect(&s.addr).unwrap();
                let chunk = vec![b'a'; 1 << 20];
                let _ = c.write_all(format!("GET / HTTP/1.1\r\nHost: {}\r\nX-Huge: ", s.addr).as_bytes());
                for _ in 0..300 {
                    if c.write_all(&chunk).is_err() {
                        break;
                    }
                }
            });
        }
    });
    let peak = peak_resident(s.pid());
    assert!(peak < 200 << 20, "the server peaked at {} MiB", peak >> 20);
    assert!(s.alive());
    assert_eq!(get(&s.addr, "/api/info").status, 200);
}

/// Issue 39: any web page could make the browser POST a `text/plain` body to
/// 127.0.0.1 (a CORS "simple" request, sent without asking first), and it was
/// decided. Work is taken only as `application/json`, with no `Origin` (curl)
/// or the page's own (D247); anything else is 403 and decides nothing.
#[test]
fn work_is_taken_only_as_json_from_the_page() {
    let s = Server::start(&[]);
    let port = s.addr.rsplit(':').next().unwrap();
    let body = json!({ "source": std::fs::read_to_string(root().join(MP_REL_ACQ)).unwrap() }).to_string();
    let send = |content_type: Option<&str>, origin: Option<&str>| {
        let mut head = format!("POST /api/check HTTP/1.1\r\nHost: {}\r\nContent-Length: {}", s.addr, body.len());
        for (name, value) in [("Content-Type", content_type), ("Origin", origin)] {
            if let Some(v) = value {
                head.push_str(&format!("\r\n{}: {}", name, v));
            }
        }
        common::http::raw(&s.addr, &(head + "\r\nConnection: close"), body.as_bytes()).unwrap()
    };
    let page = format!("http://127.0.0.1:{}", port);
    let refused = [
        (Some("text/plain"), None),
        (Some("text/plain;charset=UTF-8"), Some(page.as_str())),
        (Some("application/x-www-form-urlencoded"), None),
        (Some("multipart/form-data; boundary=x"), None),
        (None, None),
        (Some("application/json"), Some("http://evil.example")),
        (Some("application/json"), Some("null")),
        (Some("application/json"), Some("http://127.0.0.1:1")),
    ];
    for (ct, origin) in refused {
        let r = send(ct, origin);
        assert_eq!(r.status, 403, "{:?} {:?}: {}", ct, origin, r.text());
        valid("result.schema.json", &r.json());
        assert!(r.json().get("check").is_none(), "decided: {}", r.text());
    }
    let localhost = format!("http://localhost:{}", port);
    let accepted = [
        (Some("application/json"), None),
        (Some("application/json; charset=utf-8"), Some(page.as_str())),
        (Some("Application/JSON"), Some(localhost.as_str())),
    ];
    for (ct, origin) in accepted {
        let r = send(ct, origin);
        assert_eq!(r.status, 200, "{:?} {:?}: {}", ct, origin, r.text());
        assert_eq!(r.json()["check"]["verdict"], "No");
    }
}

/// `serve --help` gives the request timeout's default, which a request
/// without `timeout` runs under (the README's "default 10 s").
#[test]
fn serve_help_gives_the_default_timeout() {
    let out = cli(&["serve", "--help"], root());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("[default: 10]"), "{}", help);
    assert!(!help.contains("--worker"), "{}", help);
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("`--timeout` (default 10 s)"));
}
