//! 8.9.5 Proxy-preserved base causality: which proxy fences a base-causality path
//! from X to Y must pass through (ISA 8.6, 8.9.5; the mixed-proxy rules of
//! litmus-format.md section 4.1 fill what the ISA leaves open).

use crate::ast::Proxy;
use crate::program::{Event, EventId, EventKind, Program};

/// What X ->base causality-> Y additionally needs to be proxy-preserved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProxyRequirement {
    /// Rule 1 (same address, generic proxy) or rule 2 (same address, same proxy, same CTA).
    Nothing,
    /// Never proxy-preserved (different locations, or not both memory operations).
    Impossible,
    /// Fences needed on the path, in this order: `first` (after X, in X's CTA),
    /// then `second` (before Y, in Y's CTA); `alias`: a fence.proxy.alias somewhere on the path.
    Fences { first: Option<Vec<EventId>>, second: Option<Vec<EventId>>, alias: Option<Vec<EventId>> },
}

/// Proxy fences of `proxy` executed by threads of `cta`.
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
/// Extended (section 4.1): a non-generic end needs a proxy fence of its proxy in its own CTA on the path.
pub fn requirement(p: &Program, x: &Event, y: &Event) -> ProxyRequirement {
    let (Some(a), Some(b)) = (x.access(), y.access()) else { return ProxyRequirement::Impossible };
    if a.loc != b.loc {
        return ProxyRequirement::Impossible;
    }
    let cta = |e: &Event| p.placement(e).map(|pl| pl.cta);
    let same_address = a.vaddr == b.vaddr;
    if same_address && a.proxy == Proxy::Generic && b.proxy == Proxy::Generic {
        return ProxyRequirement::Nothing;
    }
    if same_address && a.proxy == b.proxy && cta(x) == cta(y) {
        return ProxyRequirement::Nothing;
    }
    let first = (a.proxy != Proxy::Generic).then(|| proxy_fences(p, a.proxy, cta(x)));
    let second = (b.proxy != Proxy::Generic).then(|| proxy_fences(p, b.proxy, cta(y)));
    let alias = (!same_address).then(|| proxy_fences(p, Proxy::Generic, None));
    ProxyRequirement::Fences { first, second, alias }
}
