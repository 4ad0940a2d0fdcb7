//! C litmus text -> the litmus AST plus the C orders ([`super::Orders`]).
//!
//! Grammar: `grammar/c.pest` (one parser with `grammar/litmus.pest`, whose
//! tokens and condition rules it shares). Each statement becomes the PTX AST
//! instructions that compute it: expressions into registers (`%c0`, `%c1`,
//! ...: names no C identifier has), accesses into `ld`/`st`/`atom`, fences
//! into `fence`, `if` into branches (control dependencies), `*(x + e)` into
//! an address register computed from `e` (an address dependency).

use super::{CompareExchange, Order, Orders};
use crate::ast::{
    Addr, AddrBase, AluOp, AtomOp, BranchCond, Cmp, Condition, FenceSem, InitItem, Instr, InstrKind, Litmus, Operand,
    Prop, Proxy, Quantifier, Scope, Sem, Span, ThreadHeader,
};
use crate::error::{Error, Result};
use crate::parse::cond::CondBuilder;
use crate::parse::grammar::{LitmusParser, Rule};
use crate::parse::text::{parse_int, Src};
use pest::iterators::Pair;
use pest::Parser;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A C expression, as parsed.
#[derive(Clone, Debug)]
enum Expr {
    Num(i64),
    Name(String, Span),
    Deref(Box<Expr>, Span),
    AddrOf(String, Span),
    Call(Call),
    Bin(String, Box<Expr>, Box<Expr>, Span),
    Un(char, Box<Expr>, Span),
    /// A namespaced or scope name argument (`cuda::thread_scope_block`).
    Qual(String, Span),
}

#[derive(Clone, Debug)]
struct Call {
    name: String,
    args: Vec<Expr>,
    span: Span,
    text: String,
}

/// Parse a whole C litmus file.
pub fn parse_c_litmus(source: &str) -> Result<Litmus> {
    // herd writes locations as `[x]` in the init block and the condition; the
    // shared condition rules read `x`. Blanking the brackets keeps every column.
    let blanked = blank_brackets(source);
    let src = Src::new(&blanked);
    crate::parse::text::prescan(&src)?;
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
    if let Some(p) = init_pair {
        parts.init = init_items(p, src, n)?;
    }
    let mut headers = Vec::new();
    let mut code = Vec::new();
    let mut orders = Orders::default();
    for (t, th) in parts.threads.clone().into_iter().enumerate() {
        let (h, c) = thread(th, t, src, &mut orders)?;
        headers.push(h);
        code.push(c);
    }
    if let Some(tree) = parts.scopes.take() {
        place_by_tree(tree, src, &mut headers)?;
    }
    finish(parts, headers, code, orders, src)
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
    let locations = locations.into_iter().map(|(o, _)| o).collect();
    Ok(Litmus {
        arch: "C".into(),
        name: parts.name,
        docs: parts.docs,
        init: parts.init,
        modules: Vec::new(),
        threads,
        code,
        locations,
        filter,
        condition,
        c11: Some(Arc::new(orders)),
    })
}

// ---- init block ---------------------------------------------------------

fn init_items(pair: Pair<Rule>, src: &Src, threads: usize) -> Result<Vec<InitItem>> {
    let mut items = Vec::new();
    let mut seen = BTreeSet::new();
    for item in pair.into_inner().filter(|p| p.as_rule() == Rule::c_init_item) {
        let span = src.pair_span(&item);
        let (mut lhs, mut reg, mut value, mut addr) = (None, None, None, None);
        for q in item.into_inner() {
            match q.as_rule() {
                Rule::reg_ref => {
                    let mut it = q.clone().into_inner();
                    let t = it
                        .find(|x| x.as_rule() == Rule::thread_ref)
                        .map(|x| x.as_str().to_string())
                        .unwrap_or_default();
                    let r = q
                        .clone()
                        .into_inner()
                        .find(|x| x.as_rule() == Rule::reg_token)
                        .map(|x| x.as_str().to_string())
                        .unwrap_or_default();
                    reg = Some((crate::parse::cond::thread_index(&t, src.pair_span(&q), threads)?, r));
                }
                Rule::ident if lhs.is_none() && reg.is_none() => lhs = Some(q.as_str().to_string()),
                Rule::ident => addr = Some(q.as_str().to_string()),
                Rule::number => value = Some(parse_int(q.as_str(), src.pair_span(&q))?),
                Rule::c_addr_of => {
                    addr = q.into_inner().find(|x| x.as_rule() == Rule::ident).map(|x| x.as_str().to_string())
                }
                _ => {}
            }
        }
        let item = match (reg, lhs) {
            (Some((thread, reg)), _) => match addr {
                Some(location) => InitItem::RegisterAddress { thread, reg, location, span },
                None => InitItem::Register { thread, reg, value: value.unwrap_or(0), span },
            },
            (None, Some(name)) => match addr {
                Some(target) => InitItem::LocationAddress { name, target, span },
                None => InitItem::Location { name, value: value.unwrap_or(0), span },
            },
            _ => return Err(Error::input("expected a location or a register to initialise", span)),
        };
        let key = match &item {
            InitItem::Register { thread, reg, .. } | InitItem::RegisterAddress { thread, reg, .. } => {
                format!("{}:{}", thread, reg)
            }
            InitItem::Location { name, .. } | InitItem::LocationAddress { name, .. } => name.clone(),
            _ => String::new(),
        };
        if !seen.insert(key.clone()) {
            return Err(Error::input(format!("`{}` is initialised twice", key), span));
        }
        items.push(item);
    }
    Ok(items)
}

