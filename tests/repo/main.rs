//! The repository checks itself: the layers, the paper notes' map of the model, and what a release ships.
//!
//! One of the five test crates (D135, README "The two set-up commands"): each file under this folder is a
//! module, so `cargo test --release --test repo FILE::` runs one file's tests.

mod docs;
mod layers;
mod packaging;
mod paper_notes;
