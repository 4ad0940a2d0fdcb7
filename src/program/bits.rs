//! The bit operations of ISA 9.7.1 (`popc`, `clz`, `bfind`, `brev`, `bfe`,
//! `bfi`, `fns`) and 9.7.8 (`cnot`, `prmt`, `lop3`, `shf`), each exactly as its semantics
//! pseudo-code reads, at the width of its type. A register value is stored
//! as `arith` stores it (zero- or sign-extended from the result type).

use super::arith::{norm, NoValue};
use crate::ast::{BitOp, IntTy, PrmtMode};

const U32: IntTy = IntTy { bits: 32, signed: false };

/// The low `ty.bits` bits of a register value.
fn raw(ty: IntTy, v: i64) -> u64 {
    if ty.bits >= 64 {
        v as u64
    } else {
        v as u64 & ((1u64 << ty.bits) - 1)
    }
}

/// `op(v)`: sources of type `src`, result stored as `ty`.
pub fn eval(op: BitOp, v: &[i64], ty: IntTy, src: IntTy) -> Result<i64, NoValue> {
    let arg = |i: usize| v.get(i).copied().ok_or(NoValue::Arity);
    let width = src.bits;
    let a = raw(src, arg(0)?);
    // Positions and lengths are .u32 "restricted to the 8-bit value range 0..255" (bfe, bfi).
    let byte = |i: usize| -> Result<u32, NoValue> { Ok((raw(U32, arg(i)?) & 0xff) as u32) };
    let r: u64 = match op {
        BitOp::Popc => a.count_ones() as u64,
        // cnot: "d = (a==0) ? 1 : 0;".
        BitOp::Cnot => (a == 0) as u64,
        BitOp::Clz => (a.leading_zeros() - (64 - width)) as u64,
        BitOp::Brev => a.reverse_bits() >> (64 - width),
        BitOp::Bfind { shiftamt } => bfind(a, width, src.signed, shiftamt),
        BitOp::Bfe => bfe(a, width, src.signed, byte(1)?, byte(2)?),
        BitOp::Bfi => bfi(a, raw(src, arg(1)?), width, byte(2)?, byte(3)?),
        BitOp::Fns => fns(a, raw(U32, arg(1)?), raw(U32, arg(2)?) as u32 as i32)?,
        BitOp::Prmt(mode) => prmt(a, raw(U32, arg(1)?), raw(U32, arg(2)?), mode),
        BitOp::Lop3 => lop3(a, raw(src, arg(1)?), raw(src, arg(2)?), raw(U32, arg(3)?) as u8, width),
        BitOp::Shf { left, clamp } => shf(a, raw(U32, arg(1)?), raw(U32, arg(2)?), left, clamp),
    };
    Ok(norm(ty, r as i128))
}

