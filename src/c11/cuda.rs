//! A C test as CUDA C++ for `map --nvcc` (issue 28): one `extern "C"
//! __global__` function per thread, its code spelled the way a CUDA
//! programmer writes it, so that nvcc and libcu++ choose the PTX.
//!
//! The text is written from the litmus AST the C parser builds (its
//! statements already lowered to accesses, fences, register arithmetic and
//! branches, with the C order of each access in [`Orders`]), so `map --nvcc`
//! compiles exactly the program the source model decides (decisions D145,
//! D146):
//! - an atomic access or fence: `cuda::atomic_ref<int, cuda::thread_scope_X>`
//!   on the location with the C order (`cuda::memory_order_X`), a fence
//!   `cuda::atomic_thread_fence(order, scope)`; a compare-exchange
//!   `compare_exchange_{strong,weak}` with its two orders;
//! - a plain access: a load or store through the plain `int*` parameter (not
//!   `volatile`, which PTX reads as `.relaxed.sys` and so would turn the
//!   test's non-atomic accesses into strong ones);
//! - registers: `int` locals (a register holding an address: `char*`);
//!   `if` as the parser lowered it, `if (cond) goto L;`;
//! - each observed register is written to the thread's `out__` array at the
//!   end, in the order [`CudaTest::outs`] gives.

use super::{Order, Orders};
use crate::ast::{
    Addr, AddrBase, AluOp, AtomOp, BranchCond, Cmp, InitItem, Instr, InstrKind, Litmus, Observable, Operand, Scope,
};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

/// The CUDA text of a C test and what the harness needs to run it.
pub struct CudaTest {
    pub text: String,
    /// The locations, in the order every thread function takes them.
    pub locations: Vec<String>,
    /// Per thread, the registers its function writes to `out__[0..]`.
    pub outs: Vec<Vec<String>>,
}

/// libcu++'s name of a scope. libcu++ (CCCL 3, with nvcc 13.5) has no public
/// `cuda::thread_scope_cluster`: a cluster-scoped access cannot be written (D146).
fn thread_scope(s: Scope) -> Result<&'static str> {
    Ok(match s {
        Scope::Cta => "cuda::thread_scope_block",
        Scope::Gpu => "cuda::thread_scope_device",
        Scope::Sys => "cuda::thread_scope_system",
        Scope::Cluster => {
            return Err(Error::limit(
                "`map --nvcc` cannot write a cluster-scoped access: libcu++ has no public `cuda::thread_scope_cluster`",
            ))
        }
    })
}

fn memory_order(o: Order) -> &'static str {
    match o {
        Order::Na | Order::Rlx => "cuda::memory_order_relaxed",
        Order::Con => "cuda::memory_order_consume",
        Order::Acq => "cuda::memory_order_acquire",
        Order::Rel => "cuda::memory_order_release",
        Order::AcqRel => "cuda::memory_order_acq_rel",
        Order::Sc => "cuda::memory_order_seq_cst",
    }
}

fn cmp_op(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
    }
}

/// A register's C name: the parser's temporaries `%cN` become `c__N`.
fn reg(r: &str) -> String {
    match r.strip_prefix('%') {
        Some(rest) => format!("{}__", rest),
        None => r.to_string(),
    }
}

fn operand(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => reg(r),
        Operand::Imm(k) => k.to_string(),
        Operand::Sym(s) => format!("(char*){}", s),
    }
}

/// The `int` object an address names, as an lvalue.
fn object(a: &Addr) -> String {
    match (&a.base, a.offset) {
        (AddrBase::Sym(s), 0) => format!("*{}", s),
        (AddrBase::Sym(s), k) => format!("*(int*)((char*){} + {})", s, k),
        (AddrBase::Reg(r), k) => format!("*(int*)({} + {})", reg(r), k),
    }
}

fn atomic_ref(a: &Addr, scope: Option<Scope>) -> Result<String> {
    Ok(format!("cuda::atomic_ref<int, {}>({})", thread_scope(scope.unwrap_or(Scope::Sys))?, object(a)))
}

