pub mod gen;
pub mod schema;
pub mod spin;
