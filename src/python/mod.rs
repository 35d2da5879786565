//! The Python front end: a Python project's functions ([`project`], [`source`], [`types`]), the
//! worker that calls them ([`worker`]), the forked test runner ([`runner`], [`tests`]),
//! suggested pytest tests ([`suggest`]), the model's view ([`model`]), the plugin's settings
//! ([`config`]), and the spine's [`FrontEnd`](crate::pipeline::FrontEnd) and
//! [`Lab`](crate::pipeline::Lab) ([`front`], [`lab`]).

pub mod config;
pub mod error;
pub mod front;
pub mod lab;
pub mod model;
pub mod project;
pub mod runner;
pub mod selection;
pub mod source;
pub mod suggest;
pub mod types;
pub mod worker;

use std::path::PathBuf;

pub use config::PyRunConfig;
pub use error::PythonError;
pub use front::PythonFront;

use crate::pipeline::{Event, RunError};
use crate::report::Report;

/// Runs abex on a Python project with the plugin's settings; returns the report and the folder
/// it was written to.
pub fn run(
    cfg: PyRunConfig,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, PathBuf), RunError> {
    let cfg = cfg.resolve().map_err(RunError::Config)?;
    let front = PythonFront::load(&cfg)?;
    crate::pipeline::run(&cfg, &front, on_event)
}