/// The locations of a test: those the init block gives a value and those its code names.
fn locations(lit: &Litmus) -> Result<Vec<String>> {
    let mut names = BTreeSet::new();
    for i in &lit.init {
        match i {
            InitItem::Location { name, .. } => {
                names.insert(name.clone());
            }
            InitItem::LocationAddress { span, .. } => {
                return Err(Error::input("`map --nvcc` cannot pass a location holding an address", *span))
            }
            _ => {}
        }
    }
    for i in lit.code.iter().flatten() {
        let addr = match &i.kind {
            InstrKind::Load { addr, .. } | InstrKind::Store { addr, .. } | InstrKind::Atomic { addr, .. } => Some(addr),
            _ => None,
        };
        if let Some(Addr { base: AddrBase::Sym(s), .. }) = addr {
            names.insert(s.clone());
        }
        if let InstrKind::Alu { srcs, .. } = &i.kind {
            names.extend(srcs.iter().filter_map(|o| if let Operand::Sym(s) = o { Some(s.clone()) } else { None }));
        }
    }
    Ok(names.into_iter().collect())
}

/// The CUDA text of `lit`, whose observables (the source program's) say
/// which registers go to `out__`.
pub fn cuda_source(lit: &Litmus, observables: &[Observable]) -> Result<CudaTest> {
    let orders = lit.c11.as_ref().ok_or_else(|| Error::input_nospan("not a C test"))?;
    let locations = locations(lit)?;
    let mut text = format!(
        "// {}: the C test written with libcu++, one kernel per thread (ptx-litmus map --nvcc).\n\
         #include <cuda/atomic>\n",
        lit.name
    );
    let mut outs = Vec::new();
    for (t, code) in lit.code.iter().enumerate() {
        let out: Vec<String> = observables
            .iter()
            .filter_map(|o| match o {
                Observable::Reg { thread, reg } if *thread == t => Some(reg.clone()),
                _ => None,
            })
            .collect();
        let mut params: Vec<String> = locations.iter().map(|l| format!("int* {}", l)).collect();
        params.push("int* out__".into());
        text.push_str(&format!("\nextern \"C\" __global__ void P{}({}) {{\n", t, params.join(", ")));
        for d in declarations(lit, t, code, &out) {
            text.push_str(&format!("  {}\n", d));
        }
        for line in (ThreadText { orders, t }).body(code)? {
            text.push_str(&line);
            text.push('\n');
        }
        for (k, r) in out.iter().enumerate() {
            text.push_str(&format!("  out__[{}] = {};\n", k, reg(r)));
        }
        text.push_str("}\n");
        outs.push(out);
    }
    Ok(CudaTest { text, locations, outs })
}

/// `int r0 = 0;` for each register of thread `t` (its initial value from the
/// init block); `char* c__3 = 0;` for one that holds an address.
fn declarations(lit: &Litmus, t: usize, code: &[Instr], observed: &[String]) -> Vec<String> {
    let mut regs: BTreeMap<String, bool> = observed.iter().map(|r| (r.clone(), false)).collect();
    let mut init: BTreeMap<&str, String> = BTreeMap::new();
    for i in &lit.init {
        match i {
            InitItem::Register { thread, reg: r, value, .. } if *thread == t => {
                regs.entry(r.clone()).or_insert(false);
                init.insert(r, value.to_string());
            }
            InitItem::RegisterAddress { thread, reg: r, location, .. } if *thread == t => {
                regs.insert(r.clone(), true);
                init.insert(r, format!("(char*){}", location));
            }
            _ => {}
        }
    }
    for i in code {
        let (dst, srcs): (Option<&String>, &[Operand]) = match &i.kind {
            InstrKind::Load { dst, .. } => (Some(dst), &[]),
            InstrKind::Atomic { dst, operands, .. } => (dst.as_ref(), operands),
            InstrKind::Alu { dst, srcs, .. } => (Some(dst), srcs),
            InstrKind::Setp { dst, .. } => (Some(dst), &[]),
            _ => (None, &[]),
        };
        // A register is an address when it is set from a location or from an address.
        let holds_address = srcs.iter().any(|o| match o {
            Operand::Sym(_) => true,
            Operand::Reg(r) => regs.get(r).copied().unwrap_or(false),
            Operand::Imm(_) => false,
        });
        if let Some(d) = dst {
            let e = regs.entry(d.clone()).or_insert(false);
            *e |= holds_address && matches!(i.kind, InstrKind::Alu { .. });
        }
        if let InstrKind::Load { addr: Addr { base: AddrBase::Reg(r), .. }, .. }
        | InstrKind::Store { addr: Addr { base: AddrBase::Reg(r), .. }, .. }
        | InstrKind::Atomic { addr: Addr { base: AddrBase::Reg(r), .. }, .. } = &i.kind
        {
            regs.insert(r.clone(), true);
        }
    }
    regs.iter()
        .map(|(r, &address)| {
            let ty = if address { "char*" } else { "int" };
            format!("{} {} = {};", ty, reg(r), init.get(r.as_str()).cloned().unwrap_or_else(|| "0".into()))
        })
        .collect()
}

