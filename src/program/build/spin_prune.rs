//! Failed spin iterations left out while the paths are explored (issue 27, D113).
//!
//! D66 (`program::spin`) drops, after the fact, a path that only adds failed
//! spin iterations to another path of its thread. A thread that spins on k
//! values for u iterations still had every such path enumerated first (a
//! 16-thread ticket lock: thousands per thread). Here the same reduction is
//! made while exploring: when a path comes back to a loop head in the state
//! it was in the last time it stood there, having only performed reads that
//! write nothing, it is dropped; the state it was in goes on exploring the
//! same continuations without the failed iteration.
//!
//! "The same state" is the state every later step reads: the registers that
//! matter at the loop head (D115, D180: `registers_that_matter`; a back-off's
//! poll counter and sleep length do not) with equal values (the later path may
//! depend on more reads, which only adds dependencies), its control
//! dependencies (a superset), its private memory and its barrier phases (no
//! barrier operation in a failed iteration: unchanged, D179). Reads made before the snapshot may carry more
//! assumptions on the dropped path (a failed `bne` on an older register): the
//! kept state, assuming less, allows every execution the dropped one allows.
//! Why dropping is exact is D66's argument (paper-notes/encoding.md, "Failed spin
//! iterations", and "Failed iterations left out while exploring"): deleting the left-out reads from an allowed execution of the
//! dropped path gives an allowed execution of a kept path with the same final
//! state, provided the reads race with nothing. That proviso needs the writes
//! of the whole program and the model's moral strength, so the builder returns
//! the reads it left out, with the barrier waits before them (D179), and the
//! pipeline (`check::build`) checks them; where
//! that fails the program is built again without this reduction. A dropped
//! path could have failed again forever, so the unroll bound would have cut
//! it: the flag is set as before, and its writes so far feed the value domains
//! as a cut path's do. A failed iteration may also contain a read-modify-write
//! that writes back the value it read (libcu++'s semaphore: `atom.exch [sem],
//! 0` finding 0); it is left out with the reads where no other thread reads its
//! location (D116, checked after the build as the reads are).

use super::{DraftEvent, DraftKind, PathState};
use crate::ast::{AluOp, BranchCond, Instr, InstrKind};
use crate::program::{EventKind, LeftOutEvent, Sync, SyncRole};
use std::collections::{BTreeSet, HashMap};

/// What a path's future reads of its state at a loop head.
#[derive(Clone, Debug)]
pub(super) struct HeadSnapshot {
    events: usize,
    live: Vec<Option<super::Val>>,
    ctrl: BTreeSet<usize>,
    private: super::PrivateMem,
}

/// The loop heads of one thread's code (labels some branch jumps back to) and
/// the registers live at each: read on some path from there before written.
#[derive(Clone, Debug, Default)]
pub(super) struct LoopHeads {
    live: HashMap<usize, Vec<String>>,
}

impl LoopHeads {
    /// `exit_live`: the registers a final state shows for this thread.
    pub(super) fn new(code: &[Instr], labels: &HashMap<String, usize>, exit_live: &BTreeSet<String>) -> Self {
        let mut heads = BTreeSet::new();
        for (pc, ins) in code.iter().enumerate() {
            if let InstrKind::Branch { target, .. } = &ins.kind {
                if labels.get(target).is_some_and(|&h| h <= pc) {
                    heads.insert(labels[target]);
                }
            }
        }
        if heads.is_empty() {
            return LoopHeads::default();
        }
        let matters = registers_that_matter(code, labels, exit_live);
        LoopHeads { live: heads.into_iter().map(|h| (h, matters[h].iter().cloned().collect())).collect() }
    }

    pub(super) fn is_head(&self, pc: usize) -> bool {
        self.live.contains_key(&pc)
    }

    /// The registers that matter at loop head `pc` (D115), in a fixed order.
    pub(super) fn live_at(&self, pc: usize) -> &[String] {
        self.live.get(&pc).map_or(&[], |v| v.as_slice())
    }

