//! The allowlist for model-written code (mutants from the Mutator, and any other code a model
//! writes that abex will run): such code may use only the names, paths, macros, methods and
//! imports the original function already uses, plus literals, operators and a short documented
//! list of pure standard items ([`pure`]); anything else is refused unrun, with the reason. One
//! check per language, each taking the original function's source and the written code. Before
//! any of them, [`check_line_ends`] refuses text holding a character that two parsers may read
//! differently as a line end ([`separators`]).

pub mod pure;
mod python;
mod rust;
pub mod separators;

pub use python::{check_python, check_python_test};
pub use rust::{check_rust, check_rust_test};
pub use separators::check_line_ends;
