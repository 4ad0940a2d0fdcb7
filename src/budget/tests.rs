//! The budget's tests: each limit unwinds with its message, and a work
//! limit cuts a whole check.

use super::*;

#[test]
fn one_large_charge_past_the_budget_unwinds_with_the_phase() {
    let r = run(Limits { timeout: None, max_bytes: 100, max_work: None }, || {
        phase("coherence order");
        charge(1 << 40);
    });
    let e = r.unwrap_err();
    assert!(e.0.contains("--max-memory") && e.0.contains("coherence order"), "{}", e.0);
    // The slot is cleared: charging outside `run` is free.
    charge(1 << 40);
}

#[test]
fn a_step_is_refused_before_it_is_made_when_it_would_not_fit() {
    // 256 MB over what the process holds (times the tests running beside
    // this one): a 16 MB step fits, a 1 TB one is refused at once (no
    // reading would interrupt it).
    let held = resident_bytes().expect("Linux has /proc/self/status");
    let limits = Limits { timeout: None, max_bytes: held + (256 << 20), max_work: None };
    assert!(run(limits, || will_allocate(16 << 20)).is_ok());
    let e = run(limits, || will_allocate(1 << 40)).unwrap_err();
    assert!(e.0.contains("1048576 MB more at once") && e.0.contains("resident"), "{}", e.0);
    // A full table's next insertion is such a step (about 2 * 1.8 M
    // buckets of 17 bytes here); one with room left is not.
    let mut map: std::collections::HashMap<u64, u64> = std::collections::HashMap::with_capacity(1 << 20);
    while map.len() + 1 < map.capacity() {
        map.insert(map.len() as u64, 0);
    }
    let none = Limits { timeout: None, max_bytes: 1, max_work: None };
    assert!(run(none, || before_insert(&map)).is_ok());
    map.insert(u64::MAX, 0);
    assert!(run(none, || before_insert(&map)).unwrap_err().0.contains("more at once"));
}

#[test]
fn resident_size_past_the_budget_unwinds() {
    // A test that grows the process past its budget (64 MB touched, whatever
    // the estimate says): the first reading after RESIDENT_EVERY stops it.
    let budget = 64u64 << 20;
    let r = run(Limits { timeout: None, max_bytes: budget, max_work: None }, || {
        let held = vec![1u8; 2 * budget as usize];
        loop {
            std::thread::sleep(Duration::from_millis(1));
            check_time();
            std::hint::black_box(&held);
        }
    });
    let e = r.unwrap_err();
    assert!(e.0.contains("resident, past --max-memory"), "{}", e.0);
}

#[test]
fn what_the_process_held_before_the_test_is_not_the_tests() {
    // A budget below what the process already holds, and a test that
    // allocates nothing: it is not cut for memory it did not take (D295).
    let held = resident_bytes().expect("Linux has /proc/self/status");
    let r = run(Limits { timeout: None, max_bytes: held / 2, max_work: None }, || {
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(1));
            check_time();
        }
    });
    assert!(r.is_ok(), "{:?}", r.err());
}

#[test]
fn deadline_unwinds() {
    let r = run(Limits { timeout: Some(Duration::from_millis(1)), max_bytes: u64::MAX, max_work: None }, || loop {
        std::thread::sleep(Duration::from_millis(2));
        check_time();
    });
    assert!(r.unwrap_err().0.contains("--timeout"));
}

#[test]
fn the_work_limit_cuts_after_as_many_units_however_fast_they_come() {
    let limits = Limits { timeout: None, max_bytes: u64::MAX, max_work: Some(1000) };
    let spent = std::cell::Cell::new(0u64);
    let r = run(limits, || loop {
        charge(0);
        spent.set(spent.get() + 1);
    });
    assert!(r.unwrap_err().0.starts_with("work limit: more than 1000 work units"));
    assert_eq!(spent.get(), 1000, "the 1001st unit is the one refused");
    // The solver's steps count against the same limit.
    let r = run(limits, || {
        assert_eq!(work_left(), Some(1000));
        spent_solving(999);
        assert_eq!(work_left(), Some(1));
        spent_solving(2);
    });
    assert!(r.unwrap_err().0.contains("more than 1000 work units"));
}

/// A work limit cuts a whole check: eight CAS-counter threads take about
/// 28,000 units (`PTXL_DEBUG`); at 20,000 the check ends with the
/// work-limit message, unlimited it decides.
#[test]
fn a_work_limit_stops_the_sat_engine_with_its_message() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/litmus/scale/cascounter-8-bne.litmus"))
        .expect("the scale family is in the repository");
    let at = |units| crate::check::CheckOptions {
        ctx: crate::context::Ctx::default().with_work(units),
        ..Default::default()
    };
    let e = crate::check::check_source(&text, &at(Some(20_000))).expect_err("cut");
    assert!(e.to_string().contains("work limit: more than 20000 work units"), "{}", e);
    assert!(crate::check::check_source(&text, &at(None)).is_ok());
}
