//! The floating-point operations libraries emit around atomics (ISA 9.7.3
//! `add`/`sub`/`mul`, 9.7.9 `setp` and `cvt` with floating-point types, 9.7.13
//! `atom.add.f32/.f64`), on register values holding IEEE 754 bit patterns
//! (ISA 5.2.1: `.f32` and `.f64` are IEEE 754 single and double precision).
//! Only round-to-nearest-even is modelled (the `.rn` default); the decoder
//! refuses the other rounding modes. Values are computed on each path, like
//! the integer operations (`arith`), so the engines need nothing new (D168).
//! A NaN result is the GPU's, never the host's (D237): whether a result is a
//! NaN is IEEE 754's and the same on every host, its sign and payload are not,
//! so they are set here from the result's width and the operands.

use super::arith::{norm, widen, NoValue};
use crate::ast::{Cmp, FloatOp, IntTy};

/// The NaN every single-precision operation returns: "The result of a
/// single-precision floating-point operation involving one or more input NaNs
/// is the quiet NaN of bit pattern 0x7fffffff" (CUDA C++ Programming Guide,
/// Floating-Point Standard); the GPU has no other (D237).
const F32_NAN: u64 = 0x7fff_ffff;
/// The NaN a double-precision operation makes from operands that are not NaNs
/// (`inf - inf`, `0 * inf`): CUDA's `CUDART_NAN` (math_constants.h), D237.
const F64_NAN: u64 = 0xfff8_0000_0000_0000;
/// The quiet bit of a double (the fraction's leading bit).
const F64_QUIET: u64 = 1 << 51;

fn is_nan(bits: u32, v: u64) -> bool {
    if bits == 32 {
        f32::from_bits(v as u32).is_nan()
    } else {
        f64::from_bits(v).is_nan()
    }
}

/// `r`, the `bits`-wide result of an operation on `operands` (each `src`
/// bits wide), with a NaN made the GPU's (D237): a single-precision NaN is
/// [`F32_NAN`]; a double-precision one carries the payload and sign of its
/// first NaN operand, quieted ("NaN payloads are supported for
/// double-precision instructions", ISA 9.7.3; a single-precision operand's
/// payload widened as IEEE 754 widens it), or is [`F64_NAN`] when no operand
/// is a NaN.
fn gpu_nan(bits: u32, r: u64, src: u32, operands: &[i64]) -> u64 {
    if !is_nan(bits, r) {
        return r;
    }
    if bits == 32 {
        return F32_NAN;
    }
    for &o in operands {
        if src == 64 && is_nan(64, o as u64) {
            return o as u64 | F64_QUIET;
        }
        let o = u64::from(o as u32);
        if src == 32 && is_nan(32, o) {
            let (sign, payload) = ((o >> 31) << 63, (o & 0x7f_ffff) << 29);
            return sign | 0x7ff0_0000_0000_0000 | payload | F64_QUIET;
        }
    }
    F64_NAN
}

/// A float of `bits` (32 or 64) as a host double: exact for both widths.
fn value(bits: u32, v: i64) -> f64 {
    if bits == 32 {
        f64::from(f32::from_bits(v as u32))
    } else {
        f64::from_bits(v as u64)
    }
}

/// `x` rounded to a float of `bits` (nearest even), as its bit pattern.
fn pattern(bits: u32, x: f64) -> u64 {
    if bits == 32 {
        u64::from((x as f32).to_bits())
    } else {
        x.to_bits()
    }
}

