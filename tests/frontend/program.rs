//! The program builder: paths, unrolling, value domains, dependencies.

use ptx_litmus::check::{check_source, check_source_at, CheckOptions};
use ptx_litmus::outcome::Verdict;
use ptx_litmus::program::{build_program, BuildOptions, RegValue};

fn program(text: &str) -> ptx_litmus::program::Program {
    let ast = ptx_litmus::parse::parse_litmus(text).expect("parses");
    build_program(&ast, &BuildOptions::default()).expect("builds")
}

fn verdict(text: &str) -> Verdict {
    check_source(text, &CheckOptions::default()).expect("checks").summary.verdict
}

#[test]
fn a_spin_loop_is_unrolled_and_cut_paths_are_flagged() {
    let t = "PTX spin\n{ f = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.relaxed.gpu f, 1 | L: ;\n | ld.relaxed.gpu r0, f ;\n | beq r0, 0, L ;\nexists (P1:r0 == 1)\n";
    let p = program(t);
    assert!(p.flags.unroll_bound_hit, "paths that keep reading 0 are cut");
    // The kept path's last read is assumed not to return 0.
    for &tr in &p.threads[1].traces {
        let Some(RegValue::ReadOf(r)) = p.traces[tr].regs.get("r0") else { panic!("r0 is the last read") };
        assert_eq!(p.events[*r].access().map(|a| a.read_not.clone()), Some(vec![0]));
    }
    assert_eq!(verdict(t), Verdict::Ok);
    assert_eq!(verdict(&t.replace("exists (P1:r0 == 1)", "forall (P1:r0 == 1)")), Verdict::Ok);
}

#[test]
fn atomic_chains_only_produce_reachable_values() {
    // Two increments: one event each, whose written value is symbolic (old + 1);
    // the location's value domain is exactly what chains of them reach.
    let t = "PTX inc\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n atom.gpu.add r0, x, 1 | atom.gpu.add r1, x, 1 ;\nexists (x == 2)\n";
    let p = program(t);
    let atoms: Vec<_> = p.events.iter().filter_map(|e| e.access()).filter(|a| a.reads && a.writes).collect();
    assert_eq!(atoms.len(), 2, "one event per atom, not one per value read");
    assert!(atoms.iter().all(|a| a.rmw.is_some() && a.read_value.is_none()));
    assert_eq!(p.locations[atoms[0].loc].values, vec![0, 1, 2]);
    let r = check_source(t, &CheckOptions::default()).unwrap();
    assert_eq!(r.summary.verdict, Verdict::Ok);
    assert_eq!(r.summary.negative, 0, "morally strong atomics always end with x == 2");
}

#[test]
fn a_failing_cas_does_not_write() {
    let t = "PTX cas\n{ x = 5; }\n P0@cta 0,gpu 0 ;\n atom.gpu.cas r0, x, 0, 1 ;\nforall (x == 5 /\\ P0:r0 == 5)\n";
    let p = program(t);
    assert!(p.events.iter().filter_map(|e| e.access()).all(|a| !a.writes));
    assert_eq!(verdict(t), Verdict::Ok);
}

#[test]
fn branch_on_a_read_keeps_it_symbolic_and_adds_control_dependencies() {
    let t = "PTX ctrl\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.weak r0, x | ld.weak r1, y ;\n bne r0, 1, L0 | bne r1, 1, L1 ;\n st.weak y, 1 | st.weak x, 1 ;\n L0: | L1: ;\nexists (P0:r0 == 1 /\\ P1:r1 == 1)\n";
    let p = program(t);
    assert_eq!(p.threads[0].traces.len(), 2, "one path per branch outcome, not per value");
    let deps: usize = p.traces.iter().map(|t| t.deps.len()).sum();
    assert!(deps >= 2, "the stores depend on the loads");
    // LB with control dependencies: the thin-air outcome is forbidden (8.10.4).
    assert_eq!(verdict(t), Verdict::No);
}

