//! Memory instructions: ld/st and their texture, surface and constant forms,
//! atom/red and suatom/sured. Qualifiers may come in any order.

use super::alu::type_of;
use super::instr::{dst, state_space, two_of, Names, Qual, RawInstr, Space};
use crate::ast::{AluOp, AtomOp, InstrKind, IntTy, Operand, Proxy, Scope, Sem};
use crate::error::{Error, Result};

/// `atom.sub` (corpus) has no AST operation: it becomes `add` of the negated value.
#[derive(Clone, Copy)]
enum AtomKind {
    Op(AtomOp),
    Sub,
}

/// The qualifiers of a memory instruction, sorted by meaning.
#[derive(Default)]
struct MemQuals {
    sem: Option<(Sem, Qual)>,
    scope: Option<(Scope, Qual)>,
    mmio: Option<Qual>,
    space: Option<(Space, Qual)>,
    nc: Option<Qual>,
    /// The type, and whether it is a floating-point one.
    ty: Option<((IntTy, bool), Qual)>,
    op: Option<(AtomKind, Qual)>,
}

impl MemQuals {
    /// Access size in bytes (4 for the untyped corpus spelling).
    fn size(&self) -> u8 {
        self.ty.as_ref().map_or(4, |((t, _), _)| (t.bits / 8).max(1) as u8)
    }
    fn ty(&self) -> Option<IntTy> {
        self.ty.as_ref().map(|((t, _), _)| *t)
    }
    fn shared(&self) -> bool {
        matches!(self.space, Some((Space::Shared, _)))
    }
    fn private(&self) -> bool {
        matches!(self.space, Some((Space::Private, _)))
    }
}

fn sem_of(q: &str) -> Option<Sem> {
    match q {
        "weak" => Some(Sem::Weak),
        "relaxed" => Some(Sem::Relaxed),
        "acquire" => Some(Sem::Acquire),
        "release" => Some(Sem::Release),
        "acq_rel" => Some(Sem::AcqRel),
        "volatile" => Some(Sem::Volatile),
        _ => None,
    }
}

pub(crate) fn scope_of(q: &str) -> Option<Scope> {
    match q {
        "cta" => Some(Scope::Cta),
        "cluster" => Some(Scope::Cluster),
        "gpu" => Some(Scope::Gpu),
        "sys" => Some(Scope::Sys),
        _ => None,
    }
}

fn atom_op_of(q: &str) -> Option<AtomKind> {
    use AtomOp::*;
    let op = match q {
        "add" => Add,
        "inc" => Inc,
        "dec" => Dec,
        "exch" => Exch,
        "cas" => Cas,
        "and" => And,
        "or" => Or,
        "xor" => Xor,
        "min" => Min,
        "max" => Max,
        "sub" => return Some(AtomKind::Sub),
        _ => return None,
    };
    Some(AtomKind::Op(op))
}

