//! The init block of a C test: `{ x = 0; y = &x; 0:r0 = 1; }` (herd's C format, as `diy7 -arch C` writes it).

use super::types::{declared, Declared};
use crate::ast::{InitItem, Span};
use crate::error::{Error, Result};
use crate::parse::grammar::Rule;
use crate::parse::text::{parse_int, Src};
use pest::iterators::Pair;
use std::collections::BTreeSet;

/// A location's type as one declaration gives it: its name, the type, where.
pub(super) type TypeDecl = (String, Declared, Span);

/// The init block's items, and the types it declares for locations (`int x = 1;`).
pub(super) fn init_items(pair: Pair<Rule>, src: &Src, threads: usize) -> Result<(Vec<InitItem>, Vec<TypeDecl>)> {
    let mut items = Vec::new();
    let mut types = Vec::new();
    let mut seen = BTreeSet::new();
    for item in pair.into_inner().filter(|p| p.as_rule() == Rule::c_init_item) {
        let span = src.pair_span(&item);
        let (mut lhs, mut reg, mut value, mut addr) = (None, None, None, None);
        let mut words = Vec::new();
        for q in item.into_inner() {
            match q.as_rule() {
                Rule::c_type => words.push(q.as_str()),
                Rule::reg_ref => {
                    let mut it = q.clone().into_inner();
                    let t = it
                        .find(|x| x.as_rule() == Rule::thread_ref)
                        .map(|x| x.as_str().to_string())
                        .unwrap_or_default();
                    let r = q
                        .clone()
                        .into_inner()
                        .find(|x| x.as_rule() == Rule::reg_token)
                        .map(|x| x.as_str().to_string())
                        .unwrap_or_default();
                    reg = Some((crate::parse::cond::thread_index(&t, src.pair_span(&q), threads)?, r));
                }
                Rule::ident if lhs.is_none() && reg.is_none() => lhs = Some(q.as_str().to_string()),
                Rule::ident => addr = Some(q.as_str().to_string()),
                Rule::number => value = Some(parse_int(q.as_str(), src.pair_span(&q))?),
                Rule::c_addr_of => {
                    addr = q.into_inner().find(|x| x.as_rule() == Rule::ident).map(|x| x.as_str().to_string())
                }
                _ => {}
            }
        }
        let item = match (reg, lhs) {
            (Some((thread, reg)), _) => match addr {
                Some(location) => InitItem::RegisterAddress { thread, reg, location, span },
                None => InitItem::Register { thread, reg, value: value.unwrap_or(0), span },
            },
            (None, Some(name)) => {
                // A location holding an address is a pointer whatever its words say.
                let ty = if addr.is_some() { Some(Declared::Pointer) } else { declared(&words, 0, span)? };
                types.extend(ty.map(|t| (name.clone(), t, span)));
                match addr {
                    Some(target) => InitItem::LocationAddress { name, target, span },
                    None => InitItem::Location { name, value: value.unwrap_or(0), span },
                }
            }
            _ => return Err(Error::input("expected a location or a register to initialise", span)),
        };
        let key = match &item {
            InitItem::Register { thread, reg, .. } | InitItem::RegisterAddress { thread, reg, .. } => {
                format!("{}:{}", thread, reg)
            }
            InitItem::Location { name, .. } | InitItem::LocationAddress { name, .. } => name.clone(),
            _ => String::new(),
        };
        if !seen.insert(key.clone()) {
            return Err(Error::input(format!("`{}` is initialised twice", key), span));
        }
        items.push(item);
    }
    Ok((items, types))
}
