//! What an exploration is given (its budget and seed) and what it gives back (the archive, the
//! figures, why it stopped), and the progress snapshot reported as it goes.

use std::time::Duration;

use serde::Serialize;

use crate::archive::Archive;

/// How a run is bounded and seeded.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploreConfig {
    /// Pairs to offer to the archive, refinement pairs included.
    pub pairs: usize,
    /// Wall-clock budget, checked between executor calls.
    pub time_budget: Option<Duration>,
    /// Seed of the only random stream.
    pub seed: u64,
    /// Whether pairs with different outcomes are bisected down to adjacent inputs.
    pub refine: bool,
    /// Fresh pairs per executor call.
    pub batch: usize,
}

impl Default for ExploreConfig {
    fn default() -> Self {
        ExploreConfig { pairs: 1000, time_budget: None, seed: 0, refine: true, batch: 64 }
    }
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The pair budget was spent.
    Pairs,
    /// The time budget was spent.
    Time,
    /// No new distinct pair could be proposed (no parameters, or a tiny input space).
    Exhausted,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Exploration {
    /// The archive of best pairs per cell.
    pub archive: Archive,
    /// Pairs offered to the archive.
    pub pairs_evaluated: usize,
    /// Calls of the function under test (distinct argument lists).
    pub evaluations: usize,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Why the run ended.
    pub stop: StopReason,
    /// How many of the archive's boundaries sit exactly at a comparison's threshold (with a
    /// tracer only).
    pub exact: Option<super::Exact>,
}

/// A snapshot reported after every executor call.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Pairs offered so far.
    pub pairs_evaluated: usize,
    /// The pair budget.
    pub pairs_total: usize,
    /// Occupied archive cells.
    pub cells: usize,
    /// Cells whose elite has PD > 0.
    pub bc_count: usize,
    /// Sum of PD over cells.
    pub qd_score: f64,
}
