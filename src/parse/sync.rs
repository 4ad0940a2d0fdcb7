//! Fences (`fence.*`, `membar.*`, proxy fences) and barriers (`bar`, `barrier`,
//! `barrier.cluster`), in corpus and real PTX spelling.

use super::instr::{dst, two_of, Names, Qual, RawInstr, RawKind, RawOperand};
use super::mem::scope_of;
use crate::ast::{
    AtomOp, BarrierCount, BarrierOp, FenceSem, FenceSpace, InstrKind, MbarrierOp, Operand, Proxy, RedOp, Scope, Sem,
};
use crate::error::{Error, Result};

/// `fence{.sem}.scope`, `fence.proxy.kind`, `membar.{cta,gl,sys}`, `membar.proxy.kind`.
pub(crate) fn fence(raw: &RawInstr) -> Result<InstrKind> {
    raw.no_operands()?;
    if let Some((first, rest)) = raw.quals.split_first() {
        if first.text == "proxy" {
            return proxy_fence(raw, rest);
        }
        if first.text == "mbarrier_init" || first.text == "op_restrict" {
            return match rest {
                [r, c] if first.text == "mbarrier_init" && r.text == "release" && c.text == "cluster" => {
                    Ok(InstrKind::InitFence)
                }
                _ => Err(Error::input(
                    "the restricted fence is `fence.mbarrier_init.release.cluster` (9.7.13.4)",
                    raw.opcode_span,
                )),
            };
        }
    }
    if raw.opcode == "membar" {
        return membar(raw);
    }
    let mut sem: Option<(FenceSem, Qual)> = None;
    let mut scope: Option<(Scope, Qual)> = None;
    for q in &raw.quals {
        let s = match q.text.as_str() {
            "sc" => FenceSem::Sc,
            "acq_rel" => FenceSem::AcqRel,
            "acquire" => FenceSem::Acquire,
            "release" => FenceSem::Release,
            t if t.starts_with("sync_restrict") => return shared_fence(raw, &raw.quals, false),
            t => match scope_of(t) {
                Some(sc) => {
                    set(raw, &mut scope, sc, q, "scope")?;
                    continue;
                }
                None => return Err(raw.bad_qual(q)),
            },
        };
        set(raw, &mut sem, s, q, "memory semantics")?;
    }
    let Some((scope, _)) = scope else {
        return Err(Error::input("fence requires a scope (.cta, .cluster, .gpu or .sys)", raw.opcode_span));
    };
    Ok(InstrKind::Fence { sem: sem.map_or(FenceSem::AcqRel, |(s, _)| s), scope })
}

fn set<T>(raw: &RawInstr, slot: &mut Option<(T, Qual)>, v: T, q: &Qual, what: &str) -> Result<()> {
    if let Some((_, prev)) = slot {
        return Err(two_of(raw, what, prev, q));
    }
    *slot = Some((v, q.clone()));
    Ok(())
}

/// `membar.cta` / `.gl` / `.sys`: `fence.sc` at cta / gpu / sys scope.
fn membar(raw: &RawInstr) -> Result<InstrKind> {
    let mut scope: Option<(Scope, Qual)> = None;
    for q in &raw.quals {
        let s = match q.text.as_str() {
            "cta" => Scope::Cta,
            "gl" => Scope::Gpu,
            "sys" => Scope::Sys,
            _ => return Err(raw.bad_qual(q)),
        };
        set(raw, &mut scope, s, q, "scope")?;
    }
    match scope {
        Some((scope, _)) => Ok(InstrKind::Fence { sem: FenceSem::Sc, scope }),
        None => Err(Error::input("membar requires a scope (.cta, .gl or .sys)", raw.opcode_span)),
    }
}

