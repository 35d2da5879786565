//! `report.html`: one self-contained page (inline SVG, style and script; nothing fetched) that
//! shows a run's boundaries as pictures, for both front ends, drawn from the report alone plus
//! the functions' source files.
//!
//! - `page`: the document, its header and one section per function;
//! - `map`: the boundary map of a function with one or two numeric parameters;
//! - `table`: the boundary pairs by validity group, with diffs of the outputs;
//! - `qd`: the QD-score over evaluations and the descriptor grid;
//! - `mutants`: the mutants in the function's source, with witnesses and suggested tests;
//! - `classes`, `scale`, `markup`: outcome classes and colours, axes, escaping.

mod classes;
mod map;
pub(crate) mod markup;
mod mutants;
mod page;
mod qd;
mod scale;
mod table;

pub use page::{render, FILE_NAME};
