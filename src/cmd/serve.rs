//! `ptx-litmus serve`: the teaching playground's web server.

use crate::args::ServeArgs;
use ptx_litmus::error::{EXIT_INTERNAL, EXIT_OK};
use ptx_litmus::out;
use ptx_litmus::serve;

/// The stack of a `check` batch worker (`batch::WORKER_STACK`).
const WORKER_STACK: usize = 64 << 20;

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
        // On a thread with a batch worker's stack, so that the playground
        // decides what `check` decides, however deep (its overflow ends this
        // process only, D245).
        let run = std::thread::Builder::new().stack_size(WORKER_STACK).spawn(move || serve::worker(&opts));
        return match run.map(|t| t.join()) {
            Ok(Ok(Ok(()))) => EXIT_OK,
            Ok(Ok(Err(e))) => {
                out::eprintln(&format!("error: the worker cannot answer: {}", e));
                EXIT_INTERNAL
            }
            Ok(Err(_)) | Err(_) => EXIT_INTERNAL,
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