// ---- threads ------------------------------------------------------------

/// The code of one thread: its instructions, with their C orders recorded.
struct Lower<'s, 'a> {
    src: &'s Src<'a>,
    t: usize,
    code: Vec<Instr>,
    orders: &'s mut Orders,
    /// Location parameters of the thread function.
    locs: BTreeSet<String>,
    temps: usize,
    labels: usize,
}

fn thread(pair: Pair<Rule>, t: usize, src: &Src, orders: &mut Orders) -> Result<(ThreadHeader, Vec<Instr>)> {
    let span = src.pair_span(&pair);
    let mut header = ThreadHeader { id: t, cta: t as u32, cluster: None, gpu: 0, tid: None, span };
    let mut lower = Lower { src, t, code: Vec::new(), orders, locs: BTreeSet::new(), temps: 0, labels: 0 };
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
    if placed && header.cta == t as u32 {
        // An explicit header without `cta` places the thread in CTA 0.
    }
    Ok((header, lower.code))
}

/// `P0@cta 1,gpu 0`: one item.
fn placement(p: Pair<Rule>, src: &Src, h: &mut ThreadHeader, placed: &mut bool) -> Result<()> {
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
fn place_by_tree(tree: Pair<Rule>, src: &Src, headers: &mut [ThreadHeader]) -> Result<()> {
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

impl Lower<'_, '_> {
    fn span(&self, p: &Pair<Rule>) -> Span {
        self.src.pair_span(p)
    }

    fn block(&mut self, p: Pair<Rule>) -> Result<()> {
        for s in p.into_inner().filter(|s| s.as_rule() == Rule::c_stmt) {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: Pair<Rule>) -> Result<()> {
        let Some(p) = s.into_inner().next() else { return Ok(()) };
        let span = self.span(&p);
        let text = p.as_str().trim().to_string();
        match p.as_rule() {
            Rule::c_block => self.block(p),
            Rule::c_if => self.if_stmt(p),
            Rule::c_decl | Rule::c_assign => {
                let mut dst = None;
                for q in p.into_inner() {
                    match q.as_rule() {
                        Rule::ident => dst = Some(q.as_str().to_string()),
                        Rule::c_expr => {
                            let e = self.expr(q)?;
                            let d = dst.clone().unwrap_or_default();
                            self.locals_guard(&d, span)?;
                            return self.compute_into(&e, &d, span, &text);
                        }
                        _ => {}
                    }
                }
                Ok(()) // `int r0;`: a declaration alone does nothing
            }
            Rule::c_store => {
                let mut it = p.into_inner().filter(|q| matches!(q.as_rule(), Rule::c_deref | Rule::c_expr));
                let (Some(target), Some(value)) = (it.next(), it.next()) else {
                    return Err(Error::internal("store without its parts"));
                };
                let Expr::Deref(addr, _) = self.unary_deref(target)? else {
                    return Err(Error::internal("store target"));
                };
                let v = self.expr(value)?;
                self.store(&addr, &v, Order::Na, None, span, &text)
            }
            Rule::c_call_stmt => {
                let call = p.into_inner().next().ok_or_else(|| Error::internal("call statement"))?;
                let c = self.call(call)?;
                self.call_into(&c, None)
            }
            _ => Ok(()),
        }
    }

    fn locals_guard(&self, name: &str, span: Span) -> Result<()> {
        if self.locs.contains(name) {
            return Err(Error::input(
                format!("`{}` is a location parameter of this thread: assign through `*{}`", name, name),
                span,
            ));
        }
        Ok(())
    }

    fn if_stmt(&mut self, p: Pair<Rule>) -> Result<()> {
        let span = self.span(&p);
        let text =
            format!("if ({})", p.clone().into_inner().find(|q| q.as_rule() == Rule::c_expr).map_or("", |q| q.as_str()));
        let mut cond = None;
        let mut arms = Vec::new();
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::c_expr => cond = Some(self.expr(q)?),
                Rule::c_stmt => arms.push(q),
                _ => {}
            }
        }
        let cond = cond.ok_or_else(|| Error::internal("if without a condition"))?;
        self.labels += 1;
        let (else_l, end_l) = (format!("Lc{}_else", self.labels), format!("Lc{}_end", self.labels));
        // Jump over the then-arm when the condition is false.
        let branch = match &cond {
            Expr::Bin(op, a, b, _) if cmp_of(op).is_some() => {
                let (a, b) = (self.operand(a, span, &text)?, self.operand(b, span, &text)?);
                BranchCond::Compare { cmp: negate(cmp_of(op).unwrap_or(Cmp::Eq)), a, b }
            }
            e => BranchCond::Compare { cmp: Cmp::Eq, a: self.operand(e, span, &text)?, b: Operand::Imm(0) },
        };
        self.emit(InstrKind::Branch { cond: branch, target: else_l.clone() }, span, &text, None);
        let mut arms = arms.into_iter();
        if let Some(then) = arms.next() {
            self.stmt(then)?;
        }
        if let Some(other) = arms.next() {
            self.emit(InstrKind::Branch { cond: BranchCond::Always, target: end_l.clone() }, span, &text, None);
            self.emit(InstrKind::Label(else_l), span, &text, None);
            self.stmt(other)?;
            self.emit(InstrKind::Label(end_l), span, &text, None);
        } else {
            self.emit(InstrKind::Label(else_l), span, &text, None);
        }
        Ok(())
    }

    fn emit(&mut self, kind: InstrKind, span: Span, text: &str, order: Option<Order>) {
        if let Some(o) = order {
            self.orders.by_instr.insert((self.t, self.code.len()), o);
        }
        self.code.push(Instr { kind, span, text: text.to_string(), origin: None });
    }

    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("%c{}", self.temps - 1)
    }
}

