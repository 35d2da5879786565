//! The versioned JSON report: the source of every other surface (terminal, markdown, JUnit,
//! review comments). Its schema is documented in `docs/report.md`; bump [`REPORT_VERSION`] on any
//! change that is not a pure addition.
//!
//! This module holds the data and pure operations on it (merging shards, counting, choosing the
//! smallest set of suggested tests); it renders nothing and imports no renderer. The renderers
//! (`render/`) depend on it, and the output folder (`out.rs`) writes it and their files.

mod exploration;
mod mutation;
mod run;
pub mod unwitnessed;
pub mod usage;

pub use exploration::*;
pub use mutation::*;
pub use run::*;
pub use unwitnessed::Unwitnessed;
