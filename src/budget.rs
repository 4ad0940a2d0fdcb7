//! Per-test budgets: one deadline and one memory allowance cover parsing,
//! encoding, solving, deadlock search and explanations (issue 11).
//!
//! The budget lives in a thread-local slot set by [`run`] for the test being
//! checked on this thread, so the deep loops of the program builder and the
//! encoder can charge it without threading a handle through every signature.
//! Exceeding it unwinds to [`run`] with an [`Exceeded`] payload through
//! `resume_unwind`, which skips the panic hook (nothing is printed) and frees
//! everything the test had built on the way out (paper-notes/decisions.md D20).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one test may use.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The wall-clock limit, counted from when [`run`] starts.
    pub timeout: Option<Duration>,
    /// Estimated bytes the encoding (clauses, variables, relation maps) and the
    /// unrolled program may grow to.
    pub max_bytes: u64,
}

/// Default `--max-memory`, in MB: a test's process stays under 1 GiB
/// resident, with room for what is allocated between two measurements (D162).
pub const DEFAULT_MAX_MEMORY_MB: u64 = 896;

/// Tests running under a budget in this process: they share one resident size.
static ACTIVE: AtomicU64 = AtomicU64::new(0);

/// How often the resident size is read (a read of `/proc/self/status` costs
/// microseconds; allocation between two reads is the overshoot).
const RESIDENT_EVERY: Duration = Duration::from_millis(5);

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout: None, max_bytes: DEFAULT_MAX_MEMORY_MB << 20 }
    }
}

/// The unwinding payload: a limit was hit; the message names it.
#[derive(Debug)]
pub struct Exceeded(pub String);

struct State {
    limits: Limits,
    deadline: Option<Instant>,
    used: u64,
    /// What is being built (named in the memory message).
    phase: std::borrow::Cow<'static, str>,
    /// Charges since the clock was last read (reading it on every charge costs).
    since_clock: u32,
    /// When the resident size was last read.
    resident_at: Instant,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Run `f` under `limits` on this thread. Returns `Err` with the message when a
/// limit was hit; other panics propagate unchanged.
pub fn run<T>(limits: Limits, f: impl FnOnce() -> T) -> Result<T, Exceeded> {
    let deadline = limits.timeout.map(|t| Instant::now() + t);
    let state =
        State { limits, deadline, used: 0, phase: "the program".into(), since_clock: 0, resident_at: Instant::now() };
    let prev = STATE.with(|s| s.replace(Some(state)));
    ACTIVE.fetch_add(1, Ordering::Relaxed);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    ACTIVE.fetch_sub(1, Ordering::Relaxed);
    STATE.with(|s| *s.borrow_mut() = prev);
    match r {
        Ok(v) => Ok(v),
        Err(p) => match p.downcast::<Exceeded>() {
            Ok(e) => Err(*e),
            Err(p) => std::panic::resume_unwind(p),
        },
    }
}

/// Is a test's budget running on this thread?
pub fn active() -> bool {
    STATE.with(|s| s.borrow().is_some())
}

/// The deadline of the test running on this thread.
pub fn deadline() -> Option<Instant> {
    STATE.with(|s| s.borrow().as_ref().and_then(|s| s.deadline))
}

/// Name what is being built now (for the memory message).
pub fn phase(name: &'static str) {
    phase_named(name.into());
}

/// [`phase`] with a name made at run time (a model row's).
pub fn phase_named(name: std::borrow::Cow<'static, str>) {
    STATE.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            s.phase = name;
        }
    });
}