// ---- expressions --------------------------------------------------------

/// Binding strength of C's binary operators (C11 6.5), weakest first.
fn prec(op: &str) -> u8 {
    match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | "<=" | ">" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        _ => 10,
    }
}

fn cmp_of(op: &str) -> Option<Cmp> {
    Some(match op {
        "==" => Cmp::Eq,
        "!=" => Cmp::Ne,
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        ">" => Cmp::Gt,
        ">=" => Cmp::Ge,
        _ => return None,
    })
}

fn negate(c: Cmp) -> Cmp {
    match c {
        Cmp::Eq => Cmp::Ne,
        Cmp::Ne => Cmp::Eq,
        Cmp::Lt => Cmp::Ge,
        Cmp::Ge => Cmp::Lt,
        Cmp::Gt => Cmp::Le,
        Cmp::Le => Cmp::Gt,
    }
}

fn alu_of(op: &str) -> Option<AluOp> {
    Some(match op {
        "+" => AluOp::Add,
        "-" => AluOp::Sub,
        "*" => AluOp::Mul,
        "/" => AluOp::Div,
        "%" => AluOp::Rem,
        "&" => AluOp::And,
        "|" => AluOp::Or,
        "^" => AluOp::Xor,
        "<<" => AluOp::Shl,
        ">>" => AluOp::Shr,
        _ => return None,
    })
}

