//! The playground in a real browser (issue 29): headless Chromium driven
//! through chromedriver's WebDriver protocol (plain HTTP and JSON, spoken with
//! tests/common/http.rs). The steps a teacher takes: open the page, pick MP
//! from the menu, read the verdict and the states, open the forbidden state's
//! execution graph, type an error and see the caret, change one scope and see
//! the verdict flip. A screenshot of each step goes to the folder printed
//! (`PTX_LITMUS_SCREENSHOTS`, default `target/tmp/playground-screenshots`).
//!
//! Needs `chromium` and `chromedriver` (Debian: `chromium`, `chromium-driver`;
//! `.ci/run` installs them); without them the test says so and skips.

use crate::common;

use common::http::{request, Server};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The first of `names` on PATH.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n))).find(|p| p.is_file())
}

/// A chromedriver with one headless Chromium session; both end when dropped.
struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// `Err` says which program is missing (the test then skips); a browser
    /// that is installed but does not start fails the test.
    fn start() -> Result<Browser, String> {
        let chromedriver = on_path(&["chromedriver"]).ok_or("chromedriver is not installed")?;
        let chromium =
            on_path(&["chromium", "chromium-browser", "google-chrome"]).ok_or("chromium is not installed")?;
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={}", port))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start chromedriver: {}", e));
        let profile = tempfile::tempdir().unwrap();
        let mut b = Browser { driver, addr: format!("127.0.0.1:{}", port), session: String::new(), _profile: profile };
        let deadline = Instant::now() + Duration::from_secs(20);
        while request(&b.addr, "GET", "/status", b"").map_or(true, |r| r.json()["value"]["ready"] != true) {
            assert!(Instant::now() < deadline, "chromedriver did not become ready in 20 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1280,720",
            &format!("--user-data-dir={}", b._profile.path().display()),
        ];
        let caps = json!({ "capabilities": { "alwaysMatch": { "browserName": "chrome",
            "goog:chromeOptions": { "binary": chromium, "args": args } } } });
        let r = request(&b.addr, "POST", "/session", caps.to_string().as_bytes()).expect("a session");
        let v = r.json();
        b.session = v["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {}", v)).to_string();
        // A 1280×720 page (a projector's), whatever the window's frame takes.
        let frame = b.js("return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight]");
        let (dw, dh) = (frame[0].as_u64().unwrap_or(0), frame[1].as_u64().unwrap_or(0));
        b.cmd("POST", "/window/rect", json!({ "width": 1280 + dw, "height": 720 + dh }));
        Ok(b)
    }

    /// A WebDriver command of the session; its `value`.
    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("/session/{}{}", self.session, path);
        let body = if method == "GET" { String::new() } else { body.to_string() };
        let r = request(&self.addr, method, &url, body.as_bytes()).unwrap_or_else(|e| panic!("{}: {}", url, e));
        let v = r.json();
        assert_eq!(r.status, 200, "{} {}: {}", method, path, v);
        v["value"].clone()
    }

    fn js(&self, script: &str) -> Value {
        self.cmd("POST", "/execute/sync", json!({ "script": script, "args": [] }))
    }

    fn element(&self, css: &str) -> String {
        let v = self.cmd("POST", "/element", json!({ "using": "css selector", "value": css }));
        v.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("an element id").to_string()
    }

    fn click(&self, css: &str) {
        let id = self.element(css);
        self.cmd("POST", &format!("/element/{}/click", id), json!({}));
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.cmd("POST", &format!("/element/{}/value", id), json!({ "text": text }));
    }

    fn text(&self, css: &str) -> String {
        let id = self.element(css);
        self.cmd("GET", &format!("/element/{}/text", id), json!({})).as_str().unwrap_or_default().to_string()
    }

    /// Wait (up to a minute: the machine may be busy) until `script` returns true.
    fn wait(&self, what: &str, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.js(script) != true {
            assert!(Instant::now() < deadline, "waited a minute for {}", what);
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// How many answers the page has shown.
    fn checks(&self) -> u64 {
        self.js("return +(document.body.dataset.checks || 0)").as_u64().unwrap_or(0)
    }

    /// Run `act`, then wait for the page to show one more answer.
    fn and_checked(&self, what: &str, act: impl FnOnce()) {
        let before = self.checks();
        act();
        let script = format!("return +(document.body.dataset.checks || 0) > {}", before);
        self.wait(what, &format!("{} && document.body.dataset.status === 'done'", script));
    }

    fn screenshot(&self, dir: &Path, name: &str) {
        let b64 = self.cmd("GET", "/screenshot", json!({}));
        let png = base64_decode(b64.as_str().expect("a screenshot"));
        assert!(png.starts_with(b"\x89PNG"), "{} is not a PNG", name);
        std::fs::write(dir.join(name), png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(&self.addr, "DELETE", &format!("/session/{}", self.session), b"");
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> =
        s.bytes().filter(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/').map(val).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

fn screenshots_dir() -> PathBuf {
    let dir = std::env::var_os("PTX_LITMUS_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("playground-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The rows of the states table, each as its cells' text.
fn state_rows(b: &Browser) -> Vec<Vec<String>> {
    let v = b.js("return Array.from(document.querySelectorAll('#states tr')).slice(1)
        .map(r => Array.from(r.cells).map(c => c.textContent))");
    serde_json::from_value(v).unwrap()
}

/// Pick `value` from the test menu (another entry first, so that choosing
/// the one already shown is a change too).
fn pick(b: &Browser, value: &str) {
    b.and_checked("another test", || b.click("#menu option[value='gen:SB']"));
    b.and_checked(value, || b.click(&format!("#menu option[value='{}']", value)));
}

/// MP with st.release.gpu / ld.acquire.gpu in two CTAs of one GPU (the page's
/// `gen` defaults: --sem relacq --scope gpu --placement same-gpu). The flag's
/// release and acquire are morally strong (8.7: both strong, each .gpu scope
/// includes the other thread), so they synchronize (8.9.4) and Causality
/// (8.10.6) forbids r0=1, r1=0: the verdict is No and the other three states
/// are allowed (no axiom orders two threads that do not communicate). With the
/// flag's store at .cta scope, the CTA of the writer does not include the
/// reader's thread, the pair is not morally strong, nothing synchronizes and
/// the outcome is allowed: the verdict flips to Ok.
#[test]
fn a_teacher_uses_the_playground() {
    let browser = match Browser::start() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("skipped: {} (Debian: apt-get install chromium chromium-driver)", why);
            return;
        }
    };
    let shots = screenshots_dir();
    eprintln!("screenshots in {}", shots.display());
    let server = Server::start(&["-j", "2"]);
    let b = &browser;
    b.and_checked("the opening example", || {
        b.cmd("POST", "/url", json!({ "url": server.url }));
    });
    let viewport = b.js("return [window.innerWidth, window.innerHeight]");
    assert_eq!(viewport, json!([1280, 720]));
    b.screenshot(&shots, "1-opened.png");

    pick(b, "gen:MP");
    let source = b.js("return document.getElementById('editor').value");
    assert!(source.as_str().unwrap().starts_with("PTX MP+relacq.gpu+same-gpu"), "{}", source);
    assert_eq!(b.text("#verdict"), "No");
    let mut rows = state_rows(b);
    rows.sort();
    let want = [["", "0", "0"], ["", "0", "1"], ["", "1", "1"]];
    assert_eq!(rows, want.map(|r| r.map(String::from).to_vec()), "unmarked allowed states");
    b.screenshot(&shots, "2-mp-checked.png");

    b.click("#forbidden li.pick");
    b.wait(
        "the graph",
        "return !document.getElementById('tab-graph').hidden && !!document.querySelector('#graph svg')",
    );
    assert!(b.text("#graph-title").contains("Causality"), "{}", b.text("#graph-title"));
    let svg_text = b.js("return document.querySelector('#graph svg').textContent");
    assert!(svg_text.as_str().unwrap().contains("Causality"), "{}", svg_text);
    b.screenshot(&shots, "3-forbidden-graph.png");

    // An unknown instruction on the last line: the CLI's message, a caret in the editor.
    b.and_checked("the error", || b.type_into("#editor", "ld.bogus r9, x ;"));
    assert_eq!(b.text("#verdict"), "error");
    let error = b.text("#error");
    assert!(error.starts_with("editor.litmus:") && error.contains('^'), "{}", error);
    let caret =
        b.js("const c = document.querySelector('#highlight .err-caret'); return c && c.closest('.err-line') !== null");
    assert_eq!(caret, true, "no caret in the editor");
    b.screenshot(&shots, "4-error-caret.png");

    pick(b, "gen:MP");
    assert_eq!(b.text("#verdict"), "No");
    let flag_store = b.js(
        "return Array.from(document.querySelectorAll('#wi-instr option')).find(o => o.textContent.startsWith('P0: st.release.gpu y')).value",
    );
    b.click(&format!("#wi-instr option[value='{}']", flag_store.as_str().unwrap()));
    b.and_checked("the what-if check", || b.click("#wi-scope option[value='cta']"));
    assert_eq!(b.text("#verdict"), "Ok");
    assert!(b.text("#wi-result").contains("No → Ok"), "{}", b.text("#wi-result"));
    let source = b.js("return document.getElementById('editor').value");
    assert!(source.as_str().unwrap().contains("st.release.cta y, 1"), "{}", source);
    b.screenshot(&shots, "5-what-if.png");
    b.and_checked("undo", || b.click("#wi-undo"));
    assert_eq!(b.text("#verdict"), "No");

    // Threads on two GPUs: a .gpu scope no longer includes the other thread
    // (8.5), the pair is not morally strong (8.7) and the outcome is allowed.
    b.and_checked("the placement", || b.click("#wi-placement option[value='diff-gpu']"));
    assert_eq!(b.text("#verdict"), "Ok");
    b.and_checked("undo", || b.click("#wi-undo"));

    // NVIDIA's formalization forbids MP with release/acquire too (its
    // release and acquire patterns synchronize as the ISA's do).
    b.and_checked("ptx-alloy", || b.click("#model option[value='ptx-alloy']"));
    assert_eq!(b.text("#verdict"), "No");
    b.and_checked("ptx", || b.click("#model option[value='ptx']"));

    // Ctrl-Enter checks without touching the text.
    let before = b.js("return document.getElementById('editor').value");
    b.and_checked("Ctrl-Enter", || b.type_into("#editor", "\u{E009}\u{E007}\u{E000}"));
    assert_eq!(b.js("return document.getElementById('editor').value"), before);

    // MP with relaxed accesses: nothing synchronizes (8.9.4 needs release and
    // acquire patterns), the outcome is allowed; advise's first repair, one
    // click away, forbids it.
    b.and_checked("MP relaxed", || b.click("#gen-sem option[value='relaxed']"));
    assert_eq!(b.text("#verdict"), "Ok");
    b.click("#tabs button[data-tab='advise']");
    b.click("#advise-run");
    b.wait("the repairs", "return !!document.querySelector('button[data-apply]')");
    b.and_checked("the repair", || b.click("button[data-apply]"));
    assert_eq!(b.text("#verdict"), "No");
    b.screenshot(&shots, "6-repair-applied.png");

    let theme = b.js("return document.documentElement.dataset.theme");
    b.click("#theme");
    b.click("#tabs button[data-tab='pairs']");
    let other = b.js("return document.documentElement.dataset.theme");
    assert!(theme != other && (other == "dark" || other == "light"), "{} -> {}", theme, other);
    assert!(b.text("#pairs").contains("morally strong") || b.text("#pairs").contains("different"));
    b.screenshot(&shots, "7-theme-explain.png");
}
