//! Probes (weak mutation): what a mutant's worker reports about the mutated site on each call
//! when it runs in probe mode, beside the call's outcome. Search-based test generators grade an
//! input by how close it comes to the site (reach), to a different state there (infection), and
//! only then to a different outcome (propagation); a probe carries what the first two need.
//!
//! On the wire (both languages) an answer line may carry a `probe` object:
//! `{"reached":R,"infected":I,"distance":D,"operands":[A,B],"guards":[[S,G],...],"none":W}`:
//! `R` how many times the mutated site ran (`null` when the worker could not instrument the
//! site at all; the call is then graded as if it had reached it); `I` how many of those the original and the mutant
//! evaluated differently there (`null` when the site has no probe, `W` then says why); `D` the
//! smallest distance to infection over those evaluations (0 once infected; for a comparison at
//! or around the site, the branch distance of making the original's and the mutant's
//! comparison disagree); `A`, `B` the compared values at that closest evaluation, as text; per
//! guard on the way to the site (the conditions of `if`, `while` and match guards it depends
//! on, in source order), `S` 1 when it took the direction that leads to the site at least once,
//! and `G` its smallest branch distance to that direction (`null` when it never ran).

use std::cmp::Ordering;

use super::ExecError;
use crate::value::{Args, Outcome};

/// What the mutated site did during one call of a mutant (see the module comment).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// How many times the mutated site ran.
    pub reached: u32,
    /// Whether the worker could not count the site's runs (`"reached": null`).
    pub reach_unknown: bool,
    /// How many of those the original and the mutant evaluated differently there; `None` when
    /// the site has no infection probe.
    pub infected: Option<u32>,
    /// The smallest distance to infection over the site's evaluations (0 when infected).
    pub distance: Option<f64>,
    /// The compared values at the closest evaluation, as the worker wrote them.
    pub operands: Option<[String; 2]>,
    /// The guards on the way to the site, in source order.
    pub guards: Vec<GuardProbe>,
    /// Why the site has no infection probe.
    pub none: Option<String>,
}

/// One guard on the way to a mutated site.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GuardProbe {
    /// Whether it took the direction that leads to the site at least once.
    pub satisfied: bool,
    /// Its smallest branch distance to that direction; `None` when it never ran.
    pub distance: Option<f64>,
}

/// How close a call came to infecting a mutated site; lower is closer. `stage` is 0 once the
/// site is infected, 1 when it ran without infection (`distance` is then the distance to
/// infection), and `2 + approach level` when it never ran (the guards still missed; `distance`
/// is the branch distance of the first missed guard). Unknown distances are infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fitness {
    /// 0 infected, 1 reached, 2 + missed guards otherwise.
    pub stage: u32,
    /// The distance within the stage.
    pub distance: f64,
}

impl Fitness {
    /// The worst fitness: nothing known.
    pub const UNKNOWN: Fitness = Fitness { stage: u32::MAX, distance: f64::INFINITY };

    /// Whether the site was infected.
    pub fn infected(&self) -> bool {
        self.stage == 0
    }
}

impl Eq for Fitness {}

impl PartialOrd for Fitness {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Fitness {
    fn cmp(&self, other: &Self) -> Ordering {
        self.stage.cmp(&other.stage).then(self.distance.total_cmp(&other.distance))
    }
}

impl Probe {
    /// The call's fitness (see [`Fitness`]).
    pub fn fitness(&self) -> Fitness {
        if self.reached > 0 || self.reach_unknown {
            return match self.infected {
                Some(n) if n > 0 => Fitness { stage: 0, distance: 0.0 },
                _ => Fitness { stage: 1, distance: self.distance.unwrap_or(f64::INFINITY) },
            };
        }
        let missed: Vec<&GuardProbe> = self.guards.iter().filter(|g| !g.satisfied).collect();
        Fitness {
            stage: 2 + missed.len() as u32,
            distance: missed.first().and_then(|g| g.distance).unwrap_or(f64::INFINITY),
        }
    }