impl Lower<'_, '_> {
    fn expr(&mut self, p: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&p);
        let mut operands = Vec::new();
        let mut ops = Vec::new();
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::c_unary => operands.push(self.unary(q)?),
                Rule::c_binop => ops.push(q.as_str().to_string()),
                _ => {}
            }
        }
        Ok(climb(&mut operands.into_iter(), &mut ops.into_iter().peekable(), 0, span))
    }

    fn unary(&mut self, p: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&p);
        let mut negs = Vec::new();
        let mut e = None;
        for q in p.into_inner() {
            e = Some(match q.as_rule() {
                Rule::c_neg => {
                    negs.push(q.as_str().chars().next().unwrap_or('-'));
                    continue;
                }
                Rule::c_call => Expr::Call(self.call(q)?),
                Rule::c_deref => self.unary_deref(q)?,
                Rule::c_addr_of => Expr::AddrOf(q.as_str().trim_start_matches('&').trim().to_string(), self.span(&q)),
                Rule::number => Expr::Num(parse_int(q.as_str(), self.span(&q))?),
                Rule::ident => Expr::Name(q.as_str().to_string(), self.span(&q)),
                Rule::c_paren => {
                    let inner = q
                        .into_inner()
                        .find(|x| x.as_rule() == Rule::c_expr)
                        .ok_or_else(|| Error::internal("empty parentheses"))?;
                    self.expr(inner)?
                }
                _ => continue,
            });
        }
        let mut e = e.ok_or_else(|| Error::internal("empty operand"))?;
        for n in negs.into_iter().rev() {
            e = match (n, e) {
                // `-1` is a constant, not an instruction.
                ('-', Expr::Num(k)) => Expr::Num(k.wrapping_neg()),
                (n, e) => Expr::Un(n, Box::new(e), span),
            };
        }
        Ok(e)
    }

    fn unary_deref(&mut self, p: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&p);
        let inner = p.into_inner().next().ok_or_else(|| Error::internal("empty dereference"))?;
        let e = match inner.as_rule() {
            Rule::ident => Expr::Name(inner.as_str().to_string(), self.span(&inner)),
            _ => {
                let x = inner
                    .into_inner()
                    .find(|x| x.as_rule() == Rule::c_expr)
                    .ok_or_else(|| Error::internal("empty parentheses"))?;
                self.expr(x)?
            }
        };
        Ok(Expr::Deref(Box::new(e), span))
    }

    fn call(&mut self, p: Pair<Rule>) -> Result<Call> {
        let span = self.span(&p);
        let text = p.as_str().to_string();
        let mut name = String::new();
        let mut args = Vec::new();
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::ident => name = q.as_str().to_string(),
                Rule::c_arg => {
                    let a = q.into_inner().next().ok_or_else(|| Error::internal("empty argument"))?;
                    args.push(match a.as_rule() {
                        Rule::c_scope_name => Expr::Qual(a.as_str().to_string(), self.span(&a)),
                        _ => self.expr(a)?,
                    });
                }
                _ => {}
            }
        }
        Ok(Call { name, args, span, text })
    }
}

/// Precedence climbing over a flat `a op b op c` list.
fn climb(
    operands: &mut impl Iterator<Item = Expr>,
    ops: &mut std::iter::Peekable<impl Iterator<Item = String>>,
    min: u8,
    span: Span,
) -> Expr {
    let mut left = operands.next().unwrap_or(Expr::Num(0));
    while let Some(op) = ops.peek().cloned() {
        let p = prec(&op);
        if p < min {
            break;
        }
        ops.next();
        let right = climb(operands, ops, p + 1, span);
        left = Expr::Bin(op, Box::new(left), Box::new(right), span);
    }
    left
}

// ---- lowering -----------------------------------------------------------

/// What a call to a C11 atomic function does.
enum Op {
    Load,
    Store,
    Rmw(AtomOp, bool),
    Fence,
}

/// The function, how many value arguments precede the order, and whether an
/// order is given (`_explicit`) or seq_cst (the short forms of herd's c11.def).
fn op_of(name: &str) -> Option<(Op, usize, bool)> {
    let (base, explicit) = match name.strip_suffix("_explicit") {
        Some(b) => (b, true),
        None => (name, false),
    };
    Some(match base {
        "atomic_load" => (Op::Load, 0, explicit),
        "atomic_store" => (Op::Store, 1, explicit),
        "atomic_exchange" => (Op::Rmw(AtomOp::Exch, false), 1, explicit),
        "atomic_fetch_add" => (Op::Rmw(AtomOp::Add, false), 1, explicit),
        "atomic_fetch_sub" => (Op::Rmw(AtomOp::Add, true), 1, explicit),
        "atomic_fetch_and" => (Op::Rmw(AtomOp::And, false), 1, explicit),
        "atomic_fetch_or" => (Op::Rmw(AtomOp::Or, false), 1, explicit),
        "atomic_fetch_xor" => (Op::Rmw(AtomOp::Xor, false), 1, explicit),
        "atomic_thread_fence" => (Op::Fence, 0, true),
        _ => return None,
    })
}

const KNOWN: &str = "atomic_load, atomic_store, atomic_exchange, atomic_fetch_{add,sub,and,or,xor}, atomic_compare_exchange_{strong,weak} (with or without _explicit), atomic_thread_fence";

