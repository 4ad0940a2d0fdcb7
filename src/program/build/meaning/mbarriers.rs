//! `mbarrier` objects (9.7.13.15, D153, D305), written once for both
//! builders: `init`, `inval`, `test_wait`/`try_wait`, `pending_count`. The
//! arrivals are atomics (`meaning::atomic`); the word's layout is
//! `arith::mbarrier`.

use super::{location, normalize, Access, Flow, MemSem, Read, Scope, Values};
use crate::ast::{self, InstrKind, MbarrierOp};
use crate::error::Error;
use crate::program::arith::mbarrier;
use crate::program::build::LocKey;
use crate::program::symbolic::SymOp;
use crate::program::MbarrierUse;

/// `mbarrier.init`, `.inval`, `.test_wait` / `.try_wait` and
/// `.pending_count` (9.7.13.15, D153; the arrivals are atomics). The word's
/// layout is `arith::mbarrier`. `pending_count` reads no memory: the count
/// of the state token it is given.
pub(in crate::program::build) fn mbarrier<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
) -> Result<Flow<B::State>, B::Stop> {
    let InstrKind::Mbarrier { op, dst, addr, operand, sem, scope } = &ins.kind else {
        return Err(b.internal("mbarrier on another instruction"));
    };
    let v = b.operand(st, operand);
    let n = b.number(st, &v)?;
    let deps = B::deps(&v).clone();
    match op {
        MbarrierOp::PendingCount => {
            let dst = dst.as_ref().ok_or_else(|| b.internal("pending_count without a destination"))?;
            let count = b.apply(SymOp::MbarrierPending, vec![n], ins)?;
            B::set(st, dst, B::number_val(count, deps));
            Ok(Flow::Next)
        }
        MbarrierOp::Init => {
            let Some(count) = b.constant(n) else {
                return Err(b.outside(ins, "its count is computed from a value read"));
            };
            mbarrier_write(b, st, ins, addr, (count, deps))?;
            Ok(Flow::Next)
        }
        MbarrierOp::Inval => {
            mbarrier_write(b, st, ins, addr, (0, deps))?;
            Ok(Flow::Next)
        }
        MbarrierOp::TestWait { parity } => {
            let (key, vaddr, deps) = mbarrier_word(b, st, ins, addr, deps)?;
            let (msem, mscope) = normalize(*sem, *scope, Scope::Cta);
            let access = Access {
                reads: true,
                mbarrier: Some(MbarrierUse::Wait),
                ..Access::new(vaddr, ast::Proxy::Generic, 8, msem, mscope)
            };
            let done = SymOp::MbarrierDone { parity: *parity };
            let read = b.test_word(st, key, access, (done, n), deps, ins)?;
            Ok(set_read(st, dst.as_deref(), read))
        }
    }
}

/// What a read (or a test of one) gives, into `dst` where there is one.
fn set_read<B: Values>(st: &mut B::State, dst: Option<&str>, read: Read<B>) -> Flow<B::State> {
    match read {
        Read::One(v) => {
            if let Some(d) = dst {
                B::set(st, d, v);
            }
            Flow::Next
        }
        Read::Split(parts) => Flow::Split(
            parts
                .into_iter()
                .map(|(mut s, v)| {
                    if let Some(d) = dst {
                        B::set(&mut s, d, v);
                    }
                    s
                })
                .collect(),
        ),
    }
}

/// The object's 8-byte word at `addr` in `.shared` memory (its location,
/// virtual address, and the address's dependencies joined to `deps`); bytes
/// that accesses of other sizes also touch are refused, as for an atomic.
fn mbarrier_word<B: Values>(
    b: &mut B,
    st: &B::State,
    ins: &ast::Instr,
    addr: &Option<ast::Addr>,
    mut deps: B::Deps,
) -> Result<(LocKey, String, B::Deps), B::Stop> {
    let addr = addr.as_ref().ok_or_else(|| b.internal("mbarrier without an address"))?;
    let (key, vaddr, adeps) = location(b, st, addr, true, ins)?;
    b.join(&mut deps, &adeps)?;
    b.check_space(&key.root, false, ins)?;
    if b.cells(&key, 8, ins).len() > 1 {
        let message =
            "an mbarrier object over bytes that differently-sized accesses also touch (mixed-size) is not supported";
        return Err(Error::input(message, ins.span).into());
    }
    Ok((key, vaddr, deps))
}

/// `mbarrier.init [addr], count` ("sets phase 0, expected and pending count
/// to count (1 to 2^20 - 1)") and `mbarrier.inval [addr]` (count 0: every
/// count zero): a weak 8-byte store of the object's word. Initialising a
/// live object again is undefined (`Values::check_single_init`, D153).
fn mbarrier_write<B: Values>(
    b: &mut B,
    st: &mut B::State,
    ins: &ast::Instr,
    addr: &Option<ast::Addr>,
    (count, deps): (i64, B::Deps),
) -> Result<(), B::Stop> {
    if count != 0 && !(1..=mbarrier::MAX_COUNT).contains(&count) {
        let msg = format!("mbarrier.init count {} is out of range (1 to {})", count, mbarrier::MAX_COUNT);
        return Err(Error::input(msg, ins.span).into());
    }
    let (key, vaddr, deps) = mbarrier_word(b, st, ins, addr, deps)?;
    if count != 0 {
        b.check_single_init(st, &key, ins)?;
    }
    let word = if count == 0 { 0 } else { mbarrier::init(count) };
    let access = Access {
        writes: true,
        write_value: word,
        mbarrier: (count != 0).then_some(MbarrierUse::Init),
        ..Access::new(vaddr, ast::Proxy::Generic, 8, MemSem::Weak, Scope::Sys)
    };
    let cells = vec![(key.clone(), 0, 8)];
    let value = b.konst(word);
    b.write(st, key, cells, access, value, deps, ins)
}
