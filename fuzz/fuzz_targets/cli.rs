//! The command line as a whole (issue 11): options with hostile values and
//! inputs of every file kind (regular, empty, huge, directory with symlink
//! loops, FIFO, device, missing, standard input). Every run must end within
//! 20 s with an exit code 0-3 and no panic. Runs the release binary
//! (`PTXL_BIN`, default `../target/release/ptx-litmus`): build it first.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const VALUES: &[&str] = &["0", "1", "-1", "inf", "NaN", "1e20", "0.05", "18446744073709551615", "4294967296", "", "abc", "2"];
const OPTIONS: &[&str] = &["--timeout", "--max-memory", "-j", "--unroll", "--max-events", "--max-states", "--max-show", "--show", "--engine"];
const FLAGS: &[&str] = &["--json", "--show=witness", "--show=forbidden"];

/// A folder with one of each kind of input, made once.
fn inputs() -> &'static Vec<String> {
    static INPUTS: OnceLock<Vec<String>> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("ptxl-fuzz-cli-{}", std::process::id()));
        let _ = std::fs::create_dir_all(d.join("loop"));
        let _ = std::fs::copy("../litmus/seed/MP.litmus", d.join("loop/MP.litmus"));
        let _ = std::os::unix::fs::symlink(".", d.join("loop/self"));
        let _ = std::fs::write(d.join("empty.litmus"), "");
        let _ = std::fs::File::create(d.join("huge.litmus")).and_then(|f| f.set_len(3 << 20));
        let _ = Command::new("mkfifo").arg(d.join("fifo.litmus")).status();
        let _ = std::fs::write(d.join("exp.csv"), "\u{feff}test,expected\nloop/MP.litmus,No\n");
        let p = |n: &str| d.join(n).display().to_string();
        vec![p("loop"), p("empty.litmus"), p("huge.litmus"), p("fifo.litmus"), p("missing.litmus"), "/dev/zero".into(), "-".into(), p("loop/MP.litmus")]
    })
}

fuzz_target!(|data: &[u8]| {
    let pick = |i: usize, xs: &[&'static str]| xs[data.get(i).copied().unwrap_or(0) as usize % xs.len()];
    let sub = ["check", "explain", "check"][data.first().copied().unwrap_or(0) as usize % 3];
    let mut args: Vec<String> = vec![sub.into()];
    for (k, chunk) in data[1.min(data.len())..].chunks(3).take(6).enumerate() {
        match chunk[0] % 4 {
            0 => args.push(inputs()[chunk.get(1).copied().unwrap_or(0) as usize % inputs().len()].clone()),
            1 if sub == "check" => args.push(format!("{}={}", pick(3 * k + 2, OPTIONS), pick(3 * k + 3, VALUES))),
            2 if sub == "check" => args.push(pick(3 * k + 2, FLAGS).into()),
            _ => args.push(format!("--timeout={}", pick(3 * k + 2, VALUES))),
        }
    }
    let bin = std::env::var("PTXL_BIN").unwrap_or_else(|_| "../target/release/ptx-litmus".into());
    let mut child = Command::new(bin).args(&args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("start the binary");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "hang: {:?}", args);
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err);
    assert!(matches!(status.code(), Some(0..=3)), "{:?}: {:?}\n{}", args, status, err);
    assert!(!err.contains("panicked"), "{:?}: {}", args, err);
});
