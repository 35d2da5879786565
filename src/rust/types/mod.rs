//! Rust types as abex sees them and how the harness builds values of them: the crate's type
//! table ([`table`]), the constructors of its types ([`recipes`], gathered in the crate's
//! [`book`]) and the values its own tests build ([`seeds`]), concrete types for generic
//! parameters ([`generics`]), how a function is called ([`callplan`], [`fnplan`]), how a
//! parameter or return type maps to a value type and a decode-and-pass plan ([`plan`]), and the
//! std types beyond primitives ([`std`]); a path's type and const arguments ([`args`]).

pub mod args;
pub mod book;
pub mod callplan;
pub mod fnplan;
pub mod generics;
pub mod plan;
pub mod recipes;
pub mod seeds;
pub mod std;
pub mod table;

pub use plan::{owned, pass_expr, plan, ret, ArgPlan, Pass, Plain, Resolve, Ret, ITEMS};
