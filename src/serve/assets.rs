//! What the playground serves from the binary: the page and the curated library.

/// The page: markup, style and script, written by hand (no build step).
pub(crate) const INDEX_HTML: &str = include_str!("page/index.html");
pub(crate) const APP_CSS: &str = include_str!("page/app.css");
pub(crate) const APP_JS: &str = include_str!("page/app.js");

include!(concat!(env!("OUT_DIR"), "/library.rs"));

/// The library test at `path` (`classic/MP+rel+acq.litmus`).
pub(crate) fn library_test(path: &str) -> Option<&'static str> {
    LIBRARY.iter().find(|(p, _)| *p == path).map(|(_, text)| *text)
}
