//! How the harness calls a function: how it is reached (free, associated, method with its
//! receiver as first argument), through which trait and how (`format!`, a capped `collect`, a
//! hasher), its generic arguments, and the decode-and-pass plan of each argument.

use super::{ArgPlan, Ret};

/// How a function is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A free function: `name(…)`.
    Free,
    /// An associated function: `Type::name(…)`.
    Assoc {
        /// The impl's self type as written (generic parameters instantiated).
        self_ty: String,
    },
    /// A method: its receiver is the first argument, built like the others.
    Method {
        /// The impl's self type as written.
        self_ty: String,
        /// `&`, `&mut` or by value.
        receiver: Receiver,
    },
}

/// The receiver of a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receiver {
    /// `&self`.
    Ref,
    /// `&mut self`.
    RefMut,
    /// `self`.
    Value,
}

/// How a trait method is driven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// Called directly.
    Direct,
    /// A formatting trait's `fmt`, through `format!` with this spec's helper (`display`,
    /// `debug`, `lower_hex`, …) and the formatter's flags as arguments.
    Format(&'static str),
    /// `Iterator::next`, through a capped `collect`.
    Collect,
    /// `Hash::hash`, through a hasher's `finish`.
    Hash,
}

/// Everything the harness needs to call a function.
#[derive(Clone, Debug)]
pub struct CallPlan {
    /// How it is reached.
    pub callee: Callee,
    /// The trait it is called through (`<T as Trait>::f`), as written in its module.
    pub trait_: Option<String>,
    /// How it is driven.
    pub via: Via,
    /// Generic arguments of the function itself (`::<u64>`), or empty.
    pub turbofish: String,
    /// One plan per parameter (the receiver first).
    pub args: Vec<ArgPlan>,
    /// How its result is rendered.
    pub ret: Ret,
    /// The builders (indices into the crate's `Book`) its arguments need.
    pub builders: Vec<usize>,
}
