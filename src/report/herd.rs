//! herd7's log format: the test's kind from its quantifier, final states and
//! the condition written as herd's log tools (`mcompare7`, `msum7`) read them,
//! and the order of herd's lines. See the README, "Reading the output", and
//! paper-notes/decisions.md D110–D112.

use crate::ast::{Observable, Prop, Quantifier, Term};
use crate::check::TestResult;
use crate::outcome::eval;
use crate::program::Program;
use std::collections::BTreeSet;

/// herd's kind of a test, from its condition alone: `exists` is `Allowed`,
/// `~exists` is `Forbidden`, `forall` is `Required`, whatever the result. A
/// test without a condition is herd's `forall (true)`: `Required`.
pub fn kind(p: &Program) -> &'static str {
    match (p.condition_given, p.quantifier) {
        (false, _) | (true, Quantifier::Forall) => "Required",
        (true, Quantifier::Exists) => "Allowed",
        (true, Quantifier::NotExists) => "Forbidden",
    }
}

/// herd's `Witnesses` counts: states that validate the condition as written
/// and states that do not. For `~exists p` that is the states *without* `p`,
/// the reverse of the `Observation` line, which always counts `p` first
/// (herd7 7.58 prints `Positive: 3 Negative: 0` beside `Never 0 3`; `msum7`
/// re-derives `Ok`/`No` from these counts, so they must be herd's).
pub fn witnesses(r: &TestResult) -> (usize, usize) {
    let (p, not_p) = (r.summary.positive, r.summary.negative);
    match (r.program.condition_given, r.program.quantifier) {
        (true, Quantifier::NotExists) => (not_p, p),
        _ => (p, not_p),
    }
}

/// Words herd's condition lexer takes as keywords (or `P0` as a thread), so a
/// register or location of that name cannot be written bare.
const HERD_WORDS: &[&str] = &[
    "NOP",
    "nop",
    "pac",
    "pacda",
    "pacdb",
    "pacia",
    "pacib",
    "true",
    "false",
    "observed",
    "Observed",
    "and",
    "not",
    "exists",
    "forall",
    "final",
    "with",
    "locations",
    "filter",
    "fault",
    "Fault",
    "tag",
    "TAG",
    "attrs",
    "Attrs",
    "oa",
    "pending",
    "active",
    "enabled",
    "priority",
    "affinity",
    "routing_mode",
    "handling_mode",
    "valid",
    "PTE",
    "TTD",
    "INTID",
    "intid",
    "PA",
    "parel1_t",
    "PAREL1_T",
    "SS",
    "SSCap",
    "gicarg",
    "GICARG",
];

/// Whether herd's log lexer reads `n` as a register or location name and its
/// condition lexer as a name: a letter, then letters, digits or `_`.
fn herd_reads(n: &str) -> bool {
    let mut cs = n.chars();
    let first_letter = cs.next().is_some_and(|c| c.is_ascii_alphabetic());
    let thread = n.len() > 1 && n.starts_with('P') && n[1..].chars().all(|c| c.is_ascii_digit());
    first_letter && cs.all(|c| c.is_ascii_alphanumeric() || c == '_') && !thread && !HERD_WORDS.contains(&n)
}

/// A name as a herd log spells it (D110). herd's lexer takes neither the `%`
/// of PTX registers nor `$` or a leading `_`; PTX identifiers never contain
/// `.`, which herd's names may, so `.` marks every rewritten name:
/// - a name herd reads is written as is: `r0`, `x`;
/// - `%` and a name herd reads: the name and `.pct`: `%r0` is `r0.pct`
///   (a register is written so only where its thread also has `r0`, D252;
///   elsewhere `register` drops the `%`);
/// - any other name: `x.` and the hexadecimal of its bytes: `$a` is `x.2461`.
///
/// Each form is told apart by its `.` (none, a final `.pct`, a leading `x.`
/// followed by hexadecimal digits only), so no two names share a spelling.
pub fn name(n: &str) -> String {
    if herd_reads(n) {
        return n.to_string();
    }
    match n.strip_prefix('%') {
        Some(bare) if herd_reads(bare) => format!("{}.pct", bare),
        _ => format!("x.{}", n.bytes().map(|b| format!("{:02x}", b)).collect::<String>()),
    }
}

/// Register `reg` of `thread` as herd writes it (D252): `%r0` is `r0`, herd's
/// own spelling of a PTX register, unless the thread also has a register
/// `r0`; then, and for names herd cannot read, `name`'s spelling.
fn register(p: &Program, thread: usize, reg: &str) -> String {
    match reg.strip_prefix('%') {
        Some(bare) if herd_reads(bare) && p.drops_percent(thread, reg) => bare.to_string(),
        _ => name(reg),
    }
}

