//! What a thread's litmus code uses, found before emitting it: its registers
//! (values or predicates) and, per CTA barrier, how many threads arrive.

use crate::ast::*;
use std::collections::{BTreeMap, BTreeSet};

/// The registers of one thread: 64-bit values and predicates.
pub fn registers(
    lit: &Litmus,
    t: usize,
    observed: &[(usize, String)],
) -> Result<(BTreeSet<String>, BTreeSet<String>), String> {
    let (mut vals, mut preds) = (BTreeSet::new(), BTreeSet::new());
    for i in &lit.code[t] {
        uses(&i.kind, &mut vals, &mut preds);
    }
    for item in &lit.init {
        match item {
            InitItem::Register { thread, reg, .. } | InitItem::RegisterAddress { thread, reg, .. } if *thread == t => {
                vals.insert(reg.clone());
            }
            _ => {}
        }
    }
    vals.extend(observed.iter().filter(|(th, r)| *th == t && !preds.contains(r)).map(|(_, r)| r.clone()));
    if let Some(r) = vals.intersection(&preds).next() {
        return Err(format!("P{}: `{}` is used both as a predicate and as a value", t, r));
    }
    Ok((vals, preds))
}

fn op_val(o: &Operand, vals: &mut BTreeSet<String>) {
    if let Operand::Reg(r) = o {
        vals.insert(r.clone());
    }
}

/// Add the registers one instruction uses to `vals` (values) or `preds` (predicates).
fn uses(kind: &InstrKind, vals: &mut BTreeSet<String>, preds: &mut BTreeSet<String>) {
    let op = op_val;
    match kind {
        InstrKind::Load { dst, addr, .. } => {
            vals.insert(dst.clone());
            if let AddrBase::Reg(r) = &addr.base {
                vals.insert(r.clone());
            }
        }
        InstrKind::Store { addr, src, .. } => {
            op(src, vals);
            if let AddrBase::Reg(r) = &addr.base {
                vals.insert(r.clone());
            }
        }
        InstrKind::Atomic { dst, addr, operands, .. } => {
            vals.extend(dst.clone());
            operands.iter().for_each(|o| op(o, vals));
            if let AddrBase::Reg(r) = &addr.base {
                vals.insert(r.clone());
            }
        }
        // `.pred` logic works on predicate registers (instr_alu.rs).
        InstrKind::Alu { dst, srcs, ty: Some(t), .. } if t.bits == 1 => {
            preds.insert(dst.clone());
            srcs.iter().for_each(|o| op(o, preds));
        }
        InstrKind::Alu { dst, srcs, .. } => {
            vals.insert(dst.clone());
            srcs.iter().for_each(|o| op(o, vals));
        }
        InstrKind::Setp { dst, a, b, .. } => {
            preds.insert(dst.clone());
            op(a, vals);
            op(b, vals);
        }
        InstrKind::Selp { dst, a, b, pred, .. } => {
            vals.insert(dst.clone());
            op(a, vals);
            op(b, vals);
            if let Operand::Reg(p) = pred {
                preds.insert(p.clone());
            }
        }
        // `bar.red.popc` gives a value, `.and`/`.or` a predicate, from a predicate.
        InstrKind::Barrier { op: BarrierOp::Red(r), red: Some((dst, pred, _)), .. } => {
            if *r == RedOp::Popc {
                vals.insert(dst.clone());
            } else {
                preds.insert(dst.clone());
            }
            if let Operand::Reg(p) = pred {
                preds.insert(p.clone());
            }
        }
        InstrKind::Mbarrier { op, dst, operand, .. } => {
            match (op, dst) {
                (MbarrierOp::TestWait { .. }, Some(d)) => preds.insert(d.clone()),
                (_, Some(d)) => vals.insert(d.clone()),
                _ => false,
            };
            op_val(operand, vals);
        }
        InstrKind::Branch { cond: BranchCond::Pred { reg, .. }, .. } => {
            preds.insert(reg.clone());
        }
        InstrKind::Branch { cond: BranchCond::Compare { a, b, .. }, .. } => {
            op(a, vals);
            op(b, vals);
        }
        _ => {}
    }
}

