//! Width-correct integer arithmetic (PTX ISA 5.2.1 types, 6.5.1 conversions,
//! chapter 9 integer instructions). A register value is an `i64`: a typed
//! result is stored zero-extended (`.b`, `.u`, `.pred`) or sign-extended
//! (`.s`) from its width, so `add.u32` of 0xffffffff and 1 is 0 and
//! `ld.s8` of the byte 255 is -1. Untyped corpus arithmetic (`add r1, r2, 1`)
//! keeps 64-bit two's complement (decisions.md D15).

use crate::ast::{AluOp, AtomOp, Cmp, IntTy};

// The two conversions every typed value goes through are defined beside
// `IntTy` (the C front end, a lower layer, reads values with them too).
pub use crate::ast::{norm, widen};

/// `v` converted by an optional type (`None`: unchanged).
pub fn convert(ty: Option<IntTy>, v: i64) -> i64 {
    match ty {
        Some(t) => norm(t, widen(t, v)),
        None => v,
    }
}

/// Why an operation has no value.
#[derive(Debug, PartialEq, Eq)]
pub enum NoValue {
    /// Integer division or remainder by zero: the ISA leaves the result
    /// "unspecified, machine-specific" (div, rem), so no single value models it.
    DivByZero,
    /// Untyped 64-bit division overflow (i64::MIN / -1).
    Overflow,
    /// Wrong number of operands (a bug upstream).
    Arity,
    /// An operand the ISA leaves the behaviour undefined for (`fns` with a
    /// base past 31): why, as the end of a sentence naming the instruction.
    Undefined(&'static str),
}

/// `op(srcs)` for an ALU instruction: sources read as `src_ty`, result truncated to `ty`.
pub fn alu(op: AluOp, v: &[i64], ty: Option<IntTy>, src_ty: Option<IntTy>) -> Result<i64, NoValue> {
    if let AluOp::Bits(b) = op {
        // The decoder always gives a bit operation its types.
        let (Some(ty), Some(src)) = (ty, src_ty.or(ty)) else { return Err(NoValue::Arity) };
        return super::bits::eval(b, v, ty, src);
    }
    if let AluOp::Float(f) = op {
        // And a floating-point one its widths.
        let (Some(ty), Some(src)) = (ty, src_ty.or(ty)) else { return Err(NoValue::Arity) };
        return super::float::eval(f, v, ty, src);
    }
    let (Some(ty), Some(src)) = (ty, src_ty.or(ty)) else {
        return untyped(op, v);
    };
    let a = widen(src, *v.first().ok_or(NoValue::Arity)?);
    let b = v.get(1).map(|&b| widen(src, b));
    let need_b = || b.ok_or(NoValue::Arity);
    // ISA shl/shr: "Shift a ... by the amount specified by unsigned 32-bit value in b"
    // and "Shift amounts greater than the register width N are clamped to N". The
    // amount is read as a .u32 from the operand itself, not at the shifted type.
    let amount = || -> Result<u32, NoValue> {
        let raw = *v.get(1).ok_or(NoValue::Arity)?;
        Ok((widen(SHIFT_AMOUNT, raw) as u64).min(src.bits as u64) as u32)
    };
    let r: i128 = match op {
        AluOp::Mov => a,
        AluOp::Not => !a,
        AluOp::Neg => -a,
        AluOp::Add => a + need_b()?,
        AluOp::Sub => a - need_b()?,
        AluOp::Mul => a * need_b()?,
        AluOp::MulHi => (a * need_b()?) >> src.bits,
        AluOp::Div | AluOp::Rem => {
            let b = need_b()?;
            if b == 0 {
                return Err(NoValue::DivByZero);
            }
            if op == AluOp::Div {
                a / b
            } else {
                a % b
            }
        }
        AluOp::And => a & need_b()?,
        AluOp::Or => a | need_b()?,
        AluOp::Xor => a ^ need_b()?,
        AluOp::Shl => {
            let s = amount()?;
            if s >= src.bits {
                0
            } else {
                a << s
            }
        }
        // `a` is already sign- or zero-extended: an arithmetic shift of the
        // wide value fills with the sign bit for .s and with zeros otherwise.
        AluOp::Shr => a >> amount()?.min(127),
        AluOp::Min => a.min(need_b()?),
        AluOp::Max => a.max(need_b()?),
        AluOp::Bits(_) | AluOp::Float(_) => return Err(NoValue::Arity),
    };
    Ok(norm(ty, r))
}

/// The type of a shift amount (ISA shl, shr: "unsigned 32-bit value in b").
const SHIFT_AMOUNT: IntTy = IntTy { bits: 32, signed: false };

/// The corpus spelling: 64-bit two's complement, as before types were modelled.
/// A shift is `shl.b64` / `shr.s64`: a .u32 amount clamped to 64 (D15).
fn untyped(op: AluOp, v: &[i64]) -> Result<i64, NoValue> {
    if matches!(op, AluOp::Shl | AluOp::Shr) {
        return alu(op, v, Some(IntTy { bits: 64, signed: true }), None);
    }
    let a = *v.first().ok_or(NoValue::Arity)?;
    let b = v.get(1).copied();
    let need_b = || b.ok_or(NoValue::Arity);
    Ok(match op {
        AluOp::Mov => a,
        AluOp::Not => !a,
        AluOp::Neg => a.wrapping_neg(),
        AluOp::Add => a.wrapping_add(need_b()?),
        AluOp::Sub => a.wrapping_sub(need_b()?),
        AluOp::Mul => a.wrapping_mul(need_b()?),
        AluOp::MulHi => ((a as i128 * need_b()? as i128) >> 64) as i64,
        AluOp::Div | AluOp::Rem if need_b()? == 0 => return Err(NoValue::DivByZero),
        AluOp::Div => a.checked_div(need_b()?).ok_or(NoValue::Overflow)?,
        AluOp::Rem => a.checked_rem(need_b()?).ok_or(NoValue::Overflow)?,
        AluOp::And => a & need_b()?,
        AluOp::Or => a | need_b()?,
        AluOp::Xor => a ^ need_b()?,
        AluOp::Min => a.min(need_b()?),
        AluOp::Max => a.max(need_b()?),
        AluOp::Shl | AluOp::Shr | AluOp::Bits(_) | AluOp::Float(_) => return Err(NoValue::Arity),
    })
}

/// `a cmp b` read as `ty` (signed or unsigned); untyped: signed 64-bit.
pub fn compare(c: Cmp, a: i64, b: i64, ty: Option<IntTy>) -> bool {
    let (a, b) = match ty {
        Some(t) => (widen(t, a), widen(t, b)),
        None => (a as i128, b as i128),
    };
    match c {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
    }
}

/// The value an atomic operation writes after reading `old`; `None` when it does
/// not write (a failing cas). Outer `None`: wrong operand count. Typed
/// operations wrap at their width and compare signed or unsigned (ISA `atom`).
pub fn rmw(op: AtomOp, old: i64, vals: &[i64], ty: Option<IntTy>) -> Option<Option<i64>> {
    let w = |v: i64| match ty {
        Some(t) => widen(t, v),
        None => v as i128,
    };
    let out = |v: i128| match ty {
        Some(t) => norm(t, v),
        None => v as i64,
    };
    let old_w = w(old);
    let b = vals.first().map(|&b| w(b));
    Some(match op {
        AtomOp::Add => Some(out(old_w + b?)),
        AtomOp::FAdd => Some(super::float::atomic_add(ty.map_or(32, |t| t.bits), old, *vals.first()?)),
        // inc/dec without a bound (as in the ISA's atomicity example) do not wrap.
        AtomOp::Inc => Some(match b {
            Some(b) if old_w >= b => 0,
            _ => out(old_w + 1),
        }),
        AtomOp::Dec => Some(match b {
            Some(b) if old_w == 0 || old_w > b => out(b),
            _ => out(old_w - 1),
        }),
        AtomOp::Exch => Some(out(b?)),
        AtomOp::Cas => {
            let (cmp, new) = (b?, w(*vals.get(1)?));
            if old_w == cmp {
                Some(out(new))
            } else {
                None
            }
        }
        AtomOp::And => Some(out(old_w & b?)),
        AtomOp::Or => Some(out(old_w | b?)),
        AtomOp::Xor => Some(out(old_w ^ b?)),
        AtomOp::Min => Some(out(old_w.min(b?))),
        AtomOp::Max => Some(out(old_w.max(b?))),
        AtomOp::MbarrierArrive => Some(mbarrier::arrive(old, *vals.first()?, false)),
        AtomOp::MbarrierArriveDrop => Some(mbarrier::arrive(old, *vals.first()?, true)),
        AtomOp::MbarrierExpectTx => Some(mbarrier::add_tx(old, *vals.first()?)),
        AtomOp::MbarrierCompleteTx => Some(mbarrier::add_tx(old, -*vals.first()?)),
        AtomOp::MbarrierArriveExpectTx => {
            Some(mbarrier::arrive(mbarrier::add_tx(old, *vals.get(1)?), *vals.first()?, false))
        }
    })
}

/// The 64-bit word of an `mbarrier` object (litmus-format.md section 7, D153,
/// D259): "the current phase (its parity is what waits test), the pending
/// arrival count of the current phase, the expected arrival count (the value
/// the pending count is reloaded with when a phase completes)", and the
/// transaction count — the pending count in bits 0-19, the expected count in
/// bits 20-39, the phase number in bits 40-47 (a litmus test completes far
/// fewer than 256 phases), the tx-count in bits 48-62 (two's complement: it
/// may be negative between a complete-tx and the expect-tx that covers it).
/// A state token is the word its arrive read.
pub mod mbarrier {
    /// Counts are 1 to 2^20 - 1 (`mbarrier.init`).
    pub const MAX_COUNT: i64 = (1 << 20) - 1;
    /// The tx-counts the word holds: the ISA's range is 2^20 - 1 either way;
    /// a litmus test's copies are bytes of its own memory, far fewer (D259).
    pub const MAX_TX: i64 = (1 << 14) - 1;
    const EXPECTED: u32 = 20;
    const PHASE: u32 = 40;
    const PHASES: i64 = 0xff;
    const TX: u32 = 48;
    const TX_MASK: i64 = (1 << 15) - 1;

