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
    /// Bytes this test may use: the estimate of the encoding and the unrolled
    /// program, and its share of the process's measured resident size (D162, D163).
    pub max_bytes: u64,
    /// Work units this test may spend (None: no such limit): one per charge of
    /// the builder and the encoder, one per clock check of the reference
    /// engine, one per search step of the SAT solver. Unlike the timeout it
    /// cuts the same tests on a loaded machine as on an idle one, so tests of
    /// the tool that skip cases over a budget use it (D288).
    pub max_work: Option<u64>,
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
        Limits { timeout: None, max_bytes: DEFAULT_MAX_MEMORY_MB << 20, max_work: None }
    }
}

/// The unwinding payload: a limit was hit; the message names it.
#[derive(Debug)]
pub struct Exceeded(pub String);

struct State {
    limits: Limits,
    deadline: Option<Instant>,
    used: u64,
    /// The most `used` has been (`PTXL_DEBUG` prints it beside the resident size).
    peak: u64,
    /// What is being built (named in the memory message).
    phase: std::borrow::Cow<'static, str>,
    /// Charges since the clock was last read (reading it on every charge costs).
    since_clock: u32,
    /// Bytes charged since then: a few large charges (a path copied with its
    /// dependency sets) must not go unread for 1024 of them.
    since_read: u64,
    /// When the resident size was last read.
    resident_at: Instant,
    /// The resident size when the test began (0 where there is no reading):
    /// what earlier tests of the process left allocated is not this test's (D295).
    resident_start: u64,
    /// Work units spent (see [`Limits::max_work`]).
    work: u64,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Run `f` under `limits` on this thread. Returns `Err` with the message when a
/// limit was hit; other panics propagate unchanged.
pub fn run<T>(limits: Limits, f: impl FnOnce() -> T) -> Result<T, Exceeded> {
    let deadline = limits.timeout.map(|t| Instant::now() + t);
    let state = State {
        limits,
        deadline,
        used: 0,
        peak: 0,
        phase: "the program".into(),
        since_clock: 0,
        since_read: 0,
        resident_at: Instant::now(),
        resident_start: resident_bytes().unwrap_or(0),
        work: 0,
    };
    let prev = STATE.with(|s| s.replace(Some(state)));
    ACTIVE.fetch_add(1, Ordering::Relaxed);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    ACTIVE.fetch_sub(1, Ordering::Relaxed);
    let done = STATE.with(|s| std::mem::replace(&mut *s.borrow_mut(), prev));
    if let Some(done) = done.filter(|_| crate::out::tracing()) {
        let mb = |b: u64| b as f64 / f64::from(1 << 20);
        let resident = resident_bytes().map_or("unknown".to_string(), |r| format!("{:.1} MB", mb(r)));
        eprintln!(
            "memory estimate: peak {:.1} MB, {:.1} MB at the end; resident now {}; {} work units",
            mb(done.peak),
            mb(done.used),
            resident,
            done.work
        );
    }
    match r {
        Ok(v) => Ok(v),
        Err(p) => match p.downcast::<Exceeded>() {
            Ok(e) => Err(*e),
            Err(p) => std::panic::resume_unwind(p),
        },
    }
}

/// Is a test's budget running on this thread?
pub(crate) fn active() -> bool {
    STATE.with(|s| s.borrow().is_some())
}

/// The deadline of the test running on this thread.
pub fn deadline() -> Option<Instant> {
    STATE.with(|s| s.borrow().as_ref().and_then(|s| s.deadline))
}

/// Name what is being built now (for the memory message).
pub(crate) fn phase(name: &'static str) {
    phase_named(name.into());
}

/// [`phase`] with a name made at run time (a model row's).
pub(crate) fn phase_named(name: std::borrow::Cow<'static, str>) {
    STATE.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            s.phase = name;
        }
    });
}

/// Account for `bytes` more (the estimate); unwind when the process is over
/// the memory budget, and (every 1024 charges) when past the deadline. A charge
/// of one large allocation is checked before it is made ([`will_allocate`]).
pub(crate) fn charge(bytes: u64) {
    let hit = STATE.with(|s| {
        let mut s = s.borrow_mut();
        let s = s.as_mut()?;
        if let Some(m) = spend(s, 1) {
            return Some(m);
        }
        s.used += bytes;
        s.peak = s.peak.max(s.used);
        if bytes >= STEP_CHECKED {
            if let Some(m) = step_message(s, bytes) {
                return Some(m);
            }
        }
        s.since_clock += 1;
        s.since_read = s.since_read.saturating_add(bytes);
        let over = s.used > s.limits.max_bytes;
        if s.since_clock >= 1024 || s.since_read >= CHARGED_BETWEEN_READINGS || over {
            (s.since_clock, s.since_read) = (0, 0);
            return timeout_message(s).or_else(|| resident_message(s));
        }
        None
    });
    if let Some(m) = hit {
        std::panic::resume_unwind(Box::new(Exceeded(m)));
    }
}

/// `bytes` charged earlier were freed (a path the program builder dropped):
/// the estimate follows what is held, not all that was ever allocated (D117).
pub(crate) fn credit(bytes: u64) {
    STATE.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            s.used = s.used.saturating_sub(bytes);
        }
    });
}

