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
    /// The archive's figures after every executor call, oldest first.
    pub history: Vec<QdPoint>,
}

/// The archive's figures at one moment of a run: one point of the QD-score over evaluations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct QdPoint {
    /// Calls of the function so far.
    pub evaluations: usize,
    /// Pairs offered so far.
    pub pairs: usize,
    /// Occupied cells.
    pub cells: usize,
    /// Σ PD over cells; JSON's `null` reads back as +∞ (JSON has no infinity).
    #[serde(deserialize_with = "finite_or_infinity")]
    pub qd_score: f64,
}

fn finite_or_infinity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    use serde::Deserialize as _;
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

impl QdPoint {
    /// At most `n` points of `history` (n ≥ 2), evenly spaced over it, the first and the last
    /// always among them: the report's compact QD-score curve.
    pub fn thin(history: &[QdPoint], n: usize) -> Vec<QdPoint> {
        let n = n.max(2);
        if history.len() <= n {
            return history.to_vec();
        }
        let last = history.len() - 1;
        (0..n).map(|k| history[k * last / (n - 1)]).collect()
    }
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
