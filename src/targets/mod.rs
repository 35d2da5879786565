//! Targets: the functions a run analyses, found from a diff or named on the command line.
//!
//! A [`Target`] is language-neutral: the Rust front end (`crate::rust`) and the Python one fill
//! the same record. Functions that cannot be driven are still targets; they carry the reason in
//! [`Drive::Unsupported`] and are listed in the report.

pub mod diff;
mod target;

pub use target::{Drive, Param, Span, Target};
