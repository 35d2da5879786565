//! Witnesses: an input on which a surviving mutant's outcome differs from the original's proves
//! the survivor is a real, non-equivalent gap. Per survivor ([`find`]): the explored archive's
//! inputs first (the strongest boundaries first); then a directed search on the mutant's
//! probes (reach, infect, propagate: the alternating variable method, from the archive's
//! closest inputs and the constants of the function's source); then a bounded random
//! differential search around the archive's inputs. A survivor with no witness is never
//! reported as a finding, and says which stage no input passed ([`Unwitnessed`]). A witness found
//! is shrunk toward simpler values before its test is written ([`shrink`]).

mod archive;
mod directed;
mod further;
mod random;
mod seeds;
mod shrink;
mod strategy;
mod tracker;

pub use archive::{from_inputs, known_inputs, moved_boundaries, tells_apart};
pub use random::{differential, search_seed, search_until, Remembered, SEARCH_CAP};
pub use seeds::{keyed_pairs, parse_int, Hints};
pub use shrink::{
    alternatives, shrink, typable, untypable, unusual, Shrunk, PRESENT_YEAR, SHRINK_CALLS,
    SHRINK_ENV,
};
pub use strategy::{directed_enabled, find, Found, Limits, Survivor, SEARCH_ENV};
