//! Why an allowed execution is allowed when the reason is a missing
//! `fence.proxy.async` (issue 41 item 4): a generic access and an async-proxy
//! access of one location, ordered by base causality but not by
//! proxy-preserved base causality (8.9.5), where the execution relies on that
//! gap (a read of an older value, a read of a later write, or a write
//! overwritten by an earlier one). Presentation only: which pairs are ordered
//! is the model's answer (`cb`, `ppcb` rows).

use super::view::View;
use crate::ast::{FenceSpace, Proxy};
use crate::program::EventKind;

/// One generic/async pair the execution is allowed to reorder, in words.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ProxyGap {
    /// The earlier access in base causality, and the later one (event names).
    pub from: String,
    pub to: String,
    /// The location both access.
    pub location: String,
    /// The fence that would order them, and where it goes.
    pub fence: String,
    pub place: String,
    /// The whole sentence.
    pub text: String,
}

/// Every pair of a witness the outcome depends on that a proxy fence would order.
pub fn proxy_gaps(v: &View) -> Vec<ProxyGap> {
    let mut out = Vec::new();
    for x in 0..v.n() {
        for y in 0..v.n() {
            if x != y && is_gap(v, x, y) && relied_on(v, x, y) {
                out.push(describe(v, x, y));
            }
        }
    }
    out
}

fn proxy_of(v: &View, i: usize) -> Option<Proxy> {
    v.event(i).access().map(|a| a.proxy)
}

/// x and y access one location, one through the generic proxy and one
/// through the async proxy, and precede in base causality but not in its
/// proxy-preserved part.
fn is_gap(v: &View, x: usize, y: usize) -> bool {
    let proxies = (proxy_of(v, x), proxy_of(v, y));
    let mixed =
        matches!(proxies, (Some(Proxy::Generic), Some(Proxy::Async)) | (Some(Proxy::Async), Some(Proxy::Generic)));
    mixed && v.loc(x).is_some() && v.loc(x) == v.loc(y) && v.cb.has(x, y) && !v.ppcb.has(x, y)
}

/// The execution is one the ordering would forbid (8.10.1, 8.10.6): the later
/// read returns a value older than the earlier write, the earlier read returns
/// the later write (or a newer one), or the later write is overwritten by the earlier.
fn relied_on(v: &View, x: usize, y: usize) -> bool {
    let older = |w: usize, than: usize| w != than && (v.co.has(w, than) || (v.is_init(w) && !v.is_init(than)));
    match (v.is_write(x), v.is_read(x), v.is_write(y), v.is_read(y)) {
        (true, _, _, true) if v.rf_source(y).is_some_and(|w| older(w, x)) => true,
        (_, true, true, _) if v.rf_source(x).is_some_and(|w| w == y || v.co.has(y, w)) => true,
        (true, _, true, _) => v.co.has(y, x),
        _ => false,
    }
}

fn what(v: &View, i: usize) -> String {
    let e = v.event(i);
    let (kind, proxy) = match (v.is_write(i), proxy_of(v, i)) {
        (true, Some(Proxy::Async)) => ("write", "the async proxy"),
        (false, Some(Proxy::Async)) => ("read", "the async proxy"),
        (true, _) => ("write", "the generic proxy"),
        (false, _) => ("read", "the generic proxy"),
    };
    let thread = e.thread.map_or_else(String::new, |t| format!(" in P{}", t));
    format!("{} (`{}`{}, line {}) {}s {} through {}", v.names[i], e.text, thread, e.line, kind, v.loc_name(i), proxy)
}

/// The fence that orders the pair, by the location's state space (D258):
/// `.shared::cta` where every thread of the test is in one CTA.
fn fence_for(v: &View, x: usize) -> String {
    let shared = v.loc(x).is_some_and(|l| v.p.locations[l].shared);
    FenceSpace::narrowest(shared, v.p.in_one_cta()).async_fence().into()
}

/// Where the fence goes in the reading every answer can rely on (D263): the
/// thread of the generic access, after it and before the first operation of
/// that thread that hands over to the async access (generic first), or after
/// the last operation that takes over from the generic access and before the
/// access (generic last).
fn place(v: &View, x: usize, y: usize) -> String {
    let generic_first = proxy_of(v, x) == Some(Proxy::Generic);
    let g = if generic_first { x } else { y };
    let (t, po) = (v.event(g).thread, v.event(g).po);
    // Proxy fences are not hand-over points (a release or acquire fence is).
    let same_thread: Vec<usize> =
        (0..v.n()).filter(|&i| i != g && t.is_some() && v.event(i).thread == t && !is_proxy_fence(v, i)).collect();
    let at = |i: usize| format!("`{}` (line {})", v.event(i).text, v.event(i).line);
    let thread = t.map_or_else(|| "the generic access's thread".to_string(), |t| format!("P{}", t));
    if generic_first {
        let hand_over = same_thread
            .iter()
            .copied()
            .filter(|&i| v.event(i).po > po && v.cb.has(i, y))
            .min_by_key(|&i| v.event(i).po);
        match hand_over {
            Some(h) => format!("in {} after {} and before {}", thread, v.names[g], at(h)),
            None => format!("in {} after {}", thread, v.names[g]),
        }
    } else {
        let take_over = same_thread
            .iter()
            .copied()
            .filter(|&i| v.event(i).po < po && v.cb.has(x, i))
            .max_by_key(|&i| v.event(i).po);
        match take_over {
            Some(h) => format!("in {} after {} and before {}", thread, at(h), v.names[g]),
            None => format!("in {} before {}", thread, v.names[g]),
        }
    }
}

fn is_proxy_fence(v: &View, i: usize) -> bool {
    matches!(v.event(i).kind, EventKind::ProxyFence { .. })
}

/// The `fence.proxy.async` events of the generic access's thread whose state
/// space does not cover the location (D258), as `` `text` (line N) ``.
fn wrong_space_fences(v: &View, x: usize, y: usize) -> Vec<String> {
    let g = if proxy_of(v, x) == Some(Proxy::Generic) { x } else { y };
    let shared = v.loc(g).is_some_and(|l| v.p.locations[l].shared);
    (0..v.n())
        .filter(|&i| v.event(i).thread.is_some() && v.event(i).thread == v.event(g).thread)
        .filter(|&i| match v.event(i).kind {
            EventKind::ProxyFence { proxy: Proxy::Async, space } => !space.covers(shared),
            _ => false,
        })
        .map(|i| format!("`{}` (line {})", v.event(i).text, v.event(i).line))
        .collect()
}

fn describe(v: &View, x: usize, y: usize) -> ProxyGap {
    let fence = fence_for(v, x);
    let place = place(v, x, y);
    let path = v.cb_path(x, y).map(|p| format!(", {},", super::words::fmt_path(v, &p))).unwrap_or_default();
    let mut text = format!(
        "{}; {}. {} precedes {} in base causality{} but no {} orders them (8.6, 8.9.5): needed {}",
        what(v, x),
        what(v, y),
        v.names[x],
        v.names[y],
        path,
        fence,
        place
    );
    let wrong = wrong_space_fences(v, x, y);
    if !wrong.is_empty() {
        let memory = if fence.contains("shared") { "shared memory" } else { "global memory" };
        text.push_str(&format!(" ({} does not cover {}, D258)", wrong.join(", "), memory));
    }
    ProxyGap { from: v.names[x].clone(), to: v.names[y].clone(), location: v.loc_name(x), fence, place, text }
}
