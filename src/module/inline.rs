//! Inlining calls into a thread's code (decisions.md D40). Each call gets a
//! frame number; its registers, `.param` variables, `.local` variables and
//! labels are renamed with it (`%r1` -> `%r1#f2`), so two calls never share
//! them. A `.param` or `.local` variable becomes a variable of the call's
//! private memory (`param0#f1s2`, D72): bytes like any other memory, which
//! the program builder keeps per thread (an address stored there stays an
//! address).

use super::parse::{CallStmt, Decl, Func, Module, Param, Stmt};
use crate::ast::{
    Addr, AddrBase, AluOp, BranchCond, Instr, InstrKind, IntTy, Operand, Proxy, Sem, Span, VarDecl, VarSpace,
};
use crate::error::{Error, Origin, Result};
use crate::parse::alu::type_of;
use crate::parse::instr::{decode_all, Names, RawInstr, RawKind, RawOperand};
use std::collections::{HashMap, HashSet};
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

impl Scope {
    fn get(&self, name: &str) -> Option<String> {
        if let Some(r) = self.names.get(name) {
            return Some(r.clone());
        }
        self.ranges.iter().rev().find_map(|(base, n, space)| {
            let digits = name.strip_prefix(base.as_str())?;
            // `%r<10>` declares `%r0`..`%r9`: a decimal index without leading zeros.
            let canonical = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits == "0" || !digits.starts_with('0'));
            let index: u32 = digits.parse().ok().filter(|_| canonical)?;
            (index < *n).then(|| renamed(name, space, self.at)).flatten()
        })
    }
}

/// A name declared in `space` in scope `sc` of frame `id`, renamed so that no
/// other call or scope shares it; `None` for `.shared`/`.global`/`.const`
/// declared in a body, which are static: one per program.
fn renamed(name: &str, space: &str, (id, sc): (usize, usize)) -> Option<String> {
    let bare = name.trim_start_matches('%');
    match space {
        "reg" => Some(format!("%{}#f{}s{}", bare, id, sc)),
        "param" => Some(format!("{}#f{}s{}", bare, id, sc)),
        "local" => Some(format!("{}#f{}", bare, id)),
        _ => None,
    }
}

