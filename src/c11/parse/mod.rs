//! C litmus text -> the litmus AST plus the C orders ([`super::Orders`]).
//!
//! Grammar: `grammar/c.pest` (one parser with `grammar/litmus.pest`, whose
//! tokens and condition rules it shares). Each statement becomes the PTX AST
//! instructions that compute it: expressions into registers (`%c0`, `%c1`,
//! ...: names no C identifier has), accesses into `ld`/`st`/`atom`, fences
//! into `fence`, `if` into branches (control dependencies), `*(x + e)` into
//! an address register computed from `e` (an address dependency).
//!
//! The parts, in the order a test is read:
//! - this file: the file as a whole (header, docs, then `init`, `threads`, the condition);
//! - `init`: the `{ x = 0; 0:r0 = 1; }` block;
//! - `threads`: thread functions, their placement and herd's scope tree;
//! - `stmt`: the lowering state of one thread and its statements (`if`, assignments, stores, calls);
//! - `expr`: C expressions as parsed (precedence climbing over C11 6.5's operators);
//! - `types`: C integer types as widths (accesses and locals wrap at their type's width);
//! - `values`: expressions lowered into registers, operands and addresses;
//! - `nesting`: the bound on how deeply statements nest, checked before the grammar reads them;
//! - `atomics`: the C11 atomic functions (`atomic_load_explicit`, ...) lowered into `ld`/`st`/`atom`/`fence`.

mod atomics;
mod expr;
mod init;
mod nesting;
mod stmt;
mod threads;
mod types;
mod values;

pub(crate) use atomics::scope_of_name;

use super::Orders;
use crate::ast::{Condition, InitItem, Instr, Litmus, Prop, Quantifier, ThreadHeader};
use crate::error::{Error, Result};
use crate::parse::cond::CondBuilder;
use crate::parse::grammar::{LitmusParser, Rule};
use crate::parse::text::Src;
use init::init_items;
use pest::iterators::Pair;
use pest::Parser;
use std::collections::BTreeMap;
use std::sync::Arc;
use threads::{place_by_tree, thread};
use types::Declared;

/// Parse a whole C litmus file.
pub fn parse_c_litmus(source: &str) -> Result<Litmus> {
    // herd writes locations as `[x]` in the init block and the condition; the
    // shared condition rules read `x`. Blanking the brackets keeps every column.
    let blanked = blank_brackets(source);
    let src = Src::new(&blanked);
    crate::parse::text::prescan_in(&src, crate::parse::text::Comments::C)?;
    nesting::check(&src)?;
    let mut pairs =
        LitmusParser::parse(Rule::c_file, &blanked).map_err(|e| crate::parse::pest_err::convert(e, &src))?;
    let file = pairs.next().ok_or_else(|| Error::internal("the parser returned no parse tree"))?;
    build(file, &src)
}

/// `[x]` -> ` x ` wherever x is an identifier.
fn blank_brackets(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b' ') {
                j += 1;
            }
            if j < b.len()
                && b[j] == b']'
                && j > i + 1
                && b[i + 1..j].iter().any(|c| c.is_ascii_alphabetic() || *c == b'_')
            {
                out[i] = b' ';
                out[j] = b' ';
                i = j;
            }
        }
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

struct Parts<'i> {
    name: String,
    docs: Vec<String>,
    init: Vec<InitItem>,
    threads: Vec<Pair<'i, Rule>>,
    scopes: Option<Pair<'i, Rule>>,
    locations: Option<Pair<'i, Rule>>,
    filter: Option<Pair<'i, Rule>>,
    condition: Option<Pair<'i, Rule>>,
}

