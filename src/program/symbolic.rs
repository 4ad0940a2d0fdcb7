//! Symbolic threads (issue 27, D181): a thread's unrolled code encoded once.
//!
//! The path builder (`build`) forks a thread into one path per combination of
//! the values its reads return that matter, so the number of paths multiplies
//! with every read. A symbolic program instead gives each thread **one** trace
//! holding every instruction instance of its unrolled code once, and states,
//! as [`Term`]s over the values the thread's reads return:
//!
//! - when each event is performed (its *guard*, a boolean term: a branch only
//!   selects which guard the instances after it get);
//! - the value each plain write writes and the operands of each
//!   read-modify-write (register values are terms, computed with the ISA's
//!   arithmetic at its widths, `arith`);
//! - what an event assumes when it is performed (a `cas` that succeeds read
//!   its compare value, one that fails did not);
//! - the dependencies (8.10.4) between a read and a later event, each under
//!   the condition that the path taken carries it;
//! - the final value of each register, and the condition under which the
//!   thread's execution was cut by the unroll bound.
//!
//! Addresses stay static: a symbolic program is only built when every address
//! is a constant of the program (otherwise the builder refuses and the path
//! builder's answer stands). The SAT engine turns each term into one literal
//! per value it may take (`sat::encode::symbolic`); an execution of a
//! symbolic program is mapped back to an ordinary program with one concrete
//! path per thread by `SymFacts::project`, which every report, the
//! reference engine's re-check and the explanations then read.

pub mod check;
pub mod from_paths;
pub mod project;

pub use from_paths::symbolic_from_single_paths;
pub use project::{Projection, SymModel};

use super::EventId;
use crate::ast::{AluOp, Cmp, IntTy};
use std::collections::BTreeMap;

/// Index of a term in [`SymFacts::terms`].
pub type TermId = usize;

/// The term that is the constant 1 (true) in every [`SymFacts`].
pub const TRUE: TermId = 1;
/// The term that is the constant 0 (false) in every [`SymFacts`].
pub const FALSE: TermId = 0;

/// An operation of a term: each is evaluated on concrete values by one
/// function of `arith`/`access`, the same the path builder calls.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SymOp {
    /// `arith::alu(op, args, ty, src_ty)`.
    Alu(AluOp, Option<IntTy>, Option<IntTy>),
    /// `arith::compare(cmp, a, b, ty)` as 0 or 1.
    Compare(Cmp, Option<IntTy>),
    /// `arith::convert(ty, a)` (a `selp` or `mov` at a type).
    Convert(Option<IntTy>),
    /// `access::stored(ty, size, a)`: the bit pattern a store leaves in memory.
    Stored(Option<IntTy>, u8),
    /// `build::timer_view(now, shift, bits)`: what a `mov` from a timer
    /// register shows of the counter's value (D81).
    TimerView(u8, u8),
    /// `arith::mbarrier::pending(a)`: the pending count of a state token
    /// (`mbarrier.pending_count`).
    MbarrierPending,
    /// `[word, token]`: whether the phase the token names has completed in
    /// the object's word (`mbarrier.test_wait`; `.parity`: the phase of that
    /// parity, `arith::mbarrier::parity_done`), as 0 or 1.
    MbarrierDone { parity: bool },
    /// Boolean negation of a 0/1 term.
    Not,
    /// Conjunction of 0/1 terms, short-circuit: false as soon as one argument
    /// is false, whether or not the later ones have a value.
    And,
    /// Disjunction of 0/1 terms, short-circuit likewise.
    Or,
    /// `[c, a, b]`: `a` when `c` is 1, `b` when it is 0 (only the chosen
    /// side needs a value: the other may depend on reads not performed).
    Ite,
}