/// bfind: "msb = 31 or 63; negate negative signed inputs; d = 0xffffffff; the
/// highest i with a[i] set; if (.shiftamt && d != 0xffffffff) d = msb - d".
fn bfind(a: u64, width: u32, signed: bool, shiftamt: bool) -> u64 {
    let msb = width - 1;
    let a = if signed && a >> msb & 1 == 1 { !a & mask(width) } else { a };
    match (a == 0, shiftamt) {
        (true, _) => 0xffff_ffff,
        (false, false) => (63 - a.leading_zeros()) as u64,
        (false, true) => (msb - (63 - a.leading_zeros())) as u64,
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// bfe: "sbit = a[min(pos+len-1, msb)] for signed types with len != 0, else 0;
/// d[i] = (i < len && pos+i <= msb) ? a[pos+i] : sbit".
fn bfe(a: u64, width: u32, signed: bool, pos: u32, len: u32) -> u64 {
    let msb = width - 1;
    let sbit = if signed && len != 0 { a >> (pos + len - 1).min(msb) & 1 } else { 0 };
    (0..width).fold(0u64, |d, i| {
        let bit = if i < len && pos + i <= msb { a >> (pos + i) & 1 } else { sbit };
        d | bit << i
    })
}

/// fns: "d = 0xffffffff; if (offset == 0) { if (mask[base] == 1) d = base; }
/// else { pos = base; count = |offset| - 1; inc = (offset > 0) ? 1 : -1;
/// while (0 <= pos < 32) { if (mask[pos] == 1) { if (count == 0) { d = pos;
/// break; } else count--; } pos += inc; } }". "Operand base must be <= 31,
/// otherwise behavior is undefined": a base read as a 32-bit number past 31
/// (a negative `.s32` base too) has no value here (D302).
fn fns(mask: u64, base: u64, offset: i32) -> Result<u64, NoValue> {
    if base > 31 {
        return Err(NoValue::Undefined("has a base past 31 on some path, where the ISA leaves the result undefined"));
    }
    let set = |pos: i64| mask >> pos & 1 == 1;
    let base = base as i64;
    if offset == 0 {
        return Ok(if set(base) { base as u64 } else { 0xffff_ffff });
    }
    let inc = if offset > 0 { 1 } else { -1 };
    let mut count = i64::from(offset).abs() - 1;
    let mut pos = base;
    while (0..32).contains(&pos) {
        if set(pos) {
            if count == 0 {
                return Ok(pos as u64);
            }
            count -= 1;
        }
        pos += inc;
    }
    Ok(0xffff_ffff)
}

/// bfi: "f = b; for (i = 0; i < len && pos+i <= msb; i++) f[pos+i] = a[i]".
fn bfi(a: u64, b: u64, width: u32, pos: u32, len: u32) -> u64 {
    let msb = width - 1;
    (0..len).take_while(|i| pos + i <= msb).fold(b, |f, i| (f & !(1u64 << (pos + i))) | (a >> i & 1) << (pos + i))
}

/// prmt: bytes of `tmp64 = (b << 32) | a`. The generic form takes one 4-bit
/// selector per result byte from `c` (bit 3: replicate the byte's sign);
/// the modes pick a fixed pattern by `c[1:0]` (the ISA's table, result
/// bytes 0..3 listed from byte 0).
fn prmt(a: u64, b: u64, c: u64, mode: PrmtMode) -> u64 {
    let tmp64 = b << 32 | a;
    let sel = (c & 3) as usize;
    let pattern: [u64; 4] = match mode {
        PrmtMode::Index => [c & 0xf, c >> 4 & 0xf, c >> 8 & 0xf, c >> 12 & 0xf],
        PrmtMode::F4e => [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]][sel],
        PrmtMode::B4e => [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]][sel],
        PrmtMode::Rc8 => [[0; 4], [1; 4], [2; 4], [3; 4]][sel],
        PrmtMode::Ecl => [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]][sel],
        PrmtMode::Ecr => [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]][sel],
        PrmtMode::Rc16 => [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]][sel],
    };
    pattern.iter().enumerate().fold(0u64, |d, (i, &s)| {
        let byte = tmp64 >> (8 * (s & 7)) & 0xff;
        // "msb=1 means replicate the sign ... only performed as part of generic form".
        let byte = if mode == PrmtMode::Index && s & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        d | byte << (8 * i)
    })
}

/// lop3: bit i of d is bit (a[i]·4 + b[i]·2 + c[i]) of the look-up table
/// (the table is `F(0xF0, 0xCC, 0xAA)` for the function F written in C).
fn lop3(a: u64, b: u64, c: u64, lut: u8, width: u32) -> u64 {
    (0..width).fold(0u64, |d, i| {
        let idx = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
        d | ((lut as u64 >> idx) & 1) << i
    })
}

