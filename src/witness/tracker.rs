//! What the searches of one survivor learned from its probes: the closest inputs so far (the
//! directed search starts from them) and how far any input got towards a witness (why the
//! survivor stayed unwitnessed, when it did).

use std::collections::HashSet;

use crate::exec::{Fitness, Probe};
use crate::report::Unwitnessed;
use crate::value::{Args, Value};

/// How many of the closest inputs are kept.
const KEEP: usize = 16;

/// Everything seen about one survivor's site.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    /// The closest distinct inputs, closest first.
    best: Vec<(Fitness, Args)>,
    best_keys: HashSet<String>,
    /// Calls that carried a probe.
    pub(crate) probed: usize,
    /// The closest input that did not reach the site.
    unreached: Option<Fitness>,
    /// The closest reaching, non-infecting call: its distance and operands.
    reached: Option<(f64, Option<[String; 2]>)>,
    /// Distinct inputs that infected the site.
    infecting: HashSet<String>,
    /// Why the site has no infection probe, as its worker said.
    none: Option<String>,
}

impl Tracker {
    /// Notes the probe of the mutant's call on `args`; returns the call's fitness.
    pub(crate) fn see(&mut self, args: &Args, probe: Option<&Probe>) -> Fitness {
        let Some(p) = probe else { return Fitness::UNKNOWN };
        self.probed += 1;
        let f = p.fitness();
        if self.none.is_none() {
            self.none = p.none.clone();
        }
        match f.stage {
            0 => {
                self.infecting.insert(key(args));
            }
            1 => {
                if self.reached.as_ref().is_none_or(|(d, _)| f.distance < *d) {
                    self.reached = Some((f.distance, p.operands.clone()));
                }
            }
            _ => {
                if self.unreached.is_none_or(|u| f < u) {
                    self.unreached = Some(f);
                }
            }
        }
        let k = key(args);
        if !self.best_keys.contains(&k)
            && (self.best.len() < KEEP || self.best.last().is_some_and(|(w, _)| f < *w))
        {
            let at = self.best.partition_point(|(g, _)| *g <= f);
            self.best.insert(at, (f, args.clone()));
            self.best_keys.insert(k);
            if self.best.len() > KEEP {
                if let Some((_, gone)) = self.best.pop() {
                    self.best_keys.remove(&key(&gone));
                }
            }
        }
        f
    }

    /// The closest inputs seen, closest first, with their fitness.
    pub(crate) fn best(&self) -> &[(Fitness, Args)] {
        &self.best
    }

    /// The closest fitness seen.
    pub(crate) fn closest(&self) -> Fitness {
        self.best.first().map_or(Fitness::UNKNOWN, |(f, _)| *f)
    }

    /// Why no witness was found, from what was seen.
    pub(crate) fn unwitnessed(&self) -> Unwitnessed {
        if self.probed == 0 {
            return Unwitnessed::NoProbe {
                why: "the mutant's worker reported no probes (a mutant built alone, or probes \
                      that did not compile)"
                    .into(),
            };
        }
        if !self.infecting.is_empty() {
            return Unwitnessed::Masked { infected_inputs: self.infecting.len() };
        }
        if let Some((d, operands)) = &self.reached {
            if let Some(why) = &self.none {
                return Unwitnessed::NoProbe { why: why.clone() };
            }
            return Unwitnessed::NeverInfected {
                distance: d.is_finite().then_some(*d),
                operands: operands.clone(),
            };
        }
        let u = self.unreached.unwrap_or(Fitness::UNKNOWN);
        Unwitnessed::NeverReached {
            missed_guards: u.stage.saturating_sub(2),
            branch_distance: u.distance.is_finite().then_some(u.distance),
        }
    }
}

/// The identity of an input.
pub(crate) fn key(args: &Args) -> String {
    Value::List(args.clone()).to_json()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::probe::GuardProbe;

    fn at(x: i128) -> Args {
        vec![Value::Int(x)]
    }

    #[test]
    fn the_closest_inputs_are_kept_and_the_furthest_stage_explains_a_miss() {
        let mut t = Tracker::default();
        assert!(matches!(t.unwitnessed(), Unwitnessed::NoProbe { .. }));
        let stopped = |d: f64| Probe {
            guards: vec![GuardProbe {
                satisfied: false,
                distance: Some(d),
                ..GuardProbe::default()
            }],
            ..Probe::default()
        };
        t.see(&at(0), Some(&stopped(9.0)));
        t.see(&at(5), Some(&stopped(4.0)));
        assert_eq!(
            t.unwitnessed(),
            Unwitnessed::NeverReached { missed_guards: 1, branch_distance: Some(4.0) }
        );
        let reached = Probe {
            reached: 1,
            infected: Some(0),
            distance: Some(2.0),
            operands: Some(["8".into(), "10".into()]),
            ..Probe::default()
        };
        t.see(&at(8), Some(&reached));
        assert_eq!(t.best()[0].1, at(8));
        assert_eq!(t.best().len(), 3);
        assert!(
            matches!(t.unwitnessed(), Unwitnessed::NeverInfected { distance: Some(d), .. } if d == 2.0)
        );
        t.see(&at(10), Some(&Probe { reached: 1, infected: Some(1), ..Probe::default() }));
        assert_eq!(t.unwitnessed(), Unwitnessed::Masked { infected_inputs: 1 });
        assert!(t.closest().infected());
    }
}
