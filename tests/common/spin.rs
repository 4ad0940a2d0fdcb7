//! Random tests with one spin loop or `cas` loop (decisions D65, D66): the
//! SAT engine merges their paths and drops failed iterations; the reference
//! engine enumerates every path.

#![allow(dead_code)]

use super::gen::{op, place, sem, Op, Test};
use proptest::prelude::*;

/// Tests with one spin loop (`Op::Spin`) inserted into one thread, and a
/// store of 1 to the spun-on location in another so the loop can end.
pub fn spin_strategy() -> impl Strategy<Value = Test> {
    // Smaller than `test_strategy` (2-3 threads of 1-3 operations): each spin
    // loop multiplies the reference engine's paths.
    let small = any::<bool>().prop_flat_map(|aliases| {
        (proptest::collection::vec((place(), proptest::collection::vec(op(aliases), 1..=3)), 2..=3), Just(aliases))
            .prop_map(|(threads, aliases)| Test { threads, aliases, shared_y: false })
    });
    (small, 0..4usize, 0..6usize, sem(), 0..4usize, 0..3usize, 0..2usize, sem(), 0..6usize).prop_map(
        |(mut t, th, pos, sem, scope, reg, loc, wsem, wpos)| {
            let n = t.threads.len();
            let th = th % n;
            let ops = &mut t.threads[th].1;
            let at = pos.min(ops.len());
            // One case in six a cas loop (its failing cas writes nothing: D66 may drop it too).
            let spin = if pos == 4 { Op::CasLoop { loc, at } } else { Op::Spin { sem, scope, reg, loc, at } };
            ops.insert(at, spin);
            let other = &mut t.threads[(th + 1) % n].1;
            if n > 1 {
                other.insert(
                    wpos.min(other.len()),
                    Op::St { sem: wsem, scope, loc, val: 1, from_reg: None, alias: false },
                );
            }
            t
        },
    )
}
