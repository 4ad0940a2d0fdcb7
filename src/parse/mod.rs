//! Litmus text -> AST (grammar in `grammar/litmus.pest`).
//!
//! Stages: a lexical pre-scan (`text::prescan`: comments, strings, control
//! characters, parenthesis depth), the pest parse, then this walk over the parse
//! tree: header, init block, thread headers, instruction rows (decoded per
//! thread in `instr`, `mem`, `sync`), and `cond` for locations, filter and condition.

pub(crate) mod alu;
mod bits;
mod compat;
pub(crate) mod cond;
mod copy;
pub(crate) mod grammar;
mod harness;
pub(crate) mod instr;
mod launch;
mod mem;
pub(crate) mod pest_err;
pub(crate) mod regs;
pub(crate) mod suggest;
mod sync;
pub(crate) mod text;
mod vector;
mod warp;

use crate::ast::{Condition, InitItem, Instr, InstrKind, Litmus, Prop, Proxy, Quantifier, Span, ThreadHeader};
use crate::error::{Error, Result};
use cond::{thread_index, CondBuilder};
use grammar::{LitmusParser, Rule};
use instr::{Names, RawInstr};
use pest::iterators::Pair;
use pest::Parser;
use std::collections::HashSet;
use text::{parse_int, Src};

/// Parse a whole litmus file.
pub fn parse_litmus(source: &str) -> Result<Litmus> {
    let src = Src::new(source);
    text::prescan(&src)?;
    let mut pairs = LitmusParser::parse(Rule::file, source).map_err(|e| pest_err::convert(e, &src))?;
    match pairs.next() {
        Some(file) => build(file, &src),
        None => Err(Error::internal("the parser returned no parse tree")),
    }
}

/// One item of a cell before decoding: a label or an instruction.
enum Item {
    Label { name: String, span: Span, text: String },
    Instr(RawInstr),
}

/// One instruction row: its cells and where it ends (its `;`).
struct Row {
    cells: Vec<Vec<Item>>,
    cell_spans: Vec<Span>,
    end: Span,
}

/// The top-level parts of the file, in the order the grammar fixes.
#[derive(Default)]
struct Parts<'i> {
    arch: String,
    name: String,
    docs: Vec<String>,
    init: Option<Pair<'i, Rule>>,
    modules: Vec<crate::ast::ModuleRef>,
    threads: Vec<ThreadHeader>,
    rows: Vec<Row>,
    locations: Option<Pair<'i, Rule>>,
    filter: Option<Pair<'i, Rule>>,
    condition: Option<Pair<'i, Rule>>,
}

fn build(file: Pair<Rule>, src: &Src) -> Result<Litmus> {
    let mut parts = Parts::default();
    for p in file.into_inner() {
        match p.as_rule() {
            Rule::arch => parts.arch = p.as_str().to_string(),
            Rule::test_name => parts.name = p.as_str().to_string(),
            Rule::docs => parts.docs = docs(p),
            Rule::init => parts.init = Some(p),
            Rule::ptx_load => parts.modules.push(harness::module_ref(p, src)),
            Rule::threads => parts.threads = thread_headers(p, src)?,
            Rule::row => parts.rows.push(row(p, src)?),
            Rule::locations => parts.locations = Some(p),
            Rule::filter => parts.filter = Some(p),
            Rule::condition => parts.condition = Some(p),
            _ => {}
        }
    }
    let nthreads = parts.threads.len();
    let init = match parts.init {
        Some(p) => init_items(p, src, nthreads)?,
        None => Vec::new(),
    };
    let code = build_code(parts.rows, nthreads, &init)?;
    let cb = CondBuilder { src, threads: nthreads };
    let mut locations = match parts.locations {
        Some(p) => cb.locations(p)?,
        None => Vec::new(),
    };
    let mut filter = parts.filter.map(|p| cb.filter(p)).transpose()?;
    let mut condition: Condition = match parts.condition {
        Some(p) => cb.condition(p)?,
        // No condition (Dat3M): every final state is shown, no verdict.
        None => {
            let named: Vec<_> = locations.iter().map(|(o, _)| o.clone()).collect();
            let end = src.span(source_len(src), source_len(src));
            locations = compat::all_observables(&init, &code, &named).into_iter().map(|o| (o, end)).collect();
            Condition {
                quantifier: Quantifier::Exists,
                prop: Prop::True,
                text: String::new(),
                given: false,
                span: src.span(source_len(src), source_len(src)),
            }
        }
    };
    let mut resolved = vec![&mut condition.prop];
    resolved.extend(filter.as_mut());
    regs::resolve_percent(&mut locations, &mut resolved, &init, &code);
    let mut props = vec![&condition.prop];
    props.extend(filter.as_ref());
    regs::check_observed(&locations, &props, &init, &code)?;
    let (locations, locations_at) = locations.into_iter().unzip();
    Ok(Litmus {
        arch: parts.arch,
        name: parts.name,
        docs: parts.docs,
        init,
        modules: parts.modules,
        threads: parts.threads,
        code,
        locations,
        locations_at,
        filter,
        condition,
        c11: None,
    })
}