    /// Reads a `probe` object of an answer line; `None` when it is not one.
    pub fn from_json(v: &serde_json::Value) -> Option<Probe> {
        let o = v.as_object()?;
        let count = |k: &str| o.get(k).and_then(serde_json::Value::as_u64).map(|n| n as u32);
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let guards = o
            .get("guards")
            .and_then(serde_json::Value::as_array)
            .map(|gs| {
                gs.iter()
                    .filter_map(|g| {
                        let g = g.as_array()?;
                        Some(GuardProbe {
                            satisfied: g.first().is_some_and(|s| {
                                s.as_bool().unwrap_or(false) || s.as_u64().unwrap_or(0) > 0
                            }),
                            distance: g.get(1).and_then(number),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Probe {
            reached: count("reached").unwrap_or(0),
            reach_unknown: o.get("reached").is_some_and(serde_json::Value::is_null),
            infected: count("infected"),
            distance: o.get("distance").and_then(number),
            operands: o
                .get("operands")
                .and_then(serde_json::Value::as_array)
                .filter(|a| a.len() == 2)
                .map(|a| [text(&a[0]), text(&a[1])]),
            guards,
            none: o.get("none").and_then(serde_json::Value::as_str).map(str::to_string),
        })
    }
}

/// A distance as JSON: a number, or `"inf"`; never negative or NaN.
fn number(v: &serde_json::Value) -> Option<f64> {
    let d = match v {
        serde_json::Value::Number(n) => n.as_f64()?,
        serde_json::Value::String(s) if s == "inf" => f64::INFINITY,
        _ => return None,
    };
    (!d.is_nan()).then_some(d.abs())
}

/// One outcome per call, each with the probe its worker sent (if any).
pub type Answers = Vec<(Outcome, Option<Probe>)>;

/// An executor that reports, with each outcome, the probe of a mutant's worker in probe mode
/// (`None` when the worker sent none: not in probe mode, or a build without probes).
pub trait ProbeEvaluate {
    /// Runs every argument list of `batch`, in order; one outcome and probe per list.
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError>;
}

/// The outcomes of a [`ProbeEvaluate`], probes dropped: for the searches that only compare
/// outcomes.
pub struct Outcomes<'a>(pub &'a mut dyn ProbeEvaluate);

impl super::Evaluate for Outcomes<'_> {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        Ok(self.0.evaluate_probed(batch)?.into_iter().map(|(o, _)| o).collect())
    }
}

/// Any executor as a [`ProbeEvaluate`] that never has a probe.
pub struct Unprobed<'a>(pub &'a mut dyn super::Evaluate);

impl ProbeEvaluate for Unprobed<'_> {
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
        Ok(self.0.evaluate(batch)?.into_iter().map(|o| (o, None)).collect())
    }
}

/// An in-process probed executor over a Rust closure, for tests and benchmarks of the search.
pub struct ProbeFnEvaluator<F: FnMut(&Args) -> (Outcome, Option<Probe>)>(pub F);

impl<F: FnMut(&Args) -> (Outcome, Option<Probe>)> ProbeEvaluate for ProbeFnEvaluator<F> {
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
        Ok(batch.iter().map(&mut self.0).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_object_parses_and_grades_its_call() {
        let p = Probe::from_json(&serde_json::json!({
            "reached": 2, "infected": 0, "distance": 3.0, "operands": ["182", 185],
            "guards": [[1, 0.0], [1, 0.0]]
        }))
        .unwrap();
        assert_eq!(p.operands, Some(["182".to_string(), "185".to_string()]));
        assert_eq!(p.fitness(), Fitness { stage: 1, distance: 3.0 });
        let stopped = Probe::from_json(&serde_json::json!({
            "reached": 0, "infected": 0, "guards": [[1, 0], [0, 7], [0, null]]
        }))
        .unwrap();
        assert_eq!(stopped.fitness(), Fitness { stage: 4, distance: 7.0 });
        let infected = Probe { reached: 1, infected: Some(1), ..Probe::default() };
        assert!(infected.fitness().infected());
        let unprobed = Probe::from_json(&serde_json::json!({"reached": 1, "infected": null,
            "none": "a logical operator"}))
        .unwrap();
        assert_eq!(unprobed.none.as_deref(), Some("a logical operator"));
        assert_eq!(unprobed.fitness(), Fitness { stage: 1, distance: f64::INFINITY });
        let blind = Probe::from_json(&serde_json::json!({"reached": null, "infected": null,
            "none": "the mutant changes 2 places"}))
        .unwrap();
        assert!(blind.reach_unknown);
        assert_eq!(blind.fitness().stage, 1, "graded as reached: nothing says it was not");
    }

    #[test]
    fn fitness_orders_by_stage_then_distance() {
        let f = |stage, distance| Fitness { stage, distance };
        let mut v = vec![f(3, 1.0), f(1, f64::INFINITY), f(0, 0.0), f(1, 2.0), f(2, 1e30)];
        v.sort();
        assert_eq!(v, [f(0, 0.0), f(1, 2.0), f(1, f64::INFINITY), f(2, 1e30), f(3, 1.0)]);
        assert!(f(9, 0.0) < Fitness::UNKNOWN);
    }
}
