//! `ptx-litmus serve`: the teaching playground (README "Teaching with the
//! playground"). A web server on the loopback interface serves one page, whose
//! assets are compiled into the binary, and a JSON API behind it that answers
//! with the JSON the command line prints (`check --json --show`, `explain
//! --json`, `advise --json`).
//!
//! Limits (D141): every check runs under the command line's per-test budget
//! (`--timeout`, `--max-memory`) on one of `-j` worker threads; a request body
//! is capped at `MAX_BODY_BYTES`; at most `QUEUE_PER_WORKER` requests per
//! worker wait, and a request past that is answered 503 at once. A request
//! never takes the server down: each check runs in a process of its own
//! (`isolate`, D245), where a stack overflow or an abort ends that process
//! only and the request is answered 500; a panic in a check is the check's
//! internal error (`check::guarded`), and one outside it is answered 500.
//! A request's line and headers are at most 64 KiB and 100 headers (431,
//! vendor/tiny_http, D246). Work is accepted only as `application/json` and
//! from the page's own origin or none (403, D247): a page of another site may
//! send a form or `text/plain` POST to 127.0.0.1 without asking first.

mod api;
mod assets;
mod isolate;

pub use isolate::{worker, HARD_LIMIT_GRACE};

use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::mpsc::{sync_channel, Receiver, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Largest request body. A teaching test is a few kilobytes (the largest of
/// the curated library is under 8 KiB); the JSON around it is small.
pub(crate) const MAX_BODY_BYTES: usize = 256 << 10;

/// Requests that may wait for a worker, per worker.
pub(crate) const QUEUE_PER_WORKER: usize = 32;

/// Per-request time limit when `--timeout` is not given: a page checking as
/// one types wants an answer in seconds, not a test running for hours.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// TCP port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// Worker threads deciding tests (requests decided at once).
    pub workers: usize,
    /// Longest time one request may take; a request may ask for less.
    pub timeout: Duration,
    /// Memory budget of one request, in bytes (`--max-memory`).
    pub max_memory: u64,
    /// The program run as `EXE serve --worker` to decide each request in a
    /// process of its own (D245); `None` decides in the server's threads,
    /// where a stack overflow ends the server.
    pub worker_exe: Option<std::path::PathBuf>,
}

/// A response: status and JSON or page text.
pub(crate) struct Reply {
    pub status: u16,
    pub(crate) content_type: &'static str,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(status: u16, v: &serde_json::Value) -> Reply {
        Reply { status, content_type: "application/json; charset=utf-8", body: v.to_string().into_bytes() }
    }

    /// An error in the shape of a failed check's JSON (schema/result.schema.json).
    pub fn error(status: u16, kind: &str, message: &str) -> Reply {
        let exit_code = if kind == "input" { crate::error::EXIT_INPUT } else { crate::error::EXIT_INTERNAL };
        let v = serde_json::json!({ "file": api::EDITOR, "error": {
            "kind": kind, "message": message, "line": null, "column": null, "exit_code": exit_code } });
        Reply::json(status, &v)
    }
}

/// Start listening on 127.0.0.1 and call `ready` with the page's address;
/// then answer requests until the process ends.
pub fn serve(opts: ServeOptions, ready: impl FnOnce(&str)) -> std::io::Result<()> {
    let server = tiny_http::Server::http(SocketAddr::from((Ipv4Addr::LOCALHOST, opts.port)))
        .map_err(|e| std::io::Error::other(format!("cannot listen on 127.0.0.1:{}: {}", opts.port, e)))?;
    let addr = server.server_addr().to_ip().ok_or_else(|| std::io::Error::other("not a TCP listener"))?;
    ready(&format!("http://{}/", addr));
    let workers = opts.workers.max(1);
    let (queue, waiting) = sync_channel::<tiny_http::Request>(workers * QUEUE_PER_WORKER);
    let waiting = Arc::new(Mutex::new(waiting));
    let opts = Arc::new(opts);
    for i in 0..workers {
        let (waiting, opts) = (waiting.clone(), opts.clone());
        std::thread::Builder::new()
            .name(format!("serve-{}", i))
            .stack_size(crate::batch::WORKER_STACK)
            .spawn(move || work(&waiting, &opts))?;
    }
    for request in server.incoming_requests() {
        if !addressed_to_loopback(&request) {
            respond(
                request,
                Reply::error(403, "input", "the playground answers requests for 127.0.0.1 or localhost only"),
            );
            continue;
        }
        if !api::is_work(request.method(), request.url()) {
            let reply = answer_guarded(|| api::immediate(request.method(), request.url()));
            respond(request, reply);
            continue;
        }
        if let Err(msg) = sent_by_the_page(&request, addr.port()) {
            respond(request, Reply::error(403, "input", &msg));
            continue;
        }
        if let Err(TrySendError::Full(r) | TrySendError::Disconnected(r)) = queue.try_send(request) {
            let msg = "the server is busy: every worker is deciding a test and the queue is full; try again";
            respond(r, Reply::error(503, "limit", msg));
        }
    }
    Ok(())
}