#[test]
fn shared_memory_is_per_cluster() {
    // Two clusters each see their own shared x: a load in cluster 1 never reads
    // the store of cluster 0 (ISA 8.3).
    let t = "PTX shared\n{ x = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 1,gpu 0 ;\n st.relaxed.sys.shared.u32 [x], 1 | ld.relaxed.sys.shared.u32 %r0, [x] ;\nexists (P1:%r0 == 1)\n";
    let p = program(t);
    let locs: Vec<usize> = p.events.iter().filter_map(|e| e.access().map(|a| a.loc)).collect();
    assert_ne!(locs[0], locs[1]);
    assert_eq!(verdict(t), Verdict::No);
}

#[test]
fn barriers_split_into_arrive_and_wait() {
    let t = "PTX bar\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | bar.sync 0 ;\n bar.sync 0 | ld.weak r0, x ;\nforall (P1:r0 == 1)\n";
    let p = program(t);
    let arrives = p.events.iter().filter(|e| e.is_sync_arrive()).count();
    let waits = p.events.iter().filter(|e| e.is_sync_wait()).count();
    assert_eq!((arrives, waits), (2, 2));
    assert_eq!(verdict(t), Verdict::Ok);
}

/// Issue 14's instance key (`program::Instance`): along every trace of every
/// test of the curated library and the public corpus, the events' instances
/// strictly increase, so one event per instance keeps program order (8.9.1)
/// as the key order; events on a common path prefix share their instance.
#[test]
fn instruction_instances_grow_strictly_along_every_trace() {
    use ptx_litmus::check::{collect_files, parse_and_expand, read_source};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // litmus/compiled/ is left out: its modules print version warnings.
    let compiled = root.join("litmus/compiled");
    let files: Vec<_> = collect_files(&[root.join("litmus"), root.join("tests/conformance/litmus")])
        .into_iter()
        .filter(|f| !f.starts_with(&compiled))
        .collect();
    let mut built = 0;
    for f in &files {
        let Ok(src) = read_source(f, 1 << 20) else { continue };
        let Ok(ast) = parse_and_expand(&src, f.parent().unwrap_or(root)) else { continue };
        let Ok(p) = build_program(&ast, &BuildOptions::default()) else { continue };
        built += 1;
        for tr in &p.traces {
            let keys: Vec<_> =
                tr.events.iter().map(|&e| p.events[e].instance.expect("thread events have an instance")).collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{}: trace {} instances {:?}", f.display(), tr.id, keys);
        }
        assert!(p.instance_count() <= p.events.len(), "{}", f.display());
    }
    assert!(built * 10 >= files.len() * 9, "only {} of {} files built", built, files.len());
    eprintln!("{} programs built", built);
}

/// A ticket lock of two threads: 27 paths per thread share 13 instruction
/// instances each (one atom, three spin reads, three exits of three events).
#[test]
fn a_ticket_lock_has_few_instances_and_many_events() {
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/locks/ticketlock-2.litmus"),
    )
    .expect("reads");
    let p = program(&src);
    assert_eq!(p.instance_count(), 3 + 2 * 13);
    assert!(p.events.len() > 4 * p.instance_count(), "{} events", p.events.len());
}

