pub mod child;
pub mod gen;
pub mod http;
pub mod schema;
pub mod spin;