/// A scope argument: CUDA's `cuda::thread_scope_*` or OpenCL's `memory_scope_*`.
/// The scope a CUDA or OpenCL scope name (with or without its namespace) names.
pub(crate) fn scope_of_name(name: &str) -> Option<Scope> {
    let n = name.rsplit("::").next().unwrap_or(name);
    Some(match n {
        "thread_scope_block" | "memory_scope_work_group" => Scope::Cta,
        "thread_scope_cluster" => Scope::Cluster,
        "thread_scope_device" | "memory_scope_device" => Scope::Gpu,
        "thread_scope_system" | "memory_scope_all_svm_devices" | "memory_scope_all_devices" => Scope::Sys,
        _ => return None,
    })
}

fn scope_of(name: &str, span: Span) -> Result<Scope> {
    scope_of_name(name).ok_or_else(|| {
        Error::input(
            format!("unknown scope `{}` (cuda::thread_scope_{{block,cluster,device,system}}, memory_scope_{{work_group,device,all_svm_devices}})", name),
            span,
        )
    })
}

/// A memory order argument of `c`.
fn order_arg(c: &Call, e: &Expr) -> Result<Order> {
    let (name, span) = match e {
        Expr::Name(n, s) | Expr::Qual(n, s) => (n.clone(), *s),
        _ => (String::new(), expr_span(e).unwrap_or(c.span)),
    };
    Order::from_name(&name).ok_or_else(|| {
        Error::input(format!("expected a memory order (memory_order_relaxed, ..._seq_cst), found `{}`", name), span)
    })
}

/// The optional scope argument of `c`, the arguments left after its orders (default system).
fn scope_arg(c: &Call, rest: &[Expr]) -> Result<Scope> {
    match rest {
        [] => Ok(Scope::Sys),
        [Expr::Qual(n, s)] | [Expr::Name(n, s)] => scope_of(n, *s),
        _ => Err(Error::input(format!("`{}`: too many arguments", c.name), c.span)),
    }
}

/// `atomic_compare_exchange_{strong,weak}[_explicit]`: whether it is weak and
/// whether its orders are given (the short forms are seq_cst, as herd7 reads them).
fn compare_exchange_of(name: &str) -> Option<(bool, bool)> {
    let (base, explicit) = match name.strip_suffix("_explicit") {
        Some(b) => (b, true),
        None => (name, false),
    };
    match base {
        "atomic_compare_exchange_strong" => Some((false, explicit)),
        "atomic_compare_exchange_weak" => Some((true, explicit)),
        _ => None,
    }
}

/// The PTX semantics an access of this order performs (D100).
fn sem_of(o: Order, reads: bool, writes: bool) -> Sem {
    match o {
        Order::Na => Sem::Weak,
        Order::Rlx | Order::Con => Sem::Relaxed,
        Order::Acq => Sem::Acquire,
        Order::Rel => Sem::Release,
        Order::AcqRel => Sem::AcqRel,
        Order::Sc if reads && writes => Sem::AcqRel,
        Order::Sc if reads => Sem::Acquire,
        Order::Sc => Sem::Release,
    }
}

impl Lower<'_, '_> {
    /// The order and scope arguments after the `skip` value arguments.
    fn order_scope(&self, c: &Call, skip: usize, explicit: bool) -> Result<(Order, Scope)> {
        let rest = &c.args[(skip + 1).min(c.args.len())..];
        let (order, rest) = if explicit {
            let Some(first) = rest.first() else {
                return Err(Error::input(format!("`{}` needs a memory order argument", c.name), c.span));
            };
            (order_arg(c, first)?, &rest[1..])
        } else {
            (Order::Sc, rest)
        };
        Ok((order, scope_arg(c, rest)?))
    }

