//! The suggested tests as a patch of the project: `suggested-tests.patch` in the output folder
//! (a unified diff against the project's tree that `git apply` takes), and the same edits
//! written in place for `--write-tests` / `--abex-write-tests`, the only option with which abex
//! changes the user's files. Each language places its tests where a person would (Rust: the
//! file's `#[cfg(test)] mod tests`; Python: the module's test file, see [`rust`] and
//! [`python`]); `edits` gathers them per file and writes the diff.

mod edits;
pub mod python;
pub mod rust;

pub use edits::{apply, edits, of_report, unified, FileEdit, FILE_NAME};
