pub mod gen;
pub mod schema;