    fn pack(phase: i64, expected: i64, pending: i64, tx: i64) -> i64 {
        (tx & TX_MASK) << TX | (phase & PHASES) << PHASE | (expected & MAX_COUNT) << EXPECTED | (pending & MAX_COUNT)
    }

    /// `mbarrier.init`: "sets phase 0, expected and pending count to count",
    /// tx-count 0.
    pub fn init(count: i64) -> i64 {
        pack(0, count, count, 0)
    }

    /// `mbarrier.pending_count` of a state token.
    pub fn pending(word: i64) -> i64 {
        word & MAX_COUNT
    }

    fn phase(word: i64) -> i64 {
        (word >> PHASE) & PHASES
    }

    fn expected(word: i64) -> i64 {
        (word >> EXPECTED) & MAX_COUNT
    }

    /// The tx-count, signed.
    pub fn tx(word: i64) -> i64 {
        let raw = (word >> TX) & TX_MASK;
        if raw > TX_MASK / 2 {
            raw - (TX_MASK + 1)
        } else {
            raw
        }
    }

    /// The word after an update leaving `pending` arrivals and tx-count
    /// `tx` in the current phase: "the current phase completes when the
    /// pending arrival count and the tx-count are both zero"; the phase
    /// then advances and the pending count is reloaded from the expected
    /// count (D259).
    fn settle(word: i64, expected: i64, pending: i64, tx: i64) -> i64 {
        if pending <= 0 && tx == 0 {
            pack(phase(word) + 1, expected, expected, 0)
        } else {
            pack(phase(word), expected, pending.max(0), tx)
        }
    }

