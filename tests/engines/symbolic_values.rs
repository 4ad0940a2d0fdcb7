//! Values the symbolic builder computes as the path builder does (D204):
//! timer readings, floating-point operations, variables without an initial
//! value and `isspacep`, each decided by `--encoding symbolic` with the
//! final states argued from the ISA.

use ptx_litmus::check::{check_source_at, CheckOptions, TestResult, ThreadEncoding};
use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `src` decided by `encoding`, every final state listed; `ptx` paths relative to `base`.
fn decide(src: &str, base: &Path, encoding: ThreadEncoding) -> ptx_litmus::error::Result<TestResult> {
    let opts = CheckOptions { list_states: None, encoding, ..CheckOptions::default() };
    check_source_at(src, base, &opts)
}

/// The final states (observables in order) of `src` under the symbolic encoding,
/// which must be the path encoding's.
fn symbolic_states(src: &str, base: &Path) -> BTreeSet<Vec<i64>> {
    let sym = decide(src, base, ThreadEncoding::Symbolic).unwrap_or_else(|e| panic!("symbolic: {}", e.message));
    let paths = decide(src, base, ThreadEncoding::Paths).unwrap_or_else(|e| panic!("paths: {}", e.message));
    let states = |r: &TestResult| r.outcome.states.keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(states(&sym), states(&paths), "the encodings disagree on:\n{}", src);
    assert_eq!(sym.outcome.flags, paths.outcome.flags, "flags differ on:\n{}", src);
    states(&sym)
}

/// libcu++'s `try_acquire_for` shape (`try_wait` of special-registers.ptx):
/// poll `flag` until it is 1 (out = 1) or until the `%globaltimer` reading
/// is past the deadline (out = 2). P1 sets the flag. A timer only never
/// goes back (D81): P0 may see the flag before time passes (out = 1), or the
/// deadline may pass first (out = 2); polling forever is cut by the unroll
/// bound, not a final state. Both readings of the timer must be there: with
/// only "no time passed" out = 2 is missing, with only "much later" out = 1
/// is (the first poll would still find the flag, so both states need the
/// choice; the flag's 0 with the deadline passed gives out = 2).
#[test]
fn a_timed_wait_either_sees_the_flag_or_gives_up() {
    let base = root().join("litmus/regressions");
    let src = "PTX timed-wait-raced
{ flag = 0; out = 0; }
ptx \"special-registers.ptx\";
 P0@cta 0,gpu 0          | P1@cta 1,gpu 0            ;
 call try_wait, (flag, out) | st.relaxed.gpu [flag], 1 ;
locations [out;]
exists (out == 2)
";
    if !base.join("special-registers.ptx").is_file() {
        eprintln!("SKIP: litmus/regressions/special-registers.ptx is absent");
        return;
    }
    assert_eq!(symbolic_states(src, &base), BTreeSet::from([vec![1], vec![2]]));
}

/// Two `atom.add.f32` of 1.0 (0x3f800000) to x = 0.0: atomic (8.9.1: no
/// other write to x between an atomic's read and write), so one reads 0.0
/// and the other 1.0, and x ends 1.0 + 1.0 = 2.0 (0x40000000, where an
/// integer add would give 0x7f000000); `setp.lt.f32` against 0.5
/// (0x3f000000) is 1 for the 0.0 read and 0 for the 1.0 read, and
/// `cvt.rn.f32.u32` of 3 is 3.0 (0x40400000).
#[test]
fn floating_point_atomics_and_operations_are_evaluated_as_for_paths() {
    let src = "PTX fadd
{ x = 0; }
 P0@cta 0,gpu 0                                  | P1@cta 1,gpu 0                                  ;
 atom.relaxed.gpu.add.f32 r0, [x], 1065353216     | atom.relaxed.gpu.add.f32 r0, [x], 1065353216     ;
 setp.lt.f32 p0, r0, 1056964608                  | cvt.rn.f32.u32 r1, 3                            ;
 selp.u32 r1, 1, 0, p0                           |                                                 ;
locations [x; P0:r0; P0:r1; P1:r0; P1:r1;]
exists (x == 0)
";
    let (one, two, three) = (0x3f80_0000, 0x4000_0000, 0x4040_0000);
    let expected = BTreeSet::from([vec![two, 0, 1, one, three], vec![two, one, 0, 0, three]]);
    assert_eq!(symbolic_states(src, Path::new(".")), expected);
}

/// `litmus/regressions/symbolic-valueless-cycle` (D304): every value of x but
/// 0 is computed from P0's first read, so it reads 0 (8.10.4 No-Thin-Air)
/// and x ends 0 or 1; both lanes perform their one `shfl.sync` over mask 3,
/// which completes: no deadlock under either encoding. The symbolic
/// encoding flagged one from an execution whose reads on a reads-from cycle
/// had no value.
#[test]
fn a_reads_from_cycle_through_a_shuffle_has_values_and_no_deadlock() {
    let path = root().join("litmus/regressions/symbolic-valueless-cycle.litmus");
    let src = std::fs::read_to_string(&path).expect("the regression test is in the repository");
    let sym = decide(&src, Path::new("."), ThreadEncoding::Symbolic).unwrap_or_else(|e| panic!("{}", e.message));
    assert!(!sym.outcome.flags.deadlock, "symbolic: a deadlock no execution has");
    assert_eq!(symbolic_states(&src, Path::new(".")), BTreeSet::from([vec![0, 0], vec![1, 0]]));
}
