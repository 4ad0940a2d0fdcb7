pub mod child;
pub mod fragment;
pub mod gen;
pub mod http;
pub mod loops;
pub mod schema;
pub mod spin;

/// A context under `ctx`'s model whose memory budget is not the point of the
/// test: the budget reads the process's resident size (D162), which every test
/// running beside this one in the test binary shares, so a comparison of two
/// answers would otherwise compare which neighbours happened to run. 8 GiB
/// still stops a runaway.
pub fn unmetered(ctx: ptx_litmus::context::Ctx) -> ptx_litmus::context::Ctx {
    let mut ctx = ctx;
    ctx.limits.max_bytes = 8 << 30;
    ctx
}

/// A context under `ctx`'s model for a property that skips the cases over a
/// budget and fails when it skips too many: the budget is `units` of work
/// (`Limits::max_work`, D288), which cuts the same cases on a loaded machine
/// as on an idle one, where a timeout skipped a fifth of them when the test
/// binary's other tests ran beside it. Unmetered, as [`unmetered`] says; 120 s
/// still stops a runaway.
pub fn within_work(ctx: ptx_litmus::context::Ctx, units: u64) -> ptx_litmus::context::Ctx {
    unmetered(ctx).with_work(Some(units)).with_timeout(Some(std::time::Duration::from_secs(120)))
}
