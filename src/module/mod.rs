//! Real PTX modules as litmus threads (litmus-format.md section 5): `ptx
//! "FILE.ptx";` loads a module, a cell's `call NAME, (ARGS);` runs one of its
//! functions. Calls are inlined here, on the AST, before the program builder:
//! registers and labels are renamed per call frame, `.param` traffic becomes
//! register copies private to the call, `ret` a jump to the frame's end, and
//! special registers (`%tid.x`, ...) constants from the thread header.

mod compound;
mod inline;
pub mod parse;
pub mod scaffold;
mod special;

pub(crate) use special::{cta_thread_counts, thread_ids};

use crate::ast::{InitItem, InstrKind, Litmus, VarDecl};
use crate::error::{Error, Origin, Result};
use parse::Module;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// The newest PTX ISA version the model covers (PTX ISA 9.2).
pub(crate) const ISA_VERSION: (u32, u32) = (9, 2);

/// The init-block name whose address value `%envreg1`/`%envreg2` hold (D177).
pub(crate) const ENVREG: &str = "envreg";

/// The grid workspace the driver allocates for a cooperative launch, when the
/// harness names none (D251). `@` keeps it apart from every name a test can
/// write; its 8 bytes are cooperative groups' `grid_workspace` (`wsSize`,
/// `barrier`), zero as the harness's own `u32 ws[2];` is.
pub(crate) const DRIVER_WORKSPACE: &str = "grid_workspace@driver";

/// Largest module file read.
const MAX_MODULE_BYTES: usize = 16 << 20;

/// Load the modules of `lit` (paths relative to `base`) and replace every
/// `call` cell by the called function's body. Warnings (a `.version` newer
/// than the model's) are returned for the caller to print.
pub fn expand(lit: &mut Litmus, base: &Path) -> Result<Vec<Warning>> {
    let has_call = lit.code.iter().flatten().any(|i| matches!(i.kind, InstrKind::Call { .. }));
    if lit.modules.is_empty() && !has_call {
        return Ok(Vec::new());
    }
    crate::budget::phase("the PTX modules and their inlined calls");
    let mut warnings = Vec::new();
    let mut modules = Vec::new();
    for m in &lit.modules {
        // `./m.ptx` reads as `m.ptx` in messages.
        let path = if base == Path::new(".") { Path::new(&m.path).to_path_buf() } else { base.join(&m.path) };
        let module = load(&path, &m.path).map_err(|e| match e.span {
            None => Error::input(e.message, m.span),
            Some(_) => e,
        })?;
        warnings.extend(version_warning(&module));
        modules.push(module);
    }
    let funcs = index(&modules)?;
    let (var_names, decls) = variables(&modules);
    let specials = special::registers(lit);
    let mut declared: HashSet<String> = HashSet::new();
    let mut add = |lit: &mut Litmus, d: VarDecl| {
        if declared.insert(d.name.clone()) {
            lit.init.push(InitItem::Var(d));
        }
    };
    for d in decls {
        add(lit, d);
    }
    // The harness's `envreg = &ws;`: the grid workspace `%envreg1/2` point to
    // (D177); without it, the driver's (D251).
    let named: Option<String> = lit.init.iter().find_map(|i| match i {
        InitItem::LocationAddress { name, target, .. } if name == ENVREG => Some(target.clone()),
        _ => None,
    });
    let envreg = named.clone().unwrap_or_else(|| DRIVER_WORKSPACE.to_string());
    let mut driver_workspace_read = false;
    for (t, thread_specials) in specials.iter().enumerate() {
        let code = std::mem::take(&mut lit.code[t]);
        let mut inl = inline::Inliner::new(&modules, &var_names, &funcs, t, thread_specials, Some(&envreg));
        for ins in code {
            match ins.kind {
                InstrKind::Call { name, args } => inl.call_from_cell(&name, args, ins.span)?,
                _ => inl.push(ins),
            }
        }
        driver_workspace_read |= named.is_none() && inl.envreg_read_seen();
        let (code, private) = inl.finish();
        lit.code[t] = code;
        for d in private {
            add(lit, d);
        }
    }
    if driver_workspace_read {
        declare_driver_workspace(lit);
    }
    crate::budget::phase("the program");
    Ok(warnings)
}