/// For corpus barriers (`bar.cta.sync a`, the threads that arrive): per barrier
/// id, how many litmus threads of the CTA use it, when every user uses it the
/// same number of times with the same logical operand (else no count).
pub fn arrivals_of(lit: &Litmus, lay: &super::layout::Layout, block: usize) -> impl Fn(i64) -> Result<u32, String> {
    let mut uses: BTreeMap<i64, Vec<(usize, Option<Operand>)>> = BTreeMap::new();
    for (t, code) in lit.code.iter().enumerate() {
        if lay.block_of[t] as usize != block {
            continue;
        }
        for i in code {
            if let InstrKind::Barrier { id: Operand::Imm(id), logical, .. } = &i.kind {
                uses.entry(*id).or_default().push((t, logical.clone()));
            }
        }
    }
    move |id| {
        let u = uses.get(&id).ok_or("a barrier id used by no thread")?;
        let threads: BTreeSet<usize> = u.iter().map(|x| x.0).collect();
        let per: BTreeSet<usize> = threads.iter().map(|t| u.iter().filter(|x| x.0 == *t).count()).collect();
        let logical: BTreeSet<String> = u.iter().map(|x| format!("{:?}", x.1)).collect();
        if per.len() != 1 {
            return Err("the threads of the CTA use this barrier different numbers of times".into());
        }
        if logical.len() != 1 || u.iter().any(|x| matches!(x.1, Some(Operand::Reg(_)))) {
            return Err("the corpus barrier's second (logical) operand differs between threads or is a register: real PTX barriers have no such operand".into());
        }
        Ok(threads.len() as u32)
    }
}

/// Every name some thread accesses as private memory (`.local`/`.param`, D17),
/// or that a module declares in those spaces.
pub fn private_names(lit: &Litmus) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = lit
        .init
        .iter()
        .filter_map(|i| if let InitItem::Var(d) = i { d.space.is_private().then(|| d.name.clone()) } else { None })
        .collect();
    for code in &lit.code {
        for i in code {
            if let InstrKind::Load { private: true, addr, .. } | InstrKind::Store { private: true, addr, .. } = &i.kind
            {
                if let AddrBase::Sym(s) = &addr.base {
                    out.insert(s.clone());
                }
            }
        }
    }
    out
}

/// The private variables thread `t` uses, each with its initial bytes (a
/// multiple of 8): the module's initialiser or the init block's value, zeros
/// past them and without one, as the model reads private memory (D125). A
/// private variable whose address is taken (an operand, not the base of a
/// private access) is refused: its `.local` address is not a generic one.
pub fn private_vars(lit: &Litmus, t: usize, all: &BTreeSet<String>) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut extent: BTreeMap<String, u64> = BTreeMap::new();
    for i in &lit.code[t] {
        if let InstrKind::Load { private: true, addr, size, .. } | InstrKind::Store { private: true, addr, size, .. } =
            &i.kind
        {
            let AddrBase::Sym(s) = &addr.base else { continue };
            let end = (addr.offset.max(0) as u64) + *size as u64;
            let e = extent.entry(s.clone()).or_default();
            *e = (*e).max(end);
        }
        let mut used = super::instr::symbols(&i.kind);
        if let InstrKind::Load { private: true, .. } | InstrKind::Store { private: true, .. } = &i.kind {
            used.retain(|s| !matches!(&i.kind, InstrKind::Load { addr, .. } | InstrKind::Store { addr, .. } if addr.base == AddrBase::Sym(s.clone())));
        }
        if let Some(s) = used.iter().find(|s| all.contains(*s)) {
            return Err(format!(
                "`{}` takes the address of private variable `{}` (a .local address is not a generic one)",
                i.text, s
            ));
        }
    }
    let mut out = BTreeMap::new();
    for (name, end) in extent {
        let mut bytes = Vec::new();
        for item in &lit.init {
            match item {
                InitItem::Var(d) if d.name == name => {
                    bytes = d.init.clone().unwrap_or_default();
                    bytes.resize(bytes.len().max(d.size as usize), 0);
                }
                InitItem::Location { name: n, value, .. } if *n == name => bytes = value.to_le_bytes().to_vec(),
                _ => {}
            }
        }
        let len = (bytes.len() as u64).max(end).div_ceil(8) * 8;
        bytes.resize(len as usize, 0);
        out.insert(name, bytes);
    }
    Ok(out)
}
