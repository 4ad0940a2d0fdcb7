//! herd7's log format: the test's kind from its quantifier, final states and
//! the condition written as herd writes them (`1:r0=0;`, `x=1;`), and the
//! order of herd's lines. See the README, "Output".

use crate::ast::{Observable, Prop, Quantifier, Term};
use crate::check::TestResult;
use crate::program::Program;

/// herd's kind of a test, from its condition alone: `exists` is `Allowed`,
/// `~exists` is `Forbidden`, `forall` is `Required`, whatever the result.
pub fn kind(p: &Program) -> &'static str {
    match p.quantifier {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

/// An observable as herd writes it: `1:r0` (thread number without `P`), `x`.
pub fn observable(o: &Observable) -> String {
    match o {
        Observable::Reg { thread, reg } => format!("{}:{}", thread, reg),
        Observable::Loc(l) => l.clone(),
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
pub fn state_lines(r: &TestResult) -> Vec<String> {
    let p = &r.program;
    let cols = column_order(p);
    let mut rows: Vec<Vec<i64>> = r.outcome.states.keys().map(|s| cols.iter().map(|&c| s.get(c).copied().unwrap_or(0)).collect()).collect();
    rows.sort();
    rows.iter()
        .map(|row| {
            let cells: Vec<String> = cols.iter().zip(row).map(|(&c, v)| format!("{}={};", observable_of(p, &p.observables[c]), v)).collect();
            cells.join(" ")
        })
        .collect()
}

/// An observable as herd writes it for this test: C tests bracket locations (`[x]`).
pub fn observable_of(p: &Program, o: &Observable) -> String {
    match o {
        Observable::Loc(l) if p.c11.is_some() => format!("[{}]", l),
        _ => observable(o),
    }
}

/// The condition as herd prints it: `exists (1:r0=1 /\ 1:r1=0)`.
pub fn condition(p: &Program) -> String {
    let q = match p.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    format!("{} ({})", q, prop(p, &p.condition, 0))
}

/// Binding strength: `=>` 1, `\/` 2, `/\` 3, atoms and `~` 4. A child weaker
/// than its parent's operator is parenthesised; `~` always parenthesises.
fn prop(p: &Program, x: &Prop, outer: u8) -> String {
    let (text, level) = match x {
        Prop::True => ("true".to_string(), 4),
        Prop::False => ("false".to_string(), 4),
        Prop::Eq(a, b) => (format!("{}={}", term(p, a), term(p, b)), 4),
        Prop::Ne(a, b) => (format!("~({}={})", term(p, a), term(p, b)), 4),
        // `1<0:r0` was written `0:r0>1`: show it that way round.
        Prop::Lt(a @ Term::Const(_), b @ Term::Obs(..)) => (format!("{}>{}", term(p, b), term(p, a)), 4),
        Prop::Le(a @ Term::Const(_), b @ Term::Obs(..)) => (format!("{}>={}", term(p, b), term(p, a)), 4),
        Prop::Lt(a, b) => (format!("{}<{}", term(p, a), term(p, b)), 4),
        Prop::Le(a, b) => (format!("{}<={}", term(p, a), term(p, b)), 4),
        Prop::Not(a) if matches!(**a, Prop::True | Prop::False) => (format!("~{}", prop(p, a, 0)), 4),
        Prop::Not(a) => (format!("~({})", prop(p, a, 0)), 4),
        Prop::And(a, b) => (format!("{} /\\ {}", prop(p, a, 3), prop(p, b, 3)), 3),
        Prop::Or(a, b) => (format!("{} \\/ {}", prop(p, a, 2), prop(p, b, 2)), 2),
        // `=>` nests to the right: a left operand that is itself `=>` needs parentheses.
        Prop::Implies(a, b) => (format!("{} => {}", prop(p, a, 2), prop(p, b, 1)), 1),
    };
    if level < outer {
        format!("({})", text)
    } else {
        text
    }
}

fn term(p: &Program, t: &Term) -> String {
    match t {
        Term::Const(c) => c.to_string(),
        Term::Obs(o, _) => observable_of(p, o),
    }
}
