//! The offline explorer: proposes input pairs with the typed operators of `inputs`, runs them in
//! batches through an executor, keeps the best pair per cell in the archive, and bisects pairs
//! whose two outcomes differ down to two adjacent inputs (boundary refinement).
//!
//! One iteration of the loop is one executor call: either a batch of fresh pairs or one lockstep
//! round of every active refinement. Fresh pairs mix a random input with a neighbour, two
//! independent random inputs (the usual seeds of refinement), two boundary constants and, more
//! and more as the archive fills, pairs sampled around elites: chains of shared moves that slide a
//! boundary pair into new cells (`inputs::shared_neighbour`), one-sided steps, SETBVE's shrink-move,
//! and crossings of two elites. Elites are drawn mostly in proportion to PD³, with a uniform
//! share so that every cell keeps a chance. Refinement takes about a tenth of the pairs, valid/error
//! boundaries and outcome pairs not refined before first, so that one boundary found many times
//! does not eat the budget.
//!
//! A run is deterministic for a given seed: randomness comes only from a seeded ChaCha8 stream,
//! outcomes are memoised per argument list (functions are assumed deterministic), and the archive
//! is read in its stable elite order. Only the time budget can end a run differently.
//!
//! `search` holds the loop and the state of a run, `fresh` the operators that propose fresh
//! pairs, `refine` the bisection of pairs whose outcomes differ (a `Refiner` the loop owns and
//! feeds), `memo` the outcomes known per argument list, `proposer` the interface for outside
//! sources of pairs, and `exploration` what a run is given and gives back.

mod exploration;
mod fresh;
mod memo;
mod proposer;
mod refine;
mod search;

pub use exploration::{Exploration, ExploreConfig, Progress, QdPoint, StopReason};
pub use proposer::{Proposer, View};
pub use search::{explore, explore_with, random_pairs};
