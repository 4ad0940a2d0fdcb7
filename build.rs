//! Embeds the curated litmus library in the binary for `ptx-litmus serve`'s
//! menu (`src/serve/assets.rs`): one `include_str!` per test of the teaching
//! folders, sorted by path, so the playground needs no file beside the binary.

use std::fmt::Write as _;
use std::path::Path;

/// The folders of `litmus/` a teacher picks from (the compiled corpus,
/// regressions and scaling tests are not teaching material; `async/core`
/// teaches the async proxy and the copies' completion, `async/restrict` the
/// fences restricted to shared memory, issue 41).
const FOLDERS: [&str; 10] =
    ["classic", "isa", "proxy", "sync", "locks", "dat3m", "advise", "seed", "async/core", "async/restrict"];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus");
    let mut files = Vec::new();
    for folder in FOLDERS {
        let dir = root.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "litmus") {
                files.push((format!("{}/{}", folder, e.file_name().to_string_lossy()), path));
            }
        }
    }
    files.sort();
    let mut out = String::from(
        "/// The embedded library: (path under `litmus/`, text).\npub static LIBRARY: &[(&str, &str)] = &[\n",
    );
    for (name, path) in &files {
        let _ = writeln!(out, "    ({:?}, include_str!({:?})),", name, path.display().to_string());
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("library.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