/// D113 (failed spin iterations left out while exploring) changes no answer:
/// every curated litmus test gives the same final states, verdict and flags
/// as a build that explores every failed iteration. A test the full build
/// cannot finish within its limits is counted, not compared.
#[test]
fn leaving_out_failed_spin_iterations_changes_no_listing() {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("litmus")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("litmus/ is readable").flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "litmus") {
                files.push(path);
            }
        }
    }
    files.sort();
    let with = |prune_spins: bool| CheckOptions {
        build: BuildOptions { prune_spins, ..Default::default() },
        list_states: None,
        ctx: ptx_litmus::context::Ctx::default().with_work(Some(3_500_000)),
        ..Default::default()
    };
    let (mut compared, mut pruned, mut too_big) = (0, 0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let base = f.parent().expect("in litmus/");
        let Ok(a) = check_source_at(&text, base, &with(true)) else { continue };
        let Ok(b) = check_source_at(&text, base, &with(false)) else {
            too_big += 1;
            continue;
        };
        let states = |r: &ptx_litmus::check::TestResult| r.outcome.states.keys().cloned().collect::<Vec<_>>();
        assert_eq!(states(&a), states(&b), "{}: states differ", f.display());
        assert_eq!(a.summary.verdict, b.summary.verdict, "{}: verdicts differ", f.display());
        let flags = |r: &ptx_litmus::check::TestResult| {
            let g = &r.outcome.flags;
            (g.unroll_bound_hit, g.deadlock, g.data_race, g.mixed_size)
        };
        assert_eq!(flags(&a), flags(&b), "{}: flags differ", f.display());
        compared += 1;
        pruned += usize::from(a.program.traces.len() < b.program.traces.len());
    }
    println!("{} tests compared ({} with fewer paths), {} too big without D113", compared, pruned, too_big);
    assert!(compared > 100 && pruned > 10, "too few loops compared: {} ({} pruned)", compared, pruned);
}

/// D115: libcu++'s back-off counts its polls (`r5`) and takes a "sleep" side
/// after a few (`r6`, the sleep length, feeds nothing), both sides back to the
/// poll. Neither register reaches an address, a stored value, a shown register
/// or a branch whose sides differ in effects, so D113 compares the state
/// without them and leaves the failed polls out: 1 path of P1 instead of one
/// per number of failed polls. The answer stays the message-passing one: the
/// consumer leaves the loop only on reading the flag with `ld.acquire`, which
/// synchronizes with the `st.release` after the data write (8.10.6), so it
/// reads data = 1: `exists (P1:r1 == 0)` is No, the only state `1:r1=1`.
#[test]
fn a_back_off_counter_does_not_keep_failed_polls() {
    let t = "PTX backoff\n{ data = 0; flag = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu data, 1 | mov.u32 r5, 0 ;\n st.release.gpu flag, 1 | LOOP: ;\n | ld.acquire.gpu r0, flag ;\n | setp.ne.u32 p0, r0, 0 ;\n | @p0 bra DONE ;\n | add.u32 r5, r5, 1 ;\n | setp.lt.u32 p1, r5, 2 ;\n | @p1 bra LOOP ;\n | mov.u32 r6, 1000 ;\n | bra LOOP ;\n | DONE: ;\n | ld.relaxed.gpu r1, data ;\nexists (P1:r1 == 0)\n";
    let build = BuildOptions { unroll: 4, ..Default::default() };
    let opts = CheckOptions { build: build.clone(), ..Default::default() };
    let pruned = check_source(t, &opts).expect("checks");
    assert_eq!(pruned.summary.verdict, Verdict::No);
    let states: Vec<String> = pruned.outcome.states.keys().map(|s| format!("{:?}", s)).collect();
    assert_eq!(states.len(), 1, "{:?}", states);
    assert!(pruned.outcome.flags.unroll_bound_hit, "a poll that keeps failing is cut");
    let full = build_program(&ptx_litmus::parse::parse_litmus(t).expect("parses"), &build).expect("builds");
    let paths = |p: &ptx_litmus::program::Program| p.threads[1].traces.len();
    assert_eq!(paths(&pruned.program), 1);
    assert!(paths(&full) > 3, "{} paths without D113", paths(&full));
    let full_opts = CheckOptions { build: BuildOptions { prune_spins: false, ..build }, ..Default::default() };
    let every = check_source(t, &full_opts).expect("checks");
    assert_eq!(every.outcome.states.keys().collect::<Vec<_>>(), pruned.outcome.states.keys().collect::<Vec<_>>());
}