/// shf: "n = clamp ? min(c, 32) : c & 0x1f"; the 64-bit {b, a} shifted by n,
/// the upper 32 bits (`.l`) or the lower 32 bits (`.r`) kept.
fn shf(a: u64, b: u64, c: u64, left: bool, clamp: bool) -> u64 {
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let pair = b << 32 | a;
    if left {
        (((pair as u128) << n) >> 32) as u64 & mask(32)
    } else {
        (pair >> n) & mask(32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const B32: IntTy = IntTy { bits: 32, signed: false };
    const S32: IntTy = IntTy { bits: 32, signed: true };
    const B64: IntTy = IntTy { bits: 64, signed: false };
    const S64: IntTy = IntTy { bits: 64, signed: true };

    fn e(op: BitOp, v: &[i64], ty: IntTy, src: IntTy) -> i64 {
        eval(op, v, ty, src).unwrap()
    }

    /// Values worked by hand from each instruction's pseudo-code.
    #[test]
    fn counts_and_reversal() {
        assert_eq!(e(BitOp::Popc, &[0xf0f0], B32, B32), 8);
        assert_eq!(e(BitOp::Popc, &[-1], B32, B64), 64);
        assert_eq!(e(BitOp::Popc, &[-1], B32, B32), 32);
        // cnot looks at the type's width only: 0x1_0000_0000 is zero as a .b32.
        assert_eq!(e(BitOp::Cnot, &[0], B32, B32), 1);
        assert_eq!(e(BitOp::Cnot, &[7], B32, B32), 0);
        assert_eq!(e(BitOp::Cnot, &[1 << 32], B32, B32), 1);
        assert_eq!(e(BitOp::Clz, &[1], B32, B32), 31);
        assert_eq!(e(BitOp::Clz, &[0], B32, B32), 32);
        assert_eq!(e(BitOp::Clz, &[0], B32, B64), 64);
        assert_eq!(e(BitOp::Brev, &[1], B32, B32), 0x8000_0000);
        assert_eq!(e(BitOp::Brev, &[1], B64, B64), i64::MIN);
        assert_eq!(e(BitOp::Brev, &[0x8000_0000], B32, B32), 1);
    }

    #[test]
    fn bfind_finds_the_highest_non_sign_bit() {
        let (plain, amt) = (BitOp::Bfind { shiftamt: false }, BitOp::Bfind { shiftamt: true });
        assert_eq!(e(plain, &[0x10], B32, B32), 4);
        assert_eq!(e(amt, &[0x10], B32, B32), 27);
        assert_eq!(e(plain, &[0], B32, B32), 0xffff_ffff);
        assert_eq!(e(amt, &[0], B32, B32), 0xffff_ffff);
        // -2 = 0xff..fe: ~a = 1, the most significant 0 is bit 0.
        assert_eq!(e(plain, &[-2], B32, S32), 0);
        assert_eq!(e(plain, &[-1], B32, S64), 0xffff_ffff);
        assert_eq!(e(plain, &[i64::MIN], B32, S64), 62);
        assert_eq!(e(amt, &[1 << 40], B32, B64), 23);
    }

    #[test]
    fn bfe_extends_and_clamps() {
        assert_eq!(e(BitOp::Bfe, &[0xabcd, 4, 8], B32, B32), 0xbc);
        // Signed: the field 0xbc has its top bit set, so it is sign-extended.
        assert_eq!(e(BitOp::Bfe, &[0xabcd, 4, 8], S32, S32), 0xbc - 0x100);
        assert_eq!(e(BitOp::Bfe, &[0xabcd, 4, 0], S32, S32), 0);
        // Past the msb the field is filled with the sign bit a[min(pos+len-1, msb)].
        assert_eq!(e(BitOp::Bfe, &[0x8000_0000u32 as i64, 31, 8], S32, S32), -1);
        assert_eq!(e(BitOp::Bfe, &[0x8000_0000u32 as i64, 31, 8], B32, B32), 1);
        // Only the low 8 bits of pos and len count: 0x104 is 4.
        assert_eq!(e(BitOp::Bfe, &[0xabcd, 0x104, 8], B32, B32), 0xbc);
        assert_eq!(e(BitOp::Bfe, &[-1, 60, 8], B64, B64), 0xf);
    }

    /// The ISA's four examples, and the cases its loop reaches the ends in.
    #[test]
    fn fns_counts_set_bits_from_the_base() {
        let f = |mask: u32, base, offset| eval(BitOp::Fns, &[mask as i64, base, offset], B32, B32);
        assert_eq!(f(0xaaaa_aaaa, 3, 1), Ok(3));
        assert_eq!(f(0xaaaa_aaaa, 3, -1), Ok(3));
        assert_eq!(f(0xaaaa_aaaa, 2, 1), Ok(3));
        assert_eq!(f(0xaaaa_aaaa, 2, -1), Ok(1));
        // offset 0 asks for the base bit itself.
        assert_eq!(f(0xaaaa_aaaa, 3, 0), Ok(3));
        assert_eq!(f(0xaaaa_aaaa, 2, 0), Ok(0xffff_ffff));
        // The third set bit upwards from 0 of 0b10110 is bit 4; there is no fourth.
        assert_eq!(f(0b10110, 0, 3), Ok(4));
        assert_eq!(f(0b10110, 0, 4), Ok(0xffff_ffff));
        assert_eq!(f(0x8000_0000, 31, i32::MIN as i64), Ok(0xffff_ffff));
        assert_eq!(f(0x8000_0001, 31, -2), Ok(0));
        // A base past 31 (or negative, read as 32 bits) is undefined behaviour.
        assert!(matches!(f(1, 32, 1), Err(NoValue::Undefined(_))));
        assert!(matches!(f(1, -1, 1), Err(NoValue::Undefined(_))));
    }

    #[test]
    fn bfi_inserts_below_the_msb() {
        assert_eq!(e(BitOp::Bfi, &[0xff, 0, 8, 4], B32, B32), 0xf00);
        assert_eq!(e(BitOp::Bfi, &[0, -1, 28, 8], B32, B32), 0x0fff_ffff);
        assert_eq!(e(BitOp::Bfi, &[1, 7, 40, 0], B32, B32), 7);
        assert_eq!(e(BitOp::Bfi, &[0xf, 0, 62, 4], B64, B64), (3u64 << 62) as i64);
    }

    #[test]
    fn prmt_modes_follow_the_table() {
        let (a, b) = (0x3322_1100, 0x7766_5544);
        let p = |m, c| e(BitOp::Prmt(m), &[a, b, c], B32, B32);
        assert_eq!(p(PrmtMode::Index, 0x3210), 0x3322_1100);
        assert_eq!(p(PrmtMode::Index, 0x7654), 0x7766_5544);
        assert_eq!(p(PrmtMode::Index, 0x0123), 0x0011_2233);
        assert_eq!(e(BitOp::Prmt(PrmtMode::Index), &[0x84, 0, 0x8880], B32, B32), 0xffff_ff84);
        assert_eq!(p(PrmtMode::F4e, 1), 0x4433_2211);
        assert_eq!(p(PrmtMode::B4e, 0), 0x5566_7700);
        assert_eq!(p(PrmtMode::B4e, 3), 0x0011_2233);
        assert_eq!(p(PrmtMode::Rc8, 2), 0x2222_2222);
        assert_eq!(p(PrmtMode::Ecl, 1), 0x3322_1111);
        assert_eq!(p(PrmtMode::Ecr, 2), 0x2222_1100);
        assert_eq!(p(PrmtMode::Rc16, 1), 0x3322_3322);
        // Sign replication is generic-form only: bit 3 of c is ignored by the modes.
        assert_eq!(p(PrmtMode::Rc8, 0xb), 0x3333_3333);
    }

    #[test]
    fn lop3_reads_its_table() {
        let (a, b, c) = (0xf0, 0xcc, 0xaa);
        // Bits 8..31 of a, b and c are 0: there d is bit 0 of the table.
        for lut in [0x80, 0xfe, 0x96, 0xe8, 0x00, 0xff, 0x01] {
            let high = if lut & 1 == 1 { 0xffff_ff00 } else { 0 };
            assert_eq!(e(BitOp::Lop3, &[a, b, c, lut], B32, B32), lut | high);
        }
        assert_eq!(e(BitOp::Lop3, &[-1, 0, 0, 0xf0], B32, B32), 0xffff_ffff);
    }

    #[test]
    fn funnel_shifts_clamp_or_wrap() {
        let f = |left, clamp, c| e(BitOp::Shf { left, clamp }, &[0x1234_5678, 0x9abc_def0, c], B32, B32);
        assert_eq!(f(true, false, 8), 0xbcde_f012);
        assert_eq!(f(false, false, 8), 0xf012_3456);
        assert_eq!(f(true, true, 40), 0x1234_5678);
        assert_eq!(f(true, false, 40), 0xbcde_f012);
        assert_eq!(f(false, true, 32), 0x9abc_def0);
        assert_eq!(f(false, false, 0), 0x1234_5678);
        // Rotation: shf.l.wrap with a == b.
        assert_eq!(
            e(BitOp::Shf { left: true, clamp: false }, &[0x8000_0001u32 as i64, 0x8000_0001u32 as i64, 1], B32, B32),
            3
        );
    }
}