/// Account for `bytes` more; unwind when over the memory budget, and (every
/// 1024 charges) when past the deadline.
pub fn charge(bytes: u64) {
    let hit = STATE.with(|s| {
        let mut s = s.borrow_mut();
        let s = s.as_mut()?;
        s.used += bytes;
        if s.used > s.limits.max_bytes {
            return Some(format!(
                "memory limit: the encoding grew past --max-memory {} MB while building {}",
                s.limits.max_bytes >> 20,
                s.phase
            ));
        }
        s.since_clock += 1;
        if s.since_clock >= 1024 {
            s.since_clock = 0;
            return timeout_message(s).or_else(|| resident_message(s));
        }
        None
    });
    if let Some(m) = hit {
        std::panic::resume_unwind(Box::new(Exceeded(m)));
    }
}

/// Unwind if the deadline has passed or the process outgrew the budget (for
/// loops that allocate outside the estimate: the solver's own memory).
pub fn check_time() {
    let hit = STATE.with(|s| s.borrow_mut().as_mut().and_then(|s| timeout_message(s).or_else(|| resident_message(s))));
    if let Some(m) = hit {
        std::panic::resume_unwind(Box::new(Exceeded(m)));
    }
}

/// The estimate counts what the encoder builds, not what the solver and the
/// allocator make of it (measured: up to 2x more). So the process's resident
/// size is read too, at most every [`RESIDENT_EVERY`], against the budget of
/// each test running in it (D162).
fn resident_message(s: &mut State) -> Option<String> {
    let now = Instant::now();
    if now.duration_since(s.resident_at) < RESIDENT_EVERY {
        return None;
    }
    s.resident_at = now;
    let resident = resident_bytes()?;
    let allowed = s.limits.max_bytes.saturating_mul(ACTIVE.load(Ordering::Relaxed).max(1));
    (resident > allowed).then(|| {
        format!(
            "memory limit: the process grew to {} MB resident, past --max-memory {} MB, while building {}",
            resident >> 20,
            s.limits.max_bytes >> 20,
            s.phase
        )
    })
}

/// This process's resident size (`VmRSS` of `/proc/self/status`); `None`
/// where there is no such file (then only the estimate bounds a test).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb << 10)
}

/// The solver gave up at the deadline: unwind with the timeout message.
pub fn timed_out() -> ! {
    let m = STATE.with(|s| s.borrow().as_ref().map(|s| message(s.limits.timeout, &s.phase)));
    std::panic::resume_unwind(Box::new(Exceeded(m.unwrap_or_else(|| message(None, "solving")))))
}

fn timeout_message(s: &State) -> Option<String> {
    let d = s.deadline?;
    (Instant::now() >= d).then(|| message(s.limits.timeout, &s.phase))
}

fn message(t: Option<Duration>, phase: &str) -> String {
    match t {
        Some(t) => format!("timeout: no verdict within {} s (--timeout), cut while {}", t.as_secs_f64(), phase),
        None => format!("timeout while {}", phase),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_overrun_unwinds_with_the_phase() {
        let r = run(Limits { timeout: None, max_bytes: 100 }, || {
            phase("coherence order");
            for _ in 0..1000 {
                charge(1);
            }
        });
        let e = r.unwrap_err();
        assert!(e.0.contains("--max-memory") && e.0.contains("coherence order"), "{}", e.0);
        // The slot is cleared: charging outside `run` is free.
        charge(1 << 40);
    }

    #[test]
    fn resident_size_past_the_budget_unwinds() {
        // A budget below what the process already holds: the first reading
        // after RESIDENT_EVERY stops the test, whatever the estimate says.
        let held = resident_bytes().expect("Linux has /proc/self/status");
        let r = run(Limits { timeout: None, max_bytes: held / 2 }, || loop {
            std::thread::sleep(Duration::from_millis(1));
            check_time();
        });
        let e = r.unwrap_err();
        assert!(e.0.contains("resident, past --max-memory"), "{}", e.0);
    }

    #[test]
    fn deadline_unwinds() {
        let r = run(Limits { timeout: Some(Duration::from_millis(1)), max_bytes: u64::MAX }, || loop {
            std::thread::sleep(Duration::from_millis(2));
            check_time();
        });
        assert!(r.unwrap_err().0.contains("--timeout"));
    }
}