    /// A call, its result (if any) into `dst`.
    fn call_into(&mut self, c: &Call, dst: Option<&str>) -> Result<()> {
        if let Some((weak, explicit)) = compare_exchange_of(&c.name) {
            return self.compare_exchange(c, weak, explicit, dst);
        }
        let Some((op, values, explicit)) = op_of(&c.name) else {
            return Err(Error::input(format!("unknown function `{}` (known: {})", c.name, KNOWN), c.span));
        };
        let needed = values + usize::from(!matches!(op, Op::Fence));
        if c.args.len() < needed + usize::from(explicit && !matches!(op, Op::Fence)) {
            return Err(Error::input(format!("`{}`: too few arguments", c.name), c.span));
        }
        let skip = if matches!(op, Op::Fence) { 0 } else { values };
        let (order, scope) =
            if matches!(op, Op::Fence) { self.order_scope_fence(c)? } else { self.order_scope(c, skip, explicit)? };
        match op {
            Op::Fence => {
                let sem = match order {
                    Order::Sc => FenceSem::Sc,
                    Order::AcqRel => FenceSem::AcqRel,
                    Order::Acq => FenceSem::Acquire,
                    Order::Rel => FenceSem::Release,
                    // herd's rc11 gives relaxed and consume fences no effect.
                    _ => {
                        self.emit(InstrKind::Nop, c.span, &c.text, Some(order));
                        return Ok(());
                    }
                };
                self.emit(InstrKind::Fence { sem, scope }, c.span, &c.text, Some(order));
                Ok(())
            }
            Op::Load => {
                let d = dst.map(str::to_string).unwrap_or_else(|| self.temp());
                self.load(&c.args[0], order, Some(scope), &d, c.span, &c.text)
            }
            Op::Store => self.store(&c.args[0], &c.args[1], order, Some(scope), c.span, &c.text),
            Op::Rmw(aop, negate) => self.rmw(c, aop, negate, order, scope, dst),
        }
    }

    fn order_scope_fence(&self, c: &Call) -> Result<(Order, Scope)> {
        let shifted = Call { args: std::iter::once(Expr::Num(0)).chain(c.args.iter().cloned()).collect(), ..c.clone() };
        self.order_scope(&shifted, 0, true)
    }

    /// C11 7.17.7.4: "Atomically, compares the contents of the memory pointed
    /// to by object for equality with that pointed to by expected, and if
    /// true, replaces the contents of the memory pointed to by object with
    /// desired, and if false, updates the contents of the memory pointed to by
    /// expected with that pointed to by object." As herd7 7.58 reads it (D143):
    /// a plain read of `expected`, then `atom.cas` (success order; its read has
    /// the failure order when it fails), then, when it failed, a plain write of
    /// the value read to `expected`. Its value, 1 on success and 0 on failure,
    /// is `setp.eq` of the value read and the expected one (a weak one's
    /// spurious failure skips it, `program::build`).
    /// `expected` is a location, or `&r` for a local `r` (read and written as a register).
    fn compare_exchange(&mut self, c: &Call, weak: bool, explicit: bool, dst: Option<&str>) -> Result<()> {
        let orders = if explicit { 2 } else { 0 };
        if c.args.len() < 3 + orders {
            let orders = if explicit { ", success order, failure order" } else { "" };
            return Err(Error::input(
                format!("`{}` takes (object, expected, desired{}[, scope])", c.name, orders),
                c.span,
            ));
        }
        let where_expected = |e: &Expr| matches!(e, Expr::Name(n, _) | Expr::AddrOf(n, _) if !n.starts_with('%'));
        if !where_expected(&c.args[1]) {
            return Err(Error::input(
                "the expected value of a compare-exchange is a location (`e`) or a local's address (`&r0`)",
                expr_span(&c.args[1]).unwrap_or(c.span),
            ));
        }
        let (success, failure) =
            if explicit { (order_arg(c, &c.args[3])?, order_arg(c, &c.args[4])?) } else { (Order::Sc, Order::Sc) };
        let scope = scope_arg(c, &c.args[3 + orders..])?;
        let obj = self.address(&c.args[0], c.span, &c.text)?;
        let local = match &c.args[1] {
            Expr::AddrOf(r, _) if !self.locs.contains(r) => Some(r.clone()),
            _ => None,
        };
        let expected = match &local {
            Some(r) => Operand::Reg(r.clone()),
            None => {
                let e = self.temp();
                self.load(&c.args[1], Order::Na, None, &e, c.span, &c.text)?;
                Operand::Reg(e)
            }
        };
        let desired = self.operand(&c.args[2], c.span, &c.text)?;
        let (old, succeeded) = (self.temp(), dst.map(str::to_string).unwrap_or_else(|| self.temp()));
        self.orders.cas.insert((self.t, self.code.len()), CompareExchange { failure, weak });
        let kind = InstrKind::Atomic {
            sem: sem_of(success, true, true),
            scope: Some(scope),
            proxy: Proxy::Generic,
            op: AtomOp::Cas,
            dst: Some(old.clone()),
            addr: obj,
            operands: vec![expected.clone(), desired],
            size: 4,
            ty: None,
            shared: false,
        };
        self.emit(kind, c.span, &c.text, Some(success));
        let result = InstrKind::Setp {
            cmp: Cmp::Eq,
            dst: succeeded.clone(),
            a: Operand::Reg(old.clone()),
            b: expected,
            ty: None,
        };
        self.emit(result, c.span, &c.text, None);
        // When it failed, the value read goes to `expected`.
        self.labels += 1;
        let done = format!("Lc{}_cas", self.labels);
        let ok = BranchCond::Compare { cmp: Cmp::Ne, a: Operand::Reg(succeeded), b: Operand::Imm(0) };
        self.emit(InstrKind::Branch { cond: ok, target: done.clone() }, c.span, &c.text, None);
        match local {
            Some(r) => {
                let mov =
                    InstrKind::Alu { op: AluOp::Mov, dst: r, srcs: vec![Operand::Reg(old)], ty: None, src_ty: None };
                self.emit(mov, c.span, &c.text, None);
            }
            None => self.store(&c.args[1], &Expr::Name(old, c.span), Order::Na, None, c.span, &c.text)?,
        }
        self.emit(InstrKind::Label(done), c.span, &c.text, None);
        Ok(())
    }