/// Every observable of a test without a condition (shared with the C reader).
pub(crate) fn compat_all_observables(
    init: &[InitItem],
    code: &[Vec<Instr>],
    named: &[crate::ast::Observable],
) -> Vec<crate::ast::Observable> {
    compat::all_observables(init, code, named)
}

fn source_len(src: &Src) -> usize {
    src.text.len()
}

/// Doc strings without their quotes; strings joined by words form one doc.
fn docs(pair: Pair<Rule>) -> Vec<String> {
    let whole = pair.as_str();
    let base = pair.as_span().start();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut joined = false;
    for p in pair.into_inner() {
        let (s, e) = (p.as_span().start() - base, p.as_span().end() - base);
        match (p.as_rule(), groups.last_mut()) {
            (Rule::doc_word, _) => joined = true,
            (Rule::doc, Some(last)) if joined => last.1 = e,
            (Rule::doc, _) => groups.push((s, e)),
            _ => {}
        }
        if p.as_rule() == Rule::doc {
            joined = false;
        }
    }
    groups.into_iter().map(|(s, e)| whole.get(s + 1..e.saturating_sub(1)).unwrap_or("").to_string()).collect()
}

// ---- init block ---------------------------------------------------------

fn init_items(pair: Pair<Rule>, src: &Src, threads: usize) -> Result<Vec<InitItem>> {
    let mut items = Vec::new();
    let mut seen: HashSet<(Option<usize>, String)> = HashSet::new();
    let mut copies = Vec::new();
    for p in pair.into_inner().filter(|p| p.as_rule() == Rule::init_item) {
        let (item, copy) = init_item(p, src, threads)?;
        if let Some(c) = copy {
            copies.push((items.len(), c));
        }
        let (key, span) = match &item {
            InitItem::Location { name, span, .. }
            | InitItem::LocationAddress { name, span, .. }
            | InitItem::Alias { name, span, .. }
            | InitItem::Array { name, span, .. } => ((None, name.clone()), *span),
            InitItem::Element { name, index, span, .. } => ((None, format!("{}[{}]", name, index)), *span),
            InitItem::Register { thread, reg, span, .. } | InitItem::RegisterAddress { thread, reg, span, .. } => {
                ((Some(*thread), reg.clone()), *span)
            }
            InitItem::Var(d) => ((None, d.name.clone()), d.span),
        };
        if !seen.insert(key.clone()) {
            let what = match key.0 {
                Some(t) => format!("P{}:{}", t, key.1),
                None => key.1,
            };
            return Err(Error::input(format!("`{}` is initialised twice", what), span));
        }
        items.push(item);
    }
    compat::resolve_copies(&mut items, &copies)?;
    Ok(items)
}

/// One init item; for `x = y` (Dat3M: y's initial value) also the source name,
/// resolved once the whole block is read.
fn init_item(pair: Pair<Rule>, src: &Src, threads: usize) -> Result<(InitItem, Option<(String, Span)>)> {
    let span = src.pair_span(&pair);
    let Some(p) = pair.into_inner().next() else {
        return Err(Error::internal("empty init item in the parse tree"));
    };
    let rule = p.as_rule();
    let (mut names, mut thread, mut reg, mut value, mut proxy) = (Vec::new(), 0, String::new(), None, Proxy::Generic);
    let (mut address_of, mut copy) = (None, None);
    for q in p.into_inner() {
        let inner = || {
            let mut it = q.clone().into_inner();
            it.find(|x| x.as_rule() == Rule::ident).map_or_else(String::new, |x| x.as_str().to_string())
        };
        match q.as_rule() {
            Rule::loc_address => address_of = Some(inner()),
            Rule::loc_copy => copy = Some((inner(), src.pair_span(&q))),
            Rule::ident | Rule::type_word => names.push(q.as_str().to_string()),
            Rule::nat => value = Some(parse_int(q.as_str(), src.pair_span(&q))?),
            Rule::elem_ref => {
                for x in q.clone().into_inner() {
                    names.push(x.as_str().to_string());
                }
            }
            Rule::thread_ref => thread = thread_index(q.as_str(), src.pair_span(&q), threads)?,
            Rule::reg_token => reg = q.as_str().to_string(),
            Rule::number => value = Some(parse_int(q.as_str(), src.pair_span(&q))?),
            Rule::proxy_kind => proxy = proxy_kind(q.as_str()),
            _ => {}
        }
    }
    if rule == Rule::array_decl {
        return Ok((harness::array_decl(&names, value, span)?, None));
    }
    if rule == Rule::elem_init {
        return Ok((harness::element_init(&names, value, span)?, None));
    }
    let mut names = names.into_iter();
    let first = names.next().unwrap_or_default();
    let item = match (rule, value) {
        (Rule::alias_decl, _) => InitItem::Alias { name: first, proxy, target: names.next().unwrap_or_default(), span },
        (Rule::reg_init, Some(value)) => InitItem::Register { thread, reg, value, span },
        (Rule::reg_init, None) => InitItem::RegisterAddress { thread, reg, location: first, span },
        _ => match address_of {
            Some(target) => InitItem::LocationAddress { name: first, target, span },
            None => InitItem::Location { name: first, value: value.unwrap_or(0), span },
        },
    };
    Ok((item, copy))
}

