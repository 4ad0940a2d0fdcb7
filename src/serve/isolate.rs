//! Each request that decides a test runs in a child process, `ptx-litmus
//! serve --worker` (D245): a stack overflow, an abort or memory the budget did
//! not see ends that process, and the server answers the request with an
//! internal error and goes on. A thread cannot give that: Rust aborts the whole
//! process when any thread overflows its stack, however large the stack.
//!
//! The child reads the request's path (one line) and body from standard input
//! and writes the reply's status (one line) and JSON body to standard output.
//! The server stops a child still running at twice the request limit plus
//! [`HARD_LIMIT_GRACE`]: the check and its explanation each run under the
//! limit, so a child past that is stuck in work the budget does not reach.

use super::{api, Reply, ServeOptions, MAX_BODY_BYTES};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What the server allows a child beyond twice the request's limit.
pub const HARD_LIMIT_GRACE: Duration = Duration::from_secs(5);

/// The most of a child's standard error kept (to name why it ended).
const STDERR_KEPT: u64 = 64 << 10;

/// The largest reply a child may write (pictures of many executions are large).
const MAX_REPLY_BYTES: u64 = 256 << 20;

/// For tests: a worker process started with this variable set aborts after
/// reading its request, as one overflowing its stack would.
const ABORT_FOR_TESTS: &str = "PTXL_SERVE_WORKER_ABORT";

/// How long the server lets a child run.
pub(crate) fn hard_limit(opts: &ServeOptions) -> Duration {
    opts.timeout.saturating_mul(2).saturating_add(HARD_LIMIT_GRACE)
}

/// Server side: decide `url`'s request with `body` in a child process of `exe`.
pub(crate) fn decide(exe: &Path, url: &str, body: &[u8], opts: &ServeOptions) -> Reply {
    let secs = opts.timeout.as_secs_f64().to_string();
    let mb = (opts.max_memory >> 20).max(1).to_string();
    let spawned = Command::new(exe)
        .args(["serve", "--worker", "--timeout", &secs, "--max-memory", &mb])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return api::failure(url, 500, "internal", &format!("cannot start a worker process: {}", e)),
    };
    let input = [url.as_bytes(), b"\n", body].concat();
    let (mut stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let (status, out, err) = std::thread::scope(|sc| {
        // The three pipes at once: a child blocked writing a full pipe would never end.
        sc.spawn(move || stdin.as_mut().map(|s| s.write_all(&input)));
        let out = sc.spawn(move || read_all(stdout, MAX_REPLY_BYTES));
        let err = sc.spawn(move || read_all(stderr, STDERR_KEPT));
        let status = wait_until(&mut child, Instant::now() + hard_limit(opts));
        (status, out.join().unwrap_or_default(), err.join().unwrap_or_default())
    });
    match status {
        None => {
            let msg = format!(
                "limit: the request was still running {} s after it started (twice its --timeout plus {} s) and was stopped",
                hard_limit(opts).as_secs(),
                HARD_LIMIT_GRACE.as_secs()
            );
            api::failure(url, 503, "limit", &msg)
        }
        Some(st) => match parse_reply(&out) {
            Some(reply) if st.success() => reply,
            _ => crashed(url, st, &err),
        },
    }
}

fn read_all(pipe: Option<impl Read>, cap: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Some(p) = pipe {
        let _ = p.take(cap).read_to_end(&mut buf);
    }
    buf
}

/// The child's exit status, or `None` when it ran past `deadline` (then it is killed).
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Some(st),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// A child's output: `STATUS\n` then the JSON body.
fn parse_reply(out: &[u8]) -> Option<Reply> {
    let nl = out.iter().position(|&b| b == b'\n')?;
    let status: u16 = std::str::from_utf8(&out[..nl]).ok()?.trim().parse().ok()?;
    Some(Reply { status, content_type: "application/json; charset=utf-8", body: out[nl + 1..].to_vec() })
}

/// The answer to a request whose process ended without one; the server's
/// standard error gets a line too, for whoever runs it.
fn crashed(url: &str, st: ExitStatus, stderr: &[u8]) -> Reply {
    use std::os::unix::process::ExitStatusExt;
    let text = String::from_utf8_lossy(stderr);
    let why = if text.contains("overflowed its stack") {
        "it ran out of stack (the test is nested too deeply)".to_string()
    } else if let Some(sig) = st.signal() {
        format!("it was ended by signal {}", sig)
    } else {
        format!("it exited with status {} without an answer", st.code().unwrap_or(-1))
    };
    crate::out::eprintln(&format!(
        "serve: the process deciding a request to {} ended: {}; the server goes on",
        url, why
    ));
    api::failure(
        url,
        500,
        "internal",
        &format!("internal error (please report): the process deciding the request ended: {}", why),
    )
}

/// Child side (`serve --worker`): read the request, decide it, write the reply.
pub fn worker(opts: &ServeOptions) -> std::io::Result<()> {
    let mut input = Vec::new();
    std::io::stdin().lock().take(MAX_BODY_BYTES as u64 + (64 << 10)).read_to_end(&mut input)?;
    if std::env::var_os(ABORT_FOR_TESTS).is_some() {
        std::process::abort();
    }
    let nl = input.iter().position(|&b| b == b'\n').unwrap_or(input.len());
    let url = String::from_utf8_lossy(&input[..nl]).into_owned();
    let body = input.get(nl + 1..).unwrap_or_default();
    let reply = super::answer_guarded(|| api::work(&url, body, opts));
    let mut out = std::io::stdout().lock();
    out.write_all(format!("{}\n", reply.status).as_bytes())?;
    out.write_all(&reply.body)?;
    out.flush()
}