/// The request names the loopback host (or none): a page of another site
/// that a DNS name pointed at 127.0.0.1 ("DNS rebinding") is not answered.
fn addressed_to_loopback(request: &tiny_http::Request) -> bool {
    request.headers().iter().filter(|h| h.field.equiv("Host")).all(|h| {
        let host = h.value.as_str();
        let name = host.rsplit_once(':').map_or(host, |(name, _)| name);
        matches!(name, "127.0.0.1" | "localhost" | "[::1]")
    })
}

/// Work comes as JSON from the playground's own page, or from a client that
/// is no page (no `Origin`, as `curl`). A page of any other site may POST to
/// 127.0.0.1 without the browser asking first when the body is a form or
/// `text/plain` (a CORS "simple" request); `application/json` from another
/// origin needs a preflight, which the server does not grant.
fn sent_by_the_page(request: &tiny_http::Request, port: u16) -> Result<(), String> {
    let header = |name: &'static str| request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str());
    let media = header("Content-Type").map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase());
    if media.as_deref() != Some("application/json") {
        return Err(format!(
            "the playground takes work as `Content-Type: application/json` only, not {}",
            header("Content-Type").map_or("a body without a type".to_string(), |t| format!("`{}`", t))
        ));
    }
    let own = [format!("http://127.0.0.1:{}", port), format!("http://localhost:{}", port)];
    match header("Origin") {
        Some(o) if !own.iter().any(|x| x.eq_ignore_ascii_case(o.trim())) => {
            Err(format!("the playground takes work from its own page ({}) only, not from `{}`", own[0], o))
        }
        _ => Ok(()),
    }
}

/// A worker: take the next waiting request, read its body, answer it.
fn work(waiting: &Mutex<Receiver<tiny_http::Request>>, opts: &ServeOptions) {
    loop {
        let next = waiting.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(mut request) = next else { return };
        let reply = match read_body(&mut request) {
            Ok(body) => match &opts.worker_exe {
                Some(exe) => isolate::decide(exe, request.url(), &body, opts),
                None => answer_guarded(|| api::work(request.url(), &body, opts)),
            },
            Err(reply) => reply,
        };
        respond(request, reply);
    }
}

/// The body, at most [`MAX_BODY_BYTES`]: a longer one is refused before
/// it is read when its length is announced, and after the cap otherwise.
fn read_body(request: &mut tiny_http::Request) -> Result<Vec<u8>, Reply> {
    let too_long = || {
        let msg = format!("the request body is longer than the {} bytes the playground accepts", MAX_BODY_BYTES);
        Reply::error(413, "input", &msg)
    };
    if request.body_length().is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(too_long());
    }
    let mut body = Vec::new();
    let read = request.as_reader().take(MAX_BODY_BYTES as u64 + 1).read_to_end(&mut body);
    match read {
        Err(e) => Err(Reply::error(400, "input", &format!("cannot read the request body: {}", e))),
        Ok(_) if body.len() > MAX_BODY_BYTES => Err(too_long()),
        Ok(_) => Ok(body),
    }
}

/// `answer`, with a panic outside a check's own guard answered 500.
pub(crate) fn answer_guarded(answer: impl FnOnce() -> Reply) -> Reply {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(answer))
        .unwrap_or_else(|_| Reply::error(500, "internal", "internal error (please report): the request failed"))
}

/// Send `reply`; a client that went away is no concern of the server's.
fn respond(request: tiny_http::Request, reply: Reply) {
    let header = tiny_http::Header::from_bytes("Content-Type", reply.content_type).expect("a valid header");
    let no_store = tiny_http::Header::from_bytes("Cache-Control", "no-store").expect("a valid header");
    let response = tiny_http::Response::from_data(reply.body)
        .with_status_code(reply.status)
        .with_header(header)
        .with_header(no_store);
    let _ = request.respond(response);
}

/// Open `url` in the desktop's browser (`--open`); failing that, say so.
pub fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        crate::out::eprintln(&format!("note: cannot start `{}` ({}); open {} in a browser", opener, e, url));
    }
}