    pub(super) fn snapshot(&self, st: &PathState) -> HeadSnapshot {
        HeadSnapshot {
            events: st.events.len(),
            live: self.live[&st.pc].iter().map(|r| st.regs.get(r).cloned()).collect(),
            ctrl: st.ctrl.clone(),
            private: st.private.clone(),
        }
    }

    /// `st`, standing at a loop head, is `snap` (its state the last time it
    /// stood there) plus events each of which `droppable` accepts (reads that
    /// write nothing, D113; exchanges that write back what they read, D116):
    /// the events it would drop.
    pub(super) fn only_failed_iteration(
        &self,
        st: &PathState,
        snap: &HeadSnapshot,
        droppable: impl Fn(&DraftEvent) -> bool,
    ) -> bool {
        let reads_only = st.events[snap.events..].iter().all(droppable);
        let same_live = self.live[&st.pc].iter().zip(&snap.live).all(|(r, was)| match (st.regs.get(r), was) {
            (Some(now), Some(was)) => now.v == was.v && now.deps.is_superset(&was.deps),
            (None, None) => true,
            _ => false,
        });
        reads_only && same_live && st.ctrl.is_superset(&snap.ctrl) && st.private == snap.private
    }
}

/// The registers whose value before each instruction can matter to an
/// execution (D115, D180): the least fixpoint of
/// `matters(pc) = (matters(successors) − writes(pc)) ∪ uses(pc)`, where an
/// instruction uses what it reads when it has an effect (an access's address
/// and operands, a barrier's, a collective's: anything not `is_pure`), when it
/// is pure and writes a register that matters after it, or when it is a
/// branch that is not `skippable`, or a skippable one whose sides write a
/// register that matters at the effect they all reach. At the end, the
/// registers a final state shows (`exit_live`) matter. The others (libcu++'s
/// back-off counter, its timer readings and sleep lengths) only steer pure
/// code back to the same next effect. Flow-sensitive: a register an effect
/// read before a loop (the counter a `shfl.sync` broadcast) does not matter
/// at the loop head unless the loop itself gives it an effect.
fn registers_that_matter(
    code: &[Instr],
    labels: &HashMap<String, usize>,
    exit_live: &BTreeSet<String>,
) -> Vec<BTreeSet<String>> {
    let skippable: Vec<Option<(usize, BTreeSet<String>)>> =
        (0..code.len()).map(|pc| skippable(code, labels, pc)).collect();
    let mut matters: Vec<BTreeSet<String>> = vec![BTreeSet::new(); code.len() + 1];
    matters[code.len()] = exit_live.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..code.len()).rev() {
            let (reads, writes) = code[pc].kind.register_effects();
            let mut out: BTreeSet<String> = BTreeSet::new();
            for s in successors(code, labels, pc) {
                out.extend(matters[s.min(code.len())].iter().cloned());
            }
            let used = match (&code[pc].kind, &skippable[pc]) {
                (InstrKind::Branch { cond: BranchCond::Always, .. }, _) => false,
                (InstrKind::Branch { .. }, None) => true,
                (InstrKind::Branch { .. }, Some((join, region_writes))) => {
                    region_writes.iter().any(|w| matters[*join].contains(w))
                }
                (kind, _) if !is_pure(kind) => true,
                _ => writes.iter().any(|w| out.contains(*w)),
            };
            for w in writes {
                out.remove(w);
            }
            if used {
                out.extend(reads.into_iter().map(String::from));
            }
            if out != matters[pc] {
                matters[pc] = out;
                changed = true;
            }
        }
    }
    matters
}

