//! 8.9.5 Proxy-preserved base causality: which proxy fences a base-causality chain
//! from X to Y must pass through, and in which order (ISA 8.6, 8.9.5; the
//! mixed-proxy table of litmus-format.md section 4.1 fills what the ISA leaves open).

use crate::ast::{FenceSem, Proxy};
use crate::program::{AsyncPart, Event, EventId, EventKind, Program};

/// What X ->base causality-> Y additionally needs to be proxy-preserved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProxyRequirement {
    /// Case 1 (same address, generic proxy) or case 2 (same address, same proxy, same CTA).
    Nothing,
    /// Never proxy-preserved (different locations, or not both memory operations).
    Impossible,
    /// One chain X -> slot 1 -> slot 2 ... -> Y of strict base-causality steps, the
    /// slots in this order, each filled by one of its candidate fences, and no
    /// fence filling two slots (cases 3-9).
    Chain(Vec<Vec<EventId>>),
}

/// The fences that can fill one slot of a chain: `fence.proxy.<proxy>` executed
/// by a thread of `cta` (`Generic` means `fence.proxy.alias`; `cta` None: any CTA).
fn proxy_fences(p: &Program, proxy: Proxy, cta: Option<usize>) -> Vec<EventId> {
    p.proxy_fences
        .iter()
        .map(|&f| &p.events[f])
        .filter(|e| matches!(e.kind, EventKind::ProxyFence { proxy: q, .. } if q == proxy))
        .filter(|e| cta.is_none() || p.placement(e).map(|pl| pl.cta) == cta)
        .map(|e| e.id)
        .collect()
}

/// 8.9.5: X precedes Y in proxy-preserved base causality order if X precedes Y in
/// base causality order, and:
/// 1. X and Y are performed to the same address, using the generic proxy, or
/// 2. X and Y are performed to the same address, using the same proxy, and by the same thread block, or
/// 3. X and Y are aliases and there is an alias proxy fence along the base causality path from X to Y.
///
/// litmus-format.md 4.1 (the mixed-proxy table, cases 3-9): otherwise one chain
/// must pass, in this order, F(P) in X's CTA when X uses a non-generic proxy P,
/// then `fence.proxy.alias` when the addresses are virtual aliases, then F(Q) in
/// Y's CTA when Y uses a non-generic proxy Q. For the async proxy F is a
/// `fence.proxy.async` whose state space covers the location, executed by
/// the thread of the generic access (D263; `cumulative`: by any thread of
/// the async access's CTA), or the implicit generic-async proxy fence that
/// follows the completion of the async access's own bulk copy (D258).
pub fn requirement(p: &Program, x: &Event, y: &Event, cumulative: bool) -> ProxyRequirement {
    let (Some(a), Some(b)) = (x.access(), y.access()) else { return ProxyRequirement::Impossible };
    if a.loc != b.loc {
        return ProxyRequirement::Impossible;
    }
    let cta = |e: &Event| p.placement(e).map(|pl| pl.cta);
    let same_address = a.vaddr == b.vaddr;
    // Case 1.
    if same_address && a.proxy == Proxy::Generic && b.proxy == Proxy::Generic {
        return ProxyRequirement::Nothing;
    }
    // Case 2.
    if same_address && a.proxy == b.proxy && cta(x) == cta(y) {
        return ProxyRequirement::Nothing;
    }
    let mut slots = Vec::new();
    if a.proxy != Proxy::Generic {
        slots.push(slot(p, x, y, a.proxy, cumulative, false));
    }
    if !same_address {
        slots.push(proxy_fences(p, Proxy::Generic, None));
    }
    if b.proxy != Proxy::Generic {
        slots.push(slot(p, y, x, b.proxy, cumulative, true));
    }
    ProxyRequirement::Chain(slots)
}

/// The fences that can fill the slot of `proxy`, the proxy `own` (one end
/// of the chain, the later one when `own_later`) uses; `other` is the
/// chain's other end.
fn slot(p: &Program, own: &Event, other: &Event, proxy: Proxy, cumulative: bool, own_later: bool) -> Vec<EventId> {
    let cta = p.placement(own).map(|pl| pl.cta);
    if proxy != Proxy::Async {
        return proxy_fences(p, proxy, cta);
    }
    let Some(a) = own.access() else { return Vec::new() };
    let shared = p.locations[a.loc].shared;
    // D263: the fence of the generic access's thread, unless the reading is
    // cumulative (or neither end is a generic access).
    let writer_side = !cumulative && other.access().is_some_and(|b| b.proxy == Proxy::Generic);
    let mut out: Vec<EventId> = async_fences(p, shared, own_later)
        .filter(|e| {
            // D316: the acquire form orders what synchronized with it before
            // the async accesses after it, in whatever thread it stands.
            let acquire_form = matches!(e.kind, EventKind::Fence { sem: FenceSem::Acquire, to_async: true, .. });
            acquire_form || if writer_side { e.thread == other.thread } else { p.placement(e).map(|pl| pl.cta) == cta }
        })
        .map(|e| e.id)
        .collect();
    out.extend(p.proxy_fences.iter().copied().filter(|&f| completes_bulk(&p.events[f], own)));
    out
}

/// The explicit `fence.proxy.async{.space}` events whose space covers a
/// location in shared memory (`shared`) or global memory (D258: the
/// `.shared::cta` window lies inside `.shared::cluster`, 5.1.7), and, for a
/// chain whose async access is the later end (`to_async`), the
/// `fence.proxy.async::generic` forms on shared memory: "A uni-directional
/// proxy ordering from the from-proxykind to the to-proxykind establishes
/// ordering between a prior memory access performed via the from-proxykind
/// and a subsequent memory access performed via the to-proxykind" (9.7.13.4, D316).
fn async_fences(p: &Program, shared: bool, to_async: bool) -> impl Iterator<Item = &Event> {
    p.proxy_fences.iter().map(|&f| &p.events[f]).filter(move |e| match e.kind {
        EventKind::ProxyFence { proxy: Proxy::Async, space } => space.covers(shared),
        EventKind::Fence { to_async: true, .. } => to_async && shared,
        _ => false,
    })
}

/// `f` is the completion of the bulk copy `own` is an access of: "completion
/// of a bulk copy is followed by an implicit generic-async proxy fence"; or,
/// for a source read of the copy, a `wait_group.read` that waits for it: a
/// read that has completed cannot see a later write in any proxy (D290).
fn completes_bulk(f: &Event, own: &Event) -> bool {
    let Some((op, true, part)) = own.access().and_then(|a| a.async_op()) else { return false };
    if f.thread != own.thread {
        return false;
    }
    match &f.kind {
        EventKind::AsyncWait { done } => done.iter().any(|&(o, reads)| o == op && (!reads || part == AsyncPart::Read)),
        EventKind::Mem(a) => a.async_op() == Some((op, true, AsyncPart::CompleteTx)),
        _ => false,
    }
}

/// Every way to fill the slots of a chain with distinct fences ("one fence never
/// fills two slots"), in slot order. Empty when some slot has no candidate.
pub(crate) fn fillings(slots: &[Vec<EventId>]) -> Vec<Vec<EventId>> {
    let mut out: Vec<Vec<EventId>> = vec![Vec::new()];
    for slot in slots {
        let mut next = Vec::new();
        for partial in &out {
            for &f in slot {
                if !partial.contains(&f) {
                    let mut longer = partial.clone();
                    longer.push(f);
                    next.push(longer);
                }
            }
        }
        out = next;
    }
    out
}
