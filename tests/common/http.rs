//! `ptx-litmus serve` for a test, and a minimal HTTP/1.1 client over std's
//! `TcpStream` (requests with `Connection: close`, bodies with a length), so
//! the tests need no client crate.

// Each test binary uses some of tests/common only.
#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `ptx-litmus serve --port 0 ARGS`, killed when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
    /// `http://127.0.0.1:PORT/`
    pub url: String,
}

impl Server {
    pub fn start(args: &[&str]) -> Server {
        Server::start_with_env(args, &[])
    }

    /// `start` with environment variables set for the server.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-litmus"))
            .args(["serve", "--port", "0"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start ptx-litmus serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the address").to_string();
        let addr = url.trim_start_matches("http://").trim_end_matches('/').to_string();
        Server { child, addr, url }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({}): {}", e, String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One request; the body is written in full (or until the server stops reading).
pub fn request(addr: &str, method: &str, path: &str, body: &[u8]) -> std::io::Result<Response> {
    request_for(addr, addr, method, path, body)
}

/// `request` with `host` as the `Host` header.
pub fn request_for(addr: &str, host: &str, method: &str, path: &str, body: &[u8]) -> std::io::Result<Response> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    let head = format!(
        "{} {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        method,
        path,
        host,
        body.len()
    );
    s.write_all(head.as_bytes())?;
    // A server refusing a long body may answer before reading it.
    let _ = s.write_all(body);
    read_response(&mut s)
}

/// A request written as given: `head` is the request line and headers
/// (without the blank line that ends them), then `body`.
pub fn raw(addr: &str, head: &str, body: &[u8]) -> std::io::Result<Response> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    s.write_all(format!("{}\r\n\r\n", head).as_bytes())?;
    let _ = s.write_all(body);
    read_response(&mut s)
}

/// Read until the body is complete: its `Content-Length`, the last chunk, or
/// the end of the connection (a server may keep it open despite `close`).
fn read_response(s: &mut TcpStream) -> std::io::Result<Response> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 64 << 10];
    loop {
        let n = s.read(&mut buf)?;
        raw.extend_from_slice(&buf[..n]);
        if n == 0 || complete(&raw) {
            return parse(&raw);
        }
    }
}

fn complete(raw: &[u8]) -> bool {
    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let body = &raw[end + 4..];
    if head.contains("transfer-encoding: chunked") {
        return body.ends_with(b"0\r\n\r\n");
    }
    let length = head.lines().find_map(|l| l.strip_prefix("content-length:").and_then(|v| v.trim().parse().ok()));
    length.is_some_and(|n: usize| body.len() >= n)
}

fn parse(raw: &[u8]) -> std::io::Result<Response> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| bad("no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| bad("no status"))?;
    let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    let mut body = raw[end + 4..].to_vec();
    if chunked {
        body = unchunk(&body).ok_or_else(|| bad("bad chunked body"))?;
    }
    Ok(Response { status, body })
}

fn unchunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n")?;
        let size = usize::from_str_radix(std::str::from_utf8(&b[..eol]).ok()?.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(b.get(eol + 2..eol + 2 + size)?);
        b = b.get(eol + 4 + size..)?;
    }
}

pub fn get(addr: &str, path: &str) -> Response {
    request(addr, "GET", path, b"").unwrap_or_else(|e| panic!("GET {}: {}", path, e))
}

pub fn post(addr: &str, path: &str, body: &Value) -> Response {
    request(addr, "POST", path, body.to_string().as_bytes()).unwrap_or_else(|e| panic!("POST {}: {}", path, e))
}
