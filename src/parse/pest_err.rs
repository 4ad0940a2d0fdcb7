//! Turn pest syntax errors into one-sentence input errors.

use super::grammar::Rule;
use super::text::{join_or, skip_blank, Src};
use crate::error::Error;
use pest::error::{ErrorVariant, InputLocation};

/// Human words for what a rule stands for, in error messages.
fn describe(rule: Rule) -> &'static str {
    use Rule::*;
    match rule {
        arch | bom => "`PTX`",
        test_name => "a test name",
        docs | doc | doc_word => "a quoted string",
        init_item | alias_decl | reg_init | loc_init | loc_address | loc_copy | type_prefix | type_word => {
            "an initialisation such as `x = 0`"
        }
        proxy_kind => "`generic`, `texture`, `surface` or `constant`",
        kw_aliases => "`aliases`",
        thread_head | thread_id => "a thread header such as `P0@cta 0,gpu 0`",
        place_item | place_kw => "`cta`, `cluster` or `gpu`",
        nat | number => "a number",
        row | cell => "an instruction row",
        label_def => "a label",
        instr | guard | mnemonic => "an instruction",
        guard_not => "`!`",
        operand | address | not_operand | vector | vector_elem => "an operand",
        offset_sign => "`+` or `-`",
        cell_semi | semi => "`;`",
        locations | kw_locations => "`locations`",
        loc_item => "a location or register such as `x` or `P0:r0`",
        filter | kw_filter => "`filter`",
        condition | quantifier | not_exists | kw_exists | kw_forall => {
            "a final condition (`exists`, `~exists` or `forall`)"
        }
        prop | implication | disjunction | conjunction | negation | atom | paren_prop | comparison | term => {
            "a proposition such as `P0:r0 == 1`"
        }
        kw_true | kw_false => "`true` or `false`",
        cmp_op => "a comparison (`==`, `!=`, `<`, `<=`, `>` or `>=`)",
        reg_ref => "a register such as `P0:r0`",
        ident => "a name",
        array_decl | elem_init => "an array such as `u32 out[4]`",
        elem_ref => "an array element such as `out[2]`",
        copy_ref => "one CTA's copy of a `.shared` variable such as `s@cta0`",
        ptx_load | kw_ptx => "`ptx \"FILE.ptx\";`",
        arg_list => "call arguments such as `(x, 1)`",
        reg_token => "a register or a name",
        thread_ref => "a thread such as `P0`",
        op_implies => "`=>`",
        op_or => "`\\/`",
        op_and => "`/\\`",
        op_not | kw_not => "`~` or `not`",
        ampersand => "`&`",
        lbrace => "`{`",
        rbrace => "`}`",
        lbracket => "`[`",
        rbracket => "`]`",
        lparen => "`(`",
        rparen => "`)`",
        pipe => "`|`",
        comma => "`,`",
        colon => "`:`",
        at => "`@`",
        equals => "`=`",
        EOI => "end of input",
        init => "an init block `{ ... }`",
        threads => "a thread header such as `P0@cta 0,gpu 0`",
        file | WHITESPACE | COMMENT | cond_start | ident_char => "a litmus test",
        c_file | c_arch => "a C litmus test (`C NAME`)",
        c_meta => "a `Key=value` line",
        c_init | c_init_item | c_addr_of => "an initialisation such as `x = 0;`",
        c_type => "a C type such as `atomic_int*`",
        c_thread => "a thread function such as `P0 (atomic_int* x) { ... }`",
        c_param => "a parameter such as `atomic_int* x`",
        c_block | c_stmt | c_decl | c_assign | c_store | c_call_stmt | c_if | kw_if | kw_else => "a C statement",
        c_expr | c_gap | c_unary | c_neg | c_paren | c_deref | c_binop | c_call | c_arg => "a C expression",
        c_scope_name => "a scope such as `cuda::thread_scope_device`",
        c_scopes | kw_scopes | c_scope_tree => "a scope tree such as `scopes: (gpu (cta P0) (cta P1))`",
    }
}

/// The token found at byte `at`, for "found `...`".
fn found_at(text: &str, at: usize) -> String {
    let rest = text.get(at..).unwrap_or("");
    let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || "_%$.:".contains(*c)).take(24).collect();
    match rest.chars().next() {
        None => "end of input".to_string(),
        Some(_) if !word.is_empty() => format!("`{}`", word),
        Some(c) => format!("`{}`", c.escape_debug()),
    }
}

/// Convert a pest error into `expected ..., found ...` at the offending token.
pub(crate) fn convert(err: pest::error::Error<Rule>, src: &Src) -> Error {
    let pos = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let at = skip_blank(src.text, pos.min(src.text.len()));
    let found = found_at(src.text, at);
    let span = src.span(at, at + 1);
    let message = match err.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut words: Vec<String> = Vec::new();
            // The optional `ptx "FILE";` line is not worth naming among the alternatives.
            for r in positives.into_iter().filter(|r| !matches!(r, Rule::ptx_load | Rule::kw_ptx)) {
                let w = describe(r).to_string();
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            if words.is_empty() {
                format!("unexpected {}", found)
            } else if found == "end of input" && words.iter().any(|w| w.starts_with("a final condition")) {
                "missing final condition: expected `exists`, `~exists` or `forall`, found end of input".to_string()
            } else {
                format!("expected {}, found {}", join_or(&words), found)
            }
        }
        ErrorVariant::CustomError { message } => {
            format!("the input could not be parsed ({})", message)
        }
    };
    Error::input(message, span)
}
