//! A C test compiled by a mapping: each C access and fence replaced by its
//! table line's PTX sequence, at the C operation's scope unless the line
//! names one; a compare-exchange looked up by the stronger of its orders (D144).

use super::{Kind, Mapping, Step};
use crate::ast::{Instr, InstrKind, Litmus, Scope, Sem};
use crate::c11::Order;
use crate::error::{Error, Result};

/// The C operation an instruction of a C test performs, with its scope.
fn operation(i: &Instr) -> Option<(Kind, Scope)> {
    Some(match &i.kind {
        InstrKind::Load { scope, .. } => (Kind::Load, scope.unwrap_or(Scope::Sys)),
        InstrKind::Store { scope, .. } => (Kind::Store, scope.unwrap_or(Scope::Sys)),
        InstrKind::Atomic { scope, .. } => (Kind::Rmw, scope.unwrap_or(Scope::Sys)),
        InstrKind::Fence { scope, .. } => (Kind::Fence, *scope),
        InstrKind::Nop => (Kind::Fence, Scope::Sys),
        _ => return None,
    })
}

/// The access `i` with semantics `sem` at `scope` (none for `.weak`).
fn with_sem(i: &Instr, sem: Sem, scope: Scope) -> Instr {
    let sc = if sem == Sem::Weak { None } else { Some(scope) };
    let mut out = i.clone();
    match &mut out.kind {
        InstrKind::Load { sem: s, scope: c, .. }
        | InstrKind::Store { sem: s, scope: c, .. }
        | InstrKind::Atomic { sem: s, scope: c, .. } => {
            *s = sem;
            *c = sc;
        }
        _ => {}
    }
    out
}

/// The order a compare-exchange is compiled by: the stronger of its success
/// and failure orders, release and acquire making acq_rel (D144; libcu++'s
/// `__stronger_order_cuda` does the same).
pub fn stronger(success: Order, failure: Order) -> Order {
    let rank = |o: Order| match o {
        Order::Na | Order::Rlx => 0,
        Order::Con => 1,
        Order::Acq => 2,
        Order::Rel => 3,
        Order::AcqRel => 4,
        Order::Sc => 5,
    };
    let (hi, lo) = if rank(success) >= rank(failure) { (success, failure) } else { (failure, success) };
    match (hi, lo) {
        (Order::Rel, Order::Con | Order::Acq) => Order::AcqRel,
        (hi, _) => hi,
    }
}

/// Compile a C test (its AST and orders) into a PTX test by `m`.
pub fn compile(c: &Litmus, m: &Mapping) -> Result<Litmus> {
    let orders = c.c11.as_ref().ok_or_else(|| Error::input_nospan("not a C test"))?;
    let mut code = Vec::with_capacity(c.code.len());
    for (t, instrs) in c.code.iter().enumerate() {
        let mut out = Vec::new();
        for (pc, i) in instrs.iter().enumerate() {
            let (Some(mut order), Some((mut kind, scope))) = (orders.get(t, pc), operation(i)) else {
                out.push(i.clone());
                continue;
            };
            // The `setp` after a compare-exchange stays: `atom.cas` never fails spuriously.
            if let Some(cx) = orders.compare_exchange(t, pc) {
                (kind, order) = (Kind::Cas, stronger(order, cx.failure));
            }
            let steps = m.steps(kind, order, scope).ok_or_else(|| {
                let what = match kind {
                    Kind::Load => "load",
                    Kind::Store => "store",
                    Kind::Rmw => "read-modify-write",
                    Kind::Cas => "compare-exchange",
                    Kind::Fence => "fence",
                };
                Error::input(
                    format!("the mapping `{}` has no line for a {} with {}", m.name, what, order.c_name()),
                    i.span,
                )
            })?;
            for s in steps {
                out.push(match *s {
                    Step::Fence(sem, sc) => {
                        Instr { kind: InstrKind::Fence { sem, scope: sc.unwrap_or(scope) }, ..i.clone() }
                    }
                    Step::Access(sem, sc) => with_sem(i, sem, sc.unwrap_or(scope)),
                });
            }
        }
        code.push(out);
    }
    Ok(Litmus { arch: "PTX".into(), code, c11: None, ..c.clone() })
}