    fn rmw(&mut self, c: &Call, op: AtomOp, negate: bool, order: Order, scope: Scope, dst: Option<&str>) -> Result<()> {
        let addr = self.address(&c.args[0], c.span, &c.text)?;
        let mut v = self.operand(&c.args[1], c.span, &c.text)?;
        if negate {
            v = match v {
                Operand::Imm(k) => Operand::Imm(k.wrapping_neg()),
                other => {
                    let t = self.temp();
                    self.emit(
                        InstrKind::Alu { op: AluOp::Neg, dst: t.clone(), srcs: vec![other], ty: None, src_ty: None },
                        c.span,
                        &c.text,
                        None,
                    );
                    Operand::Reg(t)
                }
            };
        }
        let d = dst.map(str::to_string).unwrap_or_else(|| self.temp());
        let kind = InstrKind::Atomic {
            sem: sem_of(order, true, true),
            scope: Some(scope),
            proxy: Proxy::Generic,
            op,
            dst: Some(d),
            addr,
            operands: vec![v],
            size: 4,
            ty: None,
            shared: false,
        };
        self.emit(kind, c.span, &c.text, Some(order));
        Ok(())
    }

    fn load(&mut self, a: &Expr, order: Order, scope: Option<Scope>, dst: &str, span: Span, text: &str) -> Result<()> {
        let addr = self.address(a, span, text)?;
        let kind = InstrKind::Load {
            sem: sem_of(order, true, false),
            scope,
            proxy: Proxy::Generic,
            dst: dst.to_string(),
            addr,
            size: 4,
            ty: None,
            shared: false,
            private: false,
        };
        self.emit(kind, span, text, Some(order));
        Ok(())
    }

    fn store(&mut self, a: &Expr, v: &Expr, order: Order, scope: Option<Scope>, span: Span, text: &str) -> Result<()> {
        let addr = self.address(a, span, text)?;
        let src = self.operand(v, span, text)?;
        let kind = InstrKind::Store {
            sem: sem_of(order, false, true),
            scope,
            proxy: Proxy::Generic,
            addr,
            src,
            size: 4,
            ty: None,
            shared: false,
            private: false,
        };
        self.emit(kind, span, text, Some(order));
        Ok(())
    }

    /// The address an expression denotes: a location, or a location plus an
    /// offset computed from registers (an address dependency).
    fn address(&mut self, a: &Expr, span: Span, text: &str) -> Result<Addr> {
        match a {
            Expr::Name(n, _) if !n.starts_with('%') && self.locs.contains(n) => {
                Ok(Addr { base: AddrBase::Sym(n.clone()), offset: 0 })
            }
            Expr::Name(n, _) => Ok(Addr { base: AddrBase::Reg(n.clone()), offset: 0 }),
            Expr::AddrOf(n, _) => Ok(Addr { base: AddrBase::Sym(n.clone()), offset: 0 }),
            Expr::Bin(op, x, y, s) if op == "+" => {
                let (base, off) = match (&**x, &**y) {
                    (Expr::Name(n, _), e) | (e, Expr::Name(n, _)) if self.locs.contains(n) => (n.clone(), e),
                    _ => return Err(Error::input("expected a location plus an offset (`x + (r0 & 128)`)", *s)),
                };
                let off = self.operand(off, span, text)?;
                let t = self.temp();
                self.emit(
                    InstrKind::Alu {
                        op: AluOp::Mov,
                        dst: t.clone(),
                        srcs: vec![Operand::Sym(base)],
                        ty: None,
                        src_ty: None,
                    },
                    span,
                    text,
                    None,
                );
                self.emit(
                    InstrKind::Alu {
                        op: AluOp::Add,
                        dst: t.clone(),
                        srcs: vec![Operand::Reg(t.clone()), off],
                        ty: None,
                        src_ty: None,
                    },
                    span,
                    text,
                    None,
                );
                Ok(Addr { base: AddrBase::Reg(t), offset: 0 })
            }
            _ => Err(Error::input(
                "expected a location (a parameter of the thread function)",
                expr_span(a).unwrap_or(span),
            )),
        }
    }

