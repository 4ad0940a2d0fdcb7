//! The candidate executions of a program, enumerated explicitly: one trace per
//! thread, then for those traces every reads-from map, every barrier matching,
//! every Fence-SC order and every coherence order.
//!
//! Within one choice of traces the executed events are renumbered `0..n` (the
//! initial writes first, then the events of the chosen traces); relations are
//! bit matrices over those local numbers. The choices of traces and that
//! numbering are here; `reads_from` enumerates the reads-from maps, `orders`
//! the coherence and Fence-SC orders, `super::barriers` the barrier matchings.

mod orders;
mod reads_from;

pub(crate) use orders::maximal_writes;
pub use orders::{coherence_choices, fence_sc_choices};
pub use reads_from::rf_choices;
pub(crate) use reads_from::values_allowed;

use super::rel::Rel;
use crate::program::{Access, Event, EventId, EventKind, LocId, Placement, Program, TraceId};

/// The executed events of one choice of traces.
pub struct Ctx<'p> {
    pub p: &'p Program,
    /// The trace chosen for each thread.
    pub traces: Vec<TraceId>,
    /// Local number -> event.
    pub ev: Vec<EventId>,
    /// Event -> local number, for executed events.
    pub local: Vec<Option<usize>>,
}

impl<'p> Ctx<'p> {
    /// An event executes if it is an initial write or its trace is chosen.
    pub fn new(p: &'p Program, traces: Vec<TraceId>) -> Ctx<'p> {
        let mut ev = Vec::new();
        for e in &p.events {
            let executes = match e.trace {
                None => matches!(e.kind, EventKind::Init),
                Some(_) => e.paths.iter().any(|t| traces.contains(t)),
            };
            if executes {
                ev.push(e.id);
            }
        }
        let mut local = vec![None; p.events.len()];
        for (i, &e) in ev.iter().enumerate() {
            local[e] = Some(i);
        }
        Ctx { p, traces, ev, local }
    }

    pub fn n(&self) -> usize {
        self.ev.len()
    }

    pub fn event(&self, i: usize) -> &'p Event {
        &self.p.events[self.ev[i]]
    }

    pub fn access(&self, i: usize) -> Option<&'p Access> {
        self.event(i).access()
    }

    pub fn is_init(&self, i: usize) -> bool {
        matches!(self.event(i).kind, EventKind::Init)
    }

    pub fn thread(&self, i: usize) -> Option<usize> {
        self.event(i).thread
    }

    pub fn placement(&self, i: usize) -> Option<Placement> {
        self.thread(i).map(|t| self.p.threads[t].placement)
    }

    pub fn is_mem(&self, i: usize) -> bool {
        self.access(i).is_some()
    }

    /// The location written, for writes and initial writes.
    pub fn write_loc(&self, i: usize) -> Option<LocId> {
        self.event(i).write_loc()
    }

    pub(crate) fn read_loc(&self, i: usize) -> Option<LocId> {
        self.event(i).read_loc()
    }

    /// The location a memory operation accesses (or an initial write writes).
    pub fn loc(&self, i: usize) -> Option<LocId> {
        match &self.event(i).kind {
            EventKind::Init => self.event(i).init_loc,
            EventKind::Mem(a) => Some(a.loc),
            _ => None,
        }
    }

    pub fn is_write(&self, i: usize) -> bool {
        self.write_loc(i).is_some()
    }

    pub fn is_read(&self, i: usize) -> bool {
        self.read_loc(i).is_some()
    }

    /// Executed writes to `l`, the initial write included (it comes first).
    pub(crate) fn writes_to(&self, l: LocId) -> Vec<usize> {
        (0..self.n()).filter(|&i| self.write_loc(i) == Some(l)).collect()
    }

    /// The initial write of `l`.
    pub(crate) fn init_of(&self, l: LocId) -> usize {
        self.local[self.p.init_events[l]].expect("initial writes always execute")
    }

    pub(crate) fn written_value(&self, i: usize) -> Option<i64> {
        self.event(i).written_value(self.p)
    }

    /// Convert local pairs back to event ids.
    pub(crate) fn global_pairs(&self, r: &Rel) -> Vec<(EventId, EventId)> {
        r.pairs().into_iter().map(|(a, b)| (self.ev[a], self.ev[b])).collect()
    }
}

/// Every combination of indices `0..sizes[k]`, first index fastest.
/// One empty combination when `sizes` is empty; none when some size is 0.
pub(crate) struct Odometer {
    sizes: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Odometer {
    pub fn new(sizes: Vec<usize>) -> Odometer {
        let next = if sizes.contains(&0) { None } else { Some(vec![0; sizes.len()]) };
        Odometer { sizes, next }
    }
}

impl Iterator for Odometer {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        let cur = self.next.take()?;
        let mut nxt = cur.clone();
        let mut k = 0;
        loop {
            if k == nxt.len() {
                break; // wrapped around: `self.next` stays None
            }
            nxt[k] += 1;
            if nxt[k] < self.sizes[k] {
                self.next = Some(nxt);
                break;
            }
            nxt[k] = 0;
            k += 1;
        }
        Some(cur)
    }
}

/// One trace per thread: every combination.
pub fn trace_combinations(p: &Program) -> impl Iterator<Item = Vec<TraceId>> + '_ {
    let sizes: Vec<usize> = p.threads.iter().map(|t| t.traces.len()).collect();
    Odometer::new(sizes).map(move |idx| p.threads.iter().zip(idx).map(|(t, i)| t.traces[i]).collect())
}

pub use super::barriers::{barrier_matchings, Matching};
pub(crate) use super::barriers::{matching_deadlocks, matching_values_hold};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odometer_counts() {
        assert_eq!(Odometer::new(vec![]).count(), 1);
        assert_eq!(Odometer::new(vec![2, 3]).count(), 6);
        assert_eq!(Odometer::new(vec![2, 0]).count(), 0);
        let all: Vec<Vec<usize>> = Odometer::new(vec![2, 2]).collect();
        assert_eq!(all, vec![vec![0, 0], vec![1, 0], vec![0, 1], vec![1, 1]]);
    }
}
