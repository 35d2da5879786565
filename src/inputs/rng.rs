//! Small helpers over the random stream shared by the value generators of every kind.

use rand::Rng;

/// A uniform index below `n`. A function rather than `rng.random_range(0..n)` at the call site, so
/// that closures taking `rng: &mut _` get their type fixed and the draw stays a `usize` one.
pub(super) fn rng_index(rng: &mut impl Rng, n: usize) -> usize {
    rng.random_range(0..n)
}
