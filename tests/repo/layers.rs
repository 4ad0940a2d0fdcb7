//! Layers one way (ARCHITECTURE.md, "The layers"): every `crate::` path in
//! the library's source names a module of its own layer or of a lower one.
//! The order is read from the `layers` block of ARCHITECTURE.md, so the page
//! and the check cannot drift apart; a module missing from it fails too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, lowest first: each a name and the module paths (`c11::parse`)
/// it holds. A module path covers its submodules unless they are listed too.
fn layers(architecture: &str) -> Vec<(String, Vec<String>)> {
    let block = architecture.split("```layers\n").nth(1).expect("ARCHITECTURE.md has a ```layers block");
    let block = block.split("```").next().unwrap_or_default();
    block
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(name, mods)| (name.trim().to_string(), mods.split_whitespace().map(String::from).collect()))
        .collect()
}

/// The layer (its index) of a module path: the longest listed prefix.
fn layer_of(index: &BTreeMap<String, usize>, module: &str) -> Option<usize> {
    let mut path = module.to_string();
    loop {
        if let Some(&i) = index.get(&path) {
            return Some(i);
        }
        path = path.rsplit_once("::")?.0.to_string();
    }
}

/// The module paths a line of code names through `crate::` (a brace group
/// `crate::a::{b, c::d}` names `a::b` and `a::c::d`). Comments are skipped.
fn named_modules(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or_default();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let path: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let path = path.trim_end_matches(':').to_string();
        let after = &rest[path.len()..];
        match after.strip_prefix("::{") {
            Some(group) => {
                let group = group.split('}').next().unwrap_or_default();
                for item in group.split(',').map(str::trim).filter(|s| !s.is_empty() && *s != "self") {
                    out.push(format!("{}::{}", path, item.split_whitespace().next().unwrap_or(item)));
                }
                out.push(path);
            }
            None => out.push(path),
        }
    }
    out
}

/// The lines of a file, numbered from 1, with a `use` statement that spans
/// lines (`use crate::a::{\n b,\n c,\n};`) joined into its first line.
fn statements(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        match out.last_mut() {
            Some((_, joined)) if open => joined.push_str(code.trim()),
            _ => out.push((n + 1, code.to_string())),
        }
        let joined = &out.last().map(|x| x.1.clone()).unwrap_or_default();
        open = joined.trim_start().contains("use ") && joined.matches('{').count() > joined.matches('}').count();
    }
    out
}

/// The module path of a source file (`src/c11/parse.rs` -> `c11::parse`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).filter(|&p| p != "mod").collect();
    parts.join("::")
}

/// Every `file:line: what` where a module uses a higher layer, or is not in
/// any layer. Test code (`tests.rs`, `tests_*.rs`, after `#[cfg(test)]`) may
/// reach up: it is not part of the layering.
fn backward_edges(layers: &[(String, Vec<String>)], files: &[(String, String)]) -> Vec<String> {
    let index: BTreeMap<String, usize> =
        layers.iter().enumerate().flat_map(|(i, (_, mods))| mods.iter().map(move |m| (m.clone(), i))).collect();
    let mut bad = Vec::new();
    for (module, text) in files {
        let Some(own) = layer_of(&index, module) else {
            bad.push(format!("{}: in no layer of ARCHITECTURE.md", module));
            continue;
        };
        let leaf = module.rsplit("::").next().unwrap_or(module);
        if leaf == "tests" || leaf.starts_with("tests_") {
            continue;
        }
        for (n, line) in statements(text) {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            for target in named_modules(&line) {
                let Some(theirs) = layer_of(&index, &target) else { continue };
                if theirs > own {
                    bad.push(format!(
                        "{}:{}: `crate::{}` is in layer `{}`, above `{}`",
                        module, n, target, layers[theirs].0, layers[own].0
                    ));
                }
            }
        }
    }
    bad
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src reads").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_higher_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md reads");
    let layers = layers(&page);
    assert!(layers.len() >= 8, "the layers block lists the layers: {:?}", layers);
    let src = root.join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    // The library only: lib.rs declares the modules, the binary (main.rs and
    // its own modules, `cmd` with its submodules) uses the library through `ptx_litmus::`.
    let binary = ["lib", "main", "args", "opts", "cmd"];
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| (module_of(&src, p), std::fs::read_to_string(p).expect("reads")))
        .filter(|(m, _)| !binary.contains(&m.split("::").next().unwrap_or_default()))
        .collect();
    assert!(files.len() > 100, "found the sources ({} files)", files.len());
    let bad = backward_edges(&layers, &files);
    assert!(bad.is_empty(), "backward edges (fix the code or the order in ARCHITECTURE.md):\n{}", bad.join("\n"));
}

#[test]
fn a_backward_edge_is_found() {
    let layers = layers("```layers\nbase: error\nprogram: program c11\nmodel: model c11::map\n```\n");
    let file = |m: &str, t: &str| (m.to_string(), t.to_string());
    let files = [
        file("program::spin", "use crate::model::strong::morally_strong;\n"),
        file("program::build", "use crate::error::Error; // crate::model in a comment\n"),
        file("program::merge", "use crate::c11::{\n    map::Mapping,\n    Order,\n};\n"),
        file("model::eval", "use crate::program::Program;\n#[cfg(test)]\nmod tests { use crate::gpu; }\n"),
        file("gpu", "use crate::error::Error;\n"),
    ];
    let bad = backward_edges(&layers, &files);
    assert_eq!(bad.len(), 3, "{:#?}", bad);
    assert!(bad[0].starts_with("program::spin:1: `crate::model::strong::morally_strong`"), "{}", bad[0]);
    assert!(bad[1].starts_with("program::merge:1: `crate::c11::map::Mapping`"), "{}", bad[1]);
    assert_eq!(bad[2], "gpu: in no layer of ARCHITECTURE.md");
}