/// D116: libcu++'s `binary_semaphore::acquire` spins on `atom.exch [sem], 0`
/// until it reads 1. A failed iteration reads 0 and writes 0 back: a silent
/// exchange, left out like a failed read when no other thread reads `sem`
/// (here P0 only writes it). P1 then has the paths of a first exchange that
/// reads 1 (the acquire that synchronizes with P0's `st.release`, 8.9.4) and
/// of one whose iterations keep failing (cut): fewer than with every failed
/// iteration kept, with the same listing. The answer is message passing's:
/// the exchange that reads 1 is an acquire pattern reading the release
/// pattern's write, so P0's data write precedes P1's load in causality
/// order and the load cannot read the initial 0 (8.10.6): `exists (P1:r1 ==
/// 0)` is No, the only state `1:r1=42`.
#[test]
fn a_silent_exchange_spin_keeps_no_failed_iteration() {
    let t = "PTX sem\n{ data = 0; sem = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak data, 42 | LOOP: ;\n st.release.gpu sem, 1 | atom.exch.acquire.gpu r0, sem, 0 ;\n | setp.ne.u32 p0, r0, 1 ;\n | @p0 bra LOOP ;\n | ld.weak r1, data ;\nexists (P1:r1 == 0)\n";
    let pruned = check_source(t, &CheckOptions::default()).expect("checks");
    assert_eq!(pruned.summary.verdict, Verdict::No);
    let states: Vec<String> = pruned.outcome.states.keys().map(|s| format!("{:?}", s)).collect();
    assert_eq!(states.len(), 1, "{:?}", states);
    assert!(pruned.outcome.flags.unroll_bound_hit, "an exchange that keeps failing is cut");
    let full_opts =
        CheckOptions { build: BuildOptions { prune_spins: false, ..Default::default() }, ..Default::default() };
    let every = check_source(t, &full_opts).expect("checks");
    assert_eq!(every.outcome.states.keys().collect::<Vec<_>>(), pruned.outcome.states.keys().collect::<Vec<_>>());
    let paths = |p: &ptx_litmus::program::Program| p.threads[1].traces.len();
    assert!(
        paths(&pruned.program) < paths(&every.program),
        "{} paths, {} without D113/D116",
        paths(&pruned.program),
        paths(&every.program)
    );
    let reads_only = BuildOptions { prune_silent_rmws: false, ..Default::default() };
    let kept = check_source(t, &CheckOptions { build: reads_only, ..Default::default() }).expect("checks");
    assert!(paths(&pruned.program) < paths(&kept.program), "D116 leaves out what D113 alone keeps");
}

/// D116's condition: when another thread reads the location (P2 here), the
/// copy a silent exchange writes could be what that thread reads, later in
/// coherence order than the write it copies; the iteration is kept (the build
/// falls back to leaving out failed reads only), and the listing is the one of
/// the build that keeps every failed iteration.
#[test]
fn a_silent_exchange_another_thread_reads_is_kept() {
    let t = "PTX sem-seen\n{ data = 0; sem = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.weak data, 42 | LOOP: | ld.relaxed.gpu r2, sem ;\n st.release.gpu sem, 1 | atom.exch.acquire.gpu r0, sem, 0 | ;\n | setp.ne.u32 p0, r0, 1 | ;\n | @p0 bra LOOP | ;\n | ld.weak r1, data | ;\nexists (P1:r1 == 0)\n";
    let pruned = check_source(t, &CheckOptions::default()).expect("checks");
    assert_eq!(pruned.summary.verdict, Verdict::No);
    let full_opts =
        CheckOptions { build: BuildOptions { prune_spins: false, ..Default::default() }, ..Default::default() };
    let every = check_source(t, &full_opts).expect("checks");
    assert_eq!(every.outcome.states.keys().collect::<Vec<_>>(), pruned.outcome.states.keys().collect::<Vec<_>>());
    let reads_only = BuildOptions { prune_silent_rmws: false, ..Default::default() };
    let kept = check_source(t, &CheckOptions { build: reads_only, ..Default::default() }).expect("checks");
    let paths = |p: &ptx_litmus::program::Program| p.threads[1].traces.len();
    assert_eq!(paths(&pruned.program), paths(&kept.program), "the exchange's iterations are kept");
}

