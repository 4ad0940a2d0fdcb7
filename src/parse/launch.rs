//! The launch a thread header describes must be one a GPU can run
//! (decisions.md D80): every thread placed, and `%tid.x` distinct within a
//! CTA and below the CTA size limit. (A `cta` number reused in two clusters
//! is allowed by the format; reading `%ctaid` there is refused, D80.)

use crate::ast::{Span, ThreadHeader};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// Most threads one CTA may have (ISA 2.2.3: "There is a maximum number of
/// threads that a CTA can contain"; 1024 on every target to date).
pub(crate) const MAX_CTA_THREADS: u32 = 1024;

/// Check the headers; `cta_given[t]` says whether thread t's header names its `cta`.
pub(crate) fn check(threads: &[ThreadHeader], cta_given: &[bool]) -> Result<()> {
    unplaced(threads, cta_given)?;
    distinct_tids(threads)
}

/// With two or more threads, a header without `cta` would put its thread in
/// CTA 0 with the others, silently making `.cta` scope cover them (D80).
fn unplaced(threads: &[ThreadHeader], cta_given: &[bool]) -> Result<()> {
    if threads.len() < 2 {
        return Ok(());
    }
    match threads.iter().zip(cta_given).find(|(_, given)| !**given) {
        Some((h, _)) => Err(Error::input(
            format!(
                "P{} does not say where it runs: with several threads every header names its CTA (`P{}@cta {},gpu 0`)",
                h.id, h.id, h.id
            ),
            h.span,
        )),
        None => Ok(()),
    }
}

/// ISA 2.2.1: "Each thread has a unique thread identifier within the CTA";
/// `%tid.x` is `tid N` or the thread's rank among its CTA's threads (D41).
fn distinct_tids(threads: &[ThreadHeader]) -> Result<()> {
    let mut rank: BTreeMap<(u32, Option<u32>, u32), u32> = BTreeMap::new();
    let mut taken: BTreeMap<(u32, Option<u32>, u32, u32), usize> = BTreeMap::new();
    for h in threads {
        let next = rank.entry((h.gpu, h.cluster, h.cta)).or_insert(0);
        let tid = h.tid.unwrap_or(*next);
        *next += 1;
        if tid >= MAX_CTA_THREADS {
            return Err(too_large(h, tid));
        }
        if let Some(other) = taken.insert((h.gpu, h.cluster, h.cta, tid), h.id) {
            let how = if h.tid.is_some() {
                format!("P{} says `tid {}`", h.id, tid)
            } else {
                format!("P{} has no `tid`, so its `%tid.x` is its rank in the CTA", h.id)
            };
            let msg = format!(
                "P{} and P{} are both thread {} of CTA {} ({}): give each thread of a CTA its own `tid`",
                other, h.id, tid, h.cta, how
            );
            return Err(Error::input(msg, h.span));
        }
    }
    Ok(())
}

fn too_large(h: &ThreadHeader, tid: u32) -> Error {
    let span: Span = h.span;
    Error::input(
        format!(
            "`tid {}` of P{}: a CTA has at most {} threads, so `%tid.x` is below {}",
            tid, h.id, MAX_CTA_THREADS, MAX_CTA_THREADS
        ),
        span,
    )
}