/// An observable as herd writes it: `1:r0` (thread number without `P`), `x`,
/// an array cell `out[0]` (herd reads `NAME[N]`).
pub(crate) fn observable(p: &Program, o: &Observable) -> String {
    match o {
        Observable::Reg { thread, reg } => format!("{}:{}", thread, register(p, *thread, reg)),
        Observable::Loc(l) => match l.split_once('[') {
            Some((base, cell)) => format!("{}[{}", name(base), cell),
            None => name(l),
        },
    }
}

/// An observable as herd writes it in this test: a C test's locations are
/// bracketed (`[x]`), as herd writes them for C.
pub(crate) fn observable_in(p: &Program, o: &Observable) -> String {
    match o {
        Observable::Loc(_) if p.c11.is_some() => format!("[{}]", observable(p, o)),
        _ => observable(p, o),
    }
}

/// The order herd shows bindings in: registers by thread then name, then
/// locations by name. Returns indices into `p.observables`.
fn column_order(p: &Program) -> Vec<usize> {
    let mut cols: Vec<usize> = (0..p.observables.len()).collect();
    cols.sort_by(|&a, &b| key(&p.observables[a]).cmp(&key(&p.observables[b])));
    cols
}

fn key(o: &Observable) -> (u8, usize, &str) {
    match o {
        Observable::Reg { thread, reg } => (0, *thread, reg.as_str()),
        Observable::Loc(l) => (1, 0, l.as_str()),
    }
}

/// The final-state lines, `1:r0=0; 1:r1=1; x=1;`, sorted as herd sorts them.
pub(crate) fn state_lines(r: &TestResult) -> Vec<String> {
    let p = &r.program;
    let cols = column_order(p);
    let mut rows: Vec<Vec<i64>> =
        r.outcome.states.keys().map(|s| cols.iter().map(|&c| s.get(c).copied().unwrap_or(0)).collect()).collect();
    rows.sort();
    rows.iter()
        .map(|row| {
            let cells: Vec<String> =
                cols.iter().zip(row).map(|(&c, v)| format!("{}={};", observable_in(p, &p.observables[c]), v)).collect();
            cells.join(" ")
        })
        .collect()
}

/// The condition as herd's log tools read it: `exists (1:r0=1 /\ 1:r1=0)`; a
/// test without one is `forall (true)`. An atom herd's condition language
/// cannot say (D111) is written as the values of the listed final states that
/// satisfy it, and the condition as written follows in a herd comment:
/// `exists (0:r0=0) (* exists (0:r0<1) *)`.
pub fn condition(r: &TestResult) -> String {
    let p = &r.program;
    if !p.condition_given {
        return "forall (true)".to_string();
    }
    let q = match p.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    let states: Vec<&[i64]> = r.outcome.states.keys().map(|s| s.as_slice()).collect();
    let mut rewritten = false;
    let herd = prop(&p.condition, 0, &mut |a| {
        let (text, exact) = atom(p, a, &states);
        rewritten |= !exact;
        text
    });
    if rewritten {
        format!("{} ({}) (* {} ({}) *)", q, herd, q, prop(&p.condition, 0, &mut |a| as_written(p, a)))
    } else {
        format!("{} ({})", q, herd)
    }
}

/// Binding strength: `=>` 1, `\/` 2, `/\` 3, atoms and `~` 4. A child weaker
/// than its parent's operator is parenthesised; `~` always parenthesises.
/// `atom` writes the comparisons.
pub(crate) fn prop(x: &Prop, outer: u8, atom: &mut dyn FnMut(&Prop) -> String) -> String {
    let (text, level) = match x {
        Prop::True => ("true".to_string(), 4),
        Prop::False => ("false".to_string(), 4),
        Prop::Eq(..) | Prop::Ne(..) | Prop::Lt(..) | Prop::Le(..) => (atom(x), 4),
        Prop::Not(a) if matches!(**a, Prop::True | Prop::False) => (format!("~{}", prop(a, 0, atom)), 4),
        Prop::Not(a) => (format!("~({})", prop(a, 0, atom)), 4),
        Prop::And(a, b) => (format!("{} /\\ {}", prop(a, 3, atom), prop(b, 3, atom)), 3),
        Prop::Or(a, b) => (format!("{} \\/ {}", prop(a, 2, atom), prop(b, 2, atom)), 2),
        // `=>` nests to the right: a left operand that is itself `=>` needs parentheses.
        Prop::Implies(a, b) => (format!("{} => {}", prop(a, 2, atom), prop(b, 1, atom)), 1),
    };
    if level < outer {
        format!("({})", text)
    } else {
        text
    }
}