fn proxy_kind(s: &str) -> Proxy {
    match s {
        "texture" => Proxy::Texture,
        "surface" => Proxy::Surface,
        "constant" => Proxy::Constant,
        _ => Proxy::Generic,
    }
}

// ---- thread headers -----------------------------------------------------

/// `P0@cta 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;`, or bare `P0 | P1 ;` (cta 0, gpu 0).
fn thread_headers(pair: Pair<Rule>, src: &Src) -> Result<Vec<ThreadHeader>> {
    let (mut out, mut cta_given) = (Vec::new(), Vec::new());
    for (i, head) in pair.into_inner().filter(|p| p.as_rule() == Rule::thread_head).enumerate() {
        let (h, given) = thread_header(i, head, src)?;
        out.push(h);
        cta_given.push(given);
    }
    launch::check(&out, &cta_given)?;
    Ok(out)
}

/// One header, and whether it names its `cta`.
fn thread_header(index: usize, pair: Pair<Rule>, src: &Src) -> Result<(ThreadHeader, bool)> {
    let span = src.pair_span(&pair);
    let mut h = ThreadHeader { id: index, cta: 0, cluster: None, gpu: 0, tid: None, span };
    let (mut cta, mut gpu) = (None, None);
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::thread_id if p.as_str().trim_start_matches('P') != index.to_string() => {
                let msg = format!("thread header {} is out of order: expected P{}", p.as_str(), index);
                return Err(Error::input(msg, src.pair_span(&p)));
            }
            Rule::place_item => {
                let (kw, n, kw_span) = place_item(p, src)?;
                let slot = match kw.as_str() {
                    "tid" => &mut h.tid,
                    "cta" => &mut cta,
                    "gpu" => &mut gpu,
                    _ => &mut h.cluster,
                };
                if slot.replace(n).is_some() {
                    return Err(Error::input(format!("`{}` is given twice in the header of P{}", kw, index), kw_span));
                }
            }
            _ => {}
        }
    }
    h.cta = cta.unwrap_or(0);
    h.gpu = gpu.unwrap_or(0);
    Ok((h, cta.is_some()))
}

/// `cta 3`: keyword, number, keyword span.
fn place_item(pair: Pair<Rule>, src: &Src) -> Result<(String, u32, Span)> {
    let (mut kw, mut n, mut kw_span) = (String::new(), 0, src.pair_span(&pair));
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::place_kw => {
                kw = p.as_str().to_string();
                kw_span = src.pair_span(&p);
            }
            Rule::nat => {
                n = p.as_str().parse::<u32>().map_err(|_| {
                    Error::input(format!("{} number `{}` does not fit in 32 bits", kw, p.as_str()), src.pair_span(&p))
                })?;
            }
            _ => {}
        }
    }
    Ok((kw, n, kw_span))
}

// ---- instruction rows ---------------------------------------------------

fn row(pair: Pair<Rule>, src: &Src) -> Result<Row> {
    let span = src.pair_span(&pair);
    let mut r = Row { cells: Vec::new(), cell_spans: Vec::new(), end: src.span(span.end, span.end) };
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::cell => {
                r.cell_spans.push(src.pair_span(&p));
                r.cells.push(cell(p, src)?);
            }
            Rule::semi => r.end = src.pair_span(&p),
            _ => {}
        }
    }
    Ok(r)
}

/// Labels (`LC00:`) and at most one instruction; a label may precede it in the cell.
fn cell(pair: Pair<Rule>, src: &Src) -> Result<Vec<Item>> {
    let mut items = Vec::new();
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::label_def => {
                let text = p.as_str().to_string();
                let name = text.trim_end_matches(':').trim().to_string();
                items.push(Item::Label { name, span: src.pair_span(&p), text });
            }
            Rule::instr => items.push(Item::Instr(RawInstr::from_pair(p, src)?)),
            _ => {}
        }
    }
    Ok(items)
}

