//! `ptx-litmus explain`: the static explanation of each test (morally strong
//! pairs, release and acquire patterns, synchronizing pairs), as text or JSON.

use super::inputs;
use crate::args::ExplainArgs;
use crate::opts;
use ptx_litmus::batch::{self, FileReport};
use ptx_litmus::check::{guarded, read_source, CheckOptions};
use ptx_litmus::error::{EXIT_INPUT, EXIT_OK};
use ptx_litmus::explain;
use ptx_litmus::out;
use ptx_litmus::program::BuildOptions;
use ptx_litmus::report;

/// `ptx-litmus explain FILE|DIR...`.
pub fn run(a: ExplainArgs) -> i32 {
    let ctx = match opts::context(a.model.as_deref(), a.limits.budget(a.limits.timeout)) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let opts =
        CheckOptions { build: BuildOptions { unroll: a.unroll, ..Default::default() }, ctx, ..Default::default() };
    let (files, empty_dir) = inputs(&a.files, None);
    let mut worst = if empty_dir { EXIT_INPUT } else { EXIT_OK };
    let work = |f: &std::path::Path| match read_source(f, opts.max_file_bytes) {
        Ok(src) => {
            let base = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            let r = guarded(&opts, || explain::pairs::explanation_of_source(&src, base, &opts));
            (f.to_path_buf(), src, r)
        }
        Err((src, e)) => (f.to_path_buf(), src, Err(e)),
    };
    batch::run_ordered(&files, a.limits.jobs(), work, |(f, src, r)| match r {
        Ok(x) if a.json => {
            let mut obj = serde_json::to_value(&x).expect("an explanation is JSON");
            obj["file"] = f.display().to_string().into();
            out::println(&obj.to_string());
        }
        Ok(x) => out::print(&x.text()),
        Err(e) => {
            out::eprintln(&e.render(&f.display().to_string(), &src));
            if a.json {
                // The failure object of `check --json` (schema/result.schema.json).
                out::println(
                    &report::json(&FileReport { path: f, source: src, result: Err(e.clone()), shown: None })
                        .to_string(),
                );
            }
            worst = worst.max(e.exit_code());
            out::note_code(worst);
        }
    });
    worst
}
