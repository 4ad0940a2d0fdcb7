//! What a thread's litmus code uses, found before emitting it: its registers
//! (values or predicates) and, per CTA barrier, how many threads arrive.

use crate::ast::*;
use std::collections::{BTreeMap, BTreeSet};

/// The registers of one thread: 64-bit values and predicates.
pub fn registers(lit: &Litmus, t: usize, observed: &[(usize, String)]) -> Result<(BTreeSet<String>, BTreeSet<String>), String> {
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

/// Add the registers one instruction uses to `vals` (values) or `preds` (predicates).
fn uses(kind: &InstrKind, vals: &mut BTreeSet<String>, preds: &mut BTreeSet<String>) {
    let op = |o: &Operand, vals: &mut BTreeSet<String>| {
        if let Operand::Reg(r) = o {
            vals.insert(r.clone());
        }
    };
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
