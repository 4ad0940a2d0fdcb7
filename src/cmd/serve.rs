//! `ptx-litmus serve`: the teaching playground's web server.

use crate::args::ServeArgs;
use ptx_litmus::error::{EXIT_INTERNAL, EXIT_OK};
use ptx_litmus::out;
use ptx_litmus::serve;

/// `ptx-litmus serve`: print the address, open it if asked, answer until killed.
pub fn run(a: &ServeArgs) -> i32 {
    let opts = serve::ServeOptions {
        port: a.port,
        workers: a.limits.jobs(),
        timeout: a.limits.timeout.unwrap_or(serve::DEFAULT_TIMEOUT),
        max_memory: a.limits.max_bytes(),
        // Each request in a process of its own (D245); without the path to
        // this program, in the server's threads.
        worker_exe: std::env::current_exe().ok(),
    };
    if a.worker {
        return match serve::worker(&opts) {
            Ok(()) => EXIT_OK,
            Err(e) => {
                out::eprintln(&format!("error: the worker cannot answer: {}", e));
                EXIT_INTERNAL
            }
        };
    }
    let ready = |url: &str| {
        out::println(&format!("ptx-litmus playground on {} (Ctrl-C stops it)", url));
        if a.open {
            serve::open_browser(url);
        }
    };
    match serve::serve(opts, ready) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            out::eprintln(&format!("error: {}", e));
            EXIT_INTERNAL
        }
    }
}
