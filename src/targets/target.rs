//! The record of one target: where the function is, its signature and parameters, whether abex
//! can drive it, and its source.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::value::Ty;

/// A line span in a source file, 1-based and inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Span {
    /// First line (the first attribute or doc comment, if any).
    pub start_line: usize,
    /// Last line (the closing brace).
    pub end_line: usize,
}

/// One parameter of a target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The parameter's name as written (`arg{i}` for patterns).
    pub name: String,
    /// The type as written in the source.
    pub type_text: String,
    /// The value type abex generates for it, when supported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ty: Option<Ty>,
}

/// Whether and how abex can call a target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Drive {
    /// It can be called with generated arguments of these types.
    Supported,
    /// It cannot; the reason says why (generic, `impl Trait`, unsupported type, …).
    Unsupported {
        /// Why, in a sentence fragment.
        reason: String,
    },
    /// It cannot be called itself, but a function that calls it can: it is explored and its
    /// survivors witnessed through that caller, whose calls the suggested tests make.
    Via {
        /// The caller's qualified name.
        caller: String,
        /// Why the function itself cannot be called.
        reason: String,
    },
}

impl Drive {
    /// Why the function itself cannot be called, if it cannot.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Drive::Supported => None,
            Drive::Unsupported { reason } | Drive::Via { reason, .. } => Some(reason),
        }
    }
}

/// A function that a run analyses.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Target {
    /// `rust` or `python`.
    pub language: String,
    /// The package (Rust) or project (Python) that owns it.
    pub package: String,
    /// Source file, relative to the project root.
    pub file: PathBuf,
    /// Where the function is in that file.
    pub span: Span,
    /// The function's own name.
    pub name: String,
    /// Module path, owner type and name: `date::next_date`, `range::Thermostat::mode`.
    pub qualified_name: String,
    /// The signature as written.
    pub signature: String,
    /// The parameters; a Rust method's receiver is the first, named `self`.
    pub params: Vec<Param>,
    /// The doc comment or docstring, if any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// The changed lines inside the span (empty when named with `--function`).
    pub changed_lines: Vec<usize>,
    /// Whether it can be driven.
    pub drive: Drive,
    /// The function's source text.
    #[serde(skip)]
    pub source: String,
}

impl Target {
    /// The parameter types, when every one is supported.
    pub fn param_types(&self) -> Option<Vec<Ty>> {
        self.params.iter().map(|p| p.ty.clone()).collect()
    }

    /// Whether `--function FILE::NAME`'s `NAME` designates this target: its own name, its
    /// qualified name, or any `::`-suffix of the qualified name.
    pub fn matches_name(&self, name: &str) -> bool {
        self.name == name
            || self.qualified_name == name
            || self.qualified_name.ends_with(&format!("::{name}"))
    }
}
