//! `abex-demo`: a small crate whose functions have real, recognisable behavioural boundaries
//! (leap years, month lengths, age buckets, port ranges, thermostat thresholds, ...).
//!
//! It exists to try out `cargo abex`: the unit tests pass but deliberately leave some boundaries
//! unpinned (each test module says which), so boundary exploration and mutation analysis have
//! real gaps to find. Edit a function, then run `cargo abex` (or `cargo abex --function NAME`).

pub mod date;
pub mod parse;
// Private on purpose: abex must reach functions in private modules too.
mod range;

pub use range::{bucket, clamp_percent, Thermostat};