/// An instruction that only computes registers (or waits, `nanosleep`):
/// nothing an execution or a final state sees, and no error that depends on
/// values (division may divide by zero: not pure).
fn is_pure(kind: &InstrKind) -> bool {
    match kind {
        InstrKind::Alu { op, .. } => !matches!(op, AluOp::Div | AluOp::Rem),
        InstrKind::Setp { .. }
        | InstrKind::Selp { .. }
        | InstrKind::Timer { .. }
        | InstrKind::Branch { .. }
        | InstrKind::Label(_)
        | InstrKind::Nop => true,
        _ => false,
    }
}

/// For a conditional branch at `pc` whose every way on reaches the same next
/// instruction that is not pure (or the end), through pure instructions and
/// without a cycle: that instruction and the registers written on the way
/// (which side it takes then changes nothing else). `None` for another
/// instruction or branch.
fn skippable(code: &[Instr], labels: &HashMap<String, usize>, pc: usize) -> Option<(usize, BTreeSet<String>)> {
    let InstrKind::Branch { cond, .. } = &code[pc].kind else { return None };
    if *cond == BranchCond::Always {
        return None;
    }
    // Depth-first over the pure instructions reachable from the branch: 1 on
    // the stack, 2 done; a pure instruction met while on the stack is a cycle.
    let mut state = vec![0u8; code.len()];
    let mut next_effects = BTreeSet::new();
    let mut writes = BTreeSet::new();
    let mut stack = vec![(pc, successors(code, labels, pc), 0usize)];
    state[pc] = 1;
    while let Some((at, succ, i)) = stack.last_mut() {
        let Some(&s) = succ.get(*i) else {
            state[*at] = 2;
            stack.pop();
            continue;
        };
        *i += 1;
        if s >= code.len() || !is_pure(&code[s].kind) {
            next_effects.insert(s.min(code.len()));
            continue;
        }
        match state[s] {
            1 => return None,
            2 => continue,
            _ => {}
        }
        state[s] = 1;
        writes.extend(code[s].kind.register_effects().1.into_iter().map(String::from));
        stack.push((s, successors(code, labels, s), 0));
    }
    let join = *next_effects.iter().next()?;
    (next_effects.len() == 1).then_some((join, writes))
}

/// Where control may go after instruction `pc` (as `Ctx::step` moves it).
fn successors(code: &[Instr], labels: &HashMap<String, usize>, pc: usize) -> Vec<usize> {
    match &code[pc].kind {
        InstrKind::Branch { cond: BranchCond::Always, target } => vec![labels[target]],
        InstrKind::Branch { target, .. } => vec![labels[target], pc + 1],
        InstrKind::Choose(offsets) => offsets.iter().map(|o| pc + o).collect(),
        InstrKind::Skip(n) => vec![pc + n],
        _ => vec![pc + 1],
    }
}

impl PathState {
    /// The read at `i` returns `value` (as loaded) on this path: every register
    /// and private byte holding it becomes the constant, in the path's state and
    /// in its loop-head snapshots. A snapshot so made is the state its own
    /// exploration reaches once it forks on this read: it compares as that.
    pub(super) fn assume_read(&mut self, i: usize, value: i64) {
        let known = |val: &mut super::Val| {
            if val.v == super::V::Free(i) {
                val.v = super::V::Const(value);
            }
        };
        self.regs.values_mut().for_each(known);
        self.private.assume(i, value);
        for snap in self.spin_heads.values_mut() {
            if i < snap.events {
                snap.live.iter_mut().flatten().for_each(known);
                snap.private.assume(i, value);
            }
        }
    }
}

impl HeadSnapshot {
    /// How many events the path had performed at the snapshot.
    pub(super) fn events(&self) -> usize {
        self.events
    }
}

