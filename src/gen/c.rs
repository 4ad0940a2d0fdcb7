//! `gen --lang c`: a cycle resolved into a C test in herd's format (as
//! `diy7 -arch C` writes it and herd7 reads it), for `map` and the RC11 models.
//!
//! The cycle, its threads, locations, values and witness are the PTX
//! generator's (`layout`); only the spelling differs: an access's semantics
//! becomes its C memory order (weak: a plain access), a fence
//! `atomic_thread_fence`, an `Rmw` edge one read-modify-write call (`--rmw`),
//! a scope narrower than the system CUDA's last argument with herd's scope
//! tree placing the threads (D154).

use super::args::{Placement, RmwOpt, Variant};
use super::build::{annotations, fences, resolved_text, test_name, Used};
use super::cycle::{self, AccSem, Ann, Cycle, Dir, Fence, FenceSem, Layout, Scope};
use super::GenTest;
use crate::c11::Order;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The C memory order of an access's semantics (weak: a plain access).
fn order_of(sem: AccSem) -> Order {
    match sem {
        AccSem::Weak => Order::Na,
        AccSem::Relaxed => Order::Rlx,
        AccSem::Release => Order::Rel,
        AccSem::Acquire => Order::Acq,
        AccSem::Sc => Order::Sc,
    }
}

/// The order of one read-modify-write from the orders of its read and its
/// write: acquire on the read and release on the write make acq_rel, seq_cst
/// on either makes seq_cst; an RMW is atomic, so two plain halves are relaxed.
fn rmw_order(read: Order, write: Order) -> Order {
    match (read, write) {
        (Order::Sc, _) | (_, Order::Sc) => Order::Sc,
        (Order::Acq | Order::AcqRel, Order::Rel | Order::AcqRel) => Order::AcqRel,
        (Order::Acq | Order::AcqRel, _) => Order::Acq,
        (_, Order::Rel | Order::AcqRel) => Order::Rel,
        _ => Order::Rlx,
    }
}

fn fence_order(f: FenceSem) -> Order {
    match f {
        FenceSem::Sc => Order::Sc,
        FenceSem::AcqRel => Order::AcqRel,
        FenceSem::Acquire => Order::Acq,
        FenceSem::Release => Order::Rel,
    }
}

/// `, cuda::thread_scope_X` for a scope narrower than the system; nothing for
/// the system scope, C's default, so herd7 reads the test as it is (D154).
fn scope_arg(scope: Option<Scope>) -> String {
    match scope {
        None | Some(Scope::Sys) => String::new(),
        Some(Scope::Cta) => ", cuda::thread_scope_block".into(),
        Some(Scope::Cluster) => ", cuda::thread_scope_cluster".into(),
        Some(Scope::Gpu) => ", cuda::thread_scope_device".into(),
    }
}

/// One thread's code, and what the test needs around it.
#[derive(Default)]
struct Code {
    threads: Vec<Vec<String>>,
    /// Locations each thread names (accessed or expected values of a compare-exchange).
    params: Vec<BTreeSet<String>>,
    /// Locations some atomic call touches (`atomic_int*`; the others `volatile int*`).
    atomic: BTreeSet<String>,
    /// Expected-value locations of compare-exchanges, with their initial value.
    expected: Vec<(String, i64)>,
    cond: Vec<String>,
    /// Some access or fence has a scope narrower than the system.
    scoped: bool,
}

/// The resolved cycle a C test is printed from.
struct Resolved<'a> {
    lay: &'a Layout,
    c: &'a Cycle,
    anns: &'a [Ann],
    v: &'a Variant,
}

/// The call of the read-modify-write whose read is event `i` (the source of an
/// `Rmw` edge), its result in register `r` of thread `ti`.
fn rmw_call(code: &mut Code, res: &Resolved, i: usize, ti: usize, r: &str) -> String {
    let (ev, anns) = (&res.lay.events[i], res.anns);
    let loc = cycle::loc_name(ev.loc);
    let w = (i + 1) % res.c.edges.len();
    let order = rmw_order(order_of(anns[i].sem), order_of(anns[w].sem));
    let scope = scope_arg(anns[i].scope.or(anns[w].scope));
    code.scoped |= !scope.is_empty();
    code.atomic.insert(loc.clone());
    let value = res.lay.events[w].value.unwrap_or(1);
    match res.v.rmw {
        RmwOpt::Exchange | RmwOpt::FetchAdd => {
            if let Some(val) = ev.value {
                code.cond.push(format!("{}:{}={}", ti, r, val));
            }
            // fetch_add reads the value just before its write in coherence: adding 1 writes the witness's value.
            let (f, arg) = if res.v.rmw == RmwOpt::Exchange { ("exchange", value) } else { ("fetch_add", 1) };
            format!("int {} = atomic_{}_explicit({}, {}, {}{});", r, f, loc, arg, order.c_name(), scope)
        }
        RmwOpt::Cas => {
            // Success (1) means it read the value just before its own write.
            let e = format!("cas{}", code.expected.len());
            code.expected.push((e.clone(), value - 1));
            code.params[ti].insert(e.clone());
            code.cond.push(format!("{}:{}=1", ti, r));
            let (o, fail) = (order.c_name(), Order::Rlx.c_name());
            format!("int {r} = atomic_compare_exchange_strong_explicit({loc}, {e}, {value}, {o}, {fail}{scope});")
        }
    }
}

