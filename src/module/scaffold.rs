//! `ptx-litmus scaffold MODULE.ptx`: a harness skeleton for a module.