/// The statements of one thread.
struct ThreadText<'a> {
    orders: &'a Orders,
    t: usize,
}

impl ThreadText<'_> {
    fn body(&self, code: &[Instr]) -> Result<Vec<String>> {
        let mut lines = Vec::new();
        let mut last_text = None;
        let mut pc = 0;
        while pc < code.len() {
            let i = &code[pc];
            // Each C statement once, as a comment before the code it became.
            if last_text != Some(&i.text) && !i.text.is_empty() {
                lines.push(format!("  // {}", i.text.replace('\n', " ")));
                last_text = Some(&i.text);
            }
            let (stmt, used) = self.statement(code, pc)?;
            if !stmt.is_empty() {
                lines.push(format!("  {}", stmt));
            }
            pc += used;
        }
        Ok(lines)
    }

    fn order(&self, pc: usize, i: &Instr) -> Result<Order> {
        self.orders.get(self.t, pc).ok_or_else(|| Error::internal(format!("the access `{}` has no C order", i.text)))
    }

    /// The statement instruction `pc` becomes, and how many instructions it covers.
    fn statement(&self, code: &[Instr], pc: usize) -> Result<(String, usize)> {
        let i = &code[pc];
        let stmt = match &i.kind {
            InstrKind::Load { scope, dst, addr, .. } => match self.order(pc, i)? {
                Order::Na => format!("{} = {};", reg(dst), object(addr)),
                o => format!("{} = {}.load({});", reg(dst), atomic_ref(addr, *scope)?, memory_order(o)),
            },
            InstrKind::Store { scope, addr, src, .. } => match self.order(pc, i)? {
                Order::Na => format!("{} = {};", object(addr), operand(src)),
                o => format!("{}.store({}, {});", atomic_ref(addr, *scope)?, operand(src), memory_order(o)),
            },
            InstrKind::Atomic { op: AtomOp::Cas, .. } => return self.compare_exchange(code, pc),
            InstrKind::Atomic { op, scope, dst, addr, operands, .. } => {
                let method = match op {
                    AtomOp::Add => "fetch_add",
                    AtomOp::And => "fetch_and",
                    AtomOp::Or => "fetch_or",
                    AtomOp::Xor => "fetch_xor",
                    AtomOp::Exch => "exchange",
                    _ => return Err(unwritable(i)),
                };
                let value = operands.first().map(operand).unwrap_or_default();
                let call = format!(
                    "{}.{}({}, {})",
                    atomic_ref(addr, *scope)?,
                    method,
                    value,
                    memory_order(self.order(pc, i)?)
                );
                match dst {
                    Some(d) => format!("{} = {};", reg(d), call),
                    None => format!("{};", call),
                }
            }
            InstrKind::Fence { scope, .. } => {
                format!("cuda::atomic_thread_fence({}, {});", memory_order(self.order(pc, i)?), thread_scope(*scope)?)
            }
            // A relaxed or consume fence: the parser keeps no event for it, and no scope.
            InstrKind::Nop => match self.orders.get(self.t, pc) {
                Some(o) => format!("cuda::atomic_thread_fence({}, {});", memory_order(o), fence_scope(&i.text)?),
                None => String::new(),
            },
            InstrKind::Alu { op, dst, srcs, .. } => alu(*op, dst, srcs).ok_or_else(|| unwritable(i))?,
            InstrKind::Setp { cmp, dst, a, b, .. } => {
                format!("{} = ({} {} {});", reg(dst), operand(a), cmp_op(*cmp), operand(b))
            }
            InstrKind::Branch { cond: BranchCond::Always, target } => format!("goto {};", target),
            InstrKind::Branch { cond: BranchCond::Compare { cmp, a, b }, target } => {
                format!("if ({} {} {}) goto {};", operand(a), cmp_op(*cmp), operand(b), target)
            }
            InstrKind::Label(l) => format!("{}:;", l),
            _ => return Err(unwritable(i)),
        };
        Ok((stmt, 1))
    }

    /// `atom.cas` and the `setp.eq` after it (the parser's lowering of a C
    /// compare-exchange) as one libcu++ call: the value read lands in the
    /// expected copy, the boolean in the `setp`'s register, so that a weak
    /// compare-exchange's spurious failure is the compiler's to produce.
    fn compare_exchange(&self, code: &[Instr], pc: usize) -> Result<(String, usize)> {
        let i = &code[pc];
        let InstrKind::Atomic { scope, dst: Some(old), addr, operands, .. } = &i.kind else {
            return Err(unwritable(i));
        };
        let (Some(cx), Some(InstrKind::Setp { dst: ok, .. }), [expected, desired]) =
            (self.orders.compare_exchange(self.t, pc), code.get(pc + 1).map(|n| &n.kind), &operands[..])
        else {
            return Err(unwritable(i));
        };
        let method = if cx.weak { "compare_exchange_weak" } else { "compare_exchange_strong" };
        let stmt = format!(
            "{{ int e__ = {}; {} = {}.{}(e__, {}, {}, {}); {} = e__; }}",
            operand(expected),
            reg(ok),
            atomic_ref(addr, *scope)?,
            method,
            operand(desired),
            memory_order(self.order(pc, i)?),
            memory_order(cx.failure),
            reg(old)
        );
        Ok((stmt, 2))
    }
}

