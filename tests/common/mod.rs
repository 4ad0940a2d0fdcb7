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
