//! Statements in a body that do something: instructions (kept raw, with
//! their guard and operands) and calls.

use super::constant::{float_at, float_width, hex_bits};
use super::{CallStmt, Reader, Rule};
use crate::ast::Span;
use crate::error::{Error, Result};
use crate::parse::instr::{Guard, RawInstr, RawKind, RawOperand};
use crate::parse::text::parse_int;
use pest::iterators::Pair;

impl Reader<'_> {
    pub(super) fn call(&self, pair: Pair<Rule>) -> Result<CallStmt> {
        let span = self.src.pair_span(&pair);
        let text = crate::parse::text::normalize(pair.as_str());
        let mut c =
            CallStmt { guard: None, rets: Vec::new(), func: String::new(), args: Vec::new(), proto: false, span, text };
        let mut lists = Vec::new();
        let mut idents = 0;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::guard => c.guard = Some(self.guard(p)),
                Rule::arg_list => lists.push((idents, self.list(p)?)),
                Rule::ident | Rule::callee_reg => {
                    if idents == 0 {
                        c.func = p.as_str().to_string();
                    } else {
                        c.proto = true;
                    }
                    idents += 1;
                }
                _ => {}
            }
        }
        for (before, l) in lists {
            if before == 0 {
                c.rets = l;
            } else {
                c.args = l;
            }
        }
        Ok(c)
    }

    fn list(&self, pair: Pair<Rule>) -> Result<Vec<RawOperand>> {
        pair.into_inner().filter(|p| p.as_rule() == Rule::operand).map(|p| self.operand(p, None)).collect()
    }

    fn guard(&self, pair: Pair<Rule>) -> Guard {
        let span = self.src.pair_span(&pair);
        let mut g = Guard { reg: String::new(), negated: false, span };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::guard_not => g.negated = true,
                Rule::reg_token => g.reg = p.as_str().to_string(),
                _ => {}
            }
        }
        g
    }

    pub(super) fn instr(&self, pair: Pair<Rule>) -> Result<RawInstr> {
        let span = self.src.pair_span(&pair);
        let text = crate::parse::text::normalize(pair.as_str().trim_end_matches(';'));
        let mut raw = RawInstr::empty(span, text);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::guard => raw.guard = Some(self.guard(p)),
                Rule::mnemonic => raw.set_mnemonic(p.as_str(), self.src.pair_span(&p), self.src),
                Rule::operand => raw.operands.push(self.operand(p, float_width(&raw))?),
                _ => {}
            }
        }
        Ok(raw)
    }

    fn operand(&self, pair: Pair<Rule>, float: Option<u32>) -> Result<RawOperand> {
        let span = self.src.pair_span(&pair);
        let text = pair.as_str().to_string();
        let Some(p) = pair.into_inner().next() else {
            return Err(Error::internal("empty operand in the PTX parse tree"));
        };
        let kind = match p.as_rule() {
            Rule::number => RawKind::Imm(parse_int(p.as_str().trim_end_matches(['U', 'u']), span)?),
            // `0f` is "an exact single-precision value": its bits as written.
            Rule::float_lit if p.as_str()[..2].eq_ignore_ascii_case("0f") => RawKind::Imm(hex_bits(p.as_str(), span)?),
            Rule::float_lit => RawKind::Imm(float_at(f64::from_bits(hex_bits(p.as_str(), span)? as u64), float, span)?),
            Rule::dec_float => {
                let x: f64 = p.as_str().parse().map_err(|_| Error::input("bad floating-point literal", span))?;
                RawKind::Imm(float_at(x, float, span)?)
            }
            Rule::not_operand => RawKind::Not(p.as_str().trim_start_matches('!').trim().to_string()),
            Rule::vector => RawKind::Vector(
                p.into_inner()
                    .filter(|q| q.as_rule() == Rule::operand)
                    .map(|q| self.operand(q, float))
                    .collect::<Result<_>>()?,
            ),
            Rule::address => self.address(p, span)?,
            Rule::pred_pair => {
                let mut regs = p.into_inner().map(|r| r.as_str().to_string());
                let (Some(a), Some(b)) = (regs.next(), regs.next()) else {
                    return Err(Error::internal("a register pair without two registers"));
                };
                RawKind::Pair(a, b)
            }
            _ => RawKind::Name(p.as_str().to_string()),
        };
        Ok(RawOperand { kind, span, text })
    }

    fn address(&self, pair: Pair<Rule>, span: Span) -> Result<RawKind> {
        let (mut base, mut negative, mut offset) = (String::new(), false, 0i64);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::reg_token => base = p.as_str().to_string(),
                Rule::offset_sign => negative = p.as_str() == "-",
                Rule::number if base.is_empty() => {
                    return Err(Error::input(
                        "absolute addresses such as `[0]` are not supported: address a variable or a register",
                        span,
                    ))
                }
                Rule::number => {
                    let n = parse_int(p.as_str(), self.src.pair_span(&p))?;
                    offset = if negative { n.wrapping_neg() } else { n };
                }
                _ => {}
            }
        }
        Ok(RawKind::Addr { base, offset })
    }
}
