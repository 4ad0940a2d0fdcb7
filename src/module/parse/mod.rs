//! PTX module text -> functions with their parameters and bodies (grammar in
//! `grammar/ptx.pest`). Instructions stay raw (`RawInstr`): they are decoded by
//! the litmus decoder once inlined, with registers renamed per call frame.
//!
//! The parsed module's types and the walk over modules, functions and scopes
//! are here; `decl` reads declarations, `instr` instructions and
//! calls, `constant` the numbers they hold, `reject` says why text is refused.

mod constant;
mod decl;
mod instr;
mod reject;

use crate::ast::{Span, VarSpace};
use crate::error::{Error, Origin, Result};
use crate::parse::instr::{Guard, RawInstr, RawOperand};
use crate::parse::text::Src;
use decl::param;
use pest::iterators::Pair;
use pest::Parser;
use reject::{check_depth, syntax};
use std::sync::Arc;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/ptx.pest"]
struct PtxParser;

/// Deepest `{ }` nesting accepted (the grammar recurses on scopes).
const MAX_SCOPE_DEPTH: usize = 64;

/// A parsed module.
#[derive(Debug)]
pub struct Module {
    pub(crate) origin: Arc<Origin>,
    /// `.version` as written, and where.
    pub version: Option<(String, Span)>,
    pub funcs: Vec<Func>,
    /// Variables in memory: module-scope `.global`/`.const`/`.shared`
    /// declarations and the static ones declared in function bodies.
    pub(crate) vars: Vec<ModVar>,
}

/// A variable of a module's memory (ISA 5.1, 5.4).
#[derive(Clone, Debug)]
pub(crate) struct ModVar {
    pub name: String,
    pub space: VarSpace,
    /// Bytes (element size times elements); `None` for `name[]`.
    pub size: Option<u64>,
    /// Initial bytes from offset 0 (the rest 0), or `None`: no initial value (D71).
    pub init: Option<Vec<u8>>,
    /// `.visible` or `.extern`: the name is shared with other modules (linkage).
    pub(crate) linked: bool,
    /// `.extern`: a declaration of a variable another module defines.
    pub(crate) external: bool,
    pub span: Span,
}

#[derive(Debug)]
pub struct Func {
    pub name: String,
    pub entry: bool,
    pub(crate) params: Vec<Param>,
    pub(crate) rets: Vec<Param>,
    /// `None`: a declaration (`.extern .func f(...);`).
    pub(crate) body: Option<Vec<Stmt>>,
    pub span: Span,
}

