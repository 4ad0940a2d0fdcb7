//! `ptx-litmus scaffold MODULE.ptx`: a harness skeleton for a module
//! (docs/litmus-format.md section 5). Two forms:
//!
//! - the default: one thread column per function with a body (`.entry` and
//!   `.func`), each in its own CTA; a 64-bit parameter (or one marked `.ptr`)
//!   gets a location of its own, any other parameter the value 0;
//! - `--kernel NAME --ctas C [--threads T] [--len N]`: the usual shape of a
//!   CUDA test, one kernel launched on C CTAs of T threads, every thread
//!   calling it with the same arguments; each pointer parameter is a
//!   `u32 pJ[N]` array, since the kernel may index it by `%ctaid`/`%tid`
//!   (decisions.md D160).
//!
//! The condition is a placeholder to replace. Location names never collide
//! with the module's own variables, and a path the `ptx "..."` line cannot
//! hold (a `"` or a line break in it) is refused.

use super::parse::{Func, Module};
use crate::error::Error;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

/// The launch the kernel form writes (`scaffold --kernel NAME --ctas C ...`).
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel, by its name in the module or its demangled name.
    pub kernel: String,
    /// CTAs, each one thread column block.
    pub ctas: u32,
    /// Threads per CTA (`tid 0..T`).
    pub threads: u32,
    /// Elements of each `u32` pointer-parameter array.
    pub len: u32,
}

/// The most threads a kernel skeleton writes: a litmus test with more columns is not a litmus test.
pub(crate) const MAX_THREADS: u32 = 64;

/// The skeleton text for `module`, loaded from `shown` (the path written in
/// the `ptx "...";` line, relative to where the harness will be saved).
pub fn skeleton(module: &Module, shown: &str) -> String {
    let funcs: Vec<&Func> = module.funcs.iter().filter(|f| f.body.is_some()).collect();
    let mut names = Names::of(module);
    let mut locs = Vec::new();
    let mut cells = Vec::new();
    for (i, f) in funcs.iter().enumerate() {
        let args: Vec<String> = f
            .params
            .iter()
            .enumerate()
            .map(|(j, p)| {
                if is_pointer(p) {
                    let l = names.fresh(&format!("f{}_p{}", i, j));
                    locs.push(l.clone());
                    l
                } else {
                    "0".to_string()
                }
            })
            .collect();
        cells.push(call_cell(&f.name, &args));
    }
    let heads: Vec<String> = (0..funcs.len()).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let init: Vec<String> = locs.iter().map(|l| format!("{} = 0;", l)).collect();
    let what = "one thread per function, each in its own CTA; set the CTAs (`tid N` for %tid.x), the arguments and the condition";
    let mut s = header(shown, what, &init);
    if funcs.is_empty() {
        let _ = writeln!(s, "// {} defines no function with a body", shown);
        return s;
    }
    table(&mut s, &heads, &cells);
    let first = locs.first().map_or("0 == 0".to_string(), |l| format!("{} == 0", l));
    placeholder(&mut s, &first);
    s
}

/// The kernel form: `launch.kernel` on `launch.ctas` CTAs of `launch.threads`
/// threads, all with the same arguments (pointer parameters as `u32` arrays).
pub fn kernel_skeleton(module: &Module, shown: &str, launch: &Launch) -> Result<String, Error> {
    let f = find_kernel(module, &launch.kernel)?;
    let total = launch.ctas.saturating_mul(launch.threads);
    if launch.ctas == 0 || launch.threads == 0 || launch.len == 0 || total > MAX_THREADS {
        return Err(Error::input_nospan(format!(
            "scaffold: --ctas, --threads and --len must be at least 1, and --ctas times --threads at most {} (got {} x {}, --len {})",
            MAX_THREADS, launch.ctas, launch.threads, launch.len
        )));
    }
    let mut names = Names::of(module);
    let mut decls = Vec::new();
    let args: Vec<String> = f
        .params
        .iter()
        .enumerate()
        .map(|(j, p)| {
            if is_pointer(p) {
                let l = names.fresh(&format!("p{}", j));
                decls.push(format!("u32 {}[{}];", l, launch.len));
                l
            } else {
                "0".to_string()
            }
        })
        .collect();
    let mut heads = Vec::new();
    for cta in 0..launch.ctas {
        for tid in 0..launch.threads {
            let p = cta * launch.threads + tid;
            heads.push(if launch.threads == 1 {
                format!("P{}@cta {},gpu 0", p, cta)
            } else {
                format!("P{}@cta {},gpu 0,tid {}", p, cta, tid)
            });
        }
    }
    let cells = vec![call_cell(&f.name, &args); heads.len()];
    let what = format!(
        "{} on {} CTA(s) of {} thread(s), every thread with the same arguments; set the arguments and the condition",
        f.name, launch.ctas, launch.threads
    );
    let mut s = header(shown, &what, &decls);
    table(&mut s, &heads, &cells);
    let first = args.iter().find(|a| *a != "0").map_or("0 == 0".to_string(), |l| format!("{}[0] == 0", l));
    placeholder(&mut s, &first);
    Ok(s)
}

