//! Rule-based mutants for Rust: the cargo-mutants operator genres, confined to one function body.
//!
//! [`mutants_of`] re-parses the file, finds the function item whose signature and body lie in
//! the given byte range, and walks its body (never its signature) with [`syn::visit`]. Nothing
//! is generated inside macro invocations (syn does not parse their tokens, so `assert!`,
//! `debug_assert!`, `format!` and logging macros stay as written), patterns, types, attributes,
//! array lengths, const blocks, nested items (`fn`, `mod`, `impl`, …), or calls named in
//! [`SkipRules::skip_calls`]. Closures in the body are mutated like the rest of it.
//!
//! Suppressed functions yield no mutants: `#[mutants::skip]` (also through `cfg_attr`, and on an
//! enclosing `impl`, `trait` or `mod`), a `// abex: skip` comment directly above the function or
//! among its attributes, and `fmt` methods that take a `Formatter`.
//!
//! `mutants` holds the entry point, `items` finds the function items of a file, `operators`
//! walks a body and makes the mutants, `values` gives the values of a return type, and `skip`
//! holds what suppresses mutants (`.cargo/mutants.toml`, attributes, comments).

mod items;
mod mutants;
mod operators;
mod skip;
#[cfg(test)]
mod testing;
mod values;

pub use mutants::mutants_of;
pub(crate) use operators::has_let;
pub use skip::{load_skip_rules, SkipRules};