    /// An arrive-on of `count`: "pending count -= count; when it reaches zero
    /// the phase completes: the phase advances (parity flips) and the pending
    /// count is reloaded from the expected count"; `drop` (`arrive_drop`) "also
    /// lowers the expected count of later phases by the same amount". An arrive
    /// past zero (more arrivals than pending, undefined in the ISA) completes
    /// the phase too (D153), once the tx-count is zero (D259).
    pub fn arrive(word: i64, count: i64, drop: bool) -> i64 {
        let mut expected = expected(word);
        if drop {
            expected = (expected - count).max(0);
        }
        settle(word, expected, pending(word) - count, tx(word))
    }

    /// `mbarrier.expect_tx` (`bytes` > 0) raises the tx-count, a complete-tx
    /// (`bytes` < 0) lowers it (D259). A phase whose arrivals are all in
    /// completes when the tx-count comes to zero.
    pub fn add_tx(word: i64, bytes: i64) -> i64 {
        settle(word, expected(word), pending(word), tx(word) + bytes)
    }

    /// `test_wait` with a state token: the phase the token's arrive belonged
    /// to has completed (the object is in a later phase).
    pub fn phase_done(word: i64, token: i64) -> bool {
        phase(word) != phase(token)
    }

    /// `test_wait.parity`: the phase of parity `parity` has completed, that is
    /// the current phase has the other parity.
    pub fn parity_done(word: i64, parity: i64) -> bool {
        phase(word) & 1 != parity & 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const U8: IntTy = IntTy { bits: 8, signed: false };
    const S8: IntTy = IntTy { bits: 8, signed: true };
    const U32: IntTy = IntTy { bits: 32, signed: false };
    const S32: IntTy = IntTy { bits: 32, signed: true };
    const B64: IntTy = IntTy { bits: 64, signed: false };
    const PRED: IntTy = IntTy { bits: 1, signed: false };

    #[test]
    fn widths_wrap_and_extend() {
        assert_eq!(alu(AluOp::Add, &[0xffff_ffff, 1], Some(U32), None), Ok(0));
        assert_eq!(alu(AluOp::Add, &[0x7fff_ffff, 1], Some(S32), None), Ok(-0x8000_0000));
        assert_eq!(convert(Some(U8), 300), 44);
        assert_eq!(convert(Some(S8), 255), -1);
        assert_eq!(alu(AluOp::Mov, &[-1], Some(U32), None), Ok(0xffff_ffff));
        // cvt.s64.s8 sign-extends, cvt.u64.u8 zero-extends, cvt.u16.u32 truncates.
        assert_eq!(alu(AluOp::Mov, &[0x80], Some(IntTy { bits: 64, signed: true }), Some(S8)), Ok(-128));
        assert_eq!(alu(AluOp::Mov, &[-128], Some(B64), Some(U8)), Ok(128));
        assert_eq!(alu(AluOp::Mov, &[0x12345], Some(IntTy { bits: 16, signed: false }), Some(U32)), Ok(0x2345));
    }

    #[test]
    fn shifts_clamp_and_pred_is_logical() {
        assert_eq!(alu(AluOp::Shl, &[1, 64], Some(B64), None), Ok(0));
        assert_eq!(alu(AluOp::Shl, &[1, 31], Some(U32), None), Ok(0x8000_0000));
        assert_eq!(alu(AluOp::Shr, &[-8, 100], Some(S32), None), Ok(-1));
        assert_eq!(alu(AluOp::Shr, &[-8, 100], Some(U32), None), Ok(0));
        assert_eq!(alu(AluOp::Shr, &[-8, 1], Some(U32), None), Ok(0x7fff_fffc));
        // The amount is a .u32 whatever the shifted type: 0x100 is 256, clamped to 16, not the
        // 16-bit 0; untyped shifts are .s64 shifts, so 64 is clamped, not wrapped to 0.
        let b16 = IntTy { bits: 16, signed: false };
        let s16 = IntTy { bits: 16, signed: true };
        assert_eq!(alu(AluOp::Shl, &[1, 0x100], Some(b16), None), Ok(0));
        assert_eq!(alu(AluOp::Shr, &[0x8000, 0x1_0001], Some(b16), None), Ok(0));
        assert_eq!(alu(AluOp::Shr, &[-2, 0x1_0000], Some(s16), None), Ok(-1));
        assert_eq!(alu(AluOp::Shl, &[1, 0x1_0000_0003], Some(U32), None), Ok(8));
        assert_eq!(alu(AluOp::Shl, &[1, 64], None, None), Ok(0));
        assert_eq!(alu(AluOp::Shr, &[-8, 65], None, None), Ok(-1));
        assert_eq!(alu(AluOp::Shr, &[-8, 1], None, None), Ok(-4));
        assert_eq!(alu(AluOp::Not, &[1], Some(PRED), None), Ok(0));
        assert_eq!(alu(AluOp::Not, &[0], Some(PRED), None), Ok(1));
        assert_eq!(alu(AluOp::Div, &[7, 0], Some(U32), None), Err(NoValue::DivByZero));
    }

    #[test]
    fn unsigned_comparisons_and_wide_products() {
        assert!(compare(Cmp::Gt, -1, 1, Some(U32)));
        assert!(!compare(Cmp::Gt, -1, 1, Some(S32)));
        assert_eq!(alu(AluOp::Mul, &[0xffff_ffff, 2], Some(B64), Some(U32)), Ok(0x1_ffff_fffe));
        assert_eq!(alu(AluOp::MulHi, &[0xffff_ffff, 2], Some(U32), None), Ok(1));
        assert_eq!(rmw(AtomOp::Add, 0xffff_ffff, &[1], Some(U32)), Some(Some(0)));
        assert_eq!(rmw(AtomOp::Max, -1, &[1], Some(U32)), Some(Some(0xffff_ffff)));
    }
}