/// A comparison as written in the test (herd's spelling of names): `0:r0>=1`.
fn as_written(p: &Program, x: &Prop) -> String {
    let term = |t: &Term| term(p, t);
    match x {
        Prop::Eq(a, b) => format!("{}={}", term(a), term(b)),
        Prop::Ne(a, b) => format!("~({}={})", term(a), term(b)),
        // `1<0:r0` was written `0:r0>1`: show it that way round.
        Prop::Lt(a @ Term::Const(_), b @ Term::Obs(..)) => format!("{}>{}", term(b), term(a)),
        Prop::Le(a @ Term::Const(_), b @ Term::Obs(..)) => format!("{}>={}", term(b), term(a)),
        Prop::Lt(a, b) => format!("{}<{}", term(a), term(b)),
        Prop::Le(a, b) => format!("{}<={}", term(a), term(b)),
        _ => unreachable!("as_written is called on comparisons only"),
    }
}

/// A comparison as herd reads it, and whether that is the comparison itself
/// (true) or its extension over the listed final states (false). herd reads
/// `LOC=VALUE` and `~(LOC=VALUE)`; `LOC=LOC` it reads as "holds the address
/// of", and it has no `<` or `<=`.
fn atom(p: &Program, x: &Prop, states: &[&[i64]]) -> (String, bool) {
    let (a, b) = match x {
        Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => (a, b),
        _ => unreachable!("atom is called on comparisons only"),
    };
    match (x, a, b) {
        (Prop::Eq(..), Term::Obs(o, _), Term::Const(c)) | (Prop::Eq(..), Term::Const(c), Term::Obs(o, _)) => {
            (format!("{}={}", observable_in(p, o), c), true)
        }
        (Prop::Ne(..), Term::Obs(o, _), Term::Const(c)) | (Prop::Ne(..), Term::Const(c), Term::Obs(o, _)) => {
            (format!("~({}={})", observable_in(p, o), c), true)
        }
        _ => (extension(p, x, [a, b], states), false),
    }
}

/// `(o1=v1 /\ o2=v2 \/ ...)`: the values of the comparison's observables in
/// the listed final states that satisfy it (`false` when none does), or, when
/// shorter, `~(...)` of those that falsify it. Equal to the comparison on
/// every listed state, so herd's tools re-validate the listed outcome to the
/// same verdict.
fn extension(p: &Program, x: &Prop, terms: [&Term; 2], states: &[&[i64]]) -> String {
    let mut obs: Vec<&Observable> =
        terms.iter().filter_map(|t| if let Term::Obs(o, _) = t { Some(o) } else { None }).collect();
    obs.dedup();
    if obs.is_empty() {
        return if eval(p, x, &[]) { "true" } else { "false" }.to_string();
    }
    let cols: Vec<usize> = obs
        .iter()
        .map(|o| p.observables.iter().position(|y| y == *o).expect("a condition's observable is observed"))
        .collect();
    let (mut holds, mut fails) = (BTreeSet::new(), BTreeSet::new());
    for s in states {
        let row: Vec<i64> = cols.iter().map(|&c| s[c]).collect();
        if eval(p, x, s) {
            holds.insert(row)
        } else {
            fails.insert(row)
        };
    }
    let conj = |row: &Vec<i64>| {
        obs.iter().zip(row).map(|(o, v)| format!("{}={}", observable_in(p, o), v)).collect::<Vec<_>>().join(" /\\ ")
    };
    let any = |rows: &BTreeSet<Vec<i64>>| match rows.len() {
        0 => "false".to_string(),
        1 => rows.iter().map(conj).collect(),
        _ => format!(
            "({})",
            rows.iter()
                .map(|r| if obs.len() > 1 { format!("({})", conj(r)) } else { conj(r) })
                .collect::<Vec<_>>()
                .join(" \\/ ")
        ),
    };
    if fails.is_empty() && !holds.is_empty() {
        "true".to_string()
    } else if fails.len() < holds.len() {
        format!("~({})", any(&fails))
    } else {
        any(&holds)
    }
}

fn term(p: &Program, t: &Term) -> String {
    match t {
        Term::Const(c) => c.to_string(),
        Term::Obs(o, _) => observable(p, o),
    }
}

/// herd's `Hash=` line (D112): an MD5 digest of the test's normalised text, so
/// that `msum7` can add up runs of one test and tell apart two tests of one
/// name. Normalised: byte-order mark and `\r` dropped, each line trimmed, runs
/// of blanks made one space, empty lines dropped, and the first line (`PTX
/// NAME`) left out, so that renaming a test keeps its hash (as herd's does).
pub fn hash(source: &str) -> String {
    use md5::{Digest, Md5};
    let text = source.strip_prefix('\u{feff}').unwrap_or(source);
    let mut lines = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|l| !l.is_empty());
    let first = lines.next();
    let mut h = Md5::new();
    if first.as_deref().is_some_and(|f| !f.starts_with("PTX ")) {
        h.update(first.unwrap_or_default().as_bytes());
        h.update(b"\n");
    }
    for l in lines {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().map(|b| format!("{:02x}", b)).collect()
}
