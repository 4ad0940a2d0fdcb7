//! The words of explanations: paths, reads, and why synchronization and
//! observation edges hold (8.9.2, 8.9.4), in the ISA's terms.

use super::view::{compress_keeping, EdgeKind, Step, SyncWhy, View};

/// `W1 -po-> F1 -sync-> F2 -po-> R2`.
pub fn fmt_path(v: &View, steps: &[Step]) -> String {
    let c = compress_keeping(steps, |i| matches!(v.event(i).kind, crate::program::EventKind::ProxyFence { .. }));
    let Some(first) = c.first() else { return String::new() };
    let mut s = v.names[first.from].clone();
    let c_test = v.p.c11.is_some();
    for st in &c {
        let label = if c_test { st.kind.c_label() } else { st.kind.label() };
        s.push_str(&format!(" -{}-> {}", label, v.names[st.to]));
    }
    let mut why: Vec<String> = Vec::new();
    for st in c.iter().filter(|st| st.kind == EdgeKind::Sync) {
        let w = short_sync(v, st.from, st.to);
        if !why.contains(&w) {
            why.push(w);
        }
    }
    if !why.is_empty() {
        s.push_str(&format!(" ({})", why.join("; ")));
    }
    s
}

/// The 8.9.4 rule behind a sync step, in a few words (details in the notes).
pub fn short_sync(v: &View, a: usize, b: usize) -> String {
    let n = |i: usize| v.names[i].clone();
    match v.sw_why.get(&(a, b)) {
        Some(SyncWhy::FenceSc) => format!("{} precedes {} in Fence-SC order", n(a), n(b)),
        Some(SyncWhy::Barrier) => format!("{} and {} meet at a barrier", n(a), n(b)),
        Some(SyncWhy::ClusterBarrier) => format!("{} and {} meet at a cluster barrier", n(a), n(b)),
        Some(SyncWhy::Patterns { rel, acq }) => {
            let relp =
                if rel.bound == rel.access { n(rel.access) } else { format!("{}; {}", n(rel.bound), n(rel.access)) };
            let acqp =
                if acq.bound == acq.access { n(acq.access) } else { format!("{}; {}", n(acq.access), n(acq.bound)) };
            format!("release pattern {} synchronizes with acquire pattern {} on {}", relp, acqp, v.loc_name(rel.access))
        }
        None if v.p.c11.is_some() => c_sw(v, a, b),
        None => format!("{} synchronizes with {}", n(a), n(b)),
    }
}

/// Why `a` synchronizes with `b` in a C test (rc11's `sw`: a release write or
/// fence, an acquire read or fence, and a read between them that reads from
/// the release sequence): `W2 release, A1 acquire: A1 reads y=1 from W2`.
pub fn c_sw(v: &View, a: usize, b: usize) -> String {
    let n = |i: usize| v.names[i].clone();
    // The read of the acquire side: `b` itself, or for a fence the last read before it that reads.
    let read = if v.is_read(b) {
        Some(b)
    } else {
        (0..v.n())
            .filter(|&r| v.po.has(r, b) && v.is_read(r) && v.rf_source(r).is_some())
            .max_by_key(|&r| v.event(r).po)
    };
    match read {
        Some(r) if v.rf_source(r) != Some(a) && v.event(a).access().is_some() => {
            format!("{} release, {} acquire: {}, in the release sequence of {}", n(a), n(b), reads(v, r), n(a))
        }
        Some(r) => format!("{} release, {} acquire: {}", n(a), n(b), reads(v, r)),
        None => format!("{} release, {} acquire", n(a), n(b)),
    }
}

/// `R2 reads x=0 from W0(x)`.
pub fn reads(v: &View, r: usize) -> String {
    match v.rf_source(r) {
        Some(w) => format!(
            "{} reads {}={} from {}",
            v.names[r],
            v.loc_name(r),
            v.read_value(r).map(|x| x.to_string()).unwrap_or_default(),
            v.names[w]
        ),
        None => format!("{} reads nothing", v.names[r]),
    }
}

/// Why `a` synchronizes with `b` (8.9.4), in words.
pub fn why_sync(v: &View, a: usize, b: usize) -> String {
    let n = |i: usize| v.names[i].clone();
    match v.sw_why.get(&(a, b)) {
        Some(SyncWhy::FenceSc) => format!("{} precedes {} in Fence-SC order (8.9.4 rule 1)", n(a), n(b)),
        Some(SyncWhy::Barrier) => format!("{} arrives at the barrier {} waits on (8.9.4 rule 2)", n(a), n(b)),
        Some(SyncWhy::ClusterBarrier) => {
            format!("{} arrives at the cluster barrier {} waits on (8.9.4 rule 3)", n(a), n(b))
        }
        Some(SyncWhy::Patterns { rel, acq }) => {
            let relp =
                if rel.bound == rel.access { n(rel.access) } else { format!("{}; {}", n(rel.bound), n(rel.access)) };
            let acqp =
                if acq.bound == acq.access { n(acq.access) } else { format!("{}; {}", n(acq.access), n(acq.bound)) };
            format!(
                "release pattern {} and acquire pattern {} on {}, {} -obs-> {} ({}), {} and {} morally strong (8.9.4 rule 4)",
                relp,
                acqp,
                v.loc_name(rel.access),
                n(rel.access),
                n(acq.access),
                why_obs(v, rel.access, acq.access),
                n(a),
                n(b)
            )
        }
        None if v.p.c11.is_some() => c_sw(v, a, b),
        None => "synchronizes".to_string(),
    }
}

/// Why `w` precedes `r` in observation order (8.9.2).
pub fn why_obs(v: &View, w: usize, r: usize) -> String {
    match v.obs_via.get(&(w, r)) {
        Some(via) if !via.is_empty() => {
            let mut chain = vec![w];
            chain.extend(via);
            chain.push(r);
            let s: Vec<String> = chain.iter().map(|&e| v.names[e].clone()).collect();
            format!("{}: reads-from through atomic operations", s.join(" -rf-> "))
        }
        _ => reads(v, r),
    }
}

pub(crate) fn notes(v: &View, steps: &[Step]) -> Vec<String> {
    let mut out = Vec::new();
    for s in steps {
        let note = match s.kind {
            EdgeKind::Sync => format!("{} -sync-> {}: {}", v.names[s.from], v.names[s.to], why_sync(v, s.from, s.to)),
            EdgeKind::Obs => format!("{} -obs-> {}: {}", v.names[s.from], v.names[s.to], why_obs(v, s.from, s.to)),
            _ => continue,
        };
        if !out.contains(&note) {
            out.push(note);
        }
    }
    out
}

/// Replace program-order steps between non-consecutive events by the chain of
/// consecutive ones (so pictures can highlight drawn edges).
pub(crate) fn expand_po(v: &View, steps: Vec<Step>) -> Vec<Step> {
    let mut out = Vec::new();
    for s in steps {
        if s.kind == EdgeKind::Po && !v.po_next.has(s.from, s.to) {
            let mut at = s.from;
            while at != s.to {
                let Some(nx) = (0..v.n()).find(|&w| v.po_next.has(at, w)) else { break };
                out.push(Step { from: at, kind: EdgeKind::Po, to: nx });
                at = nx;
            }
        } else {
            out.push(s);
        }
    }
    out
}
