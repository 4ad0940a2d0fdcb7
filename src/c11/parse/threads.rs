//! Thread functions (`P0 (atomic_int* x) { ... }`), their placement (`P0@cta 1,gpu 0`) and herd's scope tree
//! `scopes: (gpu (cta P0 P1) (cta P2))`.

use super::init::TypeDecl;
use super::stmt::Lower;
use super::types::{declared, Declared};
use super::Orders;
use crate::ast::{Instr, ThreadHeader};
use crate::error::{Error, Result};
use crate::parse::grammar::Rule;
use crate::parse::text::{parse_int, Src};
use pest::iterators::Pair;
use std::collections::{BTreeMap, BTreeSet};

/// The types a thread function's parameters give their locations (`atomic_int* x`: `x` is an `atomic_int`).
pub(super) fn param_types(pair: &Pair<Rule>, src: &Src) -> Result<Vec<TypeDecl>> {
    let mut out = Vec::new();
    for p in pair.clone().into_inner().filter(|p| p.as_rule() == Rule::c_param) {
        let span = src.pair_span(&p);
        let words: Vec<&str> =
            p.clone().into_inner().filter(|x| x.as_rule() == Rule::c_type).map(|x| x.as_str()).collect();
        let name = p.into_inner().find(|x| x.as_rule() == Rule::ident).map(|x| x.as_str().to_string());
        if let (Some(name), Some(ty)) = (name, declared(&words, 1, span)?) {
            out.push((name, ty, span));
        }
    }
    Ok(out)
}

pub(super) fn thread(
    pair: Pair<Rule>,
    t: usize,
    src: &Src,
    orders: &mut Orders,
    types: &BTreeMap<String, Declared>,
) -> Result<(ThreadHeader, Vec<Instr>)> {
    let span = src.pair_span(&pair);
    let mut header = ThreadHeader { id: t, cta: t as u32, cluster: None, gpu: 0, tid: None, span };
    let mut lower = Lower {
        src,
        t,
        code: Vec::new(),
        orders,
        locs: BTreeSet::new(),
        types,
        locals: BTreeMap::new(),
        temps: 0,
        labels: 0,
    };
    let mut placed = false;
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::thread_id => {
                let id = p.as_str().trim_start_matches('P');
                if id.parse::<usize>().ok() != Some(t) {
                    return Err(Error::input(
                        format!("thread `{}` is the thread number {} of the test: name it P{}", p.as_str(), t, t),
                        src.pair_span(&p),
                    ));
                }
            }
            Rule::place_item => {
                placement(p, src, &mut header, &mut placed)?;
            }
            Rule::c_param => {
                if let Some(name) = p.into_inner().find(|x| x.as_rule() == Rule::ident) {
                    lower.locs.insert(name.as_str().to_string());
                }
            }
            Rule::c_block => lower.block(p)?,
            _ => {}
        }
    }
    Ok((header, lower.code))
}

/// `P0@cta 1,gpu 0`: one item.
fn placement(p: Pair<Rule>, src: &Src, h: &mut ThreadHeader, placed: &mut bool) -> Result<()> {
    // A thread without placement is in a CTA of its own (its number); an explicit
    // header without `cta` places it in CTA 0.
    if !*placed {
        *placed = true;
        h.cta = 0;
    }
    let mut it = p.into_inner();
    let (Some(kw), Some(n)) = (it.next(), it.next()) else {
        return Err(Error::internal("placement item without a number"));
    };
    let v = parse_int(n.as_str(), src.pair_span(&n))? as u32;
    match kw.as_str() {
        "cta" => h.cta = v,
        "cluster" => h.cluster = Some(v),
        "gpu" => h.gpu = v,
        _ => h.tid = Some(v),
    }
    Ok(())
}

/// herd's scope tree `(gpu (cta P0 P1) (cta P2))`: CTAs, clusters and GPUs
/// numbered in the order the tree names them (OpenCL names: `work_group`/`wg`
/// is a CTA, `device`/`dev` a GPU).
pub(super) fn place_by_tree(tree: Pair<Rule>, src: &Src, headers: &mut [ThreadHeader]) -> Result<()> {
    let root = tree
        .into_inner()
        .find(|p| p.as_rule() == Rule::c_scope_tree)
        .ok_or_else(|| Error::internal("empty scope tree"))?;
    let mut counters = [0u32; 3];
    let mut ctx = [None, None, None];
    walk_tree(root, src, headers, &mut counters, &mut ctx)
}

fn walk_tree(
    node: Pair<Rule>,
    src: &Src,
    headers: &mut [ThreadHeader],
    counters: &mut [u32; 3],
    ctx: &mut [Option<u32>; 3],
) -> Result<()> {
    let mut inner = node.into_inner().filter(|p| p.as_rule() != Rule::lparen && p.as_rule() != Rule::rparen);
    let Some(kind) = inner.next() else { return Ok(()) };
    let level = match kind.as_str() {
        "cta" | "block" | "work_group" | "wg" => Some(0),
        "cluster" => Some(1),
        "gpu" | "device" | "dev" | "kernel" => Some(2),
        "sys" | "system" => None,
        other => {
            return Err(Error::input(
                format!("unknown scope `{}` in the scope tree (cta, cluster, gpu, sys; work_group, device)", other),
                src.pair_span(&kind),
            ))
        }
    };
    let saved = *ctx;
    if let Some(l) = level {
        ctx[l] = Some(counters[l]);
        counters[l] += 1;
    }
    for p in inner {
        match p.as_rule() {
            Rule::c_scope_tree => walk_tree(p, src, headers, counters, ctx)?,
            Rule::thread_id => {
                let t: usize = p.as_str().trim_start_matches('P').parse().unwrap_or(usize::MAX);
                let Some(h) = headers.get_mut(t) else {
                    return Err(Error::input(
                        format!("the scope tree names `{}`, which is no thread of the test", p.as_str()),
                        src.pair_span(&p),
                    ));
                };
                h.cta = ctx[0].unwrap_or(1000 + t as u32);
                h.cluster = ctx[1];
                h.gpu = ctx[2].unwrap_or(0);
            }
            _ => {}
        }
    }
    *ctx = saved;
    Ok(())
}