/// One allocation of `bytes` is about to be made in a single step (a hash
/// table or an array doubling, a copy of a relation): unwind now if the
/// process's resident size plus `bytes` would pass the budget. No reading can
/// interrupt such a step once it has begun (D163). Steps under
/// 8 MB (`STEP_CHECKED`) are left to the periodic reading.
pub(crate) fn will_allocate(bytes: u64) {
    if bytes < STEP_CHECKED {
        return;
    }
    let hit = STATE.with(|s| s.borrow_mut().as_mut().and_then(|s| step_message(s, bytes)));
    if let Some(m) = hit {
        std::panic::resume_unwind(Box::new(Exceeded(m)));
    }
}

/// [`will_allocate`] for the next insertion into `map`: a full table is
/// replaced by one with twice the buckets (hashbrown: buckets are 8/7 of the
/// capacity, each an entry and a control byte), the old one held until moved.
pub(crate) fn before_insert<K, V, S>(map: &std::collections::HashMap<K, V, S>) {
    if map.len() == map.capacity() {
        will_allocate(table_bytes::<K, V>(2 * map.capacity() + 2));
    }
}

/// The bytes of a hash table holding `capacity` entries of `(K, V)`.
pub(crate) fn table_bytes<K, V>(capacity: usize) -> u64 {
    (capacity as u64 * 8 / 7) * (std::mem::size_of::<(K, V)>() as u64 + 1)
}

/// The clock (and at most every [`RESIDENT_EVERY`] the resident size) is read
/// after this many bytes charged, or after 1024 charges.
const CHARGED_BETWEEN_READINGS: u64 = 1 << 20;

/// Steps smaller than this are left to the periodic reading: what is allocated
/// in [`RESIDENT_EVERY`] in steps this small stays far under the headroom
/// between the default budget and 1 GiB (D162).
const STEP_CHECKED: u64 = 8 << 20;

fn step_message(s: &State, bytes: u64) -> Option<String> {
    let (held, what) = match resident_bytes() {
        Some(r) => (r, "resident"),
        None => (s.used, "estimated"),
    };
    (held.saturating_add(bytes) > allowed(s)).then(|| {
        format!(
            "memory limit: building {} needs {} MB more at once ({} MB {}), past --max-memory {} MB",
            s.phase,
            bytes.div_ceil(1 << 20),
            held >> 20,
            what,
            s.limits.max_bytes >> 20
        )
    })
}

/// What the process may hold: the budget of each test running in it.
fn allowed(s: &State) -> u64 {
    s.limits.max_bytes.saturating_mul(ACTIVE.load(Ordering::Relaxed).max(1))
}

/// Unwind if the deadline has passed or the process outgrew the budget (for
/// loops that allocate outside the estimate: the solver's own memory).
pub(crate) fn check_time() {
    let hit = STATE.with(|s| {
        let mut s = s.borrow_mut();
        let s = s.as_mut()?;
        spend(s, 1).or_else(|| timeout_message(s)).or_else(|| resident_message(s))
    });
    if let Some(m) = hit {
        std::panic::resume_unwind(Box::new(Exceeded(m)));
    }
}

/// The estimate counts what the encoder builds and what the program builder
/// holds (it credits the paths it drops, D117), not what the solver and the
/// allocator make of it: measured from 1.35x over (a spin loop unrolled 300
/// times) to 3.7x under (the solver's arrays, paper-notes/performance.md). So the process's `VmRSS` is read too, at most every
/// [`RESIDENT_EVERY`], against the budget of each test running in it (D162).
/// The estimate stops a test only while the process holds at least half the
/// budget: a test really using less than half is never cut by an over-count
/// (D163). Where there is no reading, the estimate alone stops it.
fn resident_message(s: &mut State) -> Option<String> {
    let now = Instant::now();
    if now.duration_since(s.resident_at) < RESIDENT_EVERY {
        return None;
    }
    s.resident_at = now;
    let resident = resident_bytes();
    // A test that has not grown the process by half its budget is not the one
    // that filled it (a test binary's other tests, memory the allocator kept, D295).
    let grown = |r: u64| r.saturating_sub(s.resident_start) >= s.limits.max_bytes / 2;
    if let Some(r) = resident.filter(|&r| r > allowed(s) && grown(r)) {
        return Some(format!(
            "memory limit: the process grew to {} MB resident, past --max-memory {} MB, while building {}",
            r >> 20,
            s.limits.max_bytes >> 20,
            s.phase
        ));
    }
    let confirmed = resident.is_none_or(|r| r >= s.limits.max_bytes / 2);
    (s.used > s.limits.max_bytes && confirmed).then(|| {
        format!(
            "memory limit: the encoding grew past --max-memory {} MB while building {}",
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

/// Add `units` to the work spent; the message when that passes the limit.
fn spend(s: &mut State, units: u64) -> Option<String> {
    s.work = s.work.saturating_add(units);
    let max = s.limits.max_work?;
    (s.work > max).then(|| format!("work limit: more than {} work units, cut while {}", max, s.phase))
}

/// The work units the running test may still spend (None: unlimited), for
/// the SAT solver's step limit.
pub(crate) fn work_left() -> Option<u64> {
    STATE.with(|s| s.borrow().as_ref().and_then(|s| s.limits.max_work.map(|m| m.saturating_sub(s.work))))
}

/// The SAT solver took `steps` search steps: spend them, and unwind when
/// that passes the work limit.
pub(crate) fn spent_solving(steps: u64) {
    let hit = STATE.with(|s| s.borrow_mut().as_mut().and_then(|s| spend(s, steps)));
    if let Some(m) = hit {
        std::panic::resume_unwind(Box::new(Exceeded(m)));
    }
}

/// The solver gave up at the deadline: unwind with the timeout message.
pub(crate) fn timed_out() -> ! {
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
mod tests;