/// D179: `litmus/regressions/barrier-then-spin.litmus`. P1 passes a
/// `bar.sync`, then waits on eight flags in turn; P0 reset them with plain
/// stores before the same `bar.sync`. The failed polls are left out (one path
/// of P1) although P1 has a barrier and its polls are not morally strong with
/// the resets: every reset precedes every poll in causality order through the
/// barrier, so no left-out poll races. Every failed poll kept, P1 has 3^8
/// paths, past the limit. The verdict is the file's, argued there (8.9.4,
/// 8.10.6): No, without a data race.
#[test]
fn failed_polls_after_a_barrier_are_left_out() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/regressions/barrier-then-spin.litmus");
    let text = std::fs::read_to_string(path).expect("reads");
    let r = check_source(&text, &CheckOptions::default()).expect("decided at the default bound");
    assert_eq!(r.summary.verdict, Verdict::No);
    assert!(!r.outcome.flags.data_race, "the resets are ordered before every poll");
    assert!(r.outcome.flags.unroll_bound_hit, "a wait that keeps failing is cut");
    assert_eq!(r.program.threads[1].traces.len(), 1);
    let ast = ptx_litmus::parse::parse_litmus(&text).expect("parses");
    let every = build_program(&ast, &BuildOptions::default()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(every.contains("more than 4096 paths"), "every failed poll kept: {:?}", every);
}

/// D180: which registers matter is decided per instruction (flow-sensitive).
/// P1 stores its back-off counter `r5` while it is 0, then counts failed polls
/// in it: no effect reads `r5` from the loop on, so at the loop head it does
/// not matter and D113 leaves the failed polls out (1 path of P1 instead of one
/// per number of failed polls). The answer is the message-passing one: the
/// consumer leaves the loop only on reading the flag with `ld.acquire`, which
/// synchronizes with the `st.release` after the data write (8.9.4 rule 4), so
/// it reads data = 1 (8.10.6): `exists (P1:r1 == 0)` is No.
#[test]
fn a_counter_stored_before_the_loop_does_not_keep_failed_polls() {
    let t = "PTX backoff-stored\n{ data = 0; flag = 0; out = 7; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu data, 1 | mov.u32 r5, 0 ;\n st.release.gpu flag, 1 | st.relaxed.gpu [out], r5 ;\n | LOOP: ;\n | ld.acquire.gpu r0, flag ;\n | setp.ne.u32 p0, r0, 0 ;\n | @p0 bra DONE ;\n | add.u32 r5, r5, 1 ;\n | bra LOOP ;\n | DONE: ;\n | ld.relaxed.gpu r1, data ;\nexists (P1:r1 == 0)\n";
    let build = BuildOptions { unroll: 4, ..Default::default() };
    let r = check_source(t, &CheckOptions { build: build.clone(), ..Default::default() }).expect("checks");
    assert_eq!(r.summary.verdict, Verdict::No);
    assert_eq!(r.program.threads[1].traces.len(), 1);
    let full = build_program(&ptx_litmus::parse::parse_litmus(t).expect("parses"), &build).expect("builds");
    assert!(full.threads[1].traces.len() > 3, "{} paths without D113", full.threads[1].traces.len());
}

/// A message-passing consumer that polls `flag` in a loop, with `ld.weak`
/// (`weak`) or `ld.relaxed.gpu`, and then reads `data`.
fn polling_consumer(poll: &str) -> String {
    format!("PTX poll\n{{ data = 0; flag = 0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu data, 1 | LOOP: ;\n st.release.gpu flag, 1 | {} r0, flag ;\n | setp.eq.u32 p0, r0, 0 ;\n | @p0 bra LOOP ;\n | ld.relaxed.gpu r1, data ;\nexists (P1:r1 == 0)\n", poll)
}