    /// An operand holding the expression's value (computing it into a fresh register if needed).
    fn operand(&mut self, e: &Expr, span: Span, text: &str) -> Result<Operand> {
        Ok(match e {
            Expr::Num(k) => Operand::Imm(*k),
            Expr::Name(n, s) => {
                if self.locs.contains(n) {
                    return Err(Error::input(
                        format!("`{}` is a location: read it with `*{}` or atomic_load_explicit", n, n),
                        *s,
                    ));
                }
                Operand::Reg(n.clone())
            }
            Expr::AddrOf(n, _) => Operand::Sym(n.clone()),
            Expr::Qual(n, s) => return Err(Error::input(format!("`{}` is no value", n), *s)),
            _ => {
                let t = self.temp();
                self.compute_into(e, &t, span, text)?;
                Operand::Reg(t)
            }
        })
    }

    /// Compute `e` into register `dst`.
    fn compute_into(&mut self, e: &Expr, dst: &str, span: Span, text: &str) -> Result<()> {
        match e {
            Expr::Call(c) => self.call_into(c, Some(dst)),
            Expr::Deref(a, s) => self.load(a, Order::Na, None, dst, *s, text),
            Expr::Bin(op, a, b, s) => {
                let (x, y) = (self.operand(a, span, text)?, self.operand(b, span, text)?);
                let kind = if let Some(cmp) = cmp_of(op) {
                    InstrKind::Setp { cmp, dst: dst.to_string(), a: x, b: y, ty: None }
                } else if let Some(aop) = alu_of(op) {
                    InstrKind::Alu { op: aop, dst: dst.to_string(), srcs: vec![x, y], ty: None, src_ty: None }
                } else {
                    // `&&`, `||`: both sides as truth values, combined.
                    let (tx, ty_) = (self.temp(), self.temp());
                    self.emit(
                        InstrKind::Setp { cmp: Cmp::Ne, dst: tx.clone(), a: x, b: Operand::Imm(0), ty: None },
                        *s,
                        text,
                        None,
                    );
                    self.emit(
                        InstrKind::Setp { cmp: Cmp::Ne, dst: ty_.clone(), a: y, b: Operand::Imm(0), ty: None },
                        *s,
                        text,
                        None,
                    );
                    let aop = if op == "&&" { AluOp::And } else { AluOp::Or };
                    InstrKind::Alu {
                        op: aop,
                        dst: dst.to_string(),
                        srcs: vec![Operand::Reg(tx), Operand::Reg(ty_)],
                        ty: None,
                        src_ty: None,
                    }
                };
                self.emit(kind, *s, text, None);
                Ok(())
            }
            Expr::Un(c, a, s) => {
                let x = self.operand(a, span, text)?;
                let kind = match c {
                    '!' => InstrKind::Setp { cmp: Cmp::Eq, dst: dst.to_string(), a: x, b: Operand::Imm(0), ty: None },
                    '~' => {
                        InstrKind::Alu { op: AluOp::Not, dst: dst.to_string(), srcs: vec![x], ty: None, src_ty: None }
                    }
                    _ => InstrKind::Alu { op: AluOp::Neg, dst: dst.to_string(), srcs: vec![x], ty: None, src_ty: None },
                };
                self.emit(kind, *s, text, None);
                Ok(())
            }
            _ => {
                let x = self.operand(e, span, text)?;
                self.emit(
                    InstrKind::Alu { op: AluOp::Mov, dst: dst.to_string(), srcs: vec![x], ty: None, src_ty: None },
                    span,
                    text,
                    None,
                );
                Ok(())
            }
        }
    }
}

fn expr_span(e: &Expr) -> Option<Span> {
    match e {
        Expr::Name(_, s)
        | Expr::Deref(_, s)
        | Expr::AddrOf(_, s)
        | Expr::Bin(_, _, _, s)
        | Expr::Un(_, _, s)
        | Expr::Qual(_, s) => Some(*s),
        Expr::Call(c) => Some(c.span),
        Expr::Num(_) => None,
    }
}
