//! Waiting for a child process under a wall-clock limit: a test that starts the binary can never hang the suite.

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// Wait for `child`; past `limit` (counted from `start`) kill it, reap it and fail the test naming `what`.
pub fn wait_or_kill(child: &mut Child, start: Instant, limit: Duration, what: &str) -> ExitStatus {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{}: ran for more than {:?}", what, limit);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
