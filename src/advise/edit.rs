//! Variants of a test as edited *source text*: the user's file with only the
//! changed instructions rewritten and inserted fences on new rows. The advisor
//! decides exactly the text it would write with `--out`, and every edit is
//! checked by parsing the result again (`verify`).

use super::menu::{scope_word, Level, SemO};
use super::sites::{Site, SiteKind};
use crate::ast::{Litmus, Span};
use crate::error::{Error, Result};

/// Quals replaced when an access gets new semantics and scope.
const SEM_SCOPE: &[&str] =
    &["weak", "relaxed", "acquire", "release", "acq_rel", "volatile", "cta", "cluster", "gpu", "sys"];

/// The instruction text of `site` at `level` (for gaps: the inserted fence).
pub(crate) fn instr_text(site: &Site, level: Level) -> String {
    match (site.kind, level) {
        (_, Level::Absent) => String::new(),
        (_, Level::Fence(s, sc)) => format!("fence.{}.{}", s.word(), scope_word(sc)),
        (_, Level::Access(s, sc)) => rewrite_access(&site.text, s, sc),
        (_, Level::ProxyFence(space)) => space.async_fence().to_string(),
        (_, Level::BulkWait { read }) => rewrite_bulk_wait(&site.text, read),
    }
}

/// `cp.async.bulk.wait_group.read 0` <-> `cp.async.bulk.wait_group 0`.
fn rewrite_bulk_wait(text: &str, read: bool) -> String {
    let plain = text.replacen("wait_group.read", "wait_group", 1);
    if read {
        plain.replacen("wait_group", "wait_group.read", 1)
    } else {
        plain
    }
}

/// `@p st.global.u32 [x], 1` -> `@p st.release.gpu.global.u32 [x], 1`.
fn rewrite_access(text: &str, s: SemO, sc: Option<crate::ast::Scope>) -> String {
    let (guard, rest) = match text.strip_prefix('@') {
        Some(_) => match text.find(char::is_whitespace) {
            Some(k) => (&text[..k], text[k..].trim_start()),
            None => ("", text),
        },
        None => ("", text),
    };
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (mnemonic, operands) = rest.split_at(end);
    let mut parts = mnemonic.split('.');
    let opcode = parts.next().unwrap_or("");
    let quals: Vec<&str> = parts.filter(|q| !SEM_SCOPE.contains(q)).collect();
    // Semantics and scope come right after the opcode (`st.release.gpu`), but
    // after the operation of an mbarrier (`mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64`).
    let at = if opcode == "mbarrier" {
        quals.iter().position(|q| q.starts_with("shared") || q.starts_with('b')).unwrap_or(quals.len())
    } else {
        0
    };
    let mut words: Vec<&str> = vec![opcode];
    words.extend(&quals[..at]);
    words.push(s.word());
    words.extend(sc.map(scope_word));
    words.extend(&quals[at..]);
    let m = words.join(".");
    let g = if guard.is_empty() { String::new() } else { format!("{} ", guard) };
    format!("{}{}{}", g, m, operands)
}

/// The cells of one inserted row: (thread column, instruction text).
type NewRow = Vec<(usize, String)>;

/// The source of the variant where each site is at `levels[k]`.
pub fn variant_source(source: &str, lit: &Litmus, sites: &[Site], levels: &[Level]) -> Result<String> {
    // (start, end, replacement), applied from the end so offsets stay valid.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // New rows by offset: a thread's thread fence and proxy fence inserted
    // after one instruction go on two rows, in site order.
    let mut rows: Vec<(usize, Vec<NewRow>)> = Vec::new();
    for (site, &l) in sites.iter().zip(levels) {
        if l == site.original {
            continue;
        }
        let span = lit.code[site.thread][site.index].span;
        if !site.kind.inserts() {
            edits.push((span.start, span.end, instr_text(site, l)));
            continue;
        }
        let at = line_end(source, span);
        let cell = (site.thread, instr_text(site, l));
        let group = match rows.iter_mut().position(|r| r.0 == at) {
            Some(k) => &mut rows[k].1,
            None => {
                rows.push((at, Vec::new()));
                &mut rows.last_mut().expect("just pushed").1
            }
        };
        match group.iter_mut().find(|row| row.iter().all(|c| c.0 != site.thread)) {
            Some(row) => row.push(cell),
            None => group.push(vec![cell]),
        }
    }
    for (at, group) in rows {
        let text: String = group.iter().map(|cells| new_row(source, at, lit.threads.len(), cells)).collect();
        edits.push((at, at, text));
    }
    edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut out = source.to_string();
    for (s, e, r) in edits {
        out.replace_range(s..e, &r);
    }
    if let Some(h) = lit.threads.first() {
        // The header comes before every edit: its offset is the same in `out`.
        let table = source[..h.span.start].rfind('\n').map_or(0, |k| k + 1);
        out = align_table(&out, table, lit.threads.len());
    }
    Ok(out)
}

