//! Python annotations → abex value types, with the project's names: the annotation's text
//! ([`annotation`]), what each module declares ([`scope`]), names looked up across the project
//! ([`resolve`]), the standard library's value types ([`stdlib`]), the project's classes
//! ([`classes`]) and a function's drivable parameters ([`function`]).

pub mod annotation;
pub mod classes;
pub mod function;
pub mod lookup;
pub mod resolve;
pub mod scope;
pub mod stdlib;

#[cfg(test)]
mod tests;

pub use lookup::Lookup;
pub use resolve::{Index, Resolver};
pub use scope::{Pass, RawParam, Scope};

use crate::value::Ty;

/// The value type of an annotation `text` read alone, without a module's names (`None`: no
/// annotation, any JSON value).
pub fn ty_of(text: Option<&str>) -> Result<Ty, String> {
    let Some(text) = text else { return Ok(Ty::Any) };
    let index = Index::default();
    Resolver { index: &index }.ty(text, "")
}

/// Whether the annotation is a tuple type (`tuple[int, ...]` is a [`Ty::List`] that the worker
/// turns into a tuple).
pub fn is_tuple(text: Option<&str>) -> bool {
    text.is_some_and(|t| {
        let t = annotation::unquote(t.trim()).trim_start_matches("typing.");
        t.starts_with("tuple") || t.starts_with("Tuple")
    })
}