/// A value of a symbolic thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Const(i64),
    /// The value register-side of read event `e`: what it reads, through
    /// `Access::loaded` (a typed load's sign or zero extension). Only
    /// meaningful when `e` is performed.
    Read(EventId),
    /// A free 0/1 choice of a thread (which way a `cas` goes, which order a
    /// strong vector access performs its elements in, whether time passed
    /// before a timer read): the assumptions
    /// attached to the events it guards rule out the choices that do not hold.
    Choice(usize),
    Op(SymOp, Vec<TermId>),
}

/// What a symbolic program says beyond its events (see the module text).
/// Every thread of a symbolic program has exactly one trace, holding all its
/// events in instance order (which is program order on every path, D64).
#[derive(Clone, Debug, Default)]
pub struct SymFacts {
    /// Hash-consed: equal terms have one id. Terms 0 and 1 are `Const(0)` and
    /// `Const(1)` ([`FALSE`], [`TRUE`]).
    pub terms: Vec<Term>,
    /// Per term, every value it may take (sorted; an over-approximation
    /// computed from the location domains).
    pub values: Vec<Vec<i64>>,
    /// Per event (indexed by `EventId`; initial writes [`TRUE`]): the 0/1
    /// term "this event is performed".
    pub guard: Vec<TermId>,
    /// Plain writes whose value is not a constant: the bit pattern written
    /// (`Access::write_value` is meaningless for them).
    pub write: BTreeMap<EventId, TermId>,
    /// Read-modify-writes whose operands are not all constants: the operands
    /// (`Rmw::operands` of the access is meaningless for them).
    pub operands: BTreeMap<EventId, Vec<TermId>>,
    /// When the event is performed, the 0/1 term must be 1.
    pub assume: Vec<(EventId, TermId)>,
    /// `(read, event, cond)`: `event` depends on `read` (8.10.4: data,
    /// address or control) when both are performed and `cond` is 1.
    pub deps: Vec<(EventId, EventId, TermId)>,
    /// Per thread, the final value of each register the thread writes.
    pub regs: Vec<BTreeMap<String, TermId>>,
    /// Per thread, the 0/1 term "the unroll bound cut this execution": such
    /// executions are not candidates (as the path builder drops cut paths).
    pub cut: Vec<TermId>,
}

impl SymOp {
    /// The operation on concrete argument values, by the same function of
    /// `arith`/`access` the path builder calls (`Err`: the ISA gives the
    /// instruction no single value here, such as a division by zero). `And`,
    /// `Or` and `Not` read 0 as false and any other value as true; `Ite` picks
    /// by its first argument. Short-circuit evaluation with arguments that have
    /// no value is the encoder's (`sat::encode::symbolic`).
    pub fn eval(&self, args: &[i64]) -> Result<i64, super::arith::NoValue> {
        use super::arith;
        let arg = |i: usize| args.get(i).copied().ok_or(arith::NoValue::Arity);
        match self {
            SymOp::Alu(op, ty, src_ty) => arith::alu(*op, args, *ty, *src_ty),
            SymOp::Compare(c, ty) => Ok(arith::compare(*c, arg(0)?, arg(1)?, *ty) as i64),
            SymOp::Convert(ty) => Ok(arith::convert(*ty, arg(0)?)),
            SymOp::Stored(ty, size) => Ok(super::access::stored(*ty, *size, arg(0)?)),
            SymOp::TimerView(shift, bits) => Ok(super::build::timer_view(arg(0)?, *shift, *bits)),
            SymOp::MbarrierPending => Ok(arith::mbarrier::pending(arg(0)?)),
            SymOp::MbarrierDone { parity: false } => Ok(arith::mbarrier::phase_done(arg(0)?, arg(1)?) as i64),
            SymOp::MbarrierDone { parity: true } => Ok(arith::mbarrier::parity_done(arg(0)?, arg(1)?) as i64),
            SymOp::Not => Ok((arg(0)? == 0) as i64),
            SymOp::And => Ok(args.iter().all(|&v| v != 0) as i64),
            SymOp::Or => Ok(args.iter().any(|&v| v != 0) as i64),
            SymOp::Ite => Ok(if arg(0)? != 0 { arg(1)? } else { arg(2)? }),
        }
    }
}