/// 64-bit parameters and `.ptr` ones carry addresses.
fn is_pointer(p: &super::parse::Param) -> bool {
    p.ptr || matches!(p.ty.as_str(), ".u64" | ".b64" | ".s64")
}

fn call_cell(name: &str, args: &[String]) -> String {
    if args.is_empty() {
        format!("call {}", name)
    } else {
        format!("call {}, ({})", name, args.join(", "))
    }
}

/// `PTX name`, the doc string, the init block and the `ptx` line.
fn header(shown: &str, what: &str, init: &[String]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "PTX {}", test_name(shown));
    let _ = writeln!(s, "\"skeleton for {}: {}\"", shown, what);
    let _ = writeln!(s, "{{ {} }}", init.join(" "));
    let _ = writeln!(s, "ptx \"{}\";", shown);
    s
}

/// The thread table, columns aligned.
fn table(s: &mut String, heads: &[String], cells: &[String]) {
    let w = cells.iter().chain(heads).map(|c| c.len()).max().unwrap_or(0) + 1;
    let row = |v: &[String]| v.iter().map(|c| format!("{:w$}", c, w = w)).collect::<Vec<_>>().join("| ");
    let _ = writeln!(s, " {};", row(heads));
    let _ = writeln!(s, " {};", row(cells));
}

fn placeholder(s: &mut String, cond: &str) {
    let _ = writeln!(s, "// The condition is a placeholder: replace it with the outcome to check.");
    let _ = writeln!(s, "exists ({})", cond);
}

/// The test name: the file's stem with anything but ASCII letters, digits,
/// `.`, `-` and `_` replaced by `_` (herd's tools read such names).
fn test_name(shown: &str) -> String {
    let stem = Path::new(shown).file_stem().map_or("module".into(), |s| s.to_string_lossy().into_owned());
    let name: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect();
    if name.is_empty() {
        "module".into()
    } else {
        name
    }
}

/// Location names in use: the module's variables (a harness location of the
/// same name would be that variable) and those already picked.
struct Names(BTreeSet<String>);

impl Names {
    fn of(module: &Module) -> Names {
        Names(module.vars.iter().map(|v| v.name.clone()).collect())
    }

    /// `base`, or `base_1`, `base_2`, ... when taken.
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 0;
        while self.0.contains(&name) {
            k += 1;
            name = format!("{}_{}", base, k);
        }
        self.0.insert(name.clone());
        name
    }
}

/// The kernel `--kernel` names: a function with a body, by its name or its
/// demangled name (as a cell's `call` accepts it).
fn find_kernel<'m>(module: &'m Module, name: &str) -> Result<&'m Func, Error> {
    let defined: Vec<&Func> = module.funcs.iter().filter(|f| f.has_body()).collect();
    if let Some(f) = defined.iter().find(|f| f.name == name) {
        return Ok(f);
    }
    let plain: Vec<&&Func> = defined.iter().filter(|f| super::inline::demangled_base(&f.name) == Some(name)).collect();
    if let [f] = plain.as_slice() {
        return Ok(f);
    }
    let names: Vec<&str> = defined.iter().map(|f| f.name.as_str()).collect();
    Err(Error::input_nospan(format!(
        "unknown function `{}`: --kernel names a function with a body{}",
        name,
        super::inline::function_hint(&names, name)
    )))
}

/// Why `shown` cannot be written into the `ptx "...";` line, if it cannot:
/// the litmus format has no escapes, so a `"` or a line break ends the string.
fn unwritable(shown: &str) -> Option<&'static str> {
    if shown.contains('"') {
        Some("a double quote")
    } else if shown.contains(['\n', '\r']) {
        Some("a line break")
    } else {
        None
    }
}

/// `scaffold MODULE.ptx [--kernel NAME ...]`: the skeleton on stdout; a
/// module that does not parse is an input error (exit 2) pointing into it.
pub fn run(path: &Path, launch: Option<&Launch>) -> i32 {
    let shown = path.display().to_string();
    if let Some(why) = unwritable(&shown) {
        crate::out::eprintln(&format!(
            "{}: error: the path holds {}, which the harness's `ptx \"...\";` line cannot hold; rename the file",
            shown, why
        ));
        return 2;
    }
    let text = super::load(path, &shown).and_then(|m| match launch {
        Some(l) => kernel_skeleton(&m, &shown, l),
        None => Ok(skeleton(&m, &shown)),
    });
    match text {
        Ok(t) => {
            crate::out::print(&t);
            0
        }
        Err(e) => {
            crate::out::eprintln(&e.render(&shown, ""));
            e.exit_code()
        }
    }
}
