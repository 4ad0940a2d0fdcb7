//! A parsed cycle resolved into threads, locations, values and the witness
//! condition, following diy7.

use super::cycle::{Com, Cycle, Dir, EdgeKind};

/// One access of a resolved cycle.
#[derive(Clone, Debug)]
pub struct Event {
    pub dir: Dir,
    pub thread: usize,
    /// Index in the thread (program order).
    pub index: usize,
    pub loc: usize,
    /// Written value (writes) or the value the witness expects (observed reads).
    pub value: Option<i64>,
}

/// The layout of a cycle: threads, locations, values and the witness.
#[derive(Clone, Debug)]
pub struct Layout {
    pub events: Vec<Event>,
    /// Events of each thread in program order.
    pub threads: Vec<Vec<usize>>,
    pub nlocs: usize,
    /// For each location with two writes: its final value in the witness.
    pub finals: Vec<(usize, i64)>,
}

/// Threads of a cycle: they change at external edges; the first starts after
/// the last external edge (or, with one thread, after its one internal
/// communication edge). Returns each event's thread and each thread's events.
fn threads(c: &Cycle) -> Result<(Vec<usize>, Vec<Vec<usize>>), String> {
    let n = c.edges.len();
    let e = &c.edges;
    let ext: Vec<usize> = (0..n).filter(|&i| e[i].is_external()).collect();
    let start = match ext.last() {
        Some(&j) => (j + 1) % n,
        None => {
            let back: Vec<usize> = (0..n).filter(|&i| matches!(e[i].kind, EdgeKind::Com { .. })).collect();
            if back.len() != 1 {
                return Err(
                    "a cycle without external edges (one thread) needs exactly one internal communication edge (Rfi, Fri, Wsi), which closes it backwards in program order".into(),
                );
            }
            (back[0] + 1) % n
        }
    };
    let mut thread_of = vec![0; n];
    let mut threads: Vec<Vec<usize>> = vec![Vec::new()];
    for k in 0..n {
        let i = (start + k) % n;
        let t = threads.len() - 1;
        thread_of[i] = t;
        threads[t].push(i);
        if e[i].is_external() && k + 1 < n {
            threads.push(Vec::new());
        }
    }
    Ok((thread_of, threads))
}

/// Locations of a cycle: a fresh one after each Pod edge, renamed by first
/// appearance in thread order (P0's first access is x). Returns each event's
/// location, the number of locations and where the value walk starts.
fn locations(c: &Cycle, threads: &[Vec<usize>]) -> Result<(Vec<usize>, usize, usize), String> {
    let n = c.edges.len();
    let e = &c.edges;
    let pods: Vec<usize> = (0..n).filter(|&i| e[i].is_pod()).collect();
    if pods.len() == 1 {
        return Err("a cycle needs no Pod edge (one location) or at least two (a Pod edge changes location and the cycle must come back)".into());
    }
    let mut loc_raw = vec![0usize; n];
    let vstart = if let Some(&p) = pods.first() {
        (p + 1) % n
    } else {
        match (0..n).find(|&i| e[i].is_pos() || e[i].is_rmw()) {
            Some(p) => (p + 1) % n,
            None => return Err("a one-location cycle needs a program-order edge (PosXY): made only of communication edges it cannot be witnessed".into()),
        }
    };
    let mut cur = 0;
    for k in 0..n {
        let i = (vstart + k) % n;
        loc_raw[i] = cur;
        if e[i].is_pod() {
            cur += 1;
        }
    }
    let mut rename = vec![usize::MAX; pods.len().max(1)];
    let mut next = 0;
    for t in threads {
        for &i in t {
            if rename[loc_raw[i]] == usize::MAX {
                rename[loc_raw[i]] = next;
                next += 1;
            }
        }
    }
    Ok((loc_raw.iter().map(|&l| rename[l]).collect(), next, vstart))
}

/// Values: writes numbered 1, 2, ... along the value walk (coherence order), an
/// `Rf` read takes its source's value, an `Fr` read and the read of an `Rmw`
/// the value before their target's (an RMW reads the write just before its own
/// in coherence). Returns each event's value and the final value of each
/// location with two writes or more.
type CycleValues = (Vec<Option<i64>>, Vec<(usize, i64)>);

fn values(c: &Cycle, loc: &[usize], nlocs: usize, vstart: usize) -> Result<CycleValues, String> {
    let n = c.edges.len();
    let e = &c.edges;
    let mut value: Vec<Option<i64>> = vec![None; n];
    let mut writes: Vec<Vec<usize>> = vec![Vec::new(); nlocs];
    for k in 0..n {
        let i = (vstart + k) % n;
        if e[i].src == Dir::W {
            writes[loc[i]].push(i);
            value[i] = Some(writes[loc[i]].len() as i64);
        }
    }
    // The write of an RMW is placed in coherence by its own read; the others
    // only by the final value, which witnesses two of them.
    let is_rmw_write = |i: usize| e[(i + n - 1) % n].is_rmw();
    let free = |ws: &Vec<usize>| ws.iter().filter(|&&i| !is_rmw_write(i)).count();
    if let Some((l, ws)) = writes.iter().enumerate().find(|(_, ws)| free(ws) > 2) {
        return Err(format!(
            "location {} has {} writes in the cycle that are not the write of an Rmw; only two can be witnessed by final values (diy adds observer threads for more)",
            loc_name(l),
            free(ws)
        ));
    }
    for i in (0..n).filter(|&i| e[i].src == Dir::R) {
        let prev = (i + n - 1) % n;
        let from_rf = match e[prev].kind {
            EdgeKind::Com { com: Com::Rf, .. } => value[prev],
            _ => None,
        };
        let from_fr = match e[i].kind {
            EdgeKind::Com { com: Com::Fr, .. } | EdgeKind::Rmw => value[(i + 1) % n].map(|v| v - 1),
            _ => None,
        };
        value[i] = match (from_rf, from_fr) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!(
                    "the read before `{}` must read {} (Rf) and {} (Fr): the cycle is contradictory",
                    e[i], a, b
                ))
            }
            (a, b) => a.or(b),
        };
    }
    let finals =
        writes.iter().enumerate().filter(|(_, ws)| ws.len() >= 2).map(|(l, ws)| (l, ws.len() as i64)).collect();
    Ok((value, finals))
}

/// Threads, locations and values of a cycle, following diy7: threads change at
/// external edges, locations at `Pod` edges, writes to a location take values
/// 1, 2 in coherence order along the cycle, an `Rf` read takes its source's
/// value and an `Fr` read the value before its target's.
pub fn layout(c: &Cycle) -> Result<Layout, String> {
    let (thread_of, threads) = threads(c)?;
    let (loc, nlocs, vstart) = locations(c, &threads)?;
    let (value, finals) = values(c, &loc, nlocs, vstart)?;
    let events = (0..c.edges.len())
        .map(|i| {
            let index = threads[thread_of[i]].iter().position(|&x| x == i).unwrap_or(0);
            Event { dir: c.edges[i].src, thread: thread_of[i], index, loc: loc[i], value: value[i] }
        })
        .collect();
    Ok(Layout { events, threads, nlocs, finals })
}

/// Location names as diy: x, y, z, a, b, ... (no `p`, `r`), then `x26`, `x27`, ...
pub fn loc_name(l: usize) -> String {
    const NAMES: [&str; 24] = [
        "x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "q", "s", "t", "u",
        "v", "w",
    ];
    NAMES.get(l).map(|s| s.to_string()).unwrap_or_else(|| format!("x{}", l))
}
