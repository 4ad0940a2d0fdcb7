//! An operation in words: `relaxed .gpu read of y`, `weak write of x`, `fence.sc .sys` (the ISA's terms), or in
//! a C test `seq_cst write of x` (C's), and a thread's placement as its header writes it.

use crate::ast::{FenceSem, Proxy, Scope};
use crate::program::{Event, EventKind, MemSem, Program, SyncRole};

pub(super) fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

fn sem_name(s: MemSem) -> &'static str {
    match s {
        MemSem::Weak => "weak",
        MemSem::Relaxed => "relaxed",
        MemSem::Acquire => "acquire",
        MemSem::Release => "release",
        MemSem::AcqRel => "acq_rel",
    }
}

pub(super) fn proxy_name(p: Proxy) -> &'static str {
    match p {
        Proxy::Generic => "generic",
        Proxy::Texture => "texture",
        Proxy::Surface => "surface",
        Proxy::Constant => "constant",
        Proxy::Async => "async",
    }
}

/// `.shared::cta` for a `fence.proxy.async.shared::cta` (D258), empty without a space.
pub(crate) fn space_suffix(s: crate::ast::FenceSpace) -> &'static str {
    match s {
        crate::ast::FenceSpace::All => "",
        crate::ast::FenceSpace::SharedCta => ".shared::cta",
        crate::ast::FenceSpace::SharedCluster => ".shared::cluster",
        crate::ast::FenceSpace::Global => ".global",
    }
}

/// `relaxed .gpu read of y`, `weak write of x`, `fence.sc .sys`.
pub fn describe(p: &Program, e: &Event) -> String {
    match &e.kind {
        EventKind::Init => "initial write".into(),
        EventKind::Mem(a) => {
            let what = match (a.reads, a.writes, a.atomic) {
                (_, _, true) if a.is_red => "reduction (read-modify-write)",
                (_, _, true) => "atomic read-modify-write",
                (true, false, _) => "read",
                _ => "write",
            };
            let mut s = String::from(sem_name(a.sem));
            if a.sem.is_strong() {
                s.push(' ');
                s.push_str(scope_name(a.scope));
            }
            s.push_str(&format!(" {} of {}", what, p.locations[a.loc].name));
            if a.vaddr != p.locations[a.loc].name {
                s.push_str(&format!(" through {}", a.vaddr));
            }
            if a.proxy != Proxy::Generic {
                s.push_str(&format!(", {} proxy", proxy_name(a.proxy)));
            }
            s
        }
        EventKind::Fence { sem, scope, shared_only, to_async } => {
            let k = match sem {
                FenceSem::Sc => "sc",
                FenceSem::AcqRel => "acq_rel",
                FenceSem::Acquire => "acquire",
                FenceSem::Release => "release",
            };
            let restricted = match (shared_only, to_async) {
                (_, true) => " (shared memory only; and a proxy fence from generic to async)",
                (true, false) => " (shared memory only)",
                _ => "",
            };
            format!("fence.{} {}{}", k, scope_name(*scope), restricted)
        }
        EventKind::InitFence => "fence.mbarrier_init.release .cluster (orders the thread's mbarrier.init only)".into(),
        EventKind::ProxyFence { proxy, space } => match proxy {
            Proxy::Generic => "proxy fence (alias)".into(),
            Proxy::Async => format!("proxy fence (async{})", space_suffix(*space)),
            q => format!("proxy fence ({})", proxy_name(*q)),
        },
        EventKind::AsyncWait { .. } => "wait for asynchronous copies".into(),
        EventKind::Sync(s) => match s.role {
            SyncRole::Arrive if !s.orders_memory => format!("{} arrive (relaxed)", s.key.kind.noun()),
            SyncRole::Arrive => format!("{} arrive", s.key.kind.noun()),
            SyncRole::Wait => format!("{} wait", s.key.kind.noun()),
        },
    }
}

/// A C test's operation in C terms (`seq_cst write of x`, `plain read of y`,
/// `acq_rel read-modify-write of y`, `seq_cst fence`), with its CUDA scope
/// when narrower than the system (C's own scope).
pub fn describe_c(p: &Program, e: &Event) -> String {
    let writes = e.access().is_some_and(|a| a.writes);
    let order = e.thread.zip(e.instance).and_then(|(t, i)| p.c11.as_ref()?.of_event(t, i.pc, writes));
    let word = order.map_or("plain", |o| o.c_name().trim_start_matches("memory_order_"));
    let scope = |s: Scope| match s {
        Scope::Sys => String::new(),
        Scope::Cta => " (thread_scope_block)".into(),
        Scope::Cluster => " (thread_scope_cluster)".into(),
        Scope::Gpu => " (thread_scope_device)".into(),
    };
    match &e.kind {
        EventKind::Mem(a) => {
            let what = match (a.reads, a.writes, a.atomic) {
                (_, _, true) => "read-modify-write",
                (true, false, _) => "read",
                _ => "write",
            };
            let sc = if a.sem.is_strong() { scope(a.scope) } else { String::new() };
            format!("{} {} of {}{}", word, what, p.locations[a.loc].name, sc)
        }
        EventKind::Fence { scope: s, .. } => format!("{} fence{}", word, scope(*s)),
        _ => describe(p, e),
    }
}
pub(super) fn placement(p: &Program, t: usize) -> String {
    p.threads[t].written.label()
}
