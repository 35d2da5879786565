//! What the class builder needs of name resolution, kept apart so that [`super::classes`] and
//! [`super::resolve`] do not import each other: the project's modules ([`Index`]), what a name
//! stands for ([`Named`]) and the [`Lookup`] that [`super::resolve::Resolver`] implements.

use std::collections::BTreeMap;

use super::scope::Scope;
use crate::value::Ty;

/// How deep built values nest (a class whose field is a class whose field is a class…).
pub const MAX_DEPTH: usize = 3;

/// The scopes of the project's modules, by dotted name.
#[derive(Debug, Default)]
pub struct Index {
    /// Module → scope.
    pub scopes: BTreeMap<String, Scope>,
}

/// What a name in a module stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum Named {
    /// A class of the project: (module, qualified name in it).
    Class(String, String),
    /// A type alias: (module, annotation text).
    Alias(String, String),
    /// Anything else, as a dotted path: `builtins.int`, `typing.Optional`, `datetime.date`.
    Path(String),
}

/// Name and annotation lookup across the project.
pub trait Lookup {
    /// The project's modules.
    fn index(&self) -> &Index;
    /// What `name` stands for in `module`.
    fn named(&self, name: &str, module: &str) -> Named;
    /// The value type of an annotation written in `module`, at nesting `depth` (built values
    /// inside built values).
    fn ty_at(&self, text: &str, module: &str, depth: usize) -> Result<Ty, String>;
}
