//! 8.9.5 Proxy-preserved base causality: which proxy fences a base-causality chain
//! from X to Y must pass through, and in which order (ISA 8.6, 8.9.5; the
//! mixed-proxy table of litmus-format.md section 4.1 fills what the ISA leaves open).

use crate::ast::Proxy;
use crate::program::{Event, EventId, EventKind, Program};

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
        .filter(|e| matches!(e.kind, EventKind::ProxyFence { proxy: q } if q == proxy))
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
/// Y's CTA when Y uses a non-generic proxy Q.
pub fn requirement(p: &Program, x: &Event, y: &Event) -> ProxyRequirement {
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
        slots.push(proxy_fences(p, a.proxy, cta(x)));
    }
    if !same_address {
        slots.push(proxy_fences(p, Proxy::Generic, None));
    }
    if b.proxy != Proxy::Generic {
        slots.push(proxy_fences(p, b.proxy, cta(y)));
    }
    ProxyRequirement::Chain(slots)
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
