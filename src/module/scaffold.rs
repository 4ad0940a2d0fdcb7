//! `ptx-litmus scaffold MODULE.ptx`: a harness skeleton for a module
//! (litmus-format.md section 5). One thread column per function with a body
//! (`.entry` and `.func`), each in its own CTA; a 64-bit parameter (or one
//! marked `.ptr`) gets a location of its own, any other parameter the value
//! 0; the condition is a placeholder to replace.

use super::parse::{Func, Module};
use std::fmt::Write;
use std::path::Path;

/// The skeleton text for `module`, loaded from `shown` (the path written in
/// the `ptx "...";` line, relative to where the harness will be saved).
pub fn skeleton(module: &Module, shown: &str) -> String {
    let funcs: Vec<&Func> = module.funcs.iter().filter(|f| f.body.is_some()).collect();
    let stem = Path::new(shown).file_stem().map_or("module".into(), |s| {
        s.to_string_lossy().replace(|c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-' && c != '_', "_")
    });
    let mut locs = Vec::new();
    let mut cells = Vec::new();
    for (i, f) in funcs.iter().enumerate() {
        let args: Vec<String> = f
            .params
            .iter()
            .enumerate()
            .map(|(j, p)| {
                if p.ptr || matches!(p.ty.as_str(), ".u64" | ".b64" | ".s64") {
                    let l = format!("f{}_p{}", i, j);
                    locs.push(l.clone());
                    l
                } else {
                    "0".to_string()
                }
            })
            .collect();
        cells.push(if args.is_empty() {
            format!("call {}", f.name)
        } else {
            format!("call {}, ({})", f.name, args.join(", "))
        });
    }
    let heads: Vec<String> = (0..funcs.len()).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let w = cells.iter().chain(&heads).map(|c| c.len()).max().unwrap_or(0) + 1;
    let row = |v: &[String]| v.iter().map(|c| format!("{:w$}", c, w = w)).collect::<Vec<_>>().join("| ");
    let mut s = String::new();
    let _ = writeln!(s, "PTX {}", stem);
    let _ = writeln!(s, "\"skeleton for {}: one thread per function, each in its own CTA; set the CTAs (`tid N` for %tid.x), the arguments and the condition\"", shown);
    let init: Vec<String> = locs.iter().map(|l| format!("{} = 0;", l)).collect();
    let _ = writeln!(s, "{{ {} }}", init.join(" "));
    let _ = writeln!(s, "ptx \"{}\";", shown);
    if funcs.is_empty() {
        let _ = writeln!(s, "// {} defines no function with a body", shown);
        return s;
    }
    let _ = writeln!(s, " {};", row(&heads));
    let _ = writeln!(s, " {};", row(&cells));
    let _ = writeln!(s, "// The condition is a placeholder: replace it with the outcome to check.");
    let first = locs.first().map_or("0 == 0".to_string(), |l| format!("{} == 0", l));
    let _ = writeln!(s, "exists ({})", first);
    s
}

/// `scaffold MODULE.ptx`: the skeleton on stdout; a module that does not
/// parse is an input error (exit 2) pointing into it.
pub fn run(path: &Path) -> i32 {
    let shown = path.display().to_string();
    match super::load(path, &shown) {
        Ok(m) => {
            crate::out::print(&skeleton(&m, &shown));
            0
        }
        Err(e) => {
            crate::out::eprintln(&e.render(&shown, ""));
            e.exit_code()
        }
    }
}