/// Re-align the thread table that starts at byte `at`: the header line and
/// the rows after it, each `columns` cells separated by `|` and ended by `;`.
/// Every column is padded to its widest cell, so a changed instruction longer
/// or shorter than the one it replaces keeps the `|`s in line. A table with a
/// line of another shape (a comment, a cell with `|` in it) is left as is.
fn align_table(text: &str, at: usize, columns: usize) -> String {
    let rest = &text[at..];
    let mut rows: Vec<Vec<&str>> = Vec::new();
    let mut end = at;
    for line in rest.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']).trim_end();
        let Some(cells) = body.strip_suffix(';') else { break };
        let cells: Vec<&str> = cells.split('|').map(str::trim).collect();
        if cells.len() != columns || cells.iter().any(|c| c.contains("//") || c.contains("(*")) {
            break;
        }
        rows.push(cells);
        end += line.len();
    }
    if rows.len() < 2 {
        return text.to_string();
    }
    let widths: Vec<usize> =
        (0..columns).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut table = String::new();
    for r in &rows {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(cell, &w)| format!(" {:<w$} ", cell, w = w)).collect();
        table.push_str(&cells.join("|"));
        table.push_str(";\n");
    }
    let newline_at_end = text[at..end].ends_with('\n');
    if !newline_at_end {
        table.pop();
    }
    format!("{}{}{}", &text[..at], table, &text[end..])
}

/// Byte offset just after the newline ending the line of `span`'s end.
fn line_end(source: &str, span: Span) -> usize {
    match source[span.end..].find('\n') {
        Some(k) => span.end + k + 1,
        None => source.len(),
    }
}

/// A row with `cells` (column, text) filled and the other columns empty, laid
/// out like the row before it when that row has one cell per column.
fn new_row(source: &str, at: usize, columns: usize, cells: &[(usize, String)]) -> String {
    let start = source[..at.saturating_sub(1)].rfind('\n').map_or(0, |k| k + 1);
    let prev = source[start..at].trim_end_matches(['\n', '\r']);
    let widths: Vec<usize> = prev.split('|').map(|c| c.chars().count()).collect();
    let same_shape = widths.len() == columns;
    let mut parts = Vec::new();
    for c in 0..columns {
        let text = cells.iter().find(|x| x.0 == c).map_or("", |x| x.1.as_str());
        let cell = format!(" {}", text);
        let w = if same_shape && c + 1 < columns { widths.get(c).copied().unwrap_or(0) } else { 0 };
        parts.push(format!("{:<w$}", cell, w = w));
    }
    let mut row = parts.join("|");
    row = row.trim_end().to_string();
    let nl = if at == source.len() && !source.ends_with('\n') { "\n" } else { "" };
    format!("{}{} ;\n", nl, row)
}