/// D189's condition, checked after the symbolic build as D113's is after the
/// path build: a failed poll left out must race with nothing. A relaxed
/// `.gpu` poll is morally strong with P0's `st.release.gpu` (8.7: both
/// strong, each scope includes the other thread): the pruned walk stands,
/// fewer events than every iteration kept. A weak poll is not morally strong
/// with it (8.7), so a left-out poll could race (8.7.1): the program is built
/// again with every iteration kept (the same events as `build_symbolic`'s).
/// Either way the answer is the one every iteration kept gives, and the spec's:
/// the poll is no acquire, so reading flag = 1 orders nothing and P1 may read
/// data = 0 (8.10.6 needs a release pattern observed by an acquire pattern):
/// `exists (P1:r1 == 0)` holds (Ok); with the weak poll the listing has a data race.
#[test]
fn a_racing_left_out_poll_rebuilds_the_symbolic_program_with_every_iteration() {
    use ptx_litmus::check::{build_encoded, parse_and_expand, ThreadEncoding};
    let symbolic = |prune_spins: bool| CheckOptions {
        encoding: ThreadEncoding::Symbolic,
        build: BuildOptions { prune_spins, ..Default::default() },
        list_states: None,
        ..Default::default()
    };
    for (poll, races) in [("ld.relaxed.gpu", false), ("ld.weak", true)] {
        let t = polling_consumer(poll);
        let ast = parse_and_expand(&t, std::path::Path::new(".")).expect("parses");
        let full = match ptx_litmus::program::build_symbolic(&ast, &BuildOptions::default()).expect("builds") {
            ptx_litmus::program::SymbolicBuild::Built(p) => p,
            ptx_litmus::program::SymbolicBuild::Outside(why) => panic!("refused: {}", why),
        };
        let pruned = ptx_litmus::program::build::build_symbolic_leaving_out_spins(&ast, &BuildOptions::default());
        let Ok((ptx_litmus::program::SymbolicBuild::Built(pruned), Some(left_out))) = pruned else {
            panic!("{}: the pruned walk builds", poll)
        };
        assert!(!left_out.is_empty() && pruned.events.len() < full.events.len(), "{}: polls left out", poll);
        let decided = build_encoded(&ast, &symbolic(true)).expect("builds");
        if races {
            assert_eq!(decided.events.len(), full.events.len(), "{}: every iteration kept", poll);
        } else {
            assert!(decided.events.len() < full.events.len(), "{}: failed polls left out", poll);
        }
        let (a, b) =
            (check_source(&t, &symbolic(true)).expect("checks"), check_source(&t, &symbolic(false)).expect("checks"));
        assert_eq!(a.summary.verdict, Verdict::Ok, "{}: the exists holds", poll);
        assert_eq!(a.outcome.flags, b.outcome.flags, "{}", poll);
        assert_eq!(a.outcome.flags.data_race, races, "{}", poll);
        assert_eq!(a.outcome.states.keys().collect::<Vec<_>>(), b.outcome.states.keys().collect::<Vec<_>>());
        let paths = check_source(&t, &CheckOptions { list_states: None, ..Default::default() }).expect("checks");
        assert_eq!(a.outcome.states.keys().collect::<Vec<_>>(), paths.outcome.states.keys().collect::<Vec<_>>());
    }
}