impl Frame<'_> {
    fn lookup(&self, name: &str) -> Option<String> {
        self.scopes.iter().rev().find_map(|s| s.get(name)).or_else(|| self.params.get(name).cloned())
    }
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
    fn declare(&mut self, name: &str, space: VarSpace, size: u64, span: Span, origin: Option<Arc<Origin>>) {
        self.decls.push(VarDecl { name: name.to_string(), space, size, init: None, span, origin });
    }

    fn exit_label(&self) -> String {
        format!("__exit#P{}", self.thread)
    }

    /// A cell's `call NAME, (ARGS);`: each argument is copied into the
    /// register bound to the parameter, then the body runs.
    pub(crate) fn call_from_cell(&mut self, name: &str, args: Vec<Operand>, span: Span) -> Result<()> {
        let (mi, fi) = self
            .resolve(name)
            .ok_or_else(|| self.unknown_function(name, "no `ptx \"...\";` module of this test defines it", span))?;
        let f = &self.modules[mi].funcs[fi];
        if args.len() != f.params.len() {
            return Err(Error::input(
                format!(
                    "`{}` takes {} parameter{}, this call passes {}",
                    name,
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
            ));
        }
        let id = self.next_frame();
        let mut params = HashMap::new();
        let origin = Some(self.modules[mi].origin.clone());
        for (p, a) in f.params.iter().zip(args) {
            let root = format!("{}#f{}", p.name, id);
            self.declare(&root, VarSpace::Param, p.size, f.span, origin.clone());
            let text = format!("call {}: {} = {}", name, p.name, operand_text(&a));
            self.out.push(Instr { kind: param_store(&root, p, a), span, text, origin: None });
            params.insert(p.name.clone(), root);
        }
        for r in &f.rets {
            let root = format!("{}#f{}", r.name, id);
            self.declare(&root, VarSpace::Param, r.size, f.span, origin.clone());
            params.insert(r.name.clone(), root);
        }
        self.body(mi, fi, id, params)
    }

    /// The function a cell's `call` names: by its name in the module, or by
    /// its demangled name when exactly one function has it (`mp_cta` for
    /// `_Z6mp_ctaPiS_S_`; an overloaded name must be given mangled).
    fn resolve(&self, name: &str) -> Option<(usize, usize)> {
        if let Some(&f) = self.funcs.get(name) {
            return Some(f);
        }
        let mut by_plain = self.funcs.iter().filter(|(k, _)| demangled_base(k) == Some(name));
        match (by_plain.next(), by_plain.next()) {
            (Some((_, &f)), None) => Some(f),
            _ => None,
        }
    }

    /// `unknown function `NAME`...` with the closest defined name, if any.
    fn unknown_function(&self, name: &str, what: &str, span: Span) -> Error {
        let names: Vec<&str> = self.funcs.keys().map(|k| k.as_str()).collect();
        Error::input(format!("unknown function `{}`: {}{}", name, what, function_hint(&names, name)), span)
    }

    fn next_frame(&mut self) -> usize {
        self.frames += 1;
        self.frames
    }

    fn body(&mut self, mi: usize, fi: usize, id: usize, params: HashMap<String, String>) -> Result<()> {
        let m = &self.modules[mi];
        let f: &Func = &m.funcs[fi];
        let caller =
            self.stack.last().map_or_else(|| format!("P{}", self.thread), |c| format!("{}, P{}", c, self.thread));
        let origin = Arc::new(Origin {
            file: m.origin.file.clone(),
            source: m.origin.source.clone(),
            context: format!("in {}, called from {}", f.name, caller),
        });
        if self.stack.contains(&f.name) {
            return Err(Error::input(format!("`{}` calls itself (recursion cannot be inlined)", f.name), f.span)
                .in_origin(&Some(origin)));
        }
        if self.stack.len() >= MAX_CALL_DEPTH {
            let msg = format!(
                "calls are nested more than {} levels deep (`{}` is level {})",
                MAX_CALL_DEPTH,
                f.name,
                self.stack.len() + 1
            );
            return Err(Error::input(msg, f.span).in_origin(&Some(origin)));
        }
        self.stack.push(f.name.clone());
        let mut fr = Frame { id, origin, scopes: Vec::new(), scope_count: 0, params, vars: &self.var_names[mi] };
        for s in f.body.iter().flatten() {
            if self.out.len() > MAX_INLINED {
                return Err(Error::limit(format!(
                    "thread P{} has more than {} instructions once its calls are inlined",
                    self.thread, MAX_INLINED
                )));
            }
            self.stmt(&mut fr, s).map_err(|e| e.in_origin(&Some(fr.origin.clone())))?;
            self.charge_new();
        }
        let l = format!("__ret#f{}", id);
        self.out.push(Instr {
            kind: InstrKind::Label(l.clone()),
            span: f.span,
            text: format!("{}:", l),
            origin: Some(fr.origin.clone()),
        });
        self.stack.pop();
        Ok(())
    }

    /// Inlining counts against the test's memory and time budgets: each
    /// instruction once, when it is made (its text, its names, its slot).
    fn charge_new(&mut self) {
        let new = &self.out[self.charged.min(self.out.len())..];
        let bytes: u64 = new.iter().map(|i| (std::mem::size_of::<Instr>() + 2 * i.text.len() + 128) as u64).sum();
        self.charged = self.out.len();
        crate::budget::charge(bytes);
    }

    fn stmt(&mut self, fr: &mut Frame, s: &Stmt) -> Result<()> {
        match s {
            Stmt::Open => {
                fr.scope_count += 1;
                fr.scopes.push(Scope { at: (fr.id, fr.scope_count), ..Scope::default() });
            }
            Stmt::Close => {
                fr.scopes.pop();
            }
            Stmt::Decl(d) => self.decl(fr, d),
            Stmt::Label { name, span, text } => {
                let kind = InstrKind::Label(format!("{}#f{}", name, fr.id));
                self.out.push(Instr { kind, span: *span, text: text.clone(), origin: Some(fr.origin.clone()) });
            }
            Stmt::Instr(raw) => {
                self.guarded(fr, raw.guard.as_ref().map(|g| (g.reg.clone(), g.negated)), |me, fr| me.instr(fr, raw))?
            }
            Stmt::Call(c) => {
                self.guarded(fr, c.guard.as_ref().map(|g| (g.reg.clone(), g.negated)), |me, fr| me.call(fr, c))?
            }
            Stmt::Unread(e) => return Err(e.clone()),
        }
        Ok(())
    }

    /// Declarations in a body: registers and `.param`/`.local` variables are
    /// renamed for this frame (a `.param`/`.local` one declared as a private
    /// variable of its size); `.shared`/`.global`/`.const` ones are static,
    /// one per program (module variables).
    fn decl(&mut self, fr: &mut Frame, d: &Decl) {
        let (id, sc) = (fr.id, fr.scope_count);
        for (n, size) in &d.names {
            let Some(r) = renamed(n, &d.space, (id, sc)) else { continue };
            if d.space != "reg" {
                let space = if d.space == "param" { VarSpace::Param } else { VarSpace::Local };
                self.declare(&r, space, size.unwrap_or(0), d.span, Some(fr.origin.clone()));
            }
            if let Some(scope) = fr.scopes.last_mut() {
                scope.names.insert(n.clone(), r);
            }
        }
        if let Some(scope) = fr.scopes.last_mut() {
            scope.ranges.extend(d.ranges.iter().map(|(base, n)| (base.clone(), *n, d.space.clone())));
        }
    }

    /// `@%p INS` other than a branch: `@!%p bra skip; INS; skip:`.
    fn guarded(
        &mut self,
        fr: &mut Frame,
        guard: Option<(String, bool)>,
        f: impl FnOnce(&mut Self, &mut Frame) -> Result<()>,
    ) -> Result<()> {
        let Some((reg, negated)) = guard else { return f(self, fr) };
        self.fresh += 1;
        let skip = format!("__skip{}#f{}", self.fresh, fr.id);
        let reg = self.rename(fr, &reg);
        let text = format!("@{}{} (guard)", if negated { "" } else { "!" }, reg);
        let kind = InstrKind::Branch { cond: BranchCond::Pred { reg, negated: !negated }, target: skip.clone() };
        let span = self.out.last().map_or(Span::default(), |i| i.span);
        self.out.push(Instr { kind, span, text, origin: Some(fr.origin.clone()) });
        f(self, fr)?;
        self.out.push(Instr {
            kind: InstrKind::Label(skip.clone()),
            span,
            text: format!("{}:", skip),
            origin: Some(fr.origin.clone()),
        });
        Ok(())
    }

    /// A register, parameter or `.local` name renamed for this frame; a
    /// special register as its constant (`Err`); other names unchanged.
    fn rename(&self, fr: &Frame, name: &str) -> String {
        if let Some(r) = fr.lookup(name).or_else(|| fr.vars.get(name).cloned()) {
            return r;
        }
        match name.strip_prefix('%') {
            Some(bare) => format!("%{}#f{}", bare, fr.id),
            None => name.to_string(),
        }
    }

    fn operand(&self, fr: &Frame, op: &RawOperand) -> RawOperand {
        let kind = match &op.kind {
            RawKind::Name(n) => match self.specials.get(n.as_str()) {
                Some(v) => RawKind::Imm(*v),
                None => RawKind::Name(self.rename(fr, n)),
            },
            RawKind::Addr { base, offset } => RawKind::Addr { base: self.rename(fr, base), offset: *offset },
            RawKind::Not(n) => RawKind::Not(self.rename(fr, n)),
            RawKind::Pair(a, b) => RawKind::Pair(self.rename(fr, a), self.rename(fr, b)),
            RawKind::Vector(v) => RawKind::Vector(v.iter().map(|o| self.operand(fr, o)).collect()),
            RawKind::List(v) => RawKind::List(v.iter().map(|o| self.operand(fr, o)).collect()),
            RawKind::Imm(i) => RawKind::Imm(*i),
        };
        RawOperand { kind, span: op.span, text: op.text.clone() }
    }

    fn emit(&mut self, fr: &Frame, raw: &RawInstr, kind: InstrKind) {
        self.out.push(Instr { kind, span: raw.span, text: raw.text.clone(), origin: Some(fr.origin.clone()) });
    }

    fn instr(&mut self, fr: &mut Frame, raw: &RawInstr) -> Result<()> {
        let mut raw = raw.clone();
        if raw.opcode != "bra" {
            raw.guard = None;
        }
        match raw.opcode.as_str() {
            "ret" => {
                let kind = InstrKind::Branch { cond: BranchCond::Always, target: format!("__ret#f{}", fr.id) };
                return {
                    self.emit(fr, &raw, kind);
                    Ok(())
                };
            }
            "exit" => {
                self.exit_used = true;
                let kind = InstrKind::Branch { cond: BranchCond::Always, target: self.exit_label() };
                return {
                    self.emit(fr, &raw, kind);
                    Ok(())
                };
            }
            "nanosleep" | "pmevent" | "prefetch" | "prefetchu" | "brkpt" => {
                // No memory effect the model sees.
                return {
                    self.emit(fr, &raw, InstrKind::Nop);
                    Ok(())
                };
            }
            "trap" => {
                let why = "`trap` aborts the kernel, which the memory model does not describe: no path of a litmus test may reach it";
                return {
                    self.emit(fr, &raw, InstrKind::Refused(why.to_string()));
                    Ok(())
                };
            }
            _ => {}
        }
        if let Some(kind) = self.envreg_read(fr, &raw) {
            return {
                self.emit(fr, &raw, kind);
                Ok(())
            };
        }
        if let Err(e) = self.check_names(fr, &raw) {
            return self.refuse(fr, &raw, e);
        }
        if let Some(kind) = self.timer_read(fr, &raw) {
            return {
                self.emit(fr, &raw, kind);
                Ok(())
            };
        }
        match raw.opcode.as_str() {
            "cvta" | "isspacep" => return self.address_space(fr, &raw),
            _ => {}
        }
        raw.operands = raw.operands.iter().map(|o| self.operand(fr, o)).collect();
        if let Some(g) = &mut raw.guard {
            g.reg = self.rename(fr, &g.reg);
        }
        if raw.opcode == "bra" {
            if let Some(RawOperand { kind: RawKind::Name(l), .. }) = raw.operands.last_mut() {
                *l = format!("{}#f{}", l, fr.id);
            }
        }
        self.fresh += 1;
        let tmp = format!("%__tmp{}#f{}", self.fresh, fr.id);
        let parts = match super::compound::expand(&raw, &tmp) {
            Ok(parts) => parts.unwrap_or_else(|| vec![raw.clone()]),
            Err(e) => return self.refuse(fr, &raw, e),
        };
        let empty = HashSet::new();
        let names = Names { regs: &empty, locs: &empty, addr_regs: &empty };
        let decoded: Result<Vec<Vec<InstrKind>>> = parts.iter().map(|part| decode_all(part, &names)).collect();
        match decoded {
            Ok(kinds) => kinds.into_iter().flatten().for_each(|kind| self.emit(fr, &raw, kind)),
            Err(e) => return self.refuse(fr, &raw, e),
        }
        Ok(())
    }

    /// An instruction the model cannot take: its input error is raised on the
    /// paths that reach it (a `Refused` instruction), not while inlining, so a
    /// fallback branch the builder decides is never taken does not block the test.
    fn refuse(&mut self, fr: &Frame, raw: &RawInstr, e: Error) -> Result<()> {
        if e.kind != crate::error::ErrorKind::Input || e.origin.is_some() {
            return Err(e);
        }
        let span = e.span.unwrap_or(raw.span);
        self.out.push(Instr {
            kind: InstrKind::Refused(e.message),
            span,
            text: raw.text.clone(),
            origin: Some(fr.origin.clone()),
        });
        Ok(())
    }

    /// Every `%name` an instruction uses is declared in scope or is a special
    /// register: an undeclared one would silently read 0 (issue 23).
    fn check_names(&self, fr: &Frame, raw: &RawInstr) -> Result<()> {
        let mut names: Vec<(&str, Span)> = raw.guard.iter().map(|g| (g.reg.as_str(), g.span)).collect();
        fn collect<'o>(o: &'o RawOperand, out: &mut Vec<(&'o str, Span)>) {
            match &o.kind {
                RawKind::Name(n) | RawKind::Not(n) | RawKind::Addr { base: n, .. } => out.push((n.as_str(), o.span)),
                RawKind::Pair(a, b) => out.extend([(a.as_str(), o.span), (b.as_str(), o.span)]),
                RawKind::Vector(v) | RawKind::List(v) => v.iter().for_each(|e| collect(e, out)),
                RawKind::Imm(_) => {}
            }
        }
        raw.operands.iter().for_each(|o| collect(o, &mut names));
        let timer_mov = raw.opcode == "mov" && raw.operands.len() == 2;
        for (i, (name, span)) in names.into_iter().enumerate() {
            if !name.starts_with('%') || fr.lookup(name).is_some() || self.specials.contains_key(name) {
                continue;
            }
            let why = if super::special::timer(name).is_some() {
                if timer_mov && i == raw.guard.iter().count() + 1 {
                    continue;
                }
                format!("read the timer `{}` with `mov` into a register first", name)
            } else if name.starts_with("%ctaid") {
                format!(
                    "`{}` has no value: the header uses this thread's `cta` number in two clusters of its GPU, but a CTA id is unique in the grid (number the CTAs apart)",
                    name
                )
            } else if name == "%envreg1" || name == "%envreg2" {
                format!(
                    "`{}` holds half of the address of the cooperative-groups grid workspace: name a location for it in the init block (`u32 ws[4]; envreg = &ws;`, D177)",
                    name
                )
            } else if let Some(what) = super::special::unsupported(name) {
                format!(
                    "special register `{}` is not supported: it holds {}, which a litmus test does not determine",
                    name, what
                )
            } else {
                format!(
                    "`{}` is not declared in function `{}` (a `.reg` declaration is missing)",
                    name,
                    self.stack.last().map_or("?", |s| s.as_str())
                )
            };
            return Err(Error::input(why, span));
        }
        Ok(())
    }

    /// `mov.u32 d, %envreg1` / `%envreg2`: the high / low 32 bits of the
    /// 64-bit address of the location the harness names with `envreg = &ws;`
    /// (the cooperative-groups grid workspace, as nvcc reads it: `bfi.b64`
    /// of `%envreg1` into bits 32-63 above `%envreg2`; D177).
    fn envreg_read(&self, fr: &Frame, raw: &RawInstr) -> Option<InstrKind> {
        let [d, RawOperand { kind: RawKind::Name(r), .. }] = raw.operands.as_slice() else { return None };
        let (RawKind::Name(dst), Some(ws)) = (&d.kind, self.envreg) else { return None };
        let high = match r.as_str() {
            "%envreg1" => true,
            "%envreg2" => false,
            _ => return None,
        };
        if raw.opcode != "mov" || fr.lookup(r).is_some() {
            return None;
        }
        let (op, by) = if high { (AluOp::Shr, 32) } else { (AluOp::And, 0xffff_ffff) };
        let u = |bits| Some(IntTy { bits, signed: false });
        let srcs = vec![Operand::Sym(ws.to_string()), Operand::Imm(by)];
        Some(InstrKind::Alu { op, dst: self.rename(fr, dst), srcs, ty: u(32), src_ty: u(64) })
    }

    /// `mov d, %globaltimer` (or another timer): a timer read (D81).
    fn timer_read(&self, fr: &Frame, raw: &RawInstr) -> Option<InstrKind> {
        let [d, RawOperand { kind: RawKind::Name(t), .. }] = raw.operands.as_slice() else { return None };
        let (timer, shift, bits) =
            super::special::timer(t).filter(|_| raw.opcode == "mov" && fr.lookup(t).is_none())?;
        let RawKind::Name(dst) = &d.kind else { return None };
        Some(InstrKind::Timer { dst: self.rename(fr, dst), timer: timer.to_string(), shift, bits })
    }

    /// `cvta{.to}.space.size d, a`: the address itself (a litmus location is
    /// one memory location whatever window names it, D42). `isspacep.space p, a`:
    /// decided by the builder from the variable `a` points into (D42).
    fn address_space(&mut self, fr: &Frame, raw: &RawInstr) -> Result<()> {
        let [d, a] = raw.operands.as_slice() else { return Err(raw.arity("a destination and an address")) };
        let d = self.operand(fr, d);
        let RawKind::Name(dst) = &d.kind else {
            return Err(Error::input(format!("expected a destination register, found `{}`", d.text), d.span));
        };
        let a = self.operand(fr, a);
        let src = match &a.kind {
            RawKind::Name(n) if n.starts_with('%') => Operand::Reg(n.clone()),
            RawKind::Name(n) => Operand::Sym(n.clone()),
            RawKind::Imm(v) => Operand::Imm(*v),
            _ => return Err(Error::input(format!("expected a register or a variable, found `{}`", a.text), a.span)),
        };
        let kind = if raw.opcode == "isspacep" {
            let space = match raw.quals.first().map(|q| q.text.split("::").next().unwrap_or("")) {
                Some("global") => VarSpace::Global,
                Some("shared") => VarSpace::Shared,
                Some("local") => VarSpace::Local,
                Some("const") => VarSpace::Const,
                Some("param") => VarSpace::Param,
                _ => {
                    return Err(Error::input(
                        format!("`{}`: expected `isspacep` with a state space", raw.mnemonic),
                        raw.opcode_span,
                    ))
                }
            };
            InstrKind::IsSpace { dst: dst.clone(), addr: src, space }
        } else {
            mov(dst.clone(), src, None)
        };
        self.emit(fr, raw, kind);
        Ok(())
    }

    /// PTX's own `call (rets), f, (args);` inside a body.
    fn call(&mut self, fr: &mut Frame, c: &CallStmt) -> Result<()> {
        if c.proto || c.func.starts_with('%') {
            return Err(Error::input(
                "indirect calls are not supported (through a register or a prototype): call the function by name",
                c.span,
            ));
        }
        let (mi, fi) = self
            .resolve(&c.func)
            .ok_or_else(|| self.unknown_function(&c.func, "no loaded module defines it", c.span))?;
        let f = &self.modules[mi].funcs[fi];
        if c.args.len() != f.params.len() || c.rets.len() != f.rets.len() {
            return Err(Error::input(
                format!(
                    "`{}` takes {} parameters and {} return values, this call passes {} and {}",
                    c.func,
                    f.params.len(),
                    f.rets.len(),
                    c.args.len(),
                    c.rets.len()
                ),
                c.span,
            ));
        }
        let id = self.next_frame();
        let mut params = HashMap::new();
        let mut copy_back = Vec::new();
        let formals = f.params.iter().zip(&c.args).map(|(p, a)| (p, a, false));
        let rets = f.rets.iter().zip(&c.rets).map(|(p, a)| (p, a, true));
        for (p, a, is_ret) in formals.chain(rets).collect::<Vec<_>>() {
            let bound = match &a.kind {
                RawKind::Name(n) if fr.lookup(n).is_some_and(|r| r.contains('#')) && !n.starts_with('%') => {
                    fr.lookup(n)
                }
                _ => None,
            };
            let base = match bound {
                Some(b) => b,
                None => {
                    // A register or a constant argument: copy it into a fresh parameter.
                    let base = format!("{}#f{}", p.name, id);
                    self.declare(&base, VarSpace::Param, p.size, c.span, Some(fr.origin.clone()));
                    let v = self.operand(fr, a);
                    let src = match &v.kind {
                        RawKind::Imm(x) => Operand::Imm(*x),
                        RawKind::Name(n) if n.starts_with('%') => Operand::Reg(n.clone()),
                        RawKind::Name(n) => Operand::Sym(n.clone()),
                        _ => return Err(Error::input(format!("unsupported call argument `{}`", a.text), a.span)),
                    };
                    match (is_ret, &src) {
                        (true, Operand::Reg(r)) => copy_back.push((r.clone(), base.clone(), p.clone())),
                        (true, _) => {
                            return Err(Error::input(
                                format!("a return value must go to a register or a `.param`, found `{}`", a.text),
                                a.span,
                            ))
                        }
                        (false, _) => self.out.push(Instr {
                            kind: param_store(&base, p, src),
                            span: c.span,
                            text: c.text.clone(),
                            origin: Some(fr.origin.clone()),
                        }),
                    }
                    base
                }
            };
            params.insert(p.name.clone(), base);
        }
        self.body(mi, fi, id, params)?;
        for (r, root, p) in copy_back {
            self.out.push(Instr {
                kind: param_load(r, &root, &p),
                span: c.span,
                text: c.text.clone(),
                origin: Some(fr.origin.clone()),
            });
        }
        Ok(())
    }
}