/// Parse the variant and check that it is the original with exactly the
/// intended instructions changed, inserted or removed.
pub fn verify(variant: &str, lit: &Litmus, sites: &[Site], levels: &[Level]) -> Result<Litmus> {
    let got = crate::parse::parse_litmus(variant)
        .map_err(|e| Error::internal(format!("an edited test does not parse ({}): please report", e.message)))?;
    for (t, code) in lit.code.iter().enumerate() {
        let mut want: Vec<String> = Vec::new();
        for (i, ins) in code.iter().enumerate() {
            let mut text = ins.text.clone();
            let mut after = Vec::new();
            for (site, &l) in sites.iter().zip(levels).filter(|(s, _)| s.thread == t && s.index == i) {
                match site.kind {
                    k if k.inserts() && l != Level::Absent => after.push(instr_text(site, l)),
                    k if k.inserts() => {}
                    _ if l != site.original => text = instr_text(site, l),
                    _ => {}
                }
            }
            if !text.is_empty() {
                want.push(text);
            }
            want.extend(after);
        }
        let have: Vec<String> = got
            .code
            .get(t)
            .map(|c| c.iter().map(|x| x.text.trim_end_matches(';').trim().to_string()).collect())
            .unwrap_or_default();
        if have != want {
            return Err(Error::internal(format!(
                "editing thread P{} gave {:?}, expected {:?}: please report",
                t, have, want
            )));
        }
    }
    Ok(got)
}

/// The variant as an AST, without printing and parsing it again: what the
/// search decides (the text of an answer is parsed and confirmed by `check`,
/// and a test checks that both routes build the same program).
pub fn variant_ast(lit: &Litmus, sites: &[Site], levels: &[Level]) -> Litmus {
    let mut out = lit.clone();
    // From the last site back: a gap (inserting after `index`) comes after its
    // instruction's own site in `sites`, so it is applied first, and no edit
    // moves an index still to be used.
    for (site, &l) in sites.iter().zip(levels).rev() {
        if l == site.original {
            continue;
        }
        let code = &mut out.code[site.thread];
        match (site.kind, l) {
            (SiteKind::Gap | SiteKind::ProxyGap { .. }, Level::Fence(..) | Level::ProxyFence(_)) => {
                let prev = &code[site.index];
                let ins =
                    crate::ast::Instr { kind: level_kind(l), span: prev.span, text: instr_text(site, l), origin: None };
                code.insert(site.index + 1, ins);
            }
            (_, Level::Absent) => {
                code.remove(site.index);
            }
            (_, Level::Fence(..) | Level::ProxyFence(_)) => {
                code[site.index].kind = level_kind(l);
                code[site.index].text = instr_text(site, l);
            }
            (_, Level::BulkWait { read: new }) => {
                if let crate::ast::InstrKind::Async(crate::ast::AsyncInstr::Wait { read, .. }) =
                    &mut code[site.index].kind
                {
                    *read = new;
                }
                code[site.index].text = instr_text(site, l);
            }
            (_, Level::Access(s, sc)) => {
                set_access(&mut code[site.index].kind, s, sc);
                code[site.index].text = instr_text(site, l);
            }
        }
    }
    out
}

/// The instruction of a fence level (a thread fence or an async proxy fence).
fn level_kind(l: Level) -> crate::ast::InstrKind {
    use super::menu::FenceSemO as F;
    use crate::ast::{FenceSem, InstrKind, Proxy};
    match l {
        Level::ProxyFence(space) => InstrKind::ProxyFence { proxy: Proxy::Async, space },
        Level::Fence(s, scope) => {
            let sem = match s {
                F::Acquire => FenceSem::Acquire,
                F::Release => FenceSem::Release,
                F::AcqRel => FenceSem::AcqRel,
                F::Sc => FenceSem::Sc,
            };
            InstrKind::Fence { sem, scope }
        }
        _ => unreachable!("level_kind is called on fence levels only"),
    }
}

fn set_access(k: &mut crate::ast::InstrKind, s: SemO, sc: Option<crate::ast::Scope>) {
    use crate::ast::{InstrKind, Sem};
    let new = match s {
        SemO::Weak => Sem::Weak,
        SemO::Relaxed => Sem::Relaxed,
        SemO::Acquire => Sem::Acquire,
        SemO::Release => Sem::Release,
        SemO::AcqRel => Sem::AcqRel,
    };
    match k {
        InstrKind::Load { sem, scope, .. }
        | InstrKind::Store { sem, scope, .. }
        | InstrKind::Atomic { sem, scope, .. }
        | InstrKind::Mbarrier { sem, scope, .. } => {
            *sem = new;
            *scope = sc;
        }
        _ => {}
    }
}
