//! Mutants: small faults confined to one function, as byte-range replacements in its file.
//!
//! `mutant` holds the language-neutral record of a mutant ([`Mutant`]), what kind of fault it is
//! ([`Operator`]) and who wrote it ([`Origin`]); `lines` positions in a file; `pattern` the
//! `exclude_re` patterns that suppress mutants. The rule-based generators live beside them, one per language
//! ([`rust_rules`], [`python_rules`]); model-written mutants fill the same record.

mod lines;
mod mutant;
mod pattern;
pub mod python_rules;
pub mod rust_rules;

pub(crate) use lines::{line_column, whole_lines, Lines};
pub(crate) use mutant::mutant_id;
pub use mutant::{Mutant, Operator, Origin};
pub use pattern::{pattern_matches, InvalidPattern, Pattern};
