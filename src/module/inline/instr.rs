//! A body's statements as instructions: scopes, declarations, labels and
//! guards, then each instruction renamed, expanded when compound and decoded
//! as a cell's; one the model cannot take becomes a `Refused` instruction.

use super::{Frame, Inliner, Scope};
use crate::ast::{AluOp, BranchCond, Instr, InstrKind, IntTy, Operand, Span, VarSpace};
use crate::error::{Error, Result};
use crate::module::parse::Stmt;
use crate::parse::instr::{decode_all, Names, RawInstr, RawKind, RawOperand};
use std::collections::HashSet;

impl Inliner<'_> {
    pub(super) fn stmt(&mut self, fr: &mut Frame, s: &Stmt) -> Result<()> {
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

    fn emit(&mut self, fr: &Frame, raw: &RawInstr, kind: InstrKind) {
        self.out.push(Instr { kind, span: raw.span, text: raw.text.clone(), origin: Some(fr.origin.clone()) });
    }

    fn instr(&mut self, fr: &mut Frame, raw: &RawInstr) -> Result<()> {
        let mut raw = raw.clone();
        if raw.opcode != "bra" {
            raw.guard = None;
        }
        if let Some(kind) = self.control(fr, &raw).or_else(|| self.envreg_read(fr, &raw)) {
            self.emit(fr, &raw, kind);
            return Ok(());
        }
        if let Err(e) = self.check_names(fr, &raw) {
            return self.refuse(fr, &raw, e);
        }
        if let Some(kind) = self.timer_read(fr, &raw) {
            self.emit(fr, &raw, kind);
            return Ok(());
        }
        if matches!(raw.opcode.as_str(), "cvta" | "isspacep") {
            return self.address_space(fr, &raw);
        }
        self.decode(fr, raw)
    }

    /// The instructions that become one fixed instruction whatever their
    /// operands: `ret` and `exit` jump to the frame's or the thread's end,
    /// hints are no-ops, and `trap` is refused on the paths that reach it.
    fn control(&mut self, fr: &Frame, raw: &RawInstr) -> Option<InstrKind> {
        match raw.opcode.as_str() {
            "ret" => Some(InstrKind::Branch { cond: BranchCond::Always, target: format!("__ret#f{}", fr.id) }),
            "exit" => {
                self.exit_used = true;
                Some(InstrKind::Branch { cond: BranchCond::Always, target: self.exit_label() })
            }
            // No memory effect the model sees.
            "nanosleep" | "pmevent" | "prefetch" | "prefetchu" | "brkpt" => Some(InstrKind::Nop),
            "trap" => {
                let why = "`trap` aborts the kernel, which the memory model does not describe: no path of a litmus test may reach it";
                Some(InstrKind::Refused(why.to_string()))
            }
            _ => None,
        }
    }

    /// Any other instruction: its names renamed for this frame, a compound
    /// one expanded (through a fresh temporary), then decoded as a cell's.
    fn decode(&mut self, fr: &Frame, mut raw: RawInstr) -> Result<()> {
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
        let parts = match crate::module::compound::expand(&raw, &tmp) {
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
    pub(super) fn refuse(&mut self, fr: &Frame, raw: &RawInstr, e: Error) -> Result<()> {
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
}

fn mov(dst: String, src: Operand, ty: Option<IntTy>) -> InstrKind {
    InstrKind::Alu { op: AluOp::Mov, dst, srcs: vec![src], ty, src_ty: None }
}