/// The type a parameter's bytes are written and read with (`None`: an
/// aggregate such as `.b8 p[16]`, copied as given).
fn param_type(p: &Param) -> (u8, Option<IntTy>) {
    let ty = type_of(p.ty.trim_start_matches('.')).filter(|(t, float)| !float && t.bits >= 8).map(|(t, _)| t);
    match ty {
        Some(t) if p.size == u64::from(t.bits / 8) => ((t.bits / 8) as u8, Some(t)),
        _ => (p.size.clamp(1, 8) as u8, None),
    }
}

/// `st.param [root], value`: binding an argument to parameter `p` (7.1).
fn param_store(root: &str, p: &Param, src: Operand) -> InstrKind {
    let (size, ty) = param_type(p);
    let addr = Addr { base: AddrBase::Sym(root.to_string()), offset: 0 };
    InstrKind::Store {
        sem: Sem::Weak,
        scope: None,
        proxy: Proxy::Generic,
        addr,
        src,
        size,
        ty,
        shared: false,
        private: true,
    }
}

/// `ld.param dst, [root]`: a return value into the caller's register.
fn param_load(dst: String, root: &str, p: &Param) -> InstrKind {
    let (size, ty) = param_type(p);
    let addr = Addr { base: AddrBase::Sym(root.to_string()), offset: 0 };
    InstrKind::Load {
        sem: Sem::Weak,
        scope: None,
        proxy: Proxy::Generic,
        dst,
        addr,
        size,
        ty,
        shared: false,
        private: true,
    }
}

