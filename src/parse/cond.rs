//! Final condition, filter and `locations`: propositions over final values.

use super::grammar::Rule;
use super::text::{normalize, parse_int, Src};
use crate::ast::{Condition, Observable, Prop, Quantifier, Term};
use crate::error::{Error, Result};
use pest::iterators::Pair;

/// Longest chain `a => b => ...` accepted (implication nests to the right).
const MAX_IMPLICATIONS: usize = 64;

/// Thread references are checked against the number of header columns.
pub(crate) struct CondBuilder<'s, 'a> {
    pub src: &'s Src<'a>,
    pub threads: usize,
}

impl CondBuilder<'_, '_> {
    /// `exists prop`; `text` is the condition with comments dropped and spaces normalised.
    pub fn condition(&self, pair: Pair<Rule>) -> Result<Condition> {
        let mut quantifier = Quantifier::Exists;
        let mut span = self.src.pair_span(&pair);
        let mut prop = Prop::True;
        let mut prop_text = String::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::quantifier => {
                    span = self.src.pair_span(&p);
                    quantifier = match p.into_inner().next().map(|q| q.as_rule()) {
                        Some(Rule::not_exists) => Quantifier::NotExists,
                        Some(Rule::kw_forall) => Quantifier::Forall,
                        _ => Quantifier::Exists,
                    };
                }
                Rule::semi => {}
                Rule::prop => {
                    prop_text = normalize(p.as_str());
                    prop = self.prop(p)?;
                }
                _ => {}
            }
        }
        let word = match quantifier {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        };
        Ok(Condition { quantifier, prop, text: format!("{} {}", word, prop_text), given: true, span })
    }

    /// `filter prop`.
    pub fn filter(&self, pair: Pair<Rule>) -> Result<Prop> {
        match pair.into_inner().find(|p| p.as_rule() == Rule::prop) {
            Some(p) => self.prop(p),
            None => Ok(Prop::True),
        }
    }

    /// `locations [x; P0:r0;]`.
    /// Each observable comes with its span (for the register check).
    pub fn locations(&self, pair: Pair<Rule>) -> Result<Vec<(Observable, crate::ast::Span)>> {
        let mut out = Vec::new();
        for item in pair.into_inner().filter(|p| p.as_rule() == Rule::loc_item) {
            for p in item.into_inner() {
                match p.as_rule() {
                    Rule::reg_ref => out.push(self.reg_ref(p)?),
                    Rule::ident | Rule::elem_ref | Rule::copy_ref => {
                        let span = self.src.pair_span(&p);
                        out.push((Observable::Loc(p.as_str().to_string()), span))
                    }
                    _ => {}
                }
            }
        }
        Ok(out)
    }

    fn prop(&self, pair: Pair<Rule>) -> Result<Prop> {
        match pair.into_inner().next() {
            Some(p) => self.implication(p),
            None => Err(Error::internal("empty proposition in the parse tree")),
        }
    }

    /// `a => b => c` is `a => (b => c)`.
    fn implication(&self, pair: Pair<Rule>) -> Result<Prop> {
        let span = self.src.pair_span(&pair);
        let mut parts = Vec::new();
        for p in pair.into_inner().filter(|p| p.as_rule() == Rule::disjunction) {
            parts.push(self.disjunction(p)?);
        }
        if parts.len() > MAX_IMPLICATIONS + 1 {
            let msg = format!("more than {} chained `=>`: add parentheses", MAX_IMPLICATIONS);
            return Err(Error::input(msg, span));
        }
        let mut it = parts.into_iter().rev();
        let last = it.next().unwrap_or(Prop::True);
        Ok(it.fold(last, |acc, p| Prop::Implies(Box::new(p), Box::new(acc))))
    }

    fn disjunction(&self, pair: Pair<Rule>) -> Result<Prop> {
        let mut parts = Vec::new();
        for p in pair.into_inner().filter(|p| p.as_rule() == Rule::conjunction) {
            parts.push(self.conjunction(p)?);
        }
        Ok(balanced(parts, Prop::Or))
    }

    fn conjunction(&self, pair: Pair<Rule>) -> Result<Prop> {
        let mut parts = Vec::new();
        for p in pair.into_inner().filter(|p| p.as_rule() == Rule::negation) {
            parts.push(self.negation(p)?);
        }
        Ok(balanced(parts, Prop::And))
    }

    /// `~~p` is `p`: only the parity of the `~` count matters (keeps the tree shallow).
    fn negation(&self, pair: Pair<Rule>) -> Result<Prop> {
        let mut nots = 0usize;
        let mut inner = Prop::True;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::op_not => nots += 1,
                Rule::atom => inner = self.atom(p)?,
                _ => {}
            }
        }
        Ok(if nots % 2 == 1 { Prop::Not(Box::new(inner)) } else { inner })
    }

    fn atom(&self, pair: Pair<Rule>) -> Result<Prop> {
        let Some(p) = pair.into_inner().next() else {
            return Err(Error::internal("empty atom in the parse tree"));
        };
        match p.as_rule() {
            Rule::kw_true => Ok(Prop::True),
            Rule::kw_false => Ok(Prop::False),
            Rule::paren_prop => match p.into_inner().find(|q| q.as_rule() == Rule::prop) {
                Some(q) => self.prop(q),
                None => Err(Error::internal("empty parentheses in the parse tree")),
            },
            _ => self.comparison(p),
        }
    }

    fn comparison(&self, pair: Pair<Rule>) -> Result<Prop> {
        let mut terms = Vec::new();
        let mut op = "==";
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::term => terms.push(self.term(p)?),
                Rule::cmp_op => op = p.as_str(),
                _ => {}
            }
        }
        let mut it = terms.into_iter();
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            return Err(Error::internal("comparison without two terms in the parse tree"));
        };
        // `a > b` is `b < a`, `a >= b` is `b <= a` (Dat3M's orderings).
        Ok(match op {
            "!=" => Prop::Ne(a, b),
            "<" => Prop::Lt(a, b),
            "<=" => Prop::Le(a, b),
            ">" => Prop::Lt(b, a),
            ">=" => Prop::Le(b, a),
            _ => Prop::Eq(a, b),
        })
    }

    fn term(&self, pair: Pair<Rule>) -> Result<Term> {
        let Some(p) = pair.into_inner().next() else {
            return Err(Error::internal("empty term in the parse tree"));
        };
        let span = self.src.pair_span(&p);
        match p.as_rule() {
            Rule::number => Ok(Term::Const(parse_int(p.as_str(), span)?)),
            Rule::reg_ref => {
                let (obs, span) = self.reg_ref(p)?;
                Ok(Term::Obs(obs, span))
            }
            _ => Ok(Term::Obs(Observable::Loc(p.as_str().to_string()), span)),
        }
    }

    /// `P1:r0` (or herd's `1:r0`), with the thread checked against the header.
    fn reg_ref(&self, pair: Pair<Rule>) -> Result<(Observable, crate::ast::Span)> {
        let span = self.src.pair_span(&pair);
        let mut thread = 0;
        let mut reg = String::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::thread_ref => thread = thread_index(p.as_str(), self.src.pair_span(&p), self.threads)?,
                Rule::reg_token => reg = p.as_str().to_string(),
                _ => {}
            }
        }
        Ok((Observable::Reg { thread, reg }, span))
    }
}

/// A thread reference `P3` / `3` that must name a header column.
pub(crate) fn thread_index(text: &str, span: crate::ast::Span, threads: usize) -> Result<usize> {
    let digits = text.strip_prefix('P').unwrap_or(text);
    match digits.parse::<usize>() {
        Ok(t) if t < threads => Ok(t),
        _ if threads <= 1 => Err(Error::input(format!("unknown thread {}: the header declares only P0", text), span)),
        _ => Err(Error::input(
            format!("unknown thread {}: the header declares threads P0 to P{}", text, threads - 1),
            span,
        )),
    }
}

/// Join with a binary operator as a balanced tree: depth log2(n), not n.
fn balanced(mut parts: Vec<Prop>, join: fn(Box<Prop>, Box<Prop>) -> Prop) -> Prop {
    if parts.len() <= 1 {
        return parts.pop().unwrap_or(Prop::True);
    }
    let right = parts.split_off(parts.len() / 2);
    join(Box::new(balanced(parts, join)), Box::new(balanced(right, join)))
}
