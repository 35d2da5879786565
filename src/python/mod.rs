//! The Python front end: a Python project's functions ([`project`], [`source`], [`types`]), the
//! worker that calls them ([`worker`]), the forked test runner ([`runner`], [`tests`]),
//! suggested pytest tests ([`suggest`]), the model's view ([`model`]) and the interpreter's check of
//! what the model wrote ([`cpython`]), the plugin's settings
//! ([`config`]), and the spine's [`FrontEnd`](crate::pipeline::FrontEnd) and
//! [`Lab`](crate::pipeline::Lab) ([`front`], [`lab`]).

pub mod calls;
pub mod config;
pub mod constants;
pub mod cpython;
pub mod error;
mod flaky;
pub mod front;
pub mod lab;
pub mod model;
pub mod model_check;
pub mod project;
pub mod runner;
pub mod seeds;
pub mod selection;
pub mod source;
pub mod suggest;
pub mod types;
pub mod worker;

pub use config::PyRunConfig;
pub use error::PythonError;
pub use front::{run, PythonFront};
