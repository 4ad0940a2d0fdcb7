//! The symbolic builder (issue 27, D181-D184) against the path builder, which
//! it must agree with behaviour for behaviour: for every test of `litmus/` and
//! `tests/conformance/litmus` the symbolic builder accepts, and each thread
//! small enough to enumerate, the set of (events performed with the values
//! they read and write, dependencies between them, final registers) over
//! every assignment of values to the thread's reads equals the same set
//! over the path builder's traces. Both read values from the path builder's
//! location domains; a symbolic execution the unroll bound cuts, or whose
//! assumptions fail, is no behaviour (as the path builder drops cut paths
//! and forks only over the values its assumptions allow).

use ptx_litmus::check::{collect_files, parse_and_expand};
use ptx_litmus::program::build::evaluate_symbolic;
use ptx_litmus::program::symbolic::{SymFacts, Term, TermId};
use ptx_litmus::program::{
    build_program, build_symbolic, Access, BuildOptions, EventId, Program, RegValue, Rmw, SymbolicBuild,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Most assignments of read values (and choices) enumerated per thread.
const MOST: usize = 4096;

/// One performed event: instance (back edges, pc), text, value read, value written.
type Performed = (u32, usize, String, Option<i64>, Option<i64>);

/// One behaviour of a thread.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Behaviour {
    events: Vec<Performed>,
    /// (read, event) as positions in `events`.
    deps: BTreeSet<(usize, usize)>,
    /// Final registers (a register a path does not write is 0, as reports show it).
    regs: BTreeMap<String, i64>,
}

/// Every combination of one value from each list (the last fastest), or
/// `None` when there are more than [`MOST`].
fn combinations(lists: &[Vec<i64>]) -> Option<Vec<Vec<i64>>> {
    let mut out = vec![Vec::new()];
    for l in lists {
        out = out.into_iter().flat_map(|c| l.iter().map(move |&v| [c.clone(), vec![v]].concat())).collect();
        if out.len() > MOST {
            return None;
        }
    }
    Some(out)
}

/// The values location `loc` of `p` may hold, in the path builder's program `q`.
fn domain(p: &Program, q: &Program, loc: usize) -> Vec<i64> {
    let name = &p.locations[loc].name;
    q.locations.iter().find(|l| &l.name == name).map(|l| l.values.clone()).unwrap_or_default()
}

fn written(a: &Access, read: Option<i64>) -> Option<i64> {
    match (&a.rmw, read) {
        _ if !a.writes => None,
        (Some(op), Some(v)) => Some(op.apply(v)),
        _ => Some(a.write_value),
    }
}

/// The path builder's behaviours of thread `t`, or `None` if too many.
fn path_behaviours(q: &Program, t: usize) -> Option<BTreeSet<Behaviour>> {
    let mut out = BTreeSet::new();
    for &tid in &q.threads[t].traces {
        let trace = &q.traces[tid];
        let reads: Vec<EventId> = trace.events.iter().copied().filter(|&e| q.events[e].read_loc().is_some()).collect();
        let lists: Vec<Vec<i64>> = reads
            .iter()
            .map(|&r| {
                let a = q.events[r].access().unwrap();
                q.locations[a.loc].values.iter().copied().filter(|&v| a.allows(v)).collect()
            })
            .collect();
        for values in combinations(&lists)? {
            let raw: BTreeMap<EventId, i64> = reads.iter().copied().zip(values).collect();
            let events = trace
                .events
                .iter()
                .map(|&e| {
                    let ev = &q.events[e];
                    let inst = ev.instance.unwrap();
                    let read = raw.get(&e).copied();
                    let w = ev.access().and_then(|a| written(a, read));
                    (inst.back_edges, inst.pc, ev.text.clone(), read, w)
                })
                .collect();
            let pos = |e: EventId| trace.events.iter().position(|&x| x == e).unwrap();
            let deps = trace.deps.iter().map(|&(r, e)| (pos(r), pos(e))).collect();
            let regs = trace
                .regs
                .iter()
                .map(|(name, v)| {
                    let v = match v {
                        RegValue::Const(c) => *c,
                        RegValue::ReadOf(r) => q.events[*r].access().unwrap().loaded(raw[r]),
                    };
                    (name.clone(), v)
                })
                .collect();
            out.insert(Behaviour { events, deps, regs });
        }
    }
    Some(out)
}

/// The choices the terms `roots` of `f` mention (each shared term visited once).
fn choices_in(f: &SymFacts, roots: &[TermId], out: &mut BTreeSet<usize>) {
    let mut seen = BTreeSet::new();
    let mut stack = roots.to_vec();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        match &f.terms[t] {
            Term::Choice(k) => {
                out.insert(*k);
            }
            Term::Op(_, args) => stack.extend(args),
            _ => {}
        }
    }
}

