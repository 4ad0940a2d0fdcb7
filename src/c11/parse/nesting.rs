//! How deeply a C test's statements nest, bounded before the grammar reads them: the grammar and the
//! lowering recurse once per block, `if` and `else` arm, so a bound keeps every input off the stack's end
//! (as parentheses are bounded in `crate::parse::text::prescan`).

use crate::error::{Error, Result};
use crate::parse::text::{code_chars, Comments, Src};

/// Deepest nesting of blocks and `if`/`else` arms accepted.
pub(super) const MAX_STATEMENT_DEPTH: usize = 64;

/// What the scan looks at: braces, semicolons and the words `if` and `else`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Open,
    Close,
    Semi,
    If,
    Else,
}

/// The marks of `text`, with their byte offsets.
fn marks(text: &str) -> Vec<(Mark, usize)> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut word_at = 0;
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (at, c) in code_chars(text, Comments::C).chain(std::iter::once((text.len(), ' '))) {
        if ident(c) {
            if word.is_empty() {
                word_at = at;
            }
            word.push(c);
            continue;
        }
        match word.as_str() {
            "if" => out.push((Mark::If, word_at)),
            "else" => out.push((Mark::Else, word_at)),
            _ => {}
        }
        word.clear();
        match c {
            '{' => out.push((Mark::Open, at)),
            '}' => out.push((Mark::Close, at)),
            ';' => out.push((Mark::Semi, at)),
            _ => {}
        }
    }
    out
}

/// Refuse statements nested deeper than [`MAX_STATEMENT_DEPTH`]. An `if` or
/// `else` stays open until the `;` or `}` that ends its statement, unless an
/// `else` follows (an `else if` chain nests in the grammar too); a block stays
/// open until its `}`. This over-counts a little (an `if` and its `else` count
/// twice), never under-counts.
pub(super) fn check(src: &Src) -> Result<()> {
    let marks = marks(src.text);
    // The open `if`/`else` arms of each enclosing block, and of the current one.
    let (mut saved, mut arms) = (Vec::new(), 0usize);
    let mut depth_of_saved = 0usize;
    for (k, &(mark, at)) in marks.iter().enumerate() {
        let else_next = marks.get(k + 1).is_some_and(|m| m.0 == Mark::Else);
        match mark {
            Mark::If | Mark::Else => arms += 1,
            Mark::Open => {
                depth_of_saved += arms + 1;
                saved.push(arms);
                arms = 0;
            }
            Mark::Close => {
                arms = saved.pop().unwrap_or(0);
                depth_of_saved = depth_of_saved.saturating_sub(arms + 1);
                if !else_next {
                    arms = 0;
                }
            }
            Mark::Semi if !else_next => arms = 0,
            Mark::Semi => {}
        }
        if depth_of_saved + arms > MAX_STATEMENT_DEPTH {
            let msg = format!(
                "statements are nested deeper than {} levels (blocks, `if` and `else` arms)",
                MAX_STATEMENT_DEPTH
            );
            return Err(Error::input(msg, src.span(at, at + 1)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(text: &str) -> bool {
        check(&Src::new(text)).is_ok()
    }

    #[test]
    fn sequences_do_not_nest_and_chains_do() {
        let seq = "if (a) x = 1; ".repeat(500);
        assert!(depth_ok(&seq), "500 ifs one after the other nest one level");
        let blocks = "{ if (a) { x = 1; } else { y = 2; } } ".repeat(500);
        assert!(depth_ok(&blocks));
        assert!(!depth_ok(&format!("{}x;{}", "{".repeat(65), "}".repeat(65))));
        assert!(!depth_ok(&format!("{} x = 1;", "if (a) ".repeat(65))));
        let chain = "if (a) x = 1; else ".repeat(40) + "x = 2;";
        assert!(!depth_ok(&chain), "an else-if chain nests in the grammar");
        assert!(depth_ok(&"if (a) x = 1; else ".repeat(20)));
        // Words that merely contain `if` are no `if`.
        assert!(depth_ok(&"iffy = elsewhere; ".repeat(200)));
    }
}
