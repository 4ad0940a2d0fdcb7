//! The pest parser generated from `grammar/litmus.pest`.

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/litmus.pest"]
pub(crate) struct LitmusParser;