impl super::Ctx<'_> {
    /// Thread `t`'s loop heads, or none where failed iterations are all kept
    /// (the reduction is off). A thread with a barrier has them too: a failed
    /// iteration performs no barrier operation, so its barrier phases are the
    /// snapshot's, and D66's argument leaves every barrier event, its order and
    /// its matching as they were (D179).
    pub(super) fn loop_heads(&self, t: usize, labels: &HashMap<String, usize>) -> LoopHeads {
        let code = &self.lit.code[t];
        if !self.opts.prune_spins {
            return LoopHeads::default();
        }
        let shown: BTreeSet<String> = super::assemble::observables_of(self.lit)
            .into_iter()
            .filter_map(|o| match o {
                crate::ast::Observable::Reg { thread, reg } if thread == t => Some(reg),
                _ => None,
            })
            .collect();
        LoopHeads::new(code, labels, &shown)
    }

    /// An event a failed iteration may leave out: a read that writes nothing
    /// (D113), or, unless `prune_spins` is limited to those, a *silent*
    /// read-modify-write (D116): one that writes a constant equal to every
    /// value it may read on its path (libcu++'s `atom.exch [sem], 0` that
    /// found the semaphore at 0), so that its write repeats the value of the
    /// write it read from. Whether the program lets it go (no other thread
    /// reads the location, morally strong with every write) is checked after
    /// the build (`sat::spin::left_out_is_exact`).
    pub(super) fn leaves_no_trace(&self, e: &DraftEvent) -> bool {
        let DraftKind::Mem { key, access } = &e.kind else { return false };
        if !access.reads {
            return false;
        }
        if !access.writes {
            return true;
        }
        if !self.opts.prune_silent_rmws || access.rmw.is_some() {
            return false;
        }
        let may_read: Vec<i64> = match access.read_value {
            Some(v) => vec![v],
            None => self.domain(key).into_iter().filter(|v| !access.read_not.contains(v)).collect(),
        };
        may_read.iter().all(|&v| v == access.write_value)
    }

    /// Remember the reads of a failed iteration of thread `t` left out
    /// (`events`), and the barrier waits the path performed before them
    /// (`before`): a read left out on several paths keeps the waits common to all.
    pub(super) fn leave_out(&mut self, t: usize, before: &[super::DraftEvent], events: &[super::DraftEvent]) {
        let waits: Vec<Sync> = before
            .iter()
            .filter_map(|e| match &e.kind {
                DraftKind::Other(EventKind::Sync(s)) if s.role == SyncRole::Wait => Some(s.clone()),
                _ => None,
            })
            .collect();
        for e in events {
            if let DraftKind::Mem { key, access } = &e.kind {
                let mut a = access.clone();
                a.read_value = None;
                a.read_not.clear();
                let profile = format!("{}|{:?}|{:?}", t, key, a);
                let left = LeftOut { thread: t, key: key.clone(), access: a, after_waits: waits.clone() };
                let kept = self.spin_left_out.entry(profile).or_insert(left);
                kept.after_waits.retain(|w| waits.iter().any(|v| v.key == w.key && v.expected == w.expected));
            }
        }
    }

    /// The left-out events as events of the program whose locations are
    /// numbered by `key_index` (not in its event list: only to be checked);
    /// `None` when one accesses a location the program does not have.
    pub(super) fn left_out_events(&self, key_index: &HashMap<super::LocKey, usize>) -> Option<Vec<LeftOutEvent>> {
        let mut out = Vec::new();
        for LeftOut { thread, key, access, after_waits } in self.spin_left_out.values() {
            let loc = *key_index.get(key)?;
            let event = super::Event {
                id: usize::MAX,
                thread: Some(*thread),
                trace: None,
                paths: Vec::new(),
                po: 0,
                instance: None,
                init_loc: None,
                kind: super::EventKind::Mem(super::Access { loc, ..access.clone() }),
                text: String::new(),
                line: 0,
            };
            out.push(LeftOutEvent { event, after_waits: after_waits.clone() });
        }
        Some(out)
    }
}

/// One left-out read or silent read-modify-write (its thread, location and
/// access), with the barrier waits performed before it on every path that
/// left it out.
#[derive(Clone, Debug)]
pub(super) struct LeftOut {
    thread: usize,
    key: super::LocKey,
    access: super::Access,
    after_waits: Vec<Sync>,
}
