//! "Did you mean" suggestions for unknown instructions and qualifiers, by edit
//! distance (Levenshtein) over the names the parser knows.

/// Every opcode the parser decodes.
pub(crate) const OPCODES: &[&str] = &[
    "ld",
    "tld",
    "suld",
    "cold",
    "ldc",
    "st",
    "sust",
    "atom",
    "red",
    "suatom",
    "sured",
    "fence",
    "membar",
    "bar",
    "barrier",
    "setp",
    "selp",
    "beq",
    "bne",
    "blt",
    "bgt",
    "ble",
    "bge",
    "goto",
    "bra",
    "nop",
    "mov",
    "cvta",
    "cvt",
    "not",
    "neg",
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "and",
    "or",
    "xor",
    "shl",
    "shr",
    "min",
    "max",
    "popc",
    "clz",
    "brev",
    "bfind",
    "bfe",
    "bfi",
    "fns",
    "cnot",
    "prmt",
    "lop3",
    "shf",
    "shfl",
    "vote",
    "match",
    "redux",
    "elect",
    "cp",
    "mbarrier",
    "mapa",
    "getctarank",
    "griddepcontrol",
];

/// Qualifiers some instruction accepts.
pub(crate) const QUALIFIERS: &[&str] = &[
    "weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile", "mmio", "cta", "cluster", "gpu", "sys", "gl",
    "global", "shared", "local", "param", "const", "gen", "nc", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64",
    "s8", "s16", "s32", "s64", "f16", "f32", "f64", "pred", "add", "inc", "dec", "exch", "cas", "and", "or", "xor",
    "min", "max", "sub", "sync", "arrive", "wait", "red", "popc", "aligned", "proxy", "alias", "texture", "surface",
    "constant", "generic", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "uni", "wide", "to", "shiftamt",
    "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", "l", "r", "clamp", "wrap",
];

/// Edit distance between two short words.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest known name within distance 2 (1 for words of up to 3
/// letters), first in `known` on ties; none for an exact match.
pub(crate) fn closest(word: &str, known: &[&'static str]) -> Option<&'static str> {
    if known.contains(&word) {
        return None;
    }
    let limit = if word.chars().count() <= 3 { 1 } else { 2 };
    known.iter().map(|k| (distance(word, k), *k)).filter(|(d, _)| *d <= limit).min_by_key(|(d, _)| *d).map(|(_, k)| k)
}

/// `` (did you mean `x`?)`` or nothing.
pub(crate) fn hint(word: &str, known: &[&'static str], prefix: &str) -> String {
    match closest(word, known) {
        Some(k) => format!(" (did you mean `{}{}`?)", prefix, k),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(distance("lod", "ld"), 1);
        assert_eq!(distance("relaxd", "relaxed"), 1);
        assert_eq!(distance("acqrel", "acq_rel"), 1);
        assert_eq!(closest("lod", OPCODES), Some("ld"));
        assert_eq!(closest("fense", OPCODES), Some("fence"));
        assert_eq!(closest("relaxd", QUALIFIERS), Some("relaxed"));
        assert_eq!(closest("ld", OPCODES), None);
        assert_eq!(closest("zzzzzz", OPCODES), None);
    }
}
