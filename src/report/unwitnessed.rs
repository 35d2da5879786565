//! Why a survivor stayed without a witness: the stage of reach, infect, propagate that no input
//! passed, from its probes. Only "masked" (infected, outcome never changed) is what a user
//! should read as "probably equivalent"; the other stages say where the search got stuck.

use serde::{Deserialize, Serialize};

/// The stage a survivor's witness search never passed (the report's `unwitnessed`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Unwitnessed {
    /// No input ran the mutated site.
    NeverReached {
        /// The fewest guards on the way that an input still missed (the approach level).
        missed_guards: u32,
        /// The branch distance of the first missed guard at that closest input.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch_distance: Option<f64>,
    },
    /// Inputs ran the site, but the original and the mutant always evaluated alike there.
    NeverInfected {
        /// The smallest distance to infection seen (for a comparison, about `|a − b|`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        distance: Option<f64>,
        /// The compared values at that closest input.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        operands: Option<[String; 2]>,
    },
    /// Inputs infected the site, but no outcome changed: probably equivalent.
    Masked {
        /// How many distinct inputs infected it.
        infected_inputs: usize,
    },
    /// The site could not be probed, and neither the archive nor the random search found a
    /// witness.
    NoProbe {
        /// Why there is no probe.
        why: String,
    },
    /// abex cannot call the function, nor a function that calls it: the survivor is what
    /// cargo-mutants or mutmut would list, not proven either way (never "possibly equivalent").
    NotCallable {
        /// The function's qualified name.
        function: String,
        /// Why it cannot be called.
        reason: String,
    },
    /// A witness was found but did not hold when run again: its outcomes depend on more than
    /// the input (what the worker's memory held, the clock), so it proves nothing.
    Unsteady {
        /// The input, as the report writes arguments.
        input: String,
        /// What was seen on it, first then again ("original: crash: …, then panic: …").
        seen: String,
    },
    /// No search ran, and none would: whether the tests reach the function is not known (its
    /// self-check does not build, and no test killed another of its mutants), so no survivor
    /// of it is a gap.
    ReachUnknown {
        /// Why, in words.
        because: String,
    },
    /// No search ran: the run stopped first (its time budget ran out, or it was interrupted).
    NotSearched {
        /// Why the run stopped, in words: "the time budget ran out", "interrupted by SIGINT".
        because: String,
    },
}

impl Unwitnessed {
    /// Whether this is what a user should read as "probably equivalent": the site was
    /// infected and no outcome changed.
    pub fn probably_equivalent(&self) -> bool {
        matches!(self, Unwitnessed::Masked { .. })
    }

    /// Whether the search proved nothing either way, so the survivor can never read as
    /// "possibly equivalent": abex cannot call the function, no search ran, or the witness it
    /// found did not hold when run again.
    pub fn proves_nothing(&self) -> bool {
        matches!(
            self,
            Unwitnessed::NotCallable { .. }
                | Unwitnessed::ReachUnknown { .. }
                | Unwitnessed::NotSearched { .. }
                | Unwitnessed::Unsteady { .. }
        )
    }

    /// One line for people, e.g. "reached, never infected (closest |a − b| = 1: 184 vs 185)".
    pub fn describe(&self) -> String {
        let num = |d: f64| {
            if d.fract() == 0.0 && d.abs() < 1e15 {
                format!("{d:.0}")
            } else {
                format!("{d}")
            }
        };
        match self {
            Unwitnessed::NeverReached { missed_guards, branch_distance } => {
                let guards = match missed_guards {
                    1 => "1 guard missed".to_string(),
                    n => format!("{n} guards missed"),
                };
                match branch_distance {
                    Some(d) => format!(
                        "site never reached (closest approach: {guards}, branch distance {})",
                        num(*d)
                    ),
                    None => format!("site never reached (closest approach: {guards})"),
                }
            }
            Unwitnessed::NeverInfected { distance, operands } => {
                // The operands are the compared values (or the mutant's and the original's
                // value at a site no comparison reads): |a − b| is shown when they are numbers
                // that differ; equal ones are shown as they are (the distance to infection is
                // then about the operator, not the values).
                let gap = operands.as_ref().and_then(|[a, b]| {
                    let (x, y) = (a.parse::<f64>().ok()?, b.parse::<f64>().ok()?);
                    (x != y).then(|| (x - y).abs())
                });
                match (operands, gap, distance) {
                    (Some([a, b]), Some(g), _) => {
                        format!(
                            "reached, never infected (closest |a − b| = {}: {a} vs {b})",
                            num(g)
                        )
                    }
                    (Some([a, b]), None, _) => {
                        format!("reached, never infected (closest: {a} vs {b})")
                    }
                    (None, _, Some(d)) => {
                        format!("reached, never infected (closest distance {})", num(*d))
                    }
                    (None, _, None) => "reached, never infected".to_string(),
                }
            }
            Unwitnessed::Masked { .. } => {
                "infected, outcome never changed (masked), probably equivalent".to_string()
            }
            Unwitnessed::NoProbe { why } => format!("no probe ({why})"),
            Unwitnessed::NotCallable { function, reason } => {
                format!("not proven: abex cannot call `{function}` ({reason})")
            }
            Unwitnessed::ReachUnknown { because } => {
                format!("not proven: whether the tests reach the function is not known ({because})")
            }
            Unwitnessed::NotSearched { because } => format!("no witness search ran ({because})"),
            Unwitnessed::Unsteady { input, seen } => {
                format!("not proven: a witness did not hold when run again (on {input}, {seen})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stage_reads_as_a_sentence_and_serializes_with_its_stage() {
        let r = Unwitnessed::NeverReached { missed_guards: 2, branch_distance: Some(1812.0) };
        assert_eq!(
            r.describe(),
            "site never reached (closest approach: 2 guards missed, branch distance 1812)"
        );
        let i = Unwitnessed::NeverInfected {
            distance: Some(1.0),
            operands: Some(["184".into(), "185".into()]),
        };
        assert_eq!(i.describe(), "reached, never infected (closest |a − b| = 1: 184 vs 185)");
        // A value site reports the mutant's and the original's value: equal when not infected.
        let same = Unwitnessed::NeverInfected {
            distance: Some(1.0),
            operands: Some(["18".into(), "18".into()]),
        };
        assert_eq!(same.describe(), "reached, never infected (closest: 18 vs 18)");
        let json = serde_json::to_value(&i).unwrap();
        assert_eq!(json["stage"], "never_infected");
        assert_eq!(serde_json::from_value::<Unwitnessed>(json).unwrap(), i);
        let masked = Unwitnessed::Masked { infected_inputs: 3 };
        assert!(masked.describe().starts_with("infected"));
        assert!(masked.probably_equivalent() && !i.probably_equivalent());
        let n = Unwitnessed::NoProbe { why: "a logical operator".into() };
        assert_eq!(n.describe(), "no probe (a logical operator)");
        let c = Unwitnessed::NotCallable { function: "m::f".into(), reason: "generic".into() };
        assert_eq!(c.describe(), "not proven: abex cannot call `m::f` (generic)");
        let s = Unwitnessed::NotSearched { because: "interrupted by SIGINT".into() };
        assert_eq!(s.describe(), "no witness search ran (interrupted by SIGINT)");
        assert!(s.proves_nothing() && c.proves_nothing() && !masked.proves_nothing());
        assert_eq!(serde_json::to_value(&s).unwrap()["stage"], "not_searched");
    }
}
