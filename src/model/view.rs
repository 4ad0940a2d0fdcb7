//! The events a model's rows range over, for one choice of traces: the executed
//! events (initial writes first), numbered `0..n`.
//!
//! Model `ptx` (the ISA text, D13) sees each executed event once. Model
//! `ptx-alloy` (Lustig et al., ASPLOS'19, 3.5.3: "our model ... splits atom into
//! separate read and write components") sees every operation that both reads
//! and writes (`atom`, `red`, a successful `cas`) as two events, its read part
//! then its write part in program order, linked by `rmw` (D50). The split is a
//! view: programs, traces and executions keep one event per operation, and
//! `View::map_rel` carries an execution's relations onto the view.

use super::rel::Rel;
use crate::program::{Access, Event, EventId, EventKind, MemSem, Placement, Program, TraceId};

/// Which part of an operation a view event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Whole,
    /// The read of a split read-modify-write.
    Read,
    /// The write of a split read-modify-write.
    Write,
}

/// One event of the view.
#[derive(Clone, Debug)]
pub struct VEvent<'p> {
    /// The operation's number among the executed events (`0..` of the caller's numbering).
    pub orig: usize,
    pub event: &'p Event,
    pub part: Part,
    /// The access this part performs (a split part reads or writes, not both).
    pub access: Option<Access>,
}

/// The executed events of one choice of traces, as one model sees them.
pub struct View<'p> {
    pub p: &'p Program,
    /// The trace chosen for each thread.
    pub traces: Vec<TraceId>,
    pub events: Vec<VEvent<'p>>,
    /// Executed event -> (its view event for reading or whole, its view event for writing or whole).
    parts: Vec<(usize, usize)>,
}

/// D50: the read part keeps an acquire, the write part a release; the other
/// half of an `.acq_rel`, `.acquire` or `.release` RMW is `.relaxed` at the
/// same scope, so that each part is a strong operation like the instruction.
fn part_sem(sem: MemSem, part: Part) -> MemSem {
    match (part, sem) {
        (Part::Read, MemSem::AcqRel) => MemSem::Acquire,
        (Part::Read, MemSem::Release) => MemSem::Relaxed,
        (Part::Write, MemSem::AcqRel) => MemSem::Release,
        (Part::Write, MemSem::Acquire) => MemSem::Relaxed,
        (_, s) => s,
    }
}

impl<'p> View<'p> {
    /// The view of the executed events `ev` (event ids, in the caller's order)
    /// of the chosen `traces`; `split`: read-modify-writes as two events.
    pub fn new(p: &'p Program, traces: &[TraceId], ev: &[EventId], split: bool) -> View<'p> {
        let mut events = Vec::new();
        let mut parts = Vec::new();
        for (orig, &id) in ev.iter().enumerate() {
            let event = &p.events[id];
            let a = event.access();
            if split && a.is_some_and(|a| a.reads && a.writes) {
                let a = a.cloned().unwrap_or_else(|| unreachable!("checked above"));
                let r = Access { writes: false, sem: part_sem(a.sem, Part::Read), ..a.clone() };
                let w = Access { reads: false, sem: part_sem(a.sem, Part::Write), ..a };
                parts.push((events.len(), events.len() + 1));
                events.push(VEvent { orig, event, part: Part::Read, access: Some(r) });
                events.push(VEvent { orig, event, part: Part::Write, access: Some(w) });
            } else {
                parts.push((events.len(), events.len()));
                events.push(VEvent { orig, event, part: Part::Whole, access: a.cloned() });
            }
        }
        View { p, traces: traces.to_vec(), events, parts }
    }

    pub fn n(&self) -> usize {
        self.events.len()
    }

    pub fn event(&self, i: usize) -> &'p Event {
        self.events[i].event
    }

    pub fn access(&self, i: usize) -> Option<&Access> {
        self.events[i].access.as_ref()
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

    pub fn is_write(&self, i: usize) -> bool {
        self.is_init(i) || self.access(i).is_some_and(|a| a.writes)
    }

    pub fn is_read(&self, i: usize) -> bool {
        self.access(i).is_some_and(|a| a.reads)
    }

    /// The location a memory operation accesses (or an initial write writes).
    pub fn loc(&self, i: usize) -> Option<usize> {
        match &self.event(i).kind {
            EventKind::Init => self.event(i).init_loc,
            _ => self.access(i).map(|a| a.loc),
        }
    }

    /// Whether view events `a` and `b` can both be performed (always, in the
    /// view of one execution; in a view of several paths, on a common path).
    pub(crate) fn compatible(&self, a: usize, b: usize) -> bool {
        self.p.compatible(self.event(a).id, self.event(b).id)
    }

    /// Program order position: the read part of a split operation comes first.
    pub(crate) fn po_key(&self, i: usize) -> (usize, u8) {
        (self.event(i).po, u8::from(self.events[i].part == Part::Write))
    }

    /// The view event of executed event `orig` acting as a read (`write`: as a write).
    pub(crate) fn part_of(&self, orig: usize, write: bool) -> usize {
        let (r, w) = self.parts[orig];
        if write {
            w
        } else {
            r
        }
    }

    /// Carry a relation over executed events onto the view: the source acts as
    /// `src_write`s part, the target as `dst_write`s (rf: write -> read; co:
    /// write -> write; Fence-SC and barriers relate unsplit events).
    pub(crate) fn map_rel(&self, r: &Rel, src_write: bool, dst_write: bool) -> Rel {
        if self.events.len() == self.parts.len() {
            return r.clone(); // nothing is split: the numbering is the caller's
        }
        let mut out = Rel::new(self.n());
        for (a, b) in r.pairs() {
            out.add(self.part_of(a, src_write), self.part_of(b, dst_write));
        }
        out
    }
}
