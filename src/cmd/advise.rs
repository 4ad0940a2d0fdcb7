//! `ptx-litmus advise`: the fence and qualifier advisor over a batch, each
//! test's advice as text, a summary-table row or JSON, with its files under `--out`.

use super::inputs;
use crate::args::AdviseArgs;
use crate::opts;
use ptx_litmus::advise::{self, menu::CostTable, render, Advice, AdviseOptions};
use ptx_litmus::batch::{self, Progress};
use ptx_litmus::check::{guarded, read_source, CheckOptions};
use ptx_litmus::error::{EXIT_INPUT, EXIT_OK};
use ptx_litmus::out;
use ptx_litmus::program::BuildOptions;

/// `ptx-litmus advise PATH...`.
pub fn run(a: AdviseArgs) -> i32 {
    let costs = match advise_costs(&a) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // The advice decides one variant per candidate edit: a large test can take
    // hours, so without --timeout each test gets a default deadline.
    let timeout = a.limits.timeout.or(Some(std::time::Duration::from_secs(advise::DEFAULT_TIMEOUT_S)));
    let ctx = match opts::context(a.model.as_deref(), a.limits.budget(timeout)) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let check =
        CheckOptions { build: BuildOptions { unroll: a.unroll, ..Default::default() }, ctx, ..Default::default() };
    let table = a.paths.iter().any(|p| p.is_dir());
    let opts = AdviseOptions { check, costs, weaken_only: a.weaken, explain: !table || a.json || a.out.is_some() };
    let (files, empty_dir) = inputs(&a.paths, None);
    let progress = Progress::new(files.len());
    let mut worst = if empty_dir { EXIT_INPUT } else { EXIT_OK };
    if table && !a.json {
        out::println(&render::summary_header());
    }
    let work = |f: &std::path::Path| match read_source(f, opts.check.max_file_bytes) {
        Ok(src) => {
            // The advisor budgets each variant itself (advise::budgeted); a
            // module's path is relative to the test's file.
            let base = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            let r = guarded(&CheckOptions { ctx: opts.check.ctx.with_timeout(None), ..opts.check.clone() }, || {
                advise::advise_source_at(&src, base, &opts)
            });
            (f.to_path_buf(), src, r)
        }
        Err((src, e)) => (f.to_path_buf(), src, Err(e)),
    };
    batch::run_ordered(&files, a.limits.jobs(), work, |(f, src, r)| {
        progress.tick();
        let name = f.display().to_string();
        match r {
            Ok(adv) => worst = worst.max(print_advice(&a, table, &name, &adv)),
            Err(e) => {
                if a.json {
                    out::println(&render::failure_json(&name, &e).to_string());
                }
                progress.eprintln(&e.render(&name, &src));
                if a.limits.timeout.is_none() && e.message.starts_with("timeout") {
                    progress.eprintln(&format!(
                        "{}: note: advise stops each test after {} s by default; --timeout sets another limit",
                        name,
                        advise::DEFAULT_TIMEOUT_S
                    ));
                }
                worst = worst.max(e.exit_code());
            }
        }
        out::note_code(worst);
    });
    progress.finish();
    worst
}

/// `advise --cost FILE`'s table (a regular file of at most 1 MiB: a FIFO or a device is refused, not read
/// forever), or the default one; the exit status of a bad file, its message printed.
fn advise_costs(a: &AdviseArgs) -> Result<CostTable, i32> {
    let Some(f) = &a.cost else { return Ok(CostTable::default()) };
    ptx_litmus::input::read_text_capped(f, 1 << 20).and_then(|t| CostTable::parse(&t)).map_err(|e| {
        out::eprintln(&format!("{}: error: {}", f.display(), e));
        EXIT_INPUT
    })
}

/// Print one test's advice as JSON, a table row or text, after writing its files under `--out`; the exit status
/// that leaves (an input error when a file cannot be written).
fn print_advice(a: &AdviseArgs, table: bool, name: &str, adv: &Advice) -> i32 {
    let mut status = EXIT_OK;
    let written = match &a.out {
        Some(dir) => advise::write_out(dir, adv).unwrap_or_else(|e| {
            out::eprintln(&format!("error: {}", e.message));
            status = EXIT_INPUT;
            Vec::new()
        }),
        None => Vec::new(),
    };
    if a.json {
        out::println(&render::json(adv, name, &written).to_string());
    } else if table {
        out::println(&render::summary_row(name, adv));
    } else {
        out::print(&render::text(adv));
    }
    status
}
