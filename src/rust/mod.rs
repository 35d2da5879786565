//! The Rust front end: a cargo workspace's functions ([`workspace`], [`source`], [`files`],
//! [`calls`]), the types it can build and how it calls them ([`types`]), the harness generated
//! into a scratch copy with every mutant behind a runtime switch ([`harness`]) but the body
//! values the crate's items rule out ([`unviable`]), cargo in the
//! scratch copy ([`cargo`], [`doctests`]), the test binaries and which tests reach a mutant
//! ([`suite`], [`early`], [`reach`]), suggested tests ([`suggest`], [`literal`]), the model's view
//! ([`model`], [`model_check`]), and the spine's [`FrontEnd`](crate::pipeline::FrontEnd) and
//! [`Lab`](crate::pipeline::Lab) ([`front`], [`lab`]).

pub mod calls;
pub mod cargo;
pub mod constants;
pub mod doctests;
pub mod early;
pub mod error;
pub mod files;
pub mod front;
pub mod harness;
pub mod lab;
pub mod literal;
pub mod model;
pub mod model_check;
pub mod reach;
pub mod source;
pub mod suggest;
pub mod suite;
pub mod types;
pub mod unviable;
pub mod workspace;

pub use error::RustError;
pub use front::{run, RustFront};