impl Func {
    /// A definition, not a declaration: it can be called.
    pub fn has_body(&self) -> bool {
        self.body.is_some()
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub name: String,
    /// `.u64`, `.b32`, ... (the first type word), for `scaffold`.
    pub ty: String,
    /// `.ptr` was written (a pointer parameter).
    pub(crate) ptr: bool,
    /// Bytes of parameter memory (`.b8 p[16]` is 16).
    pub size: u64,
}

/// A call written in a body: `call.uni (ret), f, (args);`.
#[derive(Clone, Debug)]
pub(crate) struct CallStmt {
    pub guard: Option<Guard>,
    pub(crate) rets: Vec<RawOperand>,
    pub func: String,
    pub args: Vec<RawOperand>,
    /// An indirect call's prototype (refused when inlined).
    pub(crate) proto: bool,
    pub span: Span,
    pub text: String,
}

#[derive(Clone, Debug)]
pub(crate) enum Stmt {
    Open,
    Close,
    /// `.reg`/`.local`/`.shared`/`.param`/`.global`/`.const` declarations.
    Decl(Decl),
    Label {
        name: String,
        span: Span,
        text: String,
    },
    Instr(RawInstr),
    Call(CallStmt),
    /// A statement that could not be read (an instruction form the grammar
    /// does not know, a literal out of range): its error, raised only when
    /// its function is inlined, so the module's other functions stay usable.
    Unread(Error),
}

/// A declaration: `.reg .b32 %r<4>;`, `.global .align 4 .u32 g[2] = {1, 2};`.
#[derive(Clone, Debug)]
pub(crate) struct Decl {
    /// The state space without the dot (`reg`, `local`, `shared`, `param`, `global`, `const`).
    pub space: String,
    /// `.visible`/`.extern`/`.weak`/`.common` was written.
    pub(crate) linked: bool,
    pub(crate) external: bool,
    /// The names with their size in bytes (`None`: unknown, as in `name[]`).
    pub names: Vec<(String, Option<u64>)>,
    /// Parameterized names (`%r<10>` is `("%r", 10)`: `%r0`..`%r9`, kept as a
    /// range so that a huge count costs nothing until a name of it is used).
    pub ranges: Vec<(String, u32)>,
    /// The size in bytes of one name of `ranges`.
    pub(crate) elem: u64,
    /// The initializer's bytes (for the last name), little-endian.
    pub init: Option<Vec<u8>>,
    pub span: Span,
}

/// Parse module `text`, whose errors point at `origin`.
pub(crate) fn parse_module(origin: Arc<Origin>) -> Result<Module> {
    let text: &str = &origin.source;
    let src = Src::new(text);
    check_depth(&src).map_err(|e| e.in_origin(&Some(origin.clone())))?;
    let mut pairs =
        PtxParser::parse(Rule::module, text).map_err(|e| syntax(e, &src).in_origin(&Some(origin.clone())))?;
    let mut m = Module { origin: origin.clone(), version: None, funcs: Vec::new(), vars: Vec::new() };
    let Some(top) = pairs.next() else { return Err(Error::internal("the PTX parser returned no parse tree")) };
    let reader = Reader { src: &src };
    for p in top.into_inner() {
        match p.as_rule() {
            Rule::version => {
                let v = p.clone().into_inner().find(|q| q.as_rule() == Rule::version_num);
                m.version = v.map(|v| (v.as_str().to_string(), src.pair_span(&v)));
            }
            Rule::func => {
                let f = reader.func(p).map_err(|e| e.in_origin(&Some(origin.clone())))?;
                // `.shared`/`.global`/`.const` in a body are static: one per program (5.1).
                for s in f.body.iter().flatten() {
                    if let Stmt::Decl(d) = s {
                        if matches!(d.space.as_str(), "shared" | "global" | "const") {
                            m.vars.extend(d.vars());
                        }
                    }
                }
                m.funcs.push(f);
            }
            Rule::var_decl => {
                let d = reader.decl(p).map_err(|e| e.in_origin(&Some(origin.clone())))?;
                m.vars.extend(d.vars());
            }
            _ => {}
        }
    }
    Ok(m)
}

struct Reader<'s> {
    src: &'s Src<'s>,
}

impl Reader<'_> {
    fn func(&self, pair: Pair<Rule>) -> Result<Func> {
        let span = self.src.pair_span(&pair);
        let mut f = Func { name: String::new(), entry: false, params: Vec::new(), rets: Vec::new(), body: None, span };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::func_kw => f.entry = p.as_str() == ".entry",
                Rule::ident => f.name = p.as_str().to_string(),
                Rule::ret_params => {
                    f.rets = p.into_inner().filter(|q| q.as_rule() == Rule::param_decl).map(param).collect()
                }
                Rule::params => {
                    f.params = p.into_inner().filter(|q| q.as_rule() == Rule::param_decl).map(param).collect()
                }
                Rule::scope => {
                    let mut body = Vec::new();
                    self.scope(p, &mut body)?;
                    f.body = Some(body);
                }
                _ => {}
            }
        }
        Ok(f)
    }

    fn scope(&self, pair: Pair<Rule>, out: &mut Vec<Stmt>) -> Result<()> {
        out.push(Stmt::Open);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::scope => self.scope(p, out)?,
                Rule::var_decl => out.push(self.decl(p).map_or_else(Stmt::Unread, Stmt::Decl)),
                Rule::label_def => {
                    let text = p.as_str().to_string();
                    let name = text.trim_end_matches(':').to_string();
                    out.push(Stmt::Label { name, span: self.src.pair_span(&p), text });
                }
                Rule::call => out.push(self.call(p).map_or_else(Stmt::Unread, Stmt::Call)),
                Rule::instr => out.push(self.instr(p).map_or_else(Stmt::Unread, Stmt::Instr)),
                Rule::unread => out.push(Stmt::Unread(self.unread(p))),
                _ => {}
            }
        }
        out.push(Stmt::Close);
        Ok(())
    }
}
