//! Names per frame and scope: a call's registers, `.param` and `.local`
//! variables are renamed with its frame and scope numbers (`%r1` ->
//! `%r1#f2s1`, D40), so two calls or scopes never share them; module
//! variables take their program names (D73), special registers their values.

use super::{Frame, Inliner, Scope};
use crate::ast::VarSpace;
use crate::module::parse::Decl;
use crate::parse::instr::{RawKind, RawOperand};

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
    pub(super) fn lookup(&self, name: &str) -> Option<String> {
        self.scopes.iter().rev().find_map(|s| s.get(name)).or_else(|| self.params.get(name).cloned())
    }
}

impl Inliner<'_> {
    /// Declarations in a body: registers and `.param`/`.local` variables are
    /// renamed for this frame (a `.param`/`.local` one declared as a private
    /// variable of its size); `.shared`/`.global`/`.const` ones are static,
    /// one per program (module variables).
    pub(super) fn decl(&mut self, fr: &mut Frame, d: &Decl) {
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

    /// A register, parameter or `.local` name renamed for this frame; a
    /// special register as its constant (`Err`); other names unchanged.
    pub(super) fn rename(&self, fr: &Frame, name: &str) -> String {
        if let Some(r) = fr.lookup(name).or_else(|| fr.vars.get(name).cloned()) {
            return r;
        }
        match name.strip_prefix('%') {
            Some(bare) => format!("%{}#f{}", bare, fr.id),
            None => name.to_string(),
        }
    }

    pub(super) fn operand(&self, fr: &Frame, op: &RawOperand) -> RawOperand {
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
}
