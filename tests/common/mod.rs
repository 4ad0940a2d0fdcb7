pub mod child;
pub mod fragment;
pub mod gen;
pub mod http;
pub mod loops;
pub mod schema;
pub mod spin;