fn alu(op: AluOp, dst: &str, srcs: &[Operand]) -> Option<String> {
    let s: Vec<String> = srcs.iter().map(operand).collect();
    let e = match (op, &s[..]) {
        (AluOp::Mov, [a]) => a.clone(),
        (AluOp::Neg, [a]) => format!("-{}", a),
        (AluOp::Not, [a]) => format!("~{}", a),
        (op, [a, b]) => {
            let o = match op {
                AluOp::Add => "+",
                AluOp::Sub => "-",
                AluOp::Mul => "*",
                AluOp::Div => "/",
                AluOp::Rem => "%",
                AluOp::And => "&",
                AluOp::Or => "|",
                AluOp::Xor => "^",
                AluOp::Shl => "<<",
                AluOp::Shr => ">>",
                _ => return None,
            };
            format!("{} {} {}", a, o, b)
        }
        _ => return None,
    };
    Some(format!("{} = {};", reg(dst), e))
}

/// The scope of a relaxed or consume fence, read from its C text (its last
/// argument), system when it names none.
fn fence_scope(text: &str) -> Result<&'static str> {
    let last = text.trim_end().trim_end_matches([')', ';']).rsplit(',').next().unwrap_or("").trim();
    thread_scope(super::parse::scope_of_name(last).unwrap_or(Scope::Sys))
}

fn unwritable(i: &Instr) -> Error {
    Error::limit(format!("`map --nvcc` cannot write `{}` in CUDA", i.text))
}
