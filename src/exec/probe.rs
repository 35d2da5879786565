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
//! and `G` its smallest branch distance to that direction (`null` when it never ran); a missed
//! guard may add the operands of its comparisons at that closest evaluation, `[S,G,[[A,B],...]]`
//! (the directed search sets the inputs holding one operand to the other, see
//! `witness::steer`).
//!
//! The original's worker in trace mode (for the explorer's threshold operator) answers with a
//! `probe` object of one member, `{"cmps":[[ID,"<",A,B],...]}`: per comparison of the traced
//! function that ran during the call, its id, operator and the operands of its evaluation with
//! the smallest `|A − B|` (numbers only).

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
    /// In trace mode (the original's worker, for the explorer's threshold operator): each
    /// comparison of the original code that ran, at its evaluation closest to its threshold.
    pub cmps: Vec<Compared>,
}

/// One comparison `a OP b` of the original code during a traced call, at its evaluation whose
/// operands were closest (see the module comment's `cmps`).
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    /// The comparison's id (unique within the traced function's build or source).
    pub id: u32,
    /// The operator: `<`, `<=`, `>`, `>=`, `==` or `!=`.
    pub op: String,
    /// The two operands, as the worker wrote them.
    pub operands: [String; 2],
}

impl Compared {
    /// `a − b`, when both operands are numbers (exact for integers up to 2^53 apart).
    pub fn diff(&self) -> Option<f64> {
        let [a, b] = &self.operands;
        if let (Ok(x), Ok(y)) = (a.parse::<i128>(), b.parse::<i128>()) {
            return Some(x.checked_sub(y).map_or(x as f64 - y as f64, |d| d as f64));
        }
        let (x, y) = (a.parse::<f64>().ok()?, b.parse::<f64>().ok()?);
        let d = x - y;
        (!d.is_nan()).then_some(d)
    }

    /// Whether the operands are integers (their difference moves in steps of 1).
    pub fn integral(&self) -> bool {
        self.operands.iter().all(|t| t.parse::<i128>().is_ok())
    }

    /// The comparison's result, from [`Compared::diff`].
    pub fn holds(&self) -> Option<bool> {
        let d = self.diff()?;
        Some(match self.op.as_str() {
            "<" => d < 0.0,
            "<=" => d <= 0.0,
            ">" => d > 0.0,
            ">=" => d >= 0.0,
            "==" => d == 0.0,
            "!=" => d != 0.0,
            _ => return None,
        })
    }
}

/// One guard on the way to a mutated site.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GuardProbe {
    /// Whether it took the direction that leads to the site at least once.
    pub satisfied: bool,
    /// Its smallest branch distance to that direction; `None` when it never ran.
    pub distance: Option<f64>,
    /// When it was missed: the operands of its comparisons at its closest evaluation, as the
    /// worker wrote them (`cmp.major > 0` missed at `1 > 0`: `["1", "0"]`).
    pub operands: Vec<[String; 2]>,
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
                            operands: g
                                .get(2)
                                .and_then(serde_json::Value::as_array)
                                .map(|ps| {
                                    ps.iter()
                                        .filter_map(|p| {
                                            let p = p.as_array().filter(|p| p.len() == 2)?;
                                            Some([text(&p[0]), text(&p[1])])
                                        })
                                        .collect()
                                })
                                .unwrap_or_default(),
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
            cmps: o
                .get("cmps")
                .and_then(serde_json::Value::as_array)
                .map(|cs| cs.iter().filter_map(|c| compared(c, &text)).collect())
                .unwrap_or_default(),
        })
    }
}

/// One `[id, op, a, b]` of a trace's `cmps`.
fn compared(
    c: &serde_json::Value,
    text: &dyn Fn(&serde_json::Value) -> String,
) -> Option<Compared> {
    let c = c.as_array().filter(|c| c.len() == 4)?;
    Some(Compared {
        id: u32::try_from(c[0].as_u64()?).ok()?,
        op: c[1].as_str()?.to_string(),
        operands: [text(&c[2]), text(&c[3])],
    })
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

    /// Runs every argument list of `batch`, in order, for the outcomes only: a worker whose
    /// probes cost much ([`ProbeEvaluate::probes_cost`]) is asked to send none. By default the
    /// probed answers, probes dropped.
    fn evaluate_outcomes(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        Ok(self.evaluate_probed(batch)?.into_iter().map(|(o, _)| o).collect())
    }

    /// Whether a call with its probe costs much more than one without
    /// ([`ProbeEvaluate::evaluate_outcomes`] skips it): the Python worker's probe report, built
    /// and sent as JSON per call, about doubles the cost of calling a small function. Then the
    /// witness search runs the archive's inputs without probes first and asks for them only when
    /// they found no witness (`witness::strategy::find`). The Rust harness's probes cost next to
    /// nothing: `false`.
    fn probes_cost(&self) -> bool {
        false
    }
}

/// The outcomes of a [`ProbeEvaluate`], without probes ([`ProbeEvaluate::evaluate_outcomes`]):
/// for the searches that only compare outcomes.
pub struct Outcomes<'a>(pub &'a mut dyn ProbeEvaluate);

impl super::Evaluate for Outcomes<'_> {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        self.0.evaluate_outcomes(batch)
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
            "reached": 0, "infected": 0, "guards": [[1, 0], [0, 7, [["1", "0"]]], [0, null]]
        }))
        .unwrap();
        assert_eq!(stopped.fitness(), Fitness { stage: 4, distance: 7.0 });
        assert_eq!(stopped.guards[1].operands, [["1".to_string(), "0".to_string()]]);
        assert!(stopped.guards[0].operands.is_empty());
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
    fn a_trace_carries_each_comparison_at_its_closest_evaluation() {
        let p = Probe::from_json(&serde_json::json!({
            "cmps": [[3, "<", "184", "185"], [4, ">=", 37.5, "37.5"], [9, "<"], [5, "==", "x", "1"]]
        }))
        .unwrap();
        assert_eq!(p.cmps.len(), 3, "a malformed entry is left out");
        assert_eq!((p.cmps[0].diff(), p.cmps[0].holds()), (Some(-1.0), Some(true)));
        assert!(p.cmps[0].integral() && !p.cmps[1].integral());
        assert_eq!((p.cmps[1].diff(), p.cmps[1].holds()), (Some(0.0), Some(true)));
        assert_eq!((p.cmps[2].diff(), p.cmps[2].holds()), (None, None));
        let big = Compared {
            id: 1,
            op: "<".into(),
            operands: [u64::MAX.to_string(), (u64::MAX - 1).to_string()],
        };
        assert_eq!(big.diff(), Some(1.0), "integers subtract exactly");
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
