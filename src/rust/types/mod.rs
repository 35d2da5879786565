//! Rust types as abex sees them: [`plan`] maps a parameter or return type to a value type and
//! the harness's decode-and-pass plan; [`std`] holds the std types beyond primitives.

pub mod plan;
pub mod std;

pub use plan::{owned, pass_expr, plan, ret, ArgPlan, Pass, Plain, Resolve, Ret, ITEMS};
