//! The pest parser generated from `grammar/litmus.pest` and `grammar/c.pest`
//! (C tests share the tokens and condition rules).

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/litmus.pest"]
#[grammar = "../grammar/c.pest"]
pub(crate) struct LitmusParser;