/// The symbolic program's behaviours of thread `t`, reading values from the
/// path builder's domains; `Err` when a term needs a read not performed.
fn symbolic_behaviours(
    p: &Program,
    f: &SymFacts,
    q: &Program,
    t: usize,
) -> Option<Result<BTreeSet<Behaviour>, String>> {
    let events = p.traces[p.threads[t].traces[0]].events.clone();
    let reads: Vec<EventId> = events.iter().copied().filter(|&e| p.events[e].read_loc().is_some()).collect();
    // The choices the thread's facts mention: a cas's in its guards, a timer
    // read's (D204) in the values it computes.
    let mut choice_ids = BTreeSet::new();
    let mine = |e: &EventId| events.contains(e);
    let mut roots: Vec<TermId> = events.iter().map(|&e| f.guard[e]).collect();
    roots.extend(f.write.iter().filter(|(e, _)| mine(e)).map(|(_, &w)| w));
    roots.extend(f.operands.iter().filter(|(e, _)| mine(e)).flat_map(|(_, ts)| ts.iter().copied()));
    roots.extend(f.assume.iter().filter(|(e, _)| mine(e)).map(|&(_, a)| a));
    roots.extend(f.deps.iter().filter(|(_, e, _)| mine(e)).map(|&(_, _, c)| c));
    roots.extend(f.regs[t].values().copied().chain([f.cut[t]]));
    choices_in(f, &roots, &mut choice_ids);
    let choice_ids: Vec<usize> = choice_ids.into_iter().collect();
    let mut lists: Vec<Vec<i64>> = reads.iter().map(|&r| domain(p, q, p.events[r].read_loc().unwrap())).collect();
    lists.extend(choice_ids.iter().map(|_| vec![0, 1]));
    let mut out = BTreeSet::new();
    for values in combinations(&lists)? {
        let raw: BTreeMap<EventId, i64> = reads.iter().copied().zip(values.iter().copied()).collect();
        let chosen: BTreeMap<usize, i64> =
            choice_ids.iter().copied().zip(values[reads.len()..].iter().copied()).collect();
        match one_behaviour(p, f, t, &events, &raw, &chosen) {
            Ok(Some(b)) => {
                out.insert(b);
            }
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(out))
}

/// The behaviour of one assignment; `None` when it is cut or assumes what
/// does not hold.
fn one_behaviour(
    p: &Program,
    f: &SymFacts,
    t: usize,
    events: &[EventId],
    raw: &BTreeMap<EventId, i64>,
    chosen: &BTreeMap<usize, i64>,
) -> Result<Option<Behaviour>, String> {
    let mut performed: Vec<EventId> = Vec::new();
    let choice = |k: usize| chosen.get(&k).copied().unwrap_or(0);
    for &e in events {
        let read = |r: EventId| performed.contains(&r).then(|| p.events[r].access().unwrap().loaded(raw[&r]));
        let g = evaluate_symbolic(f, f.guard[e], &read, &choice);
        match g {
            Some(1) => performed.push(e),
            Some(0) => {}
            other => return Err(format!("guard of event {} ({}) is {:?}", e, p.events[e].text, other)),
        }
    }
    let read = |r: EventId| performed.contains(&r).then(|| p.events[r].access().unwrap().loaded(raw[&r]));
    let value = |term: TermId, what: &str| {
        evaluate_symbolic(f, term, &read, &choice).ok_or_else(|| format!("{} needs a read not performed", what))
    };
    if value(f.cut[t], "the cut term")? == 1 {
        return Ok(None);
    }
    for (e, a) in &f.assume {
        if performed.contains(e) && value(*a, "an assumption")? == 0 {
            return Ok(None);
        }
    }
    let mut out = Vec::new();
    for &e in &performed {
        let ev = &p.events[e];
        let inst = ev.instance.unwrap();
        let r = raw.get(&e).copied().filter(|_| ev.read_loc().is_some());
        let w = match (ev.access(), f.write.get(&e), f.operands.get(&e)) {
            (Some(_), Some(&term), _) => Some(value(term, "a written value")?),
            (Some(a), None, Some(ops)) => {
                let operands = ops.iter().map(|&o| value(o, "an operand")).collect::<Result<Vec<i64>, String>>()?;
                let rmw = Rmw { operands, ..a.rmw.clone().unwrap() };
                Some(rmw.apply(r.unwrap()))
            }
            (Some(a), None, None) => written(a, r),
            (None, ..) => None,
        };
        out.push((inst.back_edges, inst.pc, ev.text.clone(), r, w));
    }
    let pos = |e: EventId| performed.iter().position(|&x| x == e);
    let mut deps = BTreeSet::new();
    for &(r, e, c) in &f.deps {
        if let (Some(a), Some(b)) = (pos(r), pos(e)) {
            if value(c, "a dependency condition")? == 1 {
                deps.insert((a, b));
            }
        }
    }
    let mut regs = BTreeMap::new();
    for (name, &term) in &f.regs[t] {
        regs.insert(name.clone(), value(term, "a final register")?);
    }
    Ok(Some(Behaviour { events: out, deps, regs }))
}

/// Registers a path leaves unwritten read as 0 in reports: compare with them filled in.
fn fill(mut set: BTreeSet<Behaviour>, names: &BTreeSet<String>) -> BTreeSet<Behaviour> {
    set = set
        .into_iter()
        .map(|mut b| {
            names.iter().for_each(|n| {
                b.regs.entry(n.clone()).or_insert(0);
            });
            b
        })
        .collect();
    set
}

/// Compare the builders on one test: the number of threads compared, or
/// what differs.
fn compare(path: &Path) -> Result<usize, String> {
    let Ok(source) = std::fs::read_to_string(path) else { return Ok(0) };
    let base = path.parent().unwrap_or(Path::new("."));
    let Ok(lit) = parse_and_expand(&source, base) else { return Ok(0) };
    // The path builder takes seconds on the 8- and 16-thread locks and
    // counters of `litmus/scale`; their 2- and 3-thread versions are compared.
    if lit.threads.len() > 4 {
        return Ok(0);
    }
    let opts = BuildOptions::default();
    let (Ok(q), Ok(SymbolicBuild::Built(mut p))) = (build_program(&lit, &opts), build_symbolic(&lit, &opts)) else {
        return Ok(0);
    };
    let f = p.symbolic.take().unwrap();
    let names = |p: &Program| p.locations.iter().map(|l| (l.name.clone(), l.init)).collect::<Vec<_>>();
    if names(&p) != names(&q) || p.loc_names != q.loc_names || p.observables != q.observables {
        return Err("locations, their names or the observables differ".into());
    }
    // Reads take values from the domains: the symbolic ones may only be larger (D184).
    for (mine, theirs) in p.locations.iter().zip(&q.locations) {
        if let Some(v) = theirs.values.iter().find(|v| !mine.values.contains(v)) {
            return Err(format!("location {} lacks the value {} the path builder's domain has", mine.name, v));
        }
    }
    if p.flags.unroll_bound_hit != q.flags.unroll_bound_hit {
        return Err(format!(
            "unroll bound hit: symbolic {}, paths {}",
            p.flags.unroll_bound_hit, q.flags.unroll_bound_hit
        ));
    }
    let mut compared = 0;
    for t in 0..p.threads.len() {
        // A wait that assumes other threads' values (a warp collective's lanes,
        // a `bar.red` result, D210, D211) is a free choice here, and the
        // symbolic builder offers the combinations of its value sets, a superset
        // of the paths' (D210): such a thread's behaviours are compared through
        // the listings (`scripts/symbolic_listings.py`) and the differential
        // properties, where the engines match the waits with the arrivals.
        if p.events.iter().any(|e| e.thread == Some(t) && e.sync().is_some_and(|s| s.value.is_some())) {
            continue;
        }
        let (Some(mine), Some(theirs)) = (symbolic_behaviours(&p, &f, &q, t), path_behaviours(&q, t)) else {
            continue;
        };
        let mine = mine.map_err(|e| format!("P{}: {}", t, e))?;
        let reg_names: BTreeSet<String> = mine.iter().chain(&theirs).flat_map(|b| b.regs.keys().cloned()).collect();
        let (mine, theirs) = (fill(mine, &reg_names), fill(theirs, &reg_names));
        if mine != theirs {
            let only_mine: Vec<_> = mine.difference(&theirs).take(2).collect();
            let only_theirs: Vec<_> = theirs.difference(&mine).take(2).collect();
            return Err(format!("P{}: symbolic only {:?}; paths only {:?}", t, only_mine, only_theirs));
        }
        compared += 1;
    }
    Ok(compared)
}

#[test]
fn symbolic_programs_have_the_path_builders_behaviours() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = collect_files(&[root.join("litmus"), root.join("tests/conformance/litmus")]);
    let mut compared = 0;
    let mut failures = Vec::new();
    for file in &files {
        match compare(file) {
            Ok(n) => compared += n,
            Err(e) => failures.push(format!("{}: {}", file.display(), e)),
        }
    }
    assert!(failures.is_empty(), "{} tests differ:\n{}", failures.len(), failures.join("\n"));
    // The library and the corpus hold hundreds of small tests in the fragment.
    assert!(compared >= 300, "only {} threads compared", compared);
    eprintln!("{} threads of {} files compared", compared, files.len());
}
