//! C integer types (C11 6.2.5, 7.17.6, 7.20.1.1) as widths and signedness: a location's accesses and a
//! local's value are of its declared type, so arithmetic wraps where C says it does ("For signed integer
//! types, arithmetic is defined to use two's complement representation with silent wrap-around on
//! overflow", 7.17.7.5) and an initial value outside the type is refused (D229, D230).

use crate::ast::{IntTy, Span};
use crate::error::{Error, Result};

/// What a declaration says about a name: an integer of this type, or a pointer (an address, no width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Declared {
    Int(IntTy),
    Pointer,
}

/// The type the words of a declaration name (`volatile int*`, `atomic_uint8_t*`,
/// `unsigned char`), `stars` of them stripped first (a parameter's `*` points
/// at the location). `None`: no type words at all.
pub(super) fn declared(words: &[&str], stars: usize, span: Span) -> Result<Option<Declared>> {
    let all = words.join(" ");
    let pointers = all.matches('*').count();
    let words: Vec<&str> = all
        .split(|c: char| c.is_whitespace() || c == '*')
        .filter(|w| !w.is_empty() && !matches!(*w, "volatile" | "const" | "_Atomic"))
        .collect();
    if words.is_empty() {
        return Ok(None);
    }
    if pointers > stars {
        return Ok(Some(Declared::Pointer));
    }
    let unsigned = words.contains(&"unsigned");
    let mut base: Vec<&str> = words.iter().copied().filter(|w| !matches!(*w, "unsigned" | "signed")).collect();
    if base.len() > 1 {
        base.retain(|w| *w != "int"); // `short int`, `long int`, `unsigned long int`
    }
    let (bits, signed) = match base.join(" ").as_str() {
        "" | "int" | "atomic_int" | "int32_t" | "atomic_int32_t" => (32, !unsigned),
        "uint32_t" | "atomic_uint" | "atomic_uint32_t" => (32, false),
        // `char` is signed in the ABI CUDA shares with its host compilers.
        "char" | "atomic_char" | "int8_t" | "atomic_int8_t" => (8, !unsigned),
        "uint8_t" | "atomic_uint8_t" => (8, false),
        "short" | "int16_t" | "atomic_int16_t" => (16, !unsigned),
        "uint16_t" | "atomic_uint16_t" => (16, false),
        "long" | "long long" | "atomic_long" | "int64_t" | "atomic_int64_t" | "intptr_t" => (64, !unsigned),
        "uint64_t" | "atomic_uint64_t" => (64, false),
        "bool" | "atomic_bool" => return Err(Error::input(
            "`bool` is not modelled (C11 6.3.1.2: a value converted to bool becomes 0 or 1): declare an integer type",
            span,
        )),
        other => return Err(Error::input(format!("unknown integer type `{}`", other), span)),
    };
    if bits < 32 {
        // Accesses narrower than a word split a location into bytes, which the
        // compiled PTX test (`map`) and the condition do not read back yet.
        let msg = format!(
            "`{}` is a {}-bit type: 8- and 16-bit C locations and locals are not modelled yet (declare int, unsigned or long)",
            words.join(" "),
            bits
        );
        return Err(Error::input(msg, span));
    }
    Ok(Some(Declared::Int(IntTy { bits, signed })))
}

/// The C spelling of a type, for messages.
pub(super) fn c_name(t: IntTy) -> String {
    match (t.bits, t.signed) {
        (32, true) => "int".to_string(),
        (32, false) => "unsigned int".to_string(),
        (b, true) => format!("int{}_t", b),
        (b, false) => format!("uint{}_t", b),
    }
}

/// The least and greatest values of `t`.
pub(super) fn range(t: IntTy) -> (i128, i128) {
    if t.signed {
        (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
    } else {
        (0, (1i128 << t.bits) - 1)
    }
}

/// `v` converted to `t`: its low `t.bits` bits, sign- or zero-extended (how
/// a register holds a typed value, `crate::program::arith`).
pub(super) fn wrap(t: IntTy, v: i64) -> i64 {
    crate::ast::norm(t, v as i128)
}

/// Refuse an initial value outside `t` (D230): C11 6.3.1.3 makes the
/// conversion of an out-of-range value to a signed type implementation-defined,
/// and herd7 refuses such a test, so no reading of it is the test's.
pub(super) fn check_fits(name: &str, value: i64, t: IntTy, span: Span) -> Result<()> {
    let (lo, hi) = range(t);
    if (value as i128) < lo || (value as i128) > hi {
        return Err(Error::input(
            format!("`{}` is `{}`, which holds {} to {}: {} does not fit", name, c_name(t), lo, hi, value),
            span,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(words: &[&str], stars: usize) -> Option<Declared> {
        declared(words, stars, Span::default()).expect("a known type")
    }

    #[test]
    fn words_name_widths() {
        let int = |bits, signed| Some(Declared::Int(IntTy { bits, signed }));
        assert_eq!(ty(&["atomic_int*"], 1), int(32, true));
        assert_eq!(ty(&["volatile", "int", "*"], 1), int(32, true));
        assert_eq!(ty(&["unsigned", "int*"], 1), int(32, false));
        assert_eq!(ty(&["atomic_uint*"], 1), int(32, false));
        assert_eq!(ty(&["unsigned", "long"], 0), int(64, false));
        assert_eq!(ty(&["long", "long"], 0), int(64, true));
        for narrow in [&["atomic_uint8_t*"][..], &["atomic_char*"], &["unsigned", "char"], &["short", "int"]] {
            assert!(declared(narrow, 1, Span::default()).is_err(), "{:?}", narrow);
        }
        assert_eq!(ty(&["int*"], 0), Some(Declared::Pointer));
        assert_eq!(ty(&["int**"], 1), Some(Declared::Pointer));
        assert_eq!(ty(&[], 0), None);
        assert!(declared(&["atomic_bool*"], 1, Span::default()).is_err());
        assert!(declared(&["atomic_int7_t*"], 1, Span::default()).is_err());
    }

    #[test]
    fn values_wrap() {
        let (int, u8_) = (IntTy { bits: 32, signed: true }, IntTy { bits: 8, signed: false });
        assert_eq!(wrap(int, 2147483648), -2147483648);
        assert_eq!(wrap(int, 4294967296), 0);
        assert_eq!(wrap(u8_, 256), 0);
        assert_eq!(wrap(u8_, -1), 255);
    }

    #[test]
    fn values_fit_or_not() {
        let int = IntTy { bits: 32, signed: true };
        assert!(check_fits("x", 2147483647, int, Span::default()).is_ok());
        assert!(check_fits("x", -2147483648, int, Span::default()).is_ok());
        assert!(check_fits("x", 4294967296, int, Span::default()).is_err());
        assert!(check_fits("x", 2147483648, int, Span::default()).is_err());
        assert!(check_fits("x", 4294967295, IntTy { bits: 32, signed: false }, Span::default()).is_ok());
        assert!(check_fits("x", -1, IntTy { bits: 32, signed: false }, Span::default()).is_err());
    }
}