/// D189 on the library and the corpus: every test of `litmus/` and
/// `tests/conformance/litmus` the symbolic builder covers, decided by the
/// symbolic encoding with failed spin iterations left out of the walk,
/// gives the final states, verdict and flags of the same encoding with every
/// iteration kept. Not `litmus/scale/`: without symmetry (D186) their 8- and
/// 16-thread locks take minutes with every iteration kept. A test either
/// build cannot decide within its limits is counted, not compared.
#[test]
fn leaving_out_failed_iterations_of_the_symbolic_walk_changes_no_library_listing() {
    use ptx_litmus::check::ThreadEncoding;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs: Vec<std::path::PathBuf> = ["litmus", "tests/conformance/litmus"].iter().map(|d| root.join(d)).collect();
    let files: Vec<std::path::PathBuf> = ptx_litmus::check::collect_files(&dirs)
        .into_iter()
        .filter(|f| !f.components().any(|c| c.as_os_str() == "scale"))
        .collect();
    let with = |prune_spins: bool| CheckOptions {
        encoding: ThreadEncoding::Symbolic,
        build: BuildOptions { prune_spins, ..Default::default() },
        list_states: None,
        ctx: ptx_litmus::context::Ctx::default().with_work(Some(3_500_000)),
        ..Default::default()
    };
    let (mut compared, mut pruned, mut undecided) = (0, 0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let base = f.parent().expect("in a folder");
        let (Ok(a), Ok(b)) = (check_source_at(&text, base, &with(true)), check_source_at(&text, base, &with(false)))
        else {
            undecided += 1;
            continue;
        };
        let states = |r: &ptx_litmus::check::TestResult| r.outcome.states.keys().cloned().collect::<Vec<_>>();
        assert_eq!(states(&a), states(&b), "{}: states differ", f.display());
        assert_eq!(a.summary.verdict, b.summary.verdict, "{}: verdicts differ", f.display());
        assert_eq!(a.outcome.flags, b.outcome.flags, "{}: flags differ", f.display());
        compared += 1;
        pruned += usize::from(a.program.events.len() < b.program.events.len());
    }
    println!("{} tests compared ({} with fewer events), {} not decided symbolically", compared, pruned, undecided);
    assert!(compared > 100 && pruned > 10, "too few loops compared: {} ({} pruned)", compared, pruned);
}

/// D189 with D116: the semaphore loops of the two tests above, decided by the
/// symbolic encoding. Where only P0 writes `sem`, a failed `atom.exch [sem], 0`
/// that read 0 wrote back what it read: the walk leaves the failed
/// iterations out (fewer events than with every iteration kept). Where P2
/// reads `sem`, the copy could be what P2 reads, so the check after the
/// build fails, and the walk made again with reads only left out keeps the
/// exchange (an effect): every event is kept. Both answers are the path
/// encoding's, argued above (No; with P2, No as well: P1's last exchange
/// still acquires P0's release before it reads `data`).
#[test]
fn a_silent_exchange_spin_in_the_symbolic_walk() {
    use ptx_litmus::check::{build_encoded, parse_and_expand, ThreadEncoding};
    let alone = "PTX sem\n{ data = 0; sem = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak data, 42 | LOOP: ;\n st.release.gpu sem, 1 | atom.exch.acquire.gpu r0, sem, 0 ;\n | setp.ne.u32 p0, r0, 1 ;\n | @p0 bra LOOP ;\n | ld.weak r1, data ;\nexists (P1:r1 == 0)\n";
    let seen = "PTX sem-seen\n{ data = 0; sem = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.weak data, 42 | LOOP: | ld.relaxed.gpu r2, sem ;\n st.release.gpu sem, 1 | atom.exch.acquire.gpu r0, sem, 0 | ;\n | setp.ne.u32 p0, r0, 1 | ;\n | @p0 bra LOOP | ;\n | ld.weak r1, data | ;\nexists (P1:r1 == 0)\n";
    let symbolic = CheckOptions { encoding: ThreadEncoding::Symbolic, list_states: None, ..Default::default() };
    for (t, left_out) in [(alone, true), (seen, false)] {
        let ast = parse_and_expand(t, std::path::Path::new(".")).expect("parses");
        let full = match ptx_litmus::program::build_symbolic(&ast, &BuildOptions::default()).expect("builds") {
            ptx_litmus::program::SymbolicBuild::Built(p) => p,
            ptx_litmus::program::SymbolicBuild::Outside(why) => panic!("refused: {}", why),
        };
        let decided = build_encoded(&ast, &symbolic).expect("builds");
        assert_eq!(decided.events.len() < full.events.len(), left_out, "{}", t);
        let y = check_source(t, &symbolic).expect("checks");
        let paths = check_source(t, &CheckOptions { list_states: None, ..Default::default() }).expect("checks");
        assert_eq!(y.summary.verdict, Verdict::No, "{}", t);
        assert_eq!(y.outcome.states.keys().collect::<Vec<_>>(), paths.outcome.states.keys().collect::<Vec<_>>());
        assert_eq!(y.outcome.flags, paths.outcome.flags, "{}", t);
    }
}
