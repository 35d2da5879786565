//! The harness that calls a crate's functions: generated into a scratch copy of the crate
//! ([`generate`]: each function's [`wrapper`], the [`builders`] of built values, a `no_std`
//! crate's needs ([`no_std`])), with every mutant behind a runtime switch ([`switch`]) and the
//! probes of weak mutation ([`probe`]), built once and run as a worker. The dependency-free
//! runtime it pastes into the crate is source text under `runtime/` ([`RUNTIME`],
//! [`RUNTIME_BUILT`]).

pub mod builders;
mod generate;
pub mod no_std;
pub mod probe;
#[cfg(test)]
mod runtime;
pub mod switch;
pub mod wrapper;

pub use generate::{
    build, Harness, HarnessError, HarnessRequest, Host, Part, RUNTIME, RUNTIME_BUILT,
};
pub(crate) use generate::{buildable, kept_constructors};