/// Split rows into thread columns, then decode each column with its register names.
fn build_code(rows: Vec<Row>, threads: usize, init: &[InitItem]) -> Result<Vec<Vec<Instr>>> {
    let mut columns: Vec<Vec<Item>> = (0..threads).map(|_| Vec::new()).collect();
    for (r, row) in rows.into_iter().enumerate() {
        let n = row.cells.len();
        if n != threads {
            let span = row.cell_spans.get(threads).copied().unwrap_or(row.end);
            let cells = if n == 1 { "cell" } else { "cells" };
            let ths = if threads == 1 { "thread" } else { "threads" };
            let msg = format!("row {} has {} {} but the header declares {} {}", r + 1, n, cells, threads, ths);
            return Err(Error::input(msg, span));
        }
        for (col, cell) in columns.iter_mut().zip(row.cells) {
            col.extend(cell);
        }
    }
    let locs: HashSet<String> = init
        .iter()
        .filter_map(|i| match i {
            InitItem::Location { name, .. }
            | InitItem::LocationAddress { name, .. }
            | InitItem::Alias { name, .. }
            | InitItem::Array { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    let mut code = Vec::with_capacity(threads);
    for (t, items) in columns.into_iter().enumerate() {
        let regs = thread_registers(t, &items, init, &locs);
        let addr_regs: HashSet<String> = init
            .iter()
            .filter_map(|i| match i {
                InitItem::RegisterAddress { thread, reg, .. } if *thread == t => Some(reg.clone()),
                _ => None,
            })
            .collect();
        let names = Names { regs: &regs, locs: &locs, addr_regs: &addr_regs };
        let mut instrs = Vec::new();
        for i in items {
            instrs.extend(decode_item(i, &names)?);
        }
        code.push(instrs);
    }
    Ok(code)
}

/// Registers of thread `t` known by name: its init registers, and the
/// destinations of its instructions that are not declared locations.
fn thread_registers(t: usize, items: &[Item], init: &[InitItem], locs: &HashSet<String>) -> HashSet<String> {
    let mut regs: HashSet<String> = items
        .iter()
        .filter_map(|i| match i {
            Item::Instr(raw) => raw.written_name().filter(|n| !locs.contains(*n)).map(str::to_string),
            Item::Label { .. } => None,
        })
        .collect();
    for i in init {
        match i {
            InitItem::Register { thread, reg, .. } | InitItem::RegisterAddress { thread, reg, .. } if *thread == t => {
                regs.insert(reg.clone());
            }
            _ => {}
        }
    }
    regs
}

/// A special register in a litmus cell: `mov d, %clock` (or another timer)
/// is a timer read, as in a module (D81); any other special register is
/// refused, because a cell has no launch to take its value from and would
/// otherwise read it as an unwritten register, 0 (D190).
fn cell_special_register(raw: &RawInstr) -> Result<Option<InstrKind>> {
    use crate::ast::special;
    use instr::RawKind;
    if let [dst, src] = raw.operands.as_slice() {
        if let (RawKind::Name(d), RawKind::Name(t)) = (&dst.kind, &src.kind) {
            if let Some((timer, shift, bits)) = special::timer(t).filter(|_| raw.opcode == "mov") {
                return Ok(Some(InstrKind::Timer { dst: d.clone(), timer: timer.to_string(), shift, bits }));
            }
        }
    }
    let mut operands: Vec<&instr::RawOperand> = raw.operands.iter().collect();
    while let Some(op) = operands.pop() {
        let name = match &op.kind {
            RawKind::Name(n) | RawKind::Addr { base: n, .. } | RawKind::Not(n) => n,
            RawKind::Vector(ops) | RawKind::List(ops) => {
                operands.extend(ops);
                continue;
            }
            RawKind::Imm(_) | RawKind::Pair(..) => continue,
        };
        if special::is_special(name) {
            let why = format!(
                "`{name}` is a special register, which a litmus cell cannot read (only `mov` of a timer); \
                 read it in a function of a PTX module (`ptx \"...\"`), where the thread header fixes it"
            );
            return Err(Error::input(why, op.span));
        }
    }
    Ok(None)
}

/// A label, or the instruction(s) an item performs (a vector access is one
/// instruction per element, with the same source text).
fn decode_item(item: Item, names: &Names) -> Result<Vec<Instr>> {
    match item {
        Item::Label { name, span, text } => Ok(vec![Instr { kind: InstrKind::Label(name), span, text, origin: None }]),
        Item::Instr(raw) => Ok(cell_special_register(&raw)?
            .map_or_else(|| instr::decode_all(&raw, names), |timer| Ok(vec![timer]))?
            .into_iter()
            .map(|kind| Instr { kind, span: raw.span, text: raw.text.clone(), origin: None })
            .collect()),
    }
}
