//! Typed value generation for the search: random values (half boundary constants, half sampled),
//! one-step neighbours, and midpoints that bisect toward a boundary. The explorer and the
//! differential witness search share these operators; they know nothing of outcomes or archives.
//!
//! Values follow `value.rs`: every integer is `Value::Int` except `u128` values above `i128::MAX`
//! (`Value::BigUint`); a `char` is a one-character `Value::Str`; tuples, arrays and bytes are
//! `Value::List`; `None` is `Value::Null` and `Some(x)` is `x` itself.
//!
//! One file per kind of value (`ints`, `floats`, `text`, `collections`, `built` for recipes,
//! unions and one-of types) holds that kind's
//! constants, generators, neighbours and midpoints; `random`, `neighbour` and `midpoint` dispatch
//! on the type and hold the argument-list operators; `same` says when two values count as one
//! input; `seq` holds the operators on sequences of any element (shared edits, midpoints by
//! position or by edit script), `edit_script` the alignment they use, `rng` small helpers over the
//! random stream; `moves` the variables of an argument list and their single moves, `steer`
//! the inputs made by setting the variables that hold a compared value to the other operand,
//! and `avm` the alternating variable method over them, for the directed searches. Dependencies go one way: from `neighbour` and `midpoint` to the kinds, from
//! `collections` to `random` (for fresh elements), from `random` to the scalar kinds, and from all
//! of them to the leaves (`same`, `seq`, `edit_script`, `rng`). A collection operator that
//! recurses into its elements is handed the element operation by its dispatcher.

pub(crate) mod avm;
mod built;
mod collections;
mod conform;
mod edit_script;
mod floats;
mod ints;
mod midpoint;
pub(crate) mod moves;
mod neighbour;
mod random;
mod rng;
mod same;
mod seq;
pub(crate) mod steer;
#[cfg(test)]
mod testing;
mod text;

pub use conform::{conforms, conforms_any};
pub use midpoint::{args_midpoint, midpoint};
pub use neighbour::{args_neighbour, neighbour, shared_neighbour};
pub use random::{boundary_args, boundary_value, random_args, random_value};
pub use same::same;