/// The driver's grid workspace (D251): the variable, and the harness line
/// `envreg = &grid_workspace@driver;` that D177 reads the workspace from.
fn declare_driver_workspace(lit: &mut Litmus) {
    let span = crate::ast::Span::default();
    lit.init.push(InitItem::Var(VarDecl {
        name: DRIVER_WORKSPACE.to_string(),
        space: crate::ast::VarSpace::Global,
        size: 8,
        init: Some(vec![0; 8]),
        span,
        origin: None,
    }));
    lit.init.push(InitItem::LocationAddress { name: ENVREG.to_string(), target: DRIVER_WORKSPACE.to_string(), span });
}

/// A register, `.param` or `.local` name as the module writes it: inlining
/// renames `%rd4` to `%rd4#f1s1` per call (D40), which messages never show.
pub(crate) fn written_name(name: &str) -> &str {
    name.split('#').next().unwrap_or(name)
}

/// The variables of the modules under their program names, and their
/// declarations. A `.visible`/`.extern` variable is one per program, named
/// as written (a harness location of that name is the same variable); any
/// other is the module's own (5.4.6, internal linkage): two modules' `g` are
/// two variables, the second named `g@FILE` (D73).
fn variables(modules: &[Module]) -> (Vec<HashMap<String, String>>, Vec<VarDecl>) {
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut names = Vec::new();
    let mut decls = Vec::new();
    for (mi, m) in modules.iter().enumerate() {
        let mut map = HashMap::new();
        for v in &m.vars {
            let name = match taken.get(&v.name) {
                Some(&other)
                    if !(v.linked && modules[other].vars.iter().any(|w| w.name == v.name && w.linked))
                        && other != mi =>
                {
                    format!("{}@{}", v.name, m.origin.file)
                }
                _ => v.name.clone(),
            };
            taken.entry(v.name.clone()).or_insert(mi);
            map.insert(v.name.clone(), name.clone());
            // An `.extern` variable no loaded module defines (dynamic shared
            // memory, `.extern .shared .b8 smem[];`) is still one of its space,
            // with no initial value and, when unsized, no known end (size 0).
            let defined = modules.iter().any(|o| o.vars.iter().any(|w| w.name == v.name && w.linked && !w.external));
            if v.external && defined {
                continue;
            }
            let init = if v.external { None } else { v.init.clone() };
            decls.push(VarDecl {
                name,
                space: v.space,
                size: v.size.unwrap_or(0),
                init,
                span: v.span,
                origin: Some(m.origin.clone()),
            });
        }
        names.push(map);
    }
    (names, decls)
}

/// Read and parse one module.
pub fn load(path: &Path, shown: &str) -> Result<Module> {
    let text = crate::input::read_text_capped(path, MAX_MODULE_BYTES)
        .map_err(|m| Error::input_nospan(format!("cannot load PTX module `{}`: {}", shown, m)))?;
    let origin =
        Arc::new(Origin { file: path.display().to_string(), source: Arc::from(text.as_str()), context: String::new() });
    parse::parse_module(origin)
}

/// A warning about a module: `kind` says which warnings are the same one
/// (a run prints each kind once), `text` is what is printed.
pub struct Warning {
    pub kind: String,
    pub text: String,
}

/// A `.version` newer than the ISA the model covers: the module is read
/// anyway (newer versions add instructions, they do not change the model).
fn version_warning(m: &Module) -> Option<Warning> {
    let (v, span) = m.version.as_ref()?;
    let mut parts = v.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
    let ver = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (ver > ISA_VERSION).then(|| Warning {
        kind: format!(".version {}", v),
        text: format!(
            "{}:{}:{}: warning: `.version {}` is newer than PTX ISA {}.{}, which the model covers; the module is read with that model (said once per run, -q silences it)",
            m.origin.file, span.line, span.col, v, ISA_VERSION.0, ISA_VERSION.1
        ),
    })
}

/// Function name -> (module, function) for every function with a body.
fn index(modules: &[Module]) -> Result<HashMap<String, (usize, usize)>> {
    let mut out: HashMap<String, (usize, usize)> = HashMap::new();
    for (mi, m) in modules.iter().enumerate() {
        for (fi, f) in m.funcs.iter().enumerate() {
            if f.body.is_none() {
                continue;
            }
            if let Some(&(pm, _)) = out.get(&f.name) {
                let e = Error::input(
                    format!("function `{}` is defined twice (also in {})", f.name, modules[pm].origin.file),
                    f.span,
                );
                return Err(e.in_origin(&Some(m.origin.clone())));
            }
            out.insert(f.name.clone(), (mi, fi));
        }
    }
    Ok(out)
}
