//! `ptx-litmus gen`: diy-style generation of litmus test families (being written).

/// Arguments of `ptx-litmus gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// Shapes to generate.
    pub shapes: Vec<String>,
}

/// Run `gen`; returns the exit code.
pub fn run(_args: &GenArgs) -> i32 {
    eprintln!("error: `gen` is not available yet");
    crate::error::EXIT_INTERNAL
}