fn build(file: Pair<Rule>, src: &Src) -> Result<Litmus> {
    let mut parts = Parts {
        name: String::new(),
        docs: Vec::new(),
        init: Vec::new(),
        threads: Vec::new(),
        scopes: None,
        locations: None,
        filter: None,
        condition: None,
    };
    let mut init_pair = None;
    for p in file.into_inner() {
        match p.as_rule() {
            Rule::test_name => parts.name = p.as_str().to_string(),
            Rule::docs => {
                parts.docs = p
                    .into_inner()
                    .filter(|d| d.as_rule() == Rule::doc)
                    .map(|d| d.as_str().trim_matches('"').to_string())
                    .collect()
            }
            Rule::c_init => init_pair = Some(p),
            Rule::c_thread => parts.threads.push(p),
            Rule::c_scopes => parts.scopes = Some(p),
            Rule::locations => parts.locations = Some(p),
            Rule::filter => parts.filter = Some(p),
            Rule::condition => parts.condition = Some(p),
            _ => {}
        }
    }
    let n = parts.threads.len();
    let mut decls = Vec::new();
    if let Some(p) = init_pair {
        (parts.init, decls) = init_items(p, src, n)?;
    }
    for th in &parts.threads {
        decls.extend(threads::param_types(th, src)?);
    }
    let types = location_types(decls, &parts.init)?;
    let mut headers = Vec::new();
    let mut code = Vec::new();
    let mut orders = Orders::default();
    for (t, th) in parts.threads.clone().into_iter().enumerate() {
        let (h, c) = thread(th, t, src, &mut orders, &types)?;
        headers.push(h);
        code.push(c);
    }
    if let Some(tree) = parts.scopes.take() {
        place_by_tree(tree, src, &mut headers)?;
    }
    orders.signed = types
        .iter()
        .filter_map(|(n, t)| match t {
            Declared::Int(t) if t.signed => Some((n.clone(), t.bits)),
            _ => None,
        })
        .collect();
    finish(parts, headers, code, orders, src)
}

/// Each location's one type (D229): every declaration of it (the init block,
/// each thread's parameters) must agree, since accesses of one location at
/// two widths (mixed-size accesses) are not modelled; an initial value must
/// fit its type (D230).
fn location_types(decls: Vec<init::TypeDecl>, init: &[InitItem]) -> Result<BTreeMap<String, Declared>> {
    let mut types: BTreeMap<String, (Declared, crate::ast::Span)> = BTreeMap::new();
    for (name, ty, span) in decls {
        match types.get(&name) {
            None => {
                types.insert(name, (ty, span));
            }
            Some(&(Declared::Pointer, _)) => {}
            Some(_) if ty == Declared::Pointer => {
                types.insert(name, (ty, span));
            }
            Some(&(first, at)) if first != ty => {
                let msg = format!(
                    "`{}` is declared `{}` here and `{}` at line {}: one location has one type (accesses of two widths are not modelled)",
                    name,
                    declared_name(ty),
                    declared_name(first),
                    at.line
                );
                return Err(Error::input(msg, span));
            }
            Some(_) => {}
        }
    }
    for item in init {
        if let InitItem::Location { name, value, span } = item {
            if let Some((Declared::Int(t), _)) = types.get(name) {
                types::check_fits(name, *value, *t, *span)?;
            }
        }
    }
    Ok(types.into_iter().map(|(n, (t, _))| (n, t)).collect())
}

fn declared_name(d: Declared) -> String {
    match d {
        Declared::Int(t) => types::c_name(t),
        Declared::Pointer => "a pointer".to_string(),
    }
}

/// The condition, locations and filter, then the litmus AST.
fn finish(
    parts: Parts,
    threads: Vec<ThreadHeader>,
    code: Vec<Vec<Instr>>,
    orders: Orders,
    src: &Src,
) -> Result<Litmus> {
    let cb = CondBuilder { src, threads: threads.len() };
    let mut locations = match parts.locations {
        Some(p) => cb.locations(p)?,
        None => Vec::new(),
    };
    let filter = parts.filter.map(|p| cb.filter(p)).transpose()?;
    let end = src.span(src.text.len(), src.text.len());
    let condition = match parts.condition {
        Some(p) => cb.condition(p)?,
        None => {
            let named: Vec<_> = locations.iter().map(|(o, _)| o.clone()).collect();
            locations = crate::parse::compat_all_observables(&parts.init, &code, &named)
                .into_iter()
                .map(|o| (o, end))
                .collect();
            Condition { quantifier: Quantifier::Exists, prop: Prop::True, text: String::new(), given: false, span: end }
        }
    };
    let mut props = vec![&condition.prop];
    props.extend(filter.as_ref());
    crate::parse::regs::check_observed(&locations, &props, &parts.init, &code)?;
    let (locations, locations_at) = locations.into_iter().unzip();
    Ok(Litmus {
        arch: "C".into(),
        name: parts.name,
        docs: parts.docs,
        init: parts.init,
        modules: Vec::new(),
        threads,
        code,
        locations,
        locations_at,
        filter,
        condition,
        c11: Some(Arc::new(orders)),
    })
}
