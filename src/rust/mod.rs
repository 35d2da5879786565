//! The Rust front end: a cargo workspace's functions ([`workspace`], [`source`]), how a harness
//! calls them ([`types`], [`harness`], [`runtime`]), mutation switching ([`switch`]), the test
//! binaries ([`suite`]), suggested tests ([`suggest`]), the model's view ([`model`]), and the
//! spine's [`FrontEnd`](crate::pipeline::FrontEnd) and [`Lab`](crate::pipeline::Lab)
//! ([`front`], [`lab`]).

pub mod error;
pub mod front;
pub mod harness;
pub mod lab;
pub mod model;
#[cfg(test)]
mod runtime_tests;
pub mod source;
pub mod suggest;
pub mod suite;
pub mod switch;
pub mod types;
pub mod workspace;

pub use error::RustError;
pub use front::RustFront;

use std::path::PathBuf;

use crate::pipeline::{Event, RunConfig, RunError};
use crate::report::Report;

/// Runs abex on a cargo workspace; returns the report and the folder it was written to.
pub fn run(
    cfg: &RunConfig,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, PathBuf), RunError> {
    let front = RustFront::load(cfg)?;
    crate::pipeline::run(cfg, &front, on_event)
}
