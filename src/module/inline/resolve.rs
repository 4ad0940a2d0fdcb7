//! Which function a call names: by its name, or by its demangled name when
//! that is unique; an unknown name is refused with the closest defined one.

use super::Inliner;
use crate::ast::Span;
use crate::error::Error;

impl Inliner<'_> {
    /// The function a cell's `call` names: by its name in the module, or by
    /// its demangled name when exactly one function has it (`mp_cta` for
    /// `_Z6mp_ctaPiS_S_`; an overloaded name must be given mangled).
    pub(super) fn resolve(&self, name: &str) -> Option<(usize, usize)> {
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
    pub(super) fn unknown_function(&self, name: &str, what: &str, span: Span) -> Error {
        let names: Vec<&str> = self.funcs.keys().map(|k| k.as_str()).collect();
        Error::input(format!("unknown function `{}`: {}{}", name, what, function_hint(&names, name)), span)
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