/// `fence.proxy.{alias,texture,surface,constant}`, `fence.proxy.generic` (no
/// effect), `fence.proxy.async{.shared::cta,.shared::cluster,.global}` (D258);
/// other proxy kinds are not modelled.
fn proxy_fence(raw: &RawInstr, rest: &[Qual]) -> Result<InstrKind> {
    if rest.first().is_some_and(|q| q.text == "async" || q.text.starts_with("async::")) {
        return async_fence(raw, rest);
    }
    let proxy = match rest {
        // Dat3M's `fence.proxy.generic`: generic accesses need no proxy fence.
        [q] if q.text == "generic" => return Ok(InstrKind::Nop),
        [q] if q.text == "alias" => Proxy::Generic,
        [q] if q.text == "texture" => Proxy::Texture,
        [q] if q.text == "surface" => Proxy::Surface,
        [q] if q.text == "constant" => Proxy::Constant,
        _ => {
            let msg = format!("unsupported proxy fence `{}`: expected .proxy.alias, .proxy.async, .proxy.texture, .proxy.surface or .proxy.constant", raw.mnemonic);
            return Err(Error::input(msg, raw.opcode_span));
        }
    };
    Ok(InstrKind::ProxyFence { proxy, space: FenceSpace::All })
}

/// `fence.proxy.async{.space}`: bidirectional between the generic and the
/// async proxy, limited to `space` (D258); `fence.proxy.async::generic.…`:
/// the unidirectional forms ([`shared_fence`]).
fn async_fence(raw: &RawInstr, rest: &[Qual]) -> Result<InstrKind> {
    if rest[0].text == "async::generic" {
        return shared_fence(raw, &rest[1..], true);
    }
    if rest[0].text != "async" {
        let msg = format!(
            "`.{}`: the unidirectional proxy fences are `fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster` and `fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster` (9.7.13.4)",
            rest[0].text
        );
        return Err(Error::input(msg, rest[0].span));
    }
    let space = match &rest[1..] {
        [] => FenceSpace::All,
        [q] if q.text == "shared::cta" => FenceSpace::SharedCta,
        [q] if q.text == "shared::cluster" => FenceSpace::SharedCluster,
        [q] if q.text == "global" => FenceSpace::Global,
        [q, ..] => {
            let msg =
                format!("`.{}`: fence.proxy.async takes one of .shared::cta, .shared::cluster or .global", q.text);
            return Err(Error::input(msg, q.span));
        }
    };
    Ok(InstrKind::ProxyFence { proxy: Proxy::Async, space })
}

/// 9.7.13.4 (D316): `{sem}.sync_restrict::{space}.cluster` after `fence` or
/// `fence.proxy.async::generic` (`to_async`): "When .sync_restrict is
/// .sync_restrict::shared::cta, .sem must be .release ... when
/// .sync_restrict is .sync_restrict::shared::cluster, .sem must be .acquire
/// ... the .scope must be specified as .cluster."
fn shared_fence(raw: &RawInstr, quals: &[Qual], to_async: bool) -> Result<InstrKind> {
    let form = if to_async { "fence.proxy.async::generic" } else { "fence" };
    let [sem, restrict, scope] = quals else {
        let msg = format!(
            "expected `{f}.release.sync_restrict::shared::cta.cluster` or `{f}.acquire.sync_restrict::shared::cluster.cluster` (9.7.13.4)",
            f = form
        );
        return Err(Error::input(msg, quals.first().map_or(raw.opcode_span, |q| q.span)));
    };
    let sem = match (sem.text.as_str(), restrict.text.as_str()) {
        ("release", "sync_restrict::shared::cta") => FenceSem::Release,
        ("acquire", "sync_restrict::shared::cluster") => FenceSem::Acquire,
        (_, "sync_restrict::shared::cluster::read") => {
            let msg = "`.sync_restrict::shared::cluster::read` (PTX ISA 9.4, a non-cumulative fence ordering shared::cluster reads only) is not modelled";
            return Err(Error::input(msg, restrict.span));
        }
        (s, "sync_restrict::shared::cta") => {
            let msg = format!("`.sync_restrict::shared::cta` requires `.release`, not `.{}` (9.7.13.4)", s);
            return Err(Error::input(msg, sem.span));
        }
        (s, "sync_restrict::shared::cluster") => {
            let msg = format!("`.sync_restrict::shared::cluster` requires `.acquire`, not `.{}` (9.7.13.4)", s);
            return Err(Error::input(msg, sem.span));
        }
        (_, r) => {
            let msg = format!("`.{}`: expected `.sync_restrict::shared::cta` (with .release) or `.sync_restrict::shared::cluster` (with .acquire) after the semantics (9.7.13.4)", r);
            return Err(Error::input(msg, restrict.span));
        }
    };
    if scope.text != "cluster" {
        let msg = format!("`.{}`: with `.sync_restrict` the scope must be `.cluster` (9.7.13.4)", scope.text);
        return Err(Error::input(msg, scope.span));
    }
    Ok(InstrKind::SharedFence { sem, to_async })
}

