//! Bit-matrix relations live with the model (`crate::model::rel`); the
//! reference engine's relations are the same type.

pub use crate::model::rel::Rel;
