//! Inlining calls into a thread's code (decisions.md D40). Each call gets a
//! frame number; its registers, `.param` variables, `.local` variables and
//! labels are renamed with it (`%r1` -> `%r1#f2`), so two calls never share
//! them. A `.param` or `.local` variable becomes a variable of the call's
//! private memory (`param0#f1s2`, D72): bytes like any other memory, which
//! the program builder keeps per thread (an address stored there stays an
//! address).
//!
//! The inliner, its frames and scopes are here; `call` binds a call's
//! arguments and inlines the body, `scope` renames names per frame and scope,
//! `instr` turns a body's statements into instructions, `registers` checks
//! the registers they read and reads the special ones, `resolve` finds the
//! function a call names.

mod call;
mod instr;
mod registers;
mod resolve;
mod scope;

pub(crate) use resolve::{demangled_base, function_hint};

use crate::ast::{Instr, InstrKind, Span, VarDecl, VarSpace};
use crate::error::Origin;
use crate::module::parse::Module;
use std::collections::HashMap;
use std::sync::Arc;

/// Most instructions one thread may have after inlining.
const MAX_INLINED: usize = 200_000;

/// Deepest chain of calls inlined (each level is a native stack frame of the
/// inliner; compiler output for a litmus kernel nests a few levels).
const MAX_CALL_DEPTH: usize = 256;

pub(crate) struct Inliner<'a> {
    modules: &'a [Module],
    /// For each module, its variables' names in the program (D73).
    var_names: &'a [HashMap<String, String>],
    /// The `.param` and `.local` variables of the calls inlined so far.
    decls: Vec<VarDecl>,
    funcs: &'a HashMap<String, (usize, usize)>,
    thread: usize,
    specials: &'a HashMap<String, i64>,
    /// The location whose address `%envreg1`/`%envreg2` hold (the harness's
    /// `envreg = &ws;`, D177).
    envreg: Option<&'a str>,
    /// Whether a `mov` from `%envreg1`/`%envreg2` was inlined.
    envreg_seen: bool,
    out: Vec<Instr>,
    frames: usize,
    fresh: usize,
    /// Functions being inlined, outermost first (recursion is refused).
    stack: Vec<String>,
    exit_used: bool,
    /// Instructions of `out` already charged to the budget.
    charged: usize,
}

/// One call being inlined.
struct Frame<'a> {
    id: usize,
    origin: Arc<Origin>,
    /// Declared names (registers, `.param`, `.local`) -> renamed, innermost scope last.
    scopes: Vec<Scope>,
    scope_count: usize,
    /// The function's parameters and return parameters -> the register base bound to them.
    params: HashMap<String, String>,
    /// The module's variables: name in the module -> name in the program.
    vars: &'a HashMap<String, String>,
}

/// The names one `{ }` scope declares.
#[derive(Default)]
struct Scope {
    names: HashMap<String, String>,
    /// `%r<N>` declarations: (`%r`, N, the space), renamed as `names` would be.
    ranges: Vec<(String, u32, String)>,
    /// Frame and scope numbers, for renaming a name of `ranges`.
    at: (usize, usize),
}

impl<'a> Inliner<'a> {
    pub fn new(
        modules: &'a [Module],
        var_names: &'a [HashMap<String, String>],
        funcs: &'a HashMap<String, (usize, usize)>,
        thread: usize,
        specials: &'a HashMap<String, i64>,
        envreg: Option<&'a str>,
    ) -> Self {
        Inliner {
            modules,
            var_names,
            decls: Vec::new(),
            funcs,
            thread,
            specials,
            envreg,
            envreg_seen: false,
            out: Vec::new(),
            frames: 0,
            fresh: 0,
            stack: Vec::new(),
            exit_used: false,
            charged: 0,
        }
    }

    /// An instruction of the cell itself.
    pub fn push(&mut self, ins: Instr) {
        self.out.push(ins);
    }

    /// Whether the inlined code reads `%envreg1`/`%envreg2` (the grid workspace's address).
    pub fn envreg_read_seen(&self) -> bool {
        self.envreg_seen
    }

    /// The thread's code, and the `.param`/`.local` variables its calls declare.
    pub fn finish(mut self) -> (Vec<Instr>, Vec<VarDecl>) {
        if self.exit_used {
            let l = self.exit_label();
            self.out.push(Instr {
                kind: InstrKind::Label(l.clone()),
                span: Span::default(),
                text: format!("{}:", l),
                origin: None,
            });
        }
        (self.out, self.decls)
    }

    /// Declare private variable `name` of `size` bytes (a call's `.param` or `.local`).
    pub(super) fn declare(&mut self, name: &str, space: VarSpace, size: u64, span: Span, origin: Option<Arc<Origin>>) {
        self.decls.push(VarDecl { name: name.to_string(), space, size, init: None, span, origin });
    }

    pub(super) fn exit_label(&self) -> String {
        format!("__exit#P{}", self.thread)
    }

    pub(super) fn next_frame(&mut self) -> usize {
        self.frames += 1;
        self.frames
    }

    /// Inlining counts against the test's memory and time budgets: each
    /// instruction once, when it is made (its text, its names, its slot).
    pub(super) fn charge_new(&mut self) {
        let new = &self.out[self.charged.min(self.out.len())..];
        let bytes: u64 = new.iter().map(|i| (std::mem::size_of::<Instr>() + 2 * i.text.len() + 128) as u64).sum();
        self.charged = self.out.len();
        crate::budget::charge(bytes);
    }
}