/// The qualifiers of a `bar`/`barrier` mnemonic.
#[derive(Default)]
struct BarQuals {
    op: Option<(&'static str, Qual)>,
    cta: bool,
    cluster: Option<Qual>,
    sem: Option<(&'static str, Qual)>,
    red: Option<(RedOp, Qual)>,
}

fn bar_quals(raw: &RawInstr) -> Result<BarQuals> {
    let mut b = BarQuals::default();
    for q in &raw.quals {
        match q.text.as_str() {
            "sync" => set(raw, &mut b.op, "sync", q, "barrier operation")?,
            "arrive" => set(raw, &mut b.op, "arrive", q, "barrier operation")?,
            "red" => set(raw, &mut b.op, "red", q, "barrier operation")?,
            "wait" => set(raw, &mut b.op, "wait", q, "barrier operation")?,
            "release" => set(raw, &mut b.sem, "release", q, "memory semantics")?,
            "relaxed" => set(raw, &mut b.sem, "relaxed", q, "memory semantics")?,
            "acquire" => set(raw, &mut b.sem, "acquire", q, "memory semantics")?,
            "popc" => set(raw, &mut b.red, RedOp::Popc, q, "reduction")?,
            "and" => set(raw, &mut b.red, RedOp::And, q, "reduction")?,
            "or" => set(raw, &mut b.red, RedOp::Or, q, "reduction")?,
            "cta" => b.cta = true,
            "cluster" if raw.opcode == "barrier" => b.cluster = Some(q.clone()),
            "aligned" | "u32" | "pred" => {}
            _ => return Err(raw.bad_qual(q)),
        }
    }
    Ok(b)
}

/// CTA barriers (`bar.cta.*` corpus form, `bar.*` / `barrier{.cta}.*` PTX form)
/// and cluster barriers.
pub(crate) fn barrier(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    if raw.opcode == "bar" && raw.quals.first().is_some_and(|q| q.text == "warp") {
        return warp_barrier(raw, names);
    }
    let b = bar_quals(raw)?;
    if let Some(cq) = &b.cluster {
        return cluster_barrier(raw, &b, cq);
    }
    if let Some((_, q)) = &b.sem {
        return Err(Error::input(format!("`.{}` is only valid on barrier.cluster", q.text), q.span));
    }
    let op = match (b.op.as_ref(), b.red.as_ref()) {
        (None, _) => {
            return Err(Error::input(format!("`{}` requires .sync, .arrive or .red", raw.opcode), raw.opcode_span))
        }
        (Some(("wait", q)), _) => return Err(Error::input("`.wait` is only valid on barrier.cluster", q.span)),
        (Some(("red", _)), Some((r, _))) => BarrierOp::Red(*r),
        (Some(("red", q)), None) => {
            return Err(Error::input("bar.red requires a reduction (.popc, .and or .or)", q.span))
        }
        (Some(_), Some((_, q))) => return Err(Error::input(format!("`.{}` is only valid on bar.red", q.text), q.span)),
        (Some(("sync", _)), None) => BarrierOp::Sync,
        (Some(_), None) => BarrierOp::Arrive,
    };
    let corpus = raw.opcode == "bar" && b.cta;
    let (red, args) = match op {
        BarrierOp::Red(_) => red_operands(raw, names)?,
        _ => (None, raw.operands.as_slice()),
    };
    let (id, logical, count) = if corpus { corpus_args(raw, args, names)? } else { ptx_args(raw, op, args, names)? };
    Ok(InstrKind::Barrier { op, id, logical, count, red })
}

/// `bar.warp.sync membermask` (ISA 9.7.13.3): the lanes of the mask meet
/// (D92); the builder decides the warp and checks the mask's value (D176).
fn warp_barrier(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    if let Some(q) = raw.quals.iter().skip(1).find(|q| q.text != "sync") {
        return Err(raw.bad_qual(q));
    }
    if raw.quals.len() != 2 {
        return Err(Error::input(format!("`{}`: expected `bar.warp.sync`", raw.mnemonic), raw.opcode_span));
    }
    let [m] = raw.operands.as_slice() else { return Err(raw.arity("a member mask")) };
    Ok(InstrKind::Barrier {
        op: BarrierOp::Warp,
        id: Operand::Imm(0),
        logical: Some(names.value(m)?),
        count: BarrierCount::Count(Operand::Imm(1)),
        red: None,
    })
}

/// `bar.red... d, ..., {!}p`: the destination, the predicate, and the operands in between.
#[allow(clippy::type_complexity)]
fn red_operands<'r>(raw: &'r RawInstr, names: &Names) -> Result<(Option<(String, Operand, bool)>, &'r [RawOperand])> {
    match raw.operands.as_slice() {
        [d, args @ .., p] if !args.is_empty() => {
            let (pred, negated) = match &p.kind {
                RawKind::Not(r) => (names.value(&RawOperand { kind: RawKind::Name(r.clone()), ..p.clone() })?, true),
                _ => (names.value(p)?, false),
            };
            Ok((Some((dst(d)?, pred, negated)), args))
        }
        _ => Err(raw.arity("a destination, a barrier, an optional thread count and a predicate")),
    }
}

/// A barrier id or thread count: a number or a register.
fn bar_value(op: &RawOperand, names: &Names) -> Result<Operand> {
    match names.value(op)? {
        Operand::Sym(_) => {
            Err(Error::input(format!("expected a barrier number or a register, found `{}`", op.text), op.span))
        }
        v => Ok(v),
    }
}

/// Corpus `bar.cta.sync a{, b{, n}}`: barrier `(a, b)`; `n` threads, else those that arrive.
fn corpus_args(raw: &RawInstr, args: &[RawOperand], names: &Names) -> Result<(Operand, Option<Operand>, BarrierCount)> {
    match args {
        [a] => Ok((bar_value(a, names)?, None, BarrierCount::Arrivals)),
        [a, b] => Ok((bar_value(a, names)?, Some(bar_value(b, names)?), BarrierCount::Arrivals)),
        [a, b, n] => Ok((bar_value(a, names)?, Some(bar_value(b, names)?), BarrierCount::Count(bar_value(n, names)?))),
        _ => Err(raw.arity("a barrier, an optional logical barrier and an optional thread count")),
    }
}

/// PTX `bar.sync a{, b}`, `bar.arrive a, b`: barrier `a`, `b` threads, else the whole CTA.
fn ptx_args(
    raw: &RawInstr,
    op: BarrierOp,
    args: &[RawOperand],
    names: &Names,
) -> Result<(Operand, Option<Operand>, BarrierCount)> {
    match (op, args) {
        (BarrierOp::Arrive, [a, b]) => Ok((bar_value(a, names)?, None, BarrierCount::Count(bar_value(b, names)?))),
        (BarrierOp::Arrive, _) => Err(raw.arity("a barrier and a thread count")),
        (_, [a]) => Ok((bar_value(a, names)?, None, BarrierCount::AllThreadsInCta)),
        (_, [a, b]) => Ok((bar_value(a, names)?, None, BarrierCount::Count(bar_value(b, names)?))),
        _ => Err(raw.arity("a barrier and an optional thread count")),
    }
}

/// `barrier.cluster.arrive{.release,.relaxed}{.aligned}`, `barrier.cluster.wait{.acquire}{.aligned}`.
fn cluster_barrier(raw: &RawInstr, b: &BarQuals, cq: &Qual) -> Result<InstrKind> {
    if b.cta {
        return Err(Error::input("a barrier cannot be both .cta and .cluster", cq.span));
    }
    if let Some((_, q)) = &b.red {
        return Err(raw.bad_qual(q));
    }
    raw.no_operands()?;
    let sem = b.sem.as_ref().map(|(s, q)| (*s, q));
    match (&b.op, sem) {
        (Some(("arrive", _)), None | Some(("release", _))) => {
            Ok(InstrKind::ClusterBarrier { arrive: true, relaxed: false })
        }
        (Some(("arrive", _)), Some(("relaxed", _))) => Ok(InstrKind::ClusterBarrier { arrive: true, relaxed: true }),
        (Some(("wait", _)), None | Some(("acquire", _))) => {
            Ok(InstrKind::ClusterBarrier { arrive: false, relaxed: false })
        }
        (Some((o, _)), Some((_, q))) if *o == "arrive" || *o == "wait" => {
            Err(Error::input(format!("barrier.cluster.{} cannot have `.{}`", o, q.text), q.span))
        }
        (Some((_, q)), _) => {
            Err(Error::input(format!("barrier.cluster supports .arrive and .wait, not `.{}`", q.text), q.span))
        }
        (None, _) => Err(Error::input("barrier.cluster requires .arrive or .wait", cq.span)),
    }
}

/// The qualifiers of an `mbarrier` mnemonic.
#[derive(Default)]
struct MbarQuals {
    op: Option<(&'static str, Qual)>,
    sem: Option<(Sem, Qual)>,
    scope: Option<(Scope, Qual)>,
    parity: bool,
    remote: Option<Qual>,
    /// `mbarrier.arrive.expect_tx` (D259).
    expect_tx: bool,
}

fn mbar_quals(raw: &RawInstr) -> Result<MbarQuals> {
    let mut m = MbarQuals::default();
    for q in &raw.quals {
        let op = match q.text.as_str() {
            "init" => "init",
            "inval" => "inval",
            "arrive" => "arrive",
            "arrive_drop" => "arrive_drop",
            "test_wait" => "test_wait",
            "try_wait" => "try_wait",
            "pending_count" => "pending_count",
            "expect_tx" if m.op.as_ref().is_some_and(|(o, _)| *o == "arrive") => {
                m.expect_tx = true;
                continue;
            }
            "expect_tx" => "expect_tx",
            "complete_tx" => "complete_tx",
            "noComplete" => {
                return Err(Error::input("`.noComplete` arrivals are not modelled (D153)", q.span));
            }
            "parity" => {
                m.parity = true;
                continue;
            }
            "release" | "acquire" | "relaxed" => {
                let s = match q.text.as_str() {
                    "release" => Sem::Release,
                    "acquire" => Sem::Acquire,
                    _ => Sem::Relaxed,
                };
                set(raw, &mut m.sem, s, q, "memory semantics")?;
                continue;
            }
            "cta" | "cluster" => {
                let s = if q.text == "cta" { Scope::Cta } else { Scope::Cluster };
                set(raw, &mut m.scope, s, q, "scope")?;
                continue;
            }
            "shared::cluster" => {
                m.remote = Some(q.clone());
                continue;
            }
            "shared" | "shared::cta" | "b64" => continue,
            _ => return Err(raw.bad_qual(q)),
        };
        set(raw, &mut m.op, op, q, "mbarrier operation")?;
    }
    Ok(m)
}

/// `mbarrier.init/inval/arrive/arrive_drop/test_wait/try_wait/pending_count`
/// (litmus-format.md section 7, D153). An arrive is an atomic read-modify-write
/// of the object (`.release` by default, `.cta` scope by default); a wait an
/// 8-byte read (`.acquire` by default).
pub(crate) fn mbarrier(raw: &RawInstr, names: &Names) -> Result<InstrKind> {
    let m = mbar_quals(raw)?;
    let Some((op, opq)) = m.op.clone() else {
        return Err(Error::input(
            "mbarrier requires an operation such as .init, .arrive or .test_wait",
            raw.opcode_span,
        ));
    };
    let allowed: &[Sem] = match op {
        "arrive" | "arrive_drop" => &[Sem::Release, Sem::Relaxed],
        "expect_tx" | "complete_tx" => &[Sem::Relaxed],
        "test_wait" | "try_wait" => &[Sem::Acquire, Sem::Relaxed],
        _ => &[],
    };
    if let Some((s, q)) = &m.sem {
        if !allowed.contains(s) {
            return Err(Error::input(format!("mbarrier.{} cannot have `.{}`", op, q.text), q.span));
        }
    }
    if let Some(q) = m.remote.as_ref().filter(|_| !op.starts_with("arrive") && !op.ends_with("_tx")) {
        let msg = format!("mbarrier.{} cannot name another CTA's object (`.{}`): only arrives can", op, q.text);
        return Err(Error::input(msg, q.span));
    }
    if m.parity && !op.ends_with("wait") {
        return Err(Error::input(
            format!("`.parity` is only valid on test_wait and try_wait, not on .{}", op),
            opq.span,
        ));
    }
    let scope = m.scope.as_ref().map(|(s, _)| *s);
    let plain = |op, dst, addr, operand| InstrKind::Mbarrier { op, dst, addr, operand, sem: Sem::Weak, scope: None };
    match (op, raw.operands.as_slice()) {
        ("init", [a, n]) => Ok(plain(MbarrierOp::Init, None, Some(names.addr(a)?), names.value(n)?)),
        ("init", _) => Err(raw.arity("an address and a count")),
        ("inval", [a]) => Ok(plain(MbarrierOp::Inval, None, Some(names.addr(a)?), Operand::Imm(0))),
        ("inval", _) => Err(raw.arity("an address")),
        ("pending_count", [d, s]) => Ok(plain(MbarrierOp::PendingCount, Some(dst(d)?), None, names.value(s)?)),
        ("pending_count", _) => Err(raw.arity("a destination and a state")),
        ("expect_tx" | "complete_tx", [a, n]) => Ok(InstrKind::Atomic {
            sem: Sem::Relaxed,
            scope: Some(scope.unwrap_or(Scope::Cta)),
            proxy: Proxy::Generic,
            op: if op == "expect_tx" { AtomOp::MbarrierExpectTx } else { AtomOp::MbarrierCompleteTx },
            dst: None,
            addr: names.addr(a)?,
            operands: vec![names.value(n)?],
            size: 8,
            ty: None,
            shared: true,
        }),
        ("expect_tx" | "complete_tx", _) => Err(raw.arity("an address and a transaction count")),
        ("arrive", [d, a, tx]) if m.expect_tx => {
            let sink = matches!(&d.kind, RawKind::Name(n) if n == "_");
            Ok(InstrKind::Atomic {
                sem: m.sem.map_or(Sem::Release, |(s, _)| s),
                scope: Some(scope.unwrap_or(Scope::Cta)),
                proxy: Proxy::Generic,
                op: AtomOp::MbarrierArriveExpectTx,
                dst: if sink { None } else { Some(dst(d)?) },
                addr: names.addr(a)?,
                operands: vec![Operand::Imm(1), names.value(tx)?],
                size: 8,
                ty: None,
                shared: true,
            })
        }
        ("arrive", _) if m.expect_tx => Err(raw.arity("a state (or `_`), an address and a transaction count")),
        ("arrive" | "arrive_drop", [d, a, rest @ ..]) if rest.len() <= 1 => {
            let count = match rest.first() {
                Some(n) => names.value(n)?,
                None => Operand::Imm(1),
            };
            let sink = matches!(&d.kind, RawKind::Name(n) if n == "_");
            Ok(InstrKind::Atomic {
                sem: m.sem.map_or(Sem::Release, |(s, _)| s),
                scope: Some(scope.unwrap_or(Scope::Cta)),
                proxy: Proxy::Generic,
                op: if op == "arrive" { AtomOp::MbarrierArrive } else { AtomOp::MbarrierArriveDrop },
                dst: if sink { None } else { Some(dst(d)?) },
                addr: names.addr(a)?,
                operands: vec![count],
                size: 8,
                ty: None,
                shared: true,
            })
        }
        ("arrive" | "arrive_drop", _) => Err(raw.arity("a state (or `_`), an address and an optional count")),
        ("test_wait" | "try_wait", [p, a, token, hint @ ..]) if hint.len() <= usize::from(op == "try_wait") => {
            Ok(InstrKind::Mbarrier {
                op: MbarrierOp::TestWait { parity: m.parity },
                dst: Some(dst(p)?),
                addr: Some(names.addr(a)?),
                operand: names.value(token)?,
                sem: m.sem.map_or(Sem::Acquire, |(s, _)| s),
                scope,
            })
        }
        _ => Err(raw.arity("a predicate, an address and a state or parity")),
    }
}
