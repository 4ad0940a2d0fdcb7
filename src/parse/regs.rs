//! Registers named by the condition, the filter and `locations` must be known
//! to their thread: written by one of its instructions or set in the init
//! block. herd would show such a register as 0 in every final state, which
//! silently turns a misspelt name (`P1:r0` for `%r0`) into a wrong verdict.

use crate::ast::{InitItem, Instr, Observable, Prop, Span, Term};
use crate::error::{Error, Result};
use std::collections::BTreeSet;

/// The registers thread `t` writes or has initialised.
fn known(t: usize, init: &[InitItem], code: &[Instr]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for i in init {
        match i {
            InitItem::Register { thread, reg, .. } | InitItem::RegisterAddress { thread, reg, .. } if *thread == t => {
                out.insert(reg.clone());
            }
            _ => {}
        }
    }
    for ins in code {
        out.extend(ins.kind.register_effects().1.into_iter().map(str::to_string));
    }
    out
}

/// Levenshtein distance, for the "did you mean" suggestion.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The known register closest to `reg`: the same name with or without `%`
/// first, otherwise one at most two edits away.
fn nearest<'a>(reg: &str, known: &'a BTreeSet<String>) -> Option<&'a String> {
    let bare = reg.trim_start_matches('%');
    if let Some(k) = known.iter().find(|k| k.trim_start_matches('%') == bare) {
        return Some(k);
    }
    known.iter().map(|k| (distance(reg, k), k)).filter(|(d, _)| *d <= 2).min_by_key(|(d, _)| *d).map(|(_, k)| k)
}

fn check_one(thread: usize, reg: &str, span: Span, init: &[InitItem], code: &[Vec<Instr>]) -> Result<()> {
    let Some(tcode) = code.get(thread) else {
        return Ok(());
    };
    let known = known(thread, init, tcode);
    if known.contains(reg) {
        return Ok(());
    }
    let hint = match nearest(reg, &known) {
        Some(k) => format!("; did you mean P{}:{}?", thread, k),
        None => String::new(),
    };
    Err(Error::input(
        format!("register `{}` is never written by thread P{} nor initialised{}", reg, thread, hint),
        span,
    ))
}

fn walk(p: &Prop, init: &[InitItem], code: &[Vec<Instr>]) -> Result<()> {
    match p {
        Prop::True | Prop::False => Ok(()),
        Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
            for t in [a, b] {
                if let Term::Obs(Observable::Reg { thread, reg }, span) = t {
                    check_one(*thread, reg, *span, init, code)?;
                }
            }
            Ok(())
        }
        Prop::Not(a) => walk(a, init, code),
        Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
            walk(a, init, code)?;
            walk(b, init, code)
        }
    }
}

/// `%r0` for a condition's `r0` in a thread that has `%r0` and no `r0`
/// (D252): listings write `%r0` as `1:r0`, and a reader may copy that back.
fn with_percent(thread: usize, reg: &mut String, init: &[InitItem], code: &[Vec<Instr>]) {
    if reg.starts_with('%') {
        return;
    }
    let Some(tcode) = code.get(thread) else { return };
    let known = known(thread, init, tcode);
    let percent = format!("%{}", reg);
    if !known.contains(reg.as_str()) && known.contains(&percent) {
        *reg = percent;
    }
}

fn resolve_prop(p: &mut Prop, init: &[InitItem], code: &[Vec<Instr>]) {
    match p {
        Prop::True | Prop::False => {}
        Prop::Eq(a, b) | Prop::Ne(a, b) | Prop::Lt(a, b) | Prop::Le(a, b) => {
            for t in [a, b] {
                if let Term::Obs(Observable::Reg { thread, reg }, _) = t {
                    with_percent(*thread, reg, init, code);
                }
            }
        }
        Prop::Not(a) => resolve_prop(a, init, code),
        Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
            resolve_prop(a, init, code);
            resolve_prop(b, init, code);
        }
    }
}

/// Name `%r0` wherever `locations`, the filter or the condition say `r0` of
/// a thread that has `%r0` and no `r0` (D252).
pub(crate) fn resolve_percent(
    locations: &mut [(Observable, Span)],
    props: &mut [&mut Prop],
    init: &[InitItem],
    code: &[Vec<Instr>],
) {
    for (o, _) in locations.iter_mut() {
        if let Observable::Reg { thread, reg } = o {
            with_percent(*thread, reg, init, code);
        }
    }
    for p in props.iter_mut() {
        resolve_prop(p, init, code);
    }
}

/// Check `locations` (with their spans), the filter and the condition.
pub(crate) fn check_observed(
    locations: &[(Observable, Span)],
    props: &[&Prop],
    init: &[InitItem],
    code: &[Vec<Instr>],
) -> Result<()> {
    for (o, span) in locations {
        if let Observable::Reg { thread, reg } = o {
            check_one(*thread, reg, *span, init, code)?;
        }
    }
    for p in props {
        walk(p, init, code)?;
    }
    Ok(())
}
