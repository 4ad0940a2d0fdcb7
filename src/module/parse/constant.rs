//! The numbers a module writes: floating-point literals as the bits of their
//! type, and variable initializers as bytes.

use crate::ast::Span;
use crate::error::{Error, Result};
use crate::parse::instr::RawInstr;
use crate::parse::text::parse_int;

/// The bits of a `0f`/`0d` literal's hex digits.
pub(super) fn hex_bits(lit: &str, span: Span) -> Result<i64> {
    u64::from_str_radix(&lit[2..], 16).map(|b| b as i64).map_err(|_| Error::input("bad floating-point literal", span))
}

/// The width a floating-point constant of `raw` is converted to (ISA 4.5.2:
/// "Each 64-bit floating-point constant is converted to the appropriate
/// floating-point size based on the data or instruction type at its use"):
/// the instruction's first `.f32`/`.f64` type, else its first `.b32`/`.b64`
/// one; `createpolicy.fractional`'s fraction is a `.f32`. `None`: no such
/// type (also `.f16`/`.bf16`, whose conversion is not written).
pub(super) fn float_width(raw: &RawInstr) -> Option<u32> {
    if raw.opcode == "createpolicy" {
        return Some(32);
    }
    let width = |names: [&str; 2]| {
        raw.quals.iter().find_map(|q| match q.text.as_str() {
            t if t == names[0] => Some(32),
            t if t == names[1] => Some(64),
            _ => None,
        })
    };
    let first_float = raw.quals.iter().find(|q| matches!(q.text.as_str(), "f16" | "bf16" | "f32" | "f64"));
    match first_float {
        Some(q) if q.text.ends_with("16") => None,
        Some(_) => width(["f32", "f64"]),
        None => width(["b32", "b64"]),
    }
}

/// A floating-point constant `x` as the bits of a float of `width` bits.
pub(super) fn float_at(x: f64, width: Option<u32>, span: Span) -> Result<i64> {
    match width {
        Some(32) => Ok(i64::from((x as f32).to_bits())),
        Some(_) => Ok(x.to_bits() as i64),
        None => Err(Error::input(
            "a floating-point constant needs an instruction of type .f32, .f64, .b32 or .b64 to give it a size",
            span,
        )),
    }
}

/// The bytes of an initializer (ISA 5.4.4): integers (and `0f`/`0d` bit
/// patterns) in nested braces, each stored as `elem` bytes, little-endian; in
/// a `.f32`/`.f64` variable (`float`), decimal floating-point constants and
/// `0d` ones are converted to its size (4.5.2); initializers holding addresses
/// (`generic(x)`, `x+4`) are refused.
pub(super) fn initializer(text: &str, elem: u64, float: bool, span: Span) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let width = (float && matches!(elem, 4 | 8)).then_some(elem as u32 * 8);
    for tok in text.split(|c: char| c == '{' || c == '}' || c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        let t = tok.trim_end_matches(['U', 'u']);
        let unread = || Error::input(format!("`{}` is not a number this checker reads in an initializer", tok), span);
        let v = if let Some(hex) = t.strip_prefix("0f").or_else(|| t.strip_prefix("0F")) {
            u64::from_str_radix(hex, 16).map(|b| b as i64).map_err(|_| unread())?
        } else if let Some(hex) = t.strip_prefix("0d").or_else(|| t.strip_prefix("0D")) {
            let bits = u64::from_str_radix(hex, 16).map_err(|_| unread())?;
            if width.is_some() {
                float_at(f64::from_bits(bits), width, span)?
            } else {
                bits as i64
            }
        } else if width.is_some() && t.parse::<f64>().is_ok() && !t.starts_with(['+', 'i', 'I', 'n', 'N']) {
            float_at(t.parse::<f64>().map_err(|_| unread())?, width, span)?
        } else if t.starts_with(|c: char| c.is_ascii_digit() || c == '-') && !t.contains('.') {
            parse_int(t, span)?
        } else {
            return Err(Error::input(format!("initializers holding addresses or floating-point text (`{}`) are not supported: give the value as an integer", tok), span));
        };
        out.extend((0..elem.min(16)).map(|i| {
            if i < 8 {
                (v >> (8 * i)) as u8
            } else if v < 0 {
                0xff
            } else {
                0
            }
        }));
    }
    Ok(out)
}