/// Cache operators and eviction/prefetch hints: accepted with no effect on the
/// model. The ISA calls cache operators performance hints (9.7.9.1), and the
/// memory model (chapter 8) never mentions caches; see decisions.md D19.
fn ignored(q: &str) -> bool {
    matches!(q, "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "unified")
        || ["level::", "L1::", "L2::"].iter().any(|p| q.starts_with(p))
}

/// Surface and texture geometry and clamping: accepted and ignored.
fn geometry(q: &str) -> bool {
    matches!(q, "1d" | "2d" | "3d" | "a1d" | "a2d" | "trap" | "clamp" | "zero" | "b" | "p")
}

fn set<T>(raw: &RawInstr, slot: &mut Option<(T, Qual)>, v: T, q: &Qual, what: &str) -> Result<()> {
    if let Some((_, prev)) = slot {
        return Err(two_of(raw, what, prev, q));
    }
    *slot = Some((v, q.clone()));
    Ok(())
}

fn mem_quals(raw: &RawInstr, atomic: bool) -> Result<MemQuals> {
    let surface_like = matches!(raw.opcode.as_str(), "tld" | "suld" | "sust" | "suatom" | "sured");
    let mut m = MemQuals::default();
    for q in &raw.quals {
        let t = q.text.as_str();
        if let Some(s) = sem_of(t) {
            set(raw, &mut m.sem, s, q, "memory semantics")?;
        } else if let Some(s) = scope_of(t) {
            set(raw, &mut m.scope, s, q, "scope")?;
        } else if let Some(ty) = type_of(t) {
            set(raw, &mut m.ty, ty, q, "type")?;
        } else if let Some(space) = state_space(t) {
            set(raw, &mut m.space, space, q, "state space")?;
        } else if t == "mmio" && !atomic {
            m.mmio = Some(q.clone());
        } else if t == "nc" && raw.opcode == "ld" {
            m.nc = Some(q.clone());
        } else if let (Some(op), true) = (atom_op_of(t), atomic) {
            set(raw, &mut m.op, op, q, "operation")?;
        } else if !(ignored(t) || (surface_like && geometry(t))) {
            return Err(raw.bad_qual(q));
        }
    }
    Ok(m)
}

/// Sem and scope of ld/st (ISA 9.7.9.8/9.7.9.10): no sem is `.weak`; a strong
/// sem needs a scope; `.weak` and `.volatile` take none; `.mmio` is `.mmio.relaxed.sys`.
fn ld_st_sem(raw: &RawInstr, m: &MemQuals, load: bool) -> Result<(Sem, Option<Scope>)> {
    let op = raw.opcode.as_str();
    let sem = m.sem.as_ref().map(|(s, q)| (*s, q));
    let scope = m.scope.as_ref().map(|(s, q)| (*s, q));
    if let Some(q) = &m.mmio {
        return match (sem, scope) {
            (Some((Sem::Relaxed, _)), Some((Scope::Sys, _))) => Ok((Sem::Mmio, Some(Scope::Sys))),
            _ => Err(Error::input(format!("`{}.mmio` requires `.relaxed.sys`", op), q.span)),
        };
    }
    let (strong, forbidden) =
        if load { ("`.relaxed` or `.acquire`", "release") } else { ("`.relaxed` or `.release`", "acquire") };
    match (sem, scope) {
        (None, None) => Ok((Sem::Weak, None)),
        (None, Some((_, q))) => Err(Error::input(format!("a scope on `{}` requires {}", op, strong), q.span)),
        (Some((Sem::Weak | Sem::Volatile, sq)), Some((_, q))) => {
            Err(Error::input(format!("`{}.{}` cannot have a scope", op, sq.text), q.span))
        }
        (Some((s @ (Sem::Weak | Sem::Volatile), _)), None) => Ok((s, None)),
        (Some((Sem::AcqRel, q)), _) => Err(Error::input(format!("`{}` cannot have `.acq_rel`", op), q.span)),
        (Some((Sem::Release, q)), _) if load => {
            Err(Error::input(format!("`{}` cannot have `.{}`", op, forbidden), q.span))
        }
        (Some((Sem::Acquire, q)), _) if !load => {
            Err(Error::input(format!("`{}` cannot have `.{}`", op, forbidden), q.span))
        }
        (Some((_, q)), None) => {
            Err(Error::input(format!("`{}.{}` requires a scope (.cta, .cluster, .gpu or .sys)", op, q.text), q.span))
        }
        (Some((s, _)), Some((sc, _))) => Ok((s, Some(sc))),
    }
}

fn proxy_of(opcode: &str) -> Proxy {
    match opcode {
        "tld" => Proxy::Texture,
        "suld" | "sust" | "suatom" | "sured" => Proxy::Surface,
        "cold" | "ldc" => Proxy::Constant,
        _ => Proxy::Generic,
    }
}

/// `ld`, `tld`, `suld`, `cold`/`ldc`: `dst, addr`. `ld.global.nc` reads
/// through the texture path (ISA: non-coherent loads use the texture cache).
/// Dat3M's `ld r0, 1` / `ld r0, r1` (an immediate, or a register that does
/// not hold an address from the init block) is the assignment `r0 := 1`.
pub(crate) fn load(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let m = mem_quals(raw, false)?;
    let (sem, scope) = ld_st_sem(raw, &m, true)?;
    // `ld.const` reads the read-only constant state space (5.1.3) through
    // the constant proxy, like the corpus `ldc`.
    let proxy = if m.nc.is_some() {
        Proxy::Texture
    } else if matches!(m.space, Some((Space::Const, _))) {
        Proxy::Constant
    } else {
        proxy_of(&raw.opcode)
    };
    match raw.operands.as_slice() {
        [d, a] if names.is_assignment_source(a) => Ok(InstrKind::Alu {
            op: AluOp::Mov,
            dst: dst(d)?,
            srcs: vec![names.value(a)?],
            // Dat3M's untyped `ld r0, 1`: a 64-bit register assignment (D15, D26).
            ty: None,
            src_ty: None,
        }),
        [d, a] => Ok(InstrKind::Load {
            sem,
            scope,
            proxy,
            dst: dst(d)?,
            addr: names.addr(a)?,
            size: m.size(),
            ty: m.ty(),
            shared: m.shared(),
            private: m.private(),
        }),
        _ => Err(raw.arity("a destination register and an address")),
    }
}

/// `st`, `sust`: `addr, src`.
pub(crate) fn store(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let m = mem_quals(raw, false)?;
    let (sem, scope) = ld_st_sem(raw, &m, false)?;
    read_only(raw, &m)?;
    let proxy = proxy_of(&raw.opcode);
    match raw.operands.as_slice() {
        [a, v] => Ok(InstrKind::Store {
            sem,
            scope,
            proxy,
            addr: names.addr(a)?,
            src: names.value(v)?,
            size: m.size(),
            ty: m.ty(),
            shared: m.shared(),
            private: m.private(),
        }),
        _ => Err(raw.arity("an address and a value")),
    }
}

/// Sem of atom/red: none is `.relaxed`; the scope may be absent (the model
/// applies the default). `red.acq_rel` is accepted because the public corpus uses it.
fn atomic_sem(raw: &RawInstr, m: &MemQuals, red: bool) -> Result<Sem> {
    match &m.sem {
        None => Ok(Sem::Relaxed),
        Some((Sem::Weak | Sem::Volatile, q)) => Err(raw.bad_qual(q)),
        Some((Sem::Acquire, q)) if red => Err(Error::input(format!("`{}` cannot have `.acquire`", raw.opcode), q.span)),
        Some((s, _)) => Ok(*s),
    }
}

/// `atom{.sem}{.scope}.op dst, addr, v{, v2}`, `red{.sem}{.scope}.op addr, v`
/// (and `suatom`/`sured`), in any qualifier order.
pub(crate) fn atomic(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let red = matches!(raw.opcode.as_str(), "red" | "sured");
    let m = mem_quals(raw, true)?;
    let sem = atomic_sem(raw, &m, red)?;
    let Some((kind, opq)) = &m.op else {
        let msg = format!("`{}` requires an operation such as .add, .exch or .cas", raw.opcode);
        return Err(Error::input(msg, raw.opcode_span));
    };
    let op = match kind {
        AtomKind::Op(op) => *op,
        AtomKind::Sub => AtomOp::Add,
    };
    if red && matches!(op, AtomOp::Cas | AtomOp::Exch) {
        return Err(Error::input(format!("`{}` does not support `.{}`", raw.opcode, opq.text), opq.span));
    }
    let nvals = if op == AtomOp::Cas { 2 } else { 1 };
    let (d, rest) = match (red, raw.operands.split_first()) {
        (true, _) => (None, raw.operands.as_slice()),
        (false, Some((d, rest))) => (Some(dst(d)?), rest),
        (false, None) => (None, raw.operands.as_slice()),
    };
    let (a, vals) = match rest.split_first() {
        Some((a, vals)) if vals.len() == nvals && (red || d.is_some()) => (a, vals),
        _ => return Err(raw.arity(&atomic_form(red, nvals))),
    };
    let mut operands = vals.iter().map(|v| names.value(v)).collect::<Result<Vec<_>>>()?;
    if let AtomKind::Sub = kind {
        operands = negate(raw, operands)?;
    }
    read_only(raw, &m)?;
    if let Some((Space::Private, q)) = &m.space {
        return Err(Error::input(
            format!("`{}` cannot access `.{}` memory (atomic operations take .global or .shared)", raw.opcode, q.text),
            q.span,
        ));
    }
    // `atom.add.f32`/`.f64` is a floating-point add (D168); no other
    // floating-point atomic is modelled.
    let float_add = matches!((kind, &m.ty), (AtomKind::Op(AtomOp::Add), Some(((t, true), _))) if t.bits >= 32);
    if let Some(((_, true), q)) = &m.ty {
        if !float_add {
            return Err(Error::input(
                format!(
                    "floating-point `{}.{}.{}` is not supported: only `.add.f32` and `.add.f64` are modelled",
                    raw.opcode, opq.text, q.text
                ),
                q.span,
            ));
        }
    }
    let op = if float_add { AtomOp::FAdd } else { op };
    let scope = m.scope.as_ref().map(|(s, _)| *s);
    let addr = names.addr(a)?;
    Ok(InstrKind::Atomic {
        sem,
        scope,
        proxy: proxy_of(&raw.opcode),
        op,
        dst: d,
        addr,
        operands,
        size: m.size(),
        ty: m.ty(),
        shared: m.shared(),
    })
}

/// `.const` memory is read-only (ISA 5.1.3): no store or atomic may name it.
fn read_only(raw: &RawInstr, m: &MemQuals) -> Result<()> {
    match &m.space {
        Some((Space::Const, q)) => {
            Err(Error::input(format!("`{}` cannot write `.const` memory, which is read-only", raw.opcode), q.span))
        }
        _ => Ok(()),
    }
}

fn atomic_form(red: bool, nvals: usize) -> String {
    let vals = if nvals == 2 { "a compare value and a new value" } else { "one value" };
    match red {
        true => format!("an address and {}", vals),
        false => format!("a destination register, an address and {}", vals),
    }
}

/// `sub v` as `add -v`: only immediates can be negated in the AST.
fn negate(raw: &RawInstr, operands: Vec<Operand>) -> Result<Vec<Operand>> {
    let bad = || Error::input(format!("`{}.sub` needs an immediate value", raw.opcode), raw.span);
    operands
        .into_iter()
        .map(|o| match o {
            Operand::Imm(v) => v.checked_neg().map(Operand::Imm).ok_or_else(bad),
            _ => Err(bad()),
        })
        .collect()
}
