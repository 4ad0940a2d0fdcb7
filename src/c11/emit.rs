//! A compiled C test as PTX litmus text (`map --emit`): the header, the init
//! block, one column per thread, the condition as herd writes it. Only the
//! instructions a C test compiles to are printed (accesses, fences, register
//! arithmetic, comparisons, branches, labels); the text reads back to the
//! same program (`tests/engines/c11_map.rs`).

use crate::ast::{
    Addr, AddrBase, AluOp, BranchCond, Cmp, FenceSem, InitItem, Instr, InstrKind, IntTy, Litmus, Operand, Scope, Sem,
};
use crate::program::Program;

fn scope(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

fn sem(s: Sem) -> &'static str {
    match s {
        Sem::Weak => "weak",
        Sem::Relaxed => "relaxed",
        Sem::Acquire => "acquire",
        Sem::Release => "release",
        Sem::AcqRel => "acq_rel",
        Sem::Volatile => "volatile",
        Sem::Mmio => "mmio",
    }
}

/// `.relaxed.gpu` (nothing for `.weak`).
fn qual(s: Sem, sc: Option<Scope>) -> String {
    match (s, sc) {
        (Sem::Weak, _) => ".weak".into(),
        (s, Some(c)) => format!(".{}.{}", sem(s), scope(c)),
        (s, None) => format!(".{}.sys", sem(s)),
    }
}

fn operand(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => r.clone(),
        Operand::Imm(k) => k.to_string(),
        Operand::Sym(s) => s.clone(),
    }
}

fn addr(a: &Addr) -> String {
    let base = match &a.base {
        AddrBase::Sym(s) => s.clone(),
        AddrBase::Reg(r) => r.clone(),
    };
    match a.offset {
        0 => format!("[{}]", base),
        k => format!("[{}+{}]", base, k),
    }
}

fn cmp(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "eq",
        Cmp::Ne => "ne",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
    }
}

fn alu(op: AluOp) -> &'static str {
    match op {
        AluOp::Mov => "mov",
        AluOp::Add => "add",
        AluOp::Sub => "sub",
        AluOp::Mul | AluOp::MulHi => "mul.lo",
        AluOp::Div => "div",
        AluOp::Rem => "rem",
        AluOp::And => "and",
        AluOp::Or => "or",
        AluOp::Xor => "xor",
        AluOp::Shl => "shl",
        AluOp::Shr => "shr",
        AluOp::Not => "not",
        AluOp::Neg => "neg",
        AluOp::Min => "min",
        AluOp::Max => "max",
        AluOp::Bits(_) => "bits",
        AluOp::Float(_) => "float",
    }
}

/// `.s32`, `.u8`, ...: the type of an access of a typed C location (nothing when untyped).
fn ty(t: &Option<IntTy>) -> String {
    t.map_or_else(String::new, |t| format!(".{}{}", if t.signed { "s" } else { "u" }, t.bits))
}

/// One instruction in corpus spelling (`ld.acquire.gpu r0, [x]`).
pub fn instr(i: &Instr) -> String {
    match &i.kind {
        InstrKind::Load { sem, scope, dst, addr: a, ty: t, .. } => {
            format!("ld{}{} {}, {}", qual(*sem, *scope), ty(t), dst, addr(a))
        }
        InstrKind::Store { sem, scope, addr: a, src, ty: t, .. } => {
            format!("st{}{} {}, {}", qual(*sem, *scope), ty(t), addr(a), operand(src))
        }
        InstrKind::Alu { op: AluOp::Mov, dst, srcs, ty: t @ Some(_), src_ty: None } => {
            // A C conversion to a local's type (`int r1 = r0 + 1;`).
            format!("cvt{}.s64 {}, {}", ty(t), dst, srcs.iter().map(operand).collect::<Vec<_>>().join(", "))
        }
        InstrKind::Atomic { sem, scope, op, dst, addr: a, operands, ty: t, .. } => {
            let ops: Vec<String> = operands.iter().map(operand).collect();
            format!(
                "atom{}.{}{} {}, {}, {}",
                qual(*sem, *scope),
                op.ptx_name(),
                ty(t),
                dst.clone().unwrap_or_default(),
                addr(a),
                ops.join(", ")
            )
        }
        InstrKind::Fence { sem, scope: sc } => {
            let s = match sem {
                FenceSem::Sc => "sc",
                FenceSem::AcqRel => "acq_rel",
                FenceSem::Acquire => "acquire",
                FenceSem::Release => "release",
            };
            format!("fence.{}.{}", s, scope(*sc))
        }
        InstrKind::Alu { op, dst, srcs, .. } => {
            let ops: Vec<String> = srcs.iter().map(operand).collect();
            format!("{}.s64 {}, {}", alu(*op), dst, ops.join(", "))
        }
        InstrKind::Setp { cmp: c, dst, a, b, .. } => {
            format!("setp.{}.s64 {}, {}, {}", cmp(*c), dst, operand(a), operand(b))
        }
        InstrKind::Branch { cond: BranchCond::Compare { cmp: c, a, b }, target } => {
            format!("b{} {}, {}, {}", cmp(*c), operand(a), operand(b), target)
        }
        InstrKind::Branch { target, .. } => format!("bra {}", target),
        InstrKind::Label(l) => format!("{}:", l),
        _ => String::new(),
    }
}

/// The whole PTX test; `p` is the program built from `lit` (its locations
/// give the init block, its condition the last line).
pub fn litmus_text(lit: &Litmus, p: &Program, doc: &str) -> String {
    let mut s = format!("PTX {}\n\"{}\"\n{{\n", lit.name, doc.replace('"', "'"));
    let mut inits: Vec<String> = p.locations.iter().map(|l| format!("{} = {};", l.name, l.init)).collect();
    for i in &lit.init {
        match i {
            InitItem::Register { thread, reg, value, .. } => inits.push(format!("P{}:{} = {};", thread, reg, value)),
            InitItem::RegisterAddress { thread, reg, location, .. } => {
                inits.push(format!("P{}:{} = {};", thread, reg, location))
            }
            _ => {}
        }
    }
    s.push_str(&inits.join(" "));
    s.push_str("\n}\n");
    let heads: Vec<String> = lit
        .threads
        .iter()
        .map(|h| {
            format!(
                "P{}@cta {},{}gpu {}",
                h.id,
                h.cta,
                h.cluster.map_or(String::new(), |c| format!("cluster {},", c)),
                h.gpu
            )
        })
        .collect();
    let cols: Vec<Vec<String>> =
        lit.code.iter().map(|c| c.iter().map(instr).filter(|t| !t.is_empty()).collect()).collect();
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> =
        (0..heads.len()).map(|t| cols[t].iter().map(String::len).chain([heads[t].len()]).max().unwrap_or(0)).collect();
    let line = |cells: Vec<&str>| {
        cells.iter().zip(&width).map(|(c, w)| format!(" {:<w$} ", c, w = w)).collect::<Vec<_>>().join("|") + ";\n"
    };
    s.push_str(&line(heads.iter().map(String::as_str).collect()));
    for r in 0..rows {
        s.push_str(&line(cols.iter().map(|c| c.get(r).map_or("", String::as_str)).collect()));
    }
    if !lit.locations.is_empty() {
        let locs: Vec<String> = lit.locations.iter().map(|o| format!("{};", o)).collect();
        s.push_str(&format!("locations [{}]\n", locs.join(" ")));
    }
    if p.condition_given {
        s.push_str(&lit.condition.text);
        s.push('\n');
    }
    s
}
