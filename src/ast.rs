//! The litmus AST: what the parser produces, with source spans. No semantics here
//! beyond normalising the two instruction spellings (corpus and real PTX) to one form.

use std::fmt;

mod instr;
pub mod special;
pub use instr::*;

/// A source position: 1-based line and column, plus byte offsets into the file text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub line: usize,
    pub col: usize,
    pub start: usize,
    pub end: usize,
}

/// A whole litmus file.
#[derive(Clone, Debug)]
pub struct Litmus {
    /// `PTX` or `ptx`.
    pub arch: String,
    pub name: String,
    /// Quoted documentation strings after the name, without the quotes.
    pub docs: Vec<String>,
    pub init: Vec<InitItem>,
    /// `ptx "FILE.ptx";` lines: modules whose functions cells may call.
    pub modules: Vec<ModuleRef>,
    /// One header per thread column, in column order.
    pub threads: Vec<ThreadHeader>,
    /// `code[t]` = the instructions of column `t`, top to bottom; empty cells are dropped.
    pub code: Vec<Vec<Instr>>,
    /// `locations [x; P0:r0;]`: extra observables to show in the final states.
    pub locations: Vec<Observable>,
    /// Where each of `locations` is written (the end of the file for those a
    /// test without a condition shows), for errors that name one.
    pub locations_at: Vec<Span>,
    /// `filter (prop)`: keep only executions satisfying prop.
    pub filter: Option<Prop>,
    pub condition: Condition,
    /// A C test (`C name`): the C memory order of each access and fence,
    /// which the PTX-level instructions cannot say (`crate::c11`).
    pub c11: Option<std::sync::Arc<crate::c11::Orders>>,
}

/// A `ptx "PATH";` line: PATH is relative to the litmus file.
#[derive(Clone, Debug)]
pub struct ModuleRef {
    pub path: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum InitItem {
    /// `x = 5;` (value defaults to 0 when a location is only used).
    Location { name: String, value: i64, span: Span },
    /// `x = &y;` (herd): x initially holds the address of y. (Dat3M's `x = y;`,
    /// y's initial value, is resolved by the parser into `Location`.)
    LocationAddress { name: String, target: String, span: Span },
    /// `P1:r1 = 3;` (`%` kept as part of the register name).
    Register { thread: usize, reg: String, value: i64, span: Span },
    /// `P0:r1 = x;` / `P0:r1 = &x;` a register initialised with the address of a location.
    RegisterAddress { thread: usize, reg: String, location: String, span: Span },
    /// `s @ surface aliases x;`
    Alias { name: String, proxy: Proxy, target: String, span: Span },
    /// `u32 out[4];`: `len` consecutive elements of `ty` (litmus-format 5).
    Array { name: String, ty: IntTy, len: u32, span: Span },
    /// `out[2] = 5;`: one element's initial value.
    Element { name: String, index: u32, value: i64, span: Span },
    /// A variable a loaded PTX module declares (`.global .u32 g = 7;`,
    /// `.shared .u32 s;`, a call's `.param` or `.local` variable): ISA 5.1, 5.4.
    Var(VarDecl),
}

/// A variable declared in a PTX module, under the name the program uses.
#[derive(Clone, Debug)]
pub struct VarDecl {
    pub name: String,
    pub space: VarSpace,
    /// Size in bytes (element size times the number of elements).
    pub size: u64,
    /// The initial bytes, little-endian, from offset 0 (bytes past them are
    /// 0); `None`: no initial value (8.2.6, see decisions.md D71).
    pub init: Option<Vec<u8>>,
    pub span: Span,
    pub origin: Option<std::sync::Arc<crate::error::Origin>>,
}

/// The state space of a declared variable (ISA 5.1): it decides who shares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarSpace {
    Global,
    Const,
    /// One instance per CTA (5.1.7).
    Shared,
    /// Private to a thread (5.1.5).
    Local,
    /// Private to a call (5.1.6).
    Param,
}

impl VarSpace {
    /// Each thread has its own copy: no other thread can observe it.
    pub fn is_private(self) -> bool {
        matches!(self, VarSpace::Local | VarSpace::Param)
    }
}

/// The kind of proxy an alias declaration or an access goes through (ISA 8.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Proxy {
    Generic,
    Texture,
    Surface,
    Constant,
    /// The async proxy (8.6; issue 41): the accesses of `cp.async.bulk`.
    Async,
}

/// `P1@cta 1,cluster 0,gpu 0`. Without `cluster`, each CTA is its own cluster.
#[derive(Clone, Debug)]
pub struct ThreadHeader {
    pub id: usize,
    pub cta: u32,
    pub cluster: Option<u32>,
    pub gpu: u32,
    /// `tid N`: the thread's `%tid.x` (default: its rank among its CTA's threads).
    pub tid: Option<u32>,
    pub span: Span,
}

/// Something whose final value can be observed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Observable {
    Reg { thread: usize, reg: String },
    Loc(String),
}

impl fmt::Display for Observable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Observable::Reg { thread, reg } => write!(f, "P{}:{}", thread, reg),
            Observable::Loc(l) => write!(f, "{}", l),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Term {
    Obs(Observable, Span),
    Const(i64),
}

#[derive(Clone, Debug)]
pub enum Prop {
    True,
    False,
    Eq(Term, Term),
    Ne(Term, Term),
    /// `a < b` (`a > b` is parsed as `b < a`).
    Lt(Term, Term),
    /// `a <= b` (`a >= b` is parsed as `b <= a`).
    Le(Term, Term),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    Implies(Box<Prop>, Box<Prop>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

#[derive(Clone, Debug)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub prop: Prop,
    /// The condition as written, for the report line `Condition ...`.
    pub text: String,
    /// False for a test without a condition (Dat3M): read as `exists true`,
    /// every final state is shown and no verdict is printed.
    pub given: bool,
    pub span: Span,
}
