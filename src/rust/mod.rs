//! The Rust front end: a cargo workspace's functions ([`workspace`], [`source`]), how a harness
//! calls them ([`types`], [`harness`], [`runtime`]), mutation switching ([`switch`]), the test
//! binaries ([`suite`]), suggested tests ([`suggest`]), the model's view ([`model`]), and the
//! spine's [`FrontEnd`](crate::pipeline::FrontEnd) and [`Lab`](crate::pipeline::Lab)
//! ([`front`], [`lab`]).

pub mod book;
pub mod builders;
pub mod callplan;
pub mod calls;
pub mod cargo;
pub mod constants;
pub mod doctests;
pub mod early;
pub mod error;
pub mod files;
pub mod fnplan;
pub mod front;
pub mod generics;
pub mod harness;
pub mod lab;
pub mod literal;
pub mod model;
pub mod model_check;
pub mod no_std;
pub mod probe;
pub mod reach;
pub mod recipes;
#[cfg(test)]
mod runtime_built_tests;
#[cfg(test)]
mod runtime_tests;
pub mod seeds;
pub mod source;
pub mod suggest;
pub mod suite;
pub mod switch;
pub mod types;
pub mod typetable;
pub mod workspace;
pub mod wrapper;

pub use error::RustError;
pub use front::{run, RustFront};
