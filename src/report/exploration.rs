//! The exploration part of a target's report: the boundary archive's cells and the figures of
//! the search ([`ExplorationReport`]).

use serde::{Deserialize, Deserializer, Serialize};

use super::mutation::OriginShare;
use crate::archive::{Descriptor, Group, Pair};
use crate::explore::{Exploration, QdPoint, StopReason};
use crate::value::{stringify_input, Args, Outcome};

/// Reads a distance, PD or QD-score. JSON has no infinity, and serde_json writes a non-finite
/// number as `null`; these figures are never NaN, so `null` reads back as +∞ (the Euclidean
/// distance between two huge floats overflows).
fn number_or_infinity<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

/// The result of exploring one target.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExplorationReport {
    /// Pairs offered to the archive.
    pub pairs_evaluated: usize,
    /// Calls of the function.
    pub evaluations: usize,
    /// Wall time spent, in milliseconds.
    pub time_ms: u64,
    /// Why exploration stopped.
    pub stop: StopReason,
    /// Σ PD over cells.
    #[serde(deserialize_with = "number_or_infinity")]
    pub qd_score: f64,
    /// Cells with PD > 0.
    pub bc_count: usize,
    /// Occupied cells.
    pub cells_total: usize,
    /// How many boundaries sit exactly at a comparison's threshold, where the original's
    /// comparisons were traced (see `explore::Exact`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_pairs: Option<crate::explore::Exact>,
    /// Each origin's cells, boundaries and shares of this function's QD-score and boundaries;
    /// absent in reports of older versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<OriginShare>,
    /// Every archive cell, strongest first.
    pub cells: Vec<Cell>,
    /// The QD-score over evaluations: at most [`QD_HISTORY_POINTS`] points, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qd_history: Vec<QdPoint>,
}

/// How many points of an exploration's QD-score curve the report keeps.
pub const QD_HISTORY_POINTS: usize = 64;

/// One archive cell: its elite pair.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    /// The four descriptors.
    pub descriptor: Descriptor,
    /// Program derivative.
    #[serde(deserialize_with = "number_or_infinity")]
    pub pd: f64,
    /// Input distance.
    #[serde(deserialize_with = "number_or_infinity")]
    pub d_in: f64,
    /// Output distance.
    #[serde(deserialize_with = "number_or_infinity")]
    pub d_out: f64,
    /// Validity group; absent when both outcomes are equal (PD 0, not a boundary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<Group>,
    /// The two argument lists.
    pub inputs: [Args; 2],
    /// Their outcomes.
    pub outcomes: [Outcome; 2],
    /// The stringified inputs and outputs the metrics were computed on.
    pub strings: CellStrings,
    /// Which part of the search proposed the pair (`{"kind": "operator"}`, `bisection`,
    /// `threshold`, or `{"kind": "model", "strategy": …, "persona": …}`); absent in reports of
    /// older versions, which read it as `operator`.
    #[serde(default)]
    pub origin: crate::archive::Origin,
}

/// Stringified forms of a cell's pair.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellStrings {
    /// The two stringified inputs.
    pub inputs: [String; 2],
    /// The two stringified outcomes.
    pub outputs: [String; 2],
}

impl Cell {
    /// The report form of an archive elite.
    pub fn of(p: &Pair) -> Cell {
        let differ = p.outcomes[0] != p.outcomes[1];
        Cell {
            descriptor: p.descriptor,
            pd: p.pd,
            d_in: p.d_in,
            d_out: p.d_out,
            group: differ.then(|| p.group()),
            inputs: p.inputs.clone(),
            outcomes: p.outcomes.clone(),
            strings: CellStrings {
                inputs: [stringify_input(&p.inputs[0]), stringify_input(&p.inputs[1])],
                outputs: [p.outcomes[0].stringify(), p.outcomes[1].stringify()],
            },
            origin: p.origin.clone(),
        }
    }
}

impl ExplorationReport {
    /// The report form of an exploration.
    pub fn of(e: &Exploration) -> ExplorationReport {
        ExplorationReport {
            pairs_evaluated: e.pairs_evaluated,
            evaluations: e.evaluations,
            time_ms: e.elapsed.as_millis() as u64,
            stop: e.stop,
            qd_score: e.archive.qd_score(),
            bc_count: e.archive.bc_count(),
            cells_total: e.archive.len(),
            exact_pairs: e.exact,
            origins: Vec::new(),
            cells: e.archive.elites().into_iter().map(Cell::of).collect(),
            qd_history: QdPoint::thin(&e.history, QD_HISTORY_POINTS),
        }
    }

    /// The boundaries (PD > 0), strongest first.
    pub fn boundaries(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(|c| c.pd > 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Outcome, Value};

    #[test]
    fn an_infinite_distance_reads_back_from_the_null_json_writes_for_it() {
        let ok = |v: &str| Outcome::Ok { value: v.to_string() };
        let (tiny, huge) = (6.6e-156, 4.3e307);
        let pair = Pair::new(
            vec![Value::Float(tiny)],
            vec![Value::Float(huge)],
            ok(&tiny.to_string()),
            ok(&huge.to_string()),
        )
        .expect("a pair");
        let cell = Cell::of(&pair);
        assert_eq!(cell.d_in, f64::INFINITY);
        let json = serde_json::to_string(&cell).unwrap();
        assert!(json.contains("\"d_in\":null"), "{json}");
        let back: Cell = serde_json::from_str(&json).unwrap();
        assert_eq!((back.d_in, back.pd, back.d_out), (cell.d_in, cell.pd, cell.d_out));
    }
}