/// "flushes subnormal inputs and results to sign-preserving zero" (`.ftz`,
/// and `atom.add.f32`).
fn flush(bits: u32, x: f64) -> f64 {
    let tiny = if bits == 32 { f64::from(f32::MIN_POSITIVE) } else { f64::MIN_POSITIVE };
    if x != 0.0 && x.abs() < tiny {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// `op(v)`: sources read as `src` (the float width, or the integer type of
/// a conversion's source), the result stored as `ty`.
pub fn eval(op: FloatOp, v: &[i64], ty: IntTy, src: IntTy) -> Result<i64, NoValue> {
    let arg = |i: usize| v.get(i).copied().ok_or(NoValue::Arity);
    let w = src.bits;
    let f = |i: usize, ftz: bool| -> Result<f64, NoValue> {
        let x = value(w, arg(i)?);
        Ok(if ftz { flush(w, x) } else { x })
    };
    let r: u64 = match op {
        FloatOp::Add { ftz } => gpu_nan(w, rounded(w, f(0, ftz)? + f(1, ftz)?, ftz), w, v),
        FloatOp::Sub { ftz } => gpu_nan(w, rounded(w, f(0, ftz)? - f(1, ftz)?, ftz), w, v),
        FloatOp::Mul { ftz } => gpu_nan(w, rounded(w, f(0, ftz)? * f(1, ftz)?, ftz), w, v),
        FloatOp::Setp { cmp, unordered, ftz } => compare(cmp, unordered, f(0, ftz)?, f(1, ftz)?) as u64,
        // cvt.rn.fN.{u,s}M: the integer rounded to the nearest float.
        FloatOp::FromInt => {
            let i = widen(src, arg(0)?);
            if ty.bits == 32 {
                u64::from((i as f32).to_bits())
            } else {
                (i as f64).to_bits()
            }
        }
        // cvt.fN.fM: a double is exact for a float; a float from a double rounds.
        FloatOp::Resize => gpu_nan(ty.bits, pattern(ty.bits, value(w, arg(0)?)), w, &v[..1]),
    };
    Ok(norm(ty, r as i128))
}

/// A sum, difference or product computed in a double, rounded to the width.
/// For `.f32` operands that is the single-precision result: rounding twice
/// is harmless for +, - and * when the wider format has at least 2p + 2
/// bits (53 >= 2 * 24 + 2).
fn rounded(bits: u32, x: f64, ftz: bool) -> u64 {
    let r = pattern(bits, x);
    if ftz {
        pattern(bits, flush(bits, value(bits, r as i64)))
    } else {
        r
    }
}

/// The setp comparisons (ISA setp): `eq ne lt le gt ge` are false when an
/// operand is NaN; the `u` forms (`equ`, ..., `geu`) are true then.
fn compare(cmp: Cmp, unordered: bool, a: f64, b: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return unordered;
    }
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
    }
}