/// One access (or, at the read of an `Rmw` edge, one read-modify-write) of thread `ti`.
fn access(code: &mut Code, res: &Resolved, i: usize, ti: usize, reg: &mut usize) {
    let (ev, ann) = (&res.lay.events[i], res.anns[i]);
    let loc = cycle::loc_name(ev.loc);
    code.params[ti].insert(loc.clone());
    let ord = order_of(ann.sem);
    let r = format!("r{}", *reg);
    if ev.dir == Dir::R {
        *reg += 1;
    }
    let line = if res.c.edges[i].is_rmw() {
        rmw_call(code, res, i, ti, &r)
    } else {
        let scope = if ord == Order::Na { String::new() } else { scope_arg(ann.scope) };
        code.scoped |= !scope.is_empty();
        if ord != Order::Na {
            code.atomic.insert(loc.clone());
        }
        if ev.dir == Dir::R {
            if let Some(val) = ev.value {
                code.cond.push(format!("{}:{}={}", ti, r, val));
            }
        }
        let value = ev.value.unwrap_or(0);
        match (ev.dir, ord) {
            (Dir::W, Order::Na) => format!("*{} = {};", loc, value),
            (Dir::W, o) => format!("atomic_store_explicit({}, {}, {}{});", loc, value, o.c_name(), scope),
            (Dir::R, Order::Na) => format!("int {} = *{};", r, loc),
            (Dir::R, o) => format!("int {} = atomic_load_explicit({}, {}{});", r, loc, o.c_name(), scope),
        }
    };
    code.threads[ti].push(line);
}

/// Each thread's statements and the condition's clauses.
fn c_code(lay: &Layout, c: &Cycle, anns: &[Ann], fences: &[Option<Fence>], v: &Variant) -> Code {
    let res = Resolved { lay, c, anns, v };
    let mut code = Code {
        threads: vec![Vec::new(); lay.threads.len()],
        params: vec![BTreeSet::new(); lay.threads.len()],
        ..Code::default()
    };
    for (ti, t) in lay.threads.iter().enumerate() {
        let mut reg = 0;
        for (k, &i) in t.iter().enumerate() {
            // The write of an Rmw edge is the call made at its read.
            if k > 0 && c.edges[t[k - 1]].is_rmw() {
                continue;
            }
            if let Some(f) = k.checked_sub(1).and_then(|prev| fences[t[prev]]) {
                let scope = f.scope.unwrap_or(v.scope);
                code.scoped |= scope != Scope::Sys;
                let text = format!("atomic_thread_fence({}{});", fence_order(f.sem).c_name(), scope_arg(Some(scope)));
                code.threads[ti].push(text);
            }
            access(&mut code, &res, i, ti, &mut reg);
        }
    }
    for &(l, val) in &lay.finals {
        code.cond.push(format!("[{}]={}", cycle::loc_name(l), val));
    }
    code
}

/// herd's scope tree for `--placement` (`scopes: (gpu (cta P0) (cta P1))`).
fn scope_tree(threads: usize, placement: Placement) -> String {
    let procs: Vec<String> = (0..threads).map(|t| format!("P{}", t)).collect();
    let each = |wrap: &dyn Fn(&str) -> String| procs.iter().map(|p| wrap(p)).collect::<Vec<_>>().join(" ");
    let tree = match placement {
        Placement::SameCta => format!("(gpu (cta {}))", procs.join(" ")),
        Placement::SameCluster => format!("(gpu (cluster {}))", each(&|p| format!("(cta {})", p))),
        Placement::SameGpu => format!("(gpu {})", each(&|p| format!("(cta {})", p))),
        Placement::DiffGpu => format!("(sys {})", each(&|p| format!("(gpu (cta {}))", p))),
    };
    format!("scopes: {}", tree)
}

/// Resolve a cycle with one option combination and print the C test.
pub(super) fn build_c(
    stem: &str,
    command: &str,
    named: bool,
    force_relacq: bool,
    c: &Cycle,
    v: &Variant,
) -> Result<GenTest, String> {
    let lay = cycle::layout(c)?;
    let mut used = Used::default();
    let anns = annotations(c, v, force_relacq, &mut used);
    let fences = fences(c, &lay, v, &mut used);
    let code = c_code(&lay, c, &anns, &fences, v);
    let mut name = test_name(stem, named, force_relacq, code.scoped && lay.threads.len() > 1, v, &used);
    if c.edges.iter().any(|e| e.is_rmw()) {
        name.push('+');
        name.push_str(v.rmw.name());
    }
    // Writing into a String cannot fail.
    let mut s = String::new();
    let _ = writeln!(s, "C {}", name);
    let _ = writeln!(s, "\"{}\"", resolved_text(c, &anns, &fences));
    let _ = writeln!(s, "Generator={} {}", command, v.c_command_options());
    let inits: Vec<String> = code.expected.iter().map(|(e, val)| format!("{} = {};", e, val)).collect();
    let _ = writeln!(s, "\n{{{}}}\n", if inits.is_empty() { String::new() } else { format!(" {} ", inits.join(" ")) });
    for (ti, lines) in code.threads.iter().enumerate() {
        let params: Vec<String> = code.params[ti]
            .iter()
            .map(
                |l| if code.atomic.contains(l) { format!("atomic_int* {}", l) } else { format!("volatile int* {}", l) },
            )
            .collect();
        let _ = writeln!(s, "P{} ({}) {{", ti, params.join(", "));
        for l in lines {
            let _ = writeln!(s, "  {}", l);
        }
        let _ = writeln!(s, "}}\n");
    }
    if code.scoped && lay.threads.len() > 1 {
        let _ = writeln!(s, "{}\n", scope_tree(lay.threads.len(), v.placement));
    }
    let cond = if code.cond.is_empty() { "true".to_string() } else { code.cond.join(" /\\ ") };
    let _ = writeln!(s, "exists ({})", cond);
    Ok(GenTest { name, source: s, threads: lay.threads.len(), accesses: c.edges.len() })
}
