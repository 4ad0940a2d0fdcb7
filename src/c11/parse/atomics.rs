//! The C11 atomic functions (C11 7.17: `atomic_load_explicit`, `atomic_store_explicit`, `atomic_exchange`,
//! `atomic_fetch_*`, `atomic_compare_exchange_*`, `atomic_thread_fence`, and herd's `c11.def` short forms) lowered
//! into `ld`/`st`/`atom`/`fence` with their C orders recorded, and the CUDA/OpenCL scope arguments.

use super::expr::{expr_span, Call, Expr};
use super::stmt::Lower;
use crate::ast::{AluOp, AtomOp, BranchCond, Cmp, FenceSem, InstrKind, IntTy, Operand, Proxy, Scope, Sem, Span};
use crate::c11::{CompareExchange, Order};
use crate::error::{Error, Result};

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

/// Whether the call is an atomic function whose value is the object's (old) value:
/// a load, an exchange or a fetch-and-op (not a compare-exchange, whose value is 0 or 1).
pub(super) fn reads_its_object(name: &str) -> bool {
    matches!(op_of(name), Some((Op::Load | Op::Rmw(..), _, _)))
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

/// The bytes an access of a location of type `ty` covers (4 for an address: untyped).
fn size_of(ty: Option<IntTy>) -> u8 {
    ty.map_or(4, |t| (t.bits / 8) as u8)
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
    pub(super) fn call_into(&mut self, c: &Call, dst: Option<&str>) -> Result<()> {
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
        let ty = self.access_ty(&c.args[0]);
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
            size: size_of(ty),
            ty,
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
        let ty = self.access_ty(&c.args[0]);
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
            size: size_of(ty),
            ty,
            shared: false,
        };
        self.emit(kind, c.span, &c.text, Some(order));
        Ok(())
    }

    pub(super) fn load(
        &mut self,
        a: &Expr,
        order: Order,
        scope: Option<Scope>,
        dst: &str,
        span: Span,
        text: &str,
    ) -> Result<()> {
        let addr = self.address(a, span, text)?;
        let ty = self.access_ty(a);
        let kind = InstrKind::Load {
            sem: sem_of(order, true, false),
            scope,
            proxy: Proxy::Generic,
            dst: dst.to_string(),
            addr,
            size: size_of(ty),
            ty,
            shared: false,
            private: false,
        };
        self.emit(kind, span, text, Some(order));
        Ok(())
    }

    pub(super) fn store(
        &mut self,
        a: &Expr,
        v: &Expr,
        order: Order,
        scope: Option<Scope>,
        span: Span,
        text: &str,
    ) -> Result<()> {
        let addr = self.address(a, span, text)?;
        let src = self.operand(v, span, text)?;
        let ty = self.access_ty(a);
        let kind = InstrKind::Store {
            sem: sem_of(order, false, true),
            scope,
            proxy: Proxy::Generic,
            addr,
            src,
            size: size_of(ty),
            ty,
            shared: false,
            private: false,
        };
        self.emit(kind, span, text, Some(order));
        Ok(())
    }
}