fn mov(dst: String, src: Operand, ty: Option<IntTy>) -> InstrKind {
    InstrKind::Alu { op: AluOp::Mov, dst, srcs: vec![src], ty, src_ty: None }
}

fn operand_text(o: &Operand) -> String {
    match o {
        Operand::Reg(r) | Operand::Sym(r) => r.clone(),
        Operand::Imm(v) => v.to_string(),
    }
}

/// What to say after `unknown function `NAME``: the overloads when `name` is
/// the demangled name of several functions, else the closest defined name
/// (mangled or demangled) when it is close enough, else nothing.
pub(crate) fn function_hint(names: &[&str], name: &str) -> String {
    let mut names = names.to_vec();
    names.sort();
    let close = names
        .iter()
        .map(|k| {
            let d = crate::parse::suggest::distance(name, demangled_base(k).unwrap_or(k));
            (d.min(crate::parse::suggest::distance(name, k)), *k)
        })
        .min_by_key(|(d, _)| *d);
    let limit = (name.chars().count() / 4).max(2);
    let overloads: Vec<&str> = names.iter().filter(|k| demangled_base(k) == Some(name)).copied().collect();
    match close {
        _ if overloads.len() > 1 => format!(" (`{}` is overloaded: name one of {})", name, overloads.join(", ")),
        Some((d, k)) if d <= limit => format!(" (did you mean `{}`?)", k),
        _ => String::new(),
    }
}

/// The plain name of an Itanium-mangled C++ function (`_Z6mp_ctaPiS_S_` is
/// `mp_cta`), or None for a name that is not mangled that way.
pub(crate) fn demangled_base(mangled: &str) -> Option<&str> {
    let rest = mangled.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}
