//! Calls: a cell's `call NAME, (ARGS);` and PTX's own `call (rets), f, (args);`
//! bind their arguments to the callee's parameters (`.param` memory private to
//! the call, 7.1), then the callee's body is inlined in a new frame, its `ret`
//! a jump to the frame's end.

use super::{Frame, Inliner, MAX_CALL_DEPTH, MAX_INLINED};
use crate::ast::{Addr, AddrBase, Instr, InstrKind, IntTy, Operand, Proxy, Sem, Span, VarSpace};
use crate::error::{Error, Origin, Result};
use crate::module::parse::{CallStmt, Func, Param};
use crate::parse::alu::type_of;
use crate::parse::instr::RawKind;
use std::collections::HashMap;
use std::sync::Arc;

impl Inliner<'_> {
    /// A cell's `call NAME, (ARGS);`: each argument is copied into the
    /// register bound to the parameter, then the body runs.
    pub(crate) fn call_from_cell(&mut self, name: &str, args: Vec<Vec<Operand>>, span: Span) -> Result<()> {
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
        for (p, fields) in f.params.iter().zip(args) {
            let root = format!("{}#f{}", p.name, id);
            self.declare(&root, VarSpace::Param, p.size, f.span, origin.clone());
            let shown: Vec<String> = fields.iter().map(operand_text).collect();
            let text = format!("call {}: {} = {}", name, p.name, shown.join(", "));
            for kind in bind_argument(&root, p, fields).map_err(|m| Error::input(format!("`{}`: {}", name, m), span))? {
                self.out.push(Instr { kind, span, text: text.clone(), origin: None });
            }
            params.insert(p.name.clone(), root);
        }
        for r in &f.rets {
            let root = format!("{}#f{}", r.name, id);
            self.declare(&root, VarSpace::Param, r.size, f.span, origin.clone());
            params.insert(r.name.clone(), root);
        }
        self.body(mi, fi, id, params)
    }

    pub(super) fn body(&mut self, mi: usize, fi: usize, id: usize, params: HashMap<String, String>) -> Result<()> {
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

    /// PTX's own `call (rets), f, (args);` inside a body.
    pub(super) fn call(&mut self, fr: &mut Frame, c: &CallStmt) -> Result<()> {
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
    param_write(root, 0, (size, ty), src)
}

/// The stores that bind a cell's argument to parameter `p` (7.1): one
/// operand as the parameter's type; the words `{w0, w1, ...}` of an aggregate
/// parameter (`.b8 p[16]`, a struct passed by value) as 8-byte little-endian
/// words from offset 0, its bytes past the last word 0: a kernel argument's
/// bytes are all the host's, none unknown (D301).
fn bind_argument(root: &str, p: &Param, fields: Vec<Operand>) -> std::result::Result<Vec<InstrKind>, String> {
    if fields.len() == 1 {
        return Ok(fields.into_iter().map(|only| param_store(root, p, only)).collect());
    }
    if param_type(p).1.is_some() {
        return Err(format!(
            "parameter `{}` is a scalar `{}`, and the argument gives {} words",
            p.name,
            p.ty,
            fields.len()
        ));
    }
    let words = fields;
    if (words.len() as u64 - 1) * 8 >= p.size {
        return Err(format!(
            "parameter `{}` is {} bytes, and the argument gives {} 8-byte words",
            p.name,
            p.size,
            words.len()
        ));
    }
    let mut out = Vec::new();
    let zeros = (words.len() as u64 * 8..p.size).step_by(8).map(|_| Operand::Imm(0));
    for (i, w) in words.into_iter().chain(zeros).enumerate() {
        let offset = 8 * i as u64;
        out.push(param_write(root, offset, ((p.size - offset).min(8) as u8, None), w));
    }
    Ok(out)
}

/// `st.param [root+offset], value` of `size` bytes at type `ty`: the store
/// that binds an argument, or one word of an aggregate one.
fn param_write(root: &str, offset: u64, (size, ty): (u8, Option<IntTy>), src: Operand) -> InstrKind {
    let addr = Addr { base: AddrBase::Sym(root.to_string()), offset: offset as i64 };
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

fn operand_text(o: &Operand) -> String {
    match o {
        Operand::Reg(r) | Operand::Sym(r) => r.clone(),
        Operand::Imm(v) => v.to_string(),
    }
}
