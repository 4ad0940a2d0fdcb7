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

/// The files of a command line, with notes about what the walk skipped.
fn inputs(paths: &[PathBuf], progress: Option<&Progress>) -> Vec<PathBuf> {
    let found = ptx_litmus::input::collect(paths);
    for n in &found.notes {
        match progress {
            Some(p) => p.eprintln(n),
            None => out::eprintln(n),
        }
    }
    found.files
}