/// `atom.add.f32`/`.f64`: the new value of a float atomic add. "atom.add.f32
/// rounds to nearest even and flushes subnormal inputs and results to
/// sign-preserving zero"; `.f64` keeps subnormals.
pub fn atomic_add(bits: u32, old: i64, b: i64) -> i64 {
    let ty = IntTy { bits, signed: false };
    let ftz = bits == 32;
    let x = |v: i64| if ftz { flush(bits, value(bits, v)) } else { value(bits, v) };
    norm(ty, gpu_nan(bits, rounded(bits, x(old) + x(b), ftz), bits, &[old, b]) as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: IntTy = IntTy { bits: 32, signed: false };
    const F64: IntTy = IntTy { bits: 64, signed: false };
    const PRED: IntTy = IntTy { bits: 1, signed: false };
    const U32: IntTy = IntTy { bits: 32, signed: false };
    const S32: IntTy = IntTy { bits: 32, signed: true };

    fn f32b(x: f32) -> i64 {
        i64::from(x.to_bits())
    }

    #[test]
    fn arithmetic_rounds_to_nearest_even() {
        let add = FloatOp::Add { ftz: false };
        assert_eq!(eval(add, &[f32b(1.0), f32b(2.5)], F32, F32), Ok(f32b(3.5)));
        // 2^24 + 1 is not a float: the tie rounds to the even 2^24.
        assert_eq!(eval(add, &[f32b(16_777_216.0), f32b(1.0)], F32, F32), Ok(f32b(16_777_216.0)));
        assert_eq!(eval(FloatOp::Mul { ftz: false }, &[f32b(3.0), f32b(-0.5)], F32, F32), Ok(f32b(-1.5)));
        let d = |x: f64| x.to_bits() as i64;
        assert_eq!(eval(FloatOp::Sub { ftz: false }, &[d(1.0), d(0.25)], F64, F64), Ok(d(0.75)));
    }

    #[test]
    fn comparisons_and_nan() {
        let lt = FloatOp::Setp { cmp: Cmp::Lt, unordered: false, ftz: false };
        let ltu = FloatOp::Setp { cmp: Cmp::Lt, unordered: true, ftz: false };
        assert_eq!(eval(lt, &[f32b(-1.0), f32b(0.5)], PRED, F32), Ok(1));
        assert_eq!(eval(lt, &[f32b(f32::NAN), f32b(0.5)], PRED, F32), Ok(0));
        assert_eq!(eval(ltu, &[f32b(f32::NAN), f32b(0.5)], PRED, F32), Ok(1));
        // -0.0 == +0.0 as floats, though their bits differ.
        let eq = FloatOp::Setp { cmp: Cmp::Eq, unordered: false, ftz: false };
        assert_eq!(eval(eq, &[f32b(-0.0), f32b(0.0)], PRED, F32), Ok(1));
    }

    /// D237: a NaN result is the GPU's whatever the host's arithmetic gives:
    /// 0x7fffffff at single precision (a signalling NaN's payload and a
    /// negative NaN's sign are not carried); at double precision the first NaN
    /// operand quieted, or 0xfff8000000000000 when none is a NaN.
    #[test]
    fn nan_results_are_the_gpus() {
        let add = FloatOp::Add { ftz: false };
        let inf = f32b(f32::INFINITY);
        let canonical = Ok(0x7fff_ffff);
        assert_eq!(eval(add, &[inf, f32b(f32::NEG_INFINITY)], F32, F32), canonical);
        assert_eq!(eval(add, &[0x7f80_0001, f32b(1.0)], F32, F32), canonical);
        assert_eq!(eval(FloatOp::Mul { ftz: true }, &[0xffc0_0000, f32b(2.0)], F32, F32), canonical);
        assert_eq!(eval(FloatOp::Resize, &[0x7ff0_0000_0000_0001], F32, F64), canonical);
        assert_eq!(atomic_add(32, 0xff80_0001, f32b(1.0)), 0x7fff_ffff);
        let d = |x: f64| x.to_bits() as i64;
        let made = 0xfff8_0000_0000_0000u64 as i64;
        assert_eq!(eval(FloatOp::Sub { ftz: false }, &[d(f64::INFINITY), d(f64::INFINITY)], F64, F64), Ok(made));
        let (first, second) = (0x7ff0_0000_0000_0001i64, 0xfff0_0000_0000_0002u64 as i64);
        assert_eq!(eval(add, &[d(1.0), first], F64, F64), Ok(0x7ff8_0000_0000_0001));
        assert_eq!(eval(add, &[second, first], F64, F64), Ok(0xfff8_0000_0000_0002u64 as i64));
        // cvt.f64.f32 widens the payload: 0x7f800001 has fraction 1, shifted by 29.
        assert_eq!(eval(FloatOp::Resize, &[0x7f80_0001], F64, F32), Ok(0x7ff8_0000_2000_0000));
        assert_eq!(atomic_add(64, d(f64::INFINITY), d(f64::NEG_INFINITY)), made);
    }

    #[test]
    fn conversions_and_atomic_add() {
        assert_eq!(eval(FloatOp::FromInt, &[1], F32, U32), Ok(f32b(1.0)));
        assert_eq!(eval(FloatOp::FromInt, &[-3], F32, S32), Ok(f32b(-3.0)));
        assert_eq!(eval(FloatOp::Resize, &[f32b(0.5)], F64, F32), Ok(0.5f64.to_bits() as i64));
        assert_eq!(atomic_add(32, f32b(1.0), f32b(1.0)), f32b(2.0));
        // A subnormal input is flushed to zero by atom.add.f32.
        let tiny = f32b(f32::from_bits(1));
        assert_eq!(atomic_add(32, tiny, f32b(0.0)), 0);
    }
}
