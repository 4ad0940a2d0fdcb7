//! The bodies of the commands whose arguments the binary defines
//! (`args.rs`): each maps its arguments onto the library's options, runs the
//! batch and prints what it finds. `main.rs` only dispatches to them.

pub mod advise;
pub mod check;
pub mod explain;
pub mod serve;

use ptx_litmus::batch::Progress;
use ptx_litmus::out;
use std::path::PathBuf;

/// The files of a command line, with notes about what the walk skipped
/// (the `*.harness` files only without `-q`), and whether a directory given
/// held no test: an input error, so the command exits 2 (D248).
fn inputs(paths: &[PathBuf], progress: Option<&Progress>) -> (Vec<PathBuf>, bool) {
    let found = ptx_litmus::input::collect(paths);
    let skipped = found.skipped.iter().filter(|_| !out::quiet());
    for n in found.notes.iter().chain(skipped).chain(&found.empty) {
        match progress {
            Some(p) => p.eprintln(n),
            None => out::eprintln(n),
        }
    }
    if !found.empty.is_empty() {
        out::note_code(ptx_litmus::error::EXIT_INPUT);
    }
    (found.files, !found.empty.is_empty())
}
