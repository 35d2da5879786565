//! The directed witness search (Korel's alternating variable method on the mutant's probes):
//! from each start, one variable at a time, exploratory moves (±1; for floats, finer steps when
//! ±1 fails) and, in the direction that improved, accelerating pattern moves (doubling steps,
//! tried as one batch), minimising the [`Fitness`] (approach level and branch distance until the
//! site runs, then the distance to infection). Every infected input is run on the original too
//! (propagation); when the site is infected but the outcome stays the same (masked), the search
//! keeps walking the infected region around that input before it restarts elsewhere.
//!
//! The search is deterministic for its random seed (restarts only use it), until a witness,
//! its budget of calls or the clock ends it.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::archive::{past, tells_apart, CHUNK};
use super::moves::{self, Kind, Var};
use super::tracker::{key, Tracker};
use crate::exec::{Evaluate, ExecError, Fitness, ProbeEvaluate};
use crate::report::Witness;
use crate::value::{Args, Ty};

/// Pattern moves tried in one batch: the step doubled this many times.
const PATTERN: u32 = 8;

/// Steps of the exploratory moves on a float, coarsest first.
const FLOAT_STEPS: [f64; 8] = [1.0, 0.5, 0.25, 0.125, 0.0625, 0.1, 0.01, 0.001];

/// Calls spent walking around one masked (infected, unchanged) input.
const AROUND: usize = 200;

/// Random restarts after the given starts are used up.
const RESTARTS: usize = 8;

/// Escapes from a local optimum per start (see [`Directed::escape`]).
const ESCAPES: usize = 4;

/// One directed search (see the module comment).
pub(super) struct Directed<'a> {
    params: &'a [Ty],
    original: &'a mut dyn Evaluate,
    mutant: &'a mut dyn ProbeEvaluate,
    tracker: &'a mut Tracker,
    until: Option<Instant>,
    /// Mutant calls left.
    budget: usize,
    /// The fitness of every input run.
    seen: HashMap<String, Fitness>,
    /// The witness, once found.
    pub witness: Option<Witness>,
}

impl<'a> Directed<'a> {
    /// A search of at most `budget` mutant calls, until `until`.
    pub(super) fn new(
        params: &'a [Ty],
        original: &'a mut dyn Evaluate,
        mutant: &'a mut dyn ProbeEvaluate,
        tracker: &'a mut Tracker,
        budget: usize,
        until: Option<Instant>,
    ) -> Self {
        Directed {
            params,
            original,
            mutant,
            tracker,
            until,
            budget,
            seen: HashMap::new(),
            witness: None,
        }
    }

    /// Whether the search is over: a witness, no budget, or no time.
    pub(super) fn done(&self) -> bool {
        self.witness.is_some() || self.budget == 0 || past(self.until)
    }

    /// Whether any probe came back, and the `n` closest inputs so far.
    pub(super) fn starts(&self, n: usize) -> (bool, Vec<Args>) {
        let best = self.tracker.best().iter().take(n).map(|(_, a)| a.clone()).collect();
        (self.tracker.probed > 0, best)
    }

    /// The fitness of each of `batch`: new inputs are run on the mutant (within the budget;
    /// the others are unknown), and the infected ones (and, at a site without an infection
    /// probe, the reaching ones) on the original too, to see whether the outcome changed.
    pub(super) fn eval(&mut self, batch: &[Args]) -> Result<Vec<Fitness>, ExecError> {
        let mut fresh: Vec<Args> = Vec::new();
        let mut keys = HashSet::new();
        for a in batch {
            let k = key(a);
            if !self.seen.contains_key(&k) && keys.insert(k) {
                fresh.push(a.clone());
            }
        }
        fresh.truncate(self.budget);
        for chunk in fresh.chunks(CHUNK) {
            if self.done() {
                break;
            }
            let answers = self.mutant.evaluate_probed(chunk)?;
            self.budget = self.budget.saturating_sub(chunk.len());
            let mut check = Vec::new();
            for (a, (out, probe)) in chunk.iter().zip(answers) {
                let f = self.tracker.see(a, probe.as_ref());
                self.seen.insert(key(a), f);
                let unknown = probe.as_ref().is_some_and(|p| p.infected.is_none());
                if f.infected() || (f.stage == 1 && unknown) {
                    check.push((a.clone(), out));
                }
            }
            if !check.is_empty() {
                let args: Vec<Args> = check.iter().map(|(a, _)| a.clone()).collect();
                let originals = self.original.evaluate(&args)?;
                if let Some(((a, m), o)) =
                    check.into_iter().zip(originals).find(|((_, m), o)| tells_apart(o, m))
                {
                    self.witness = Some(Witness {
                        input: a,
                        original: o,
                        mutant: m,
                        found_by: "directed".into(),
                    });
                    break;
                }
            }
        }
        Ok(batch
            .iter()
            .map(|a| self.seen.get(&key(a)).copied().unwrap_or(Fitness::UNKNOWN))
            .collect())
    }

    /// Runs the alternating variable method from each of `starts`, then from random restarts,
    /// until the search is over.
    pub(super) fn run(&mut self, starts: &[Args], rng: &mut ChaCha8Rng) -> Result<(), ExecError> {
        let mut masked = HashSet::new();
        let mut restarts = 0;
        let mut queue: Vec<Args> = starts.to_vec();
        queue.reverse();
        while !self.done() {
            let start = match queue.pop() {
                Some(s) => s,
                None if restarts < RESTARTS => {
                    restarts += 1;
                    self.restart(rng)
                }
                None => break,
            };
            let (x, fx) = self.avm(start)?;
            if fx.infected() && masked.insert(key(&x)) {
                self.around(x, rng)?;
            }
        }
        Ok(())
    }

    /// A restart: a neighbour of one of the closest inputs so far, or a random input.
    fn restart(&mut self, rng: &mut ChaCha8Rng) -> Args {
        let best = self.tracker.best();
        if !best.is_empty() && rng.random_bool(0.5) {
            let base = best[rng.random_range(0..best.len().min(4))].1.clone();
            let mut x = base.clone();
            for _ in 0..rng.random_range(1..=4) {
                x = crate::inputs::args_neighbour(self.params, &x, rng).unwrap_or(x);
            }
            return x;
        }
        crate::inputs::random_args(self.params, rng)
    }

    /// The alternating variable method from `start`: returns where it stopped and its fitness.
    fn avm(&mut self, start: Args) -> Result<(Args, Fitness), ExecError> {
        let mut x = start;
        let mut fx = self.eval(std::slice::from_ref(&x))?[0];
        let (mut stuck, mut i, mut escapes) = (0, 0, 0);
        while !self.done() && !fx.infected() {
            let vars = moves::vars(self.params, &x);
            if vars.is_empty() {
                break;
            }
            if stuck >= vars.len() {
                if escapes < ESCAPES && self.escape(&mut x, &mut fx, &vars)? {
                    escapes += 1;
                    stuck = 0;
                    continue;
                }
                break;
            }
            let var = vars[i % vars.len()].clone();
            if self.optimise(&mut x, &mut fx, &var)? {
                stuck = 0;
            } else {
                stuck += 1;
                i += 1;
            }
        }
        Ok((x, fx))
    }

    /// Out of a local optimum, where no single variable's move improves (a lattice too coarse
    /// for the target: `w * K / (h * h)` jumps over 184 whichever of `w` and `h` moves): moves
    /// of two numbers at once, by up to ±3 each, and every number scaled by the same factor
    /// (which keeps such ratios and makes their steps finer), tried as one batch; whether one
    /// improved.
    fn escape(&mut self, x: &mut Args, fx: &mut Fitness, vars: &[Var]) -> Result<bool, ExecError> {
        let numbers: Vec<&Var> = vars
            .iter()
            .filter(|v| matches!(v.kind, Kind::Int { .. } | Kind::Float | Kind::Len { .. }))
            .take(6)
            .collect();
        let mut tries = Vec::new();
        for (a, va) in numbers.iter().enumerate() {
            for vb in &numbers[a + 1..] {
                for da in [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0] {
                    for db in [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0] {
                        if let Some(y) =
                            moves::moved(x, va, da).and_then(|y| moves::moved(&y, vb, db))
                        {
                            tries.push(y);
                        }
                    }
                }
            }
        }
        for factor in [2.0, 3.0, 5.0, 10.0] {
            let mut y = Some(x.clone());
            for v in numbers.iter().filter(|v| !matches!(v.kind, Kind::Len { .. })) {
                y = y.and_then(|y| {
                    let now = moves::get(&y, v)?;
                    moves::set(&y, v, now * factor).or(Some(y))
                });
            }
            tries.extend(y.filter(|y| y != x));
        }
        let fs = self.eval(&tries)?;
        let Some(best) = (0..tries.len()).filter(|&k| fs[k] < *fx).min_by_key(|&k| fs[k]) else {
            return Ok(false);
        };
        *x = tries[best].clone();
        *fx = fs[best];
        Ok(true)
    }

    /// Exploratory and pattern moves on one variable until they stop improving; whether any
    /// improved.
    fn optimise(&mut self, x: &mut Args, fx: &mut Fitness, var: &Var) -> Result<bool, ExecError> {
        let steps: &[f64] = match var.kind {
            Kind::Float => &FLOAT_STEPS,
            _ => &[1.0],
        };
        let mut improved = false;
        'explore: while !self.done() && !fx.infected() {
            for &s in steps {
                let tries: Vec<(f64, Args)> = [s, -s]
                    .into_iter()
                    .filter_map(|d| moves::moved(x, var, d).map(|a| (d, a)))
                    .collect();
                let args: Vec<Args> = tries.iter().map(|(_, a)| a.clone()).collect();
                let fs = self.eval(&args)?;
                let Some(best) = (0..tries.len()).filter(|&k| fs[k] < *fx).min_by_key(|&k| fs[k])
                else {
                    continue;
                };
                *x = tries[best].1.clone();
                *fx = fs[best];
                improved = true;
                if var.kind != Kind::Toggle {
                    self.pattern(x, fx, var, tries[best].0)?;
                }
                continue 'explore;
            }
            break;
        }
        Ok(improved)
    }

    /// Pattern moves from `x` in the direction of `step`: the step doubled [`PATTERN`] times,
    /// tried as one batch; the best one is taken, and doubling goes on from there while the
    /// furthest is the best.
    fn pattern(
        &mut self,
        x: &mut Args,
        fx: &mut Fitness,
        var: &Var,
        step: f64,
    ) -> Result<(), ExecError> {
        let mut step = step * 2.0;
        while !self.done() && !fx.infected() && step.abs() < 1e300 {
            let tries: Vec<Args> = (0..PATTERN)
                .filter_map(|j| moves::moved(x, var, step * f64::from(1u32 << j)))
                .collect();
            if tries.is_empty() {
                break;
            }
            let fs = self.eval(&tries)?;
            let Some(best) = (0..tries.len()).filter(|&k| fs[k] < *fx).min_by_key(|&k| fs[k])
            else {
                break;
            };
            *x = tries[best].clone();
            *fx = fs[best];
            if best + 1 < tries.len() {
                break;
            }
            step *= f64::from(1u32 << PATTERN);
        }
        Ok(())
    }

    /// Walks the infected region around the masked input `x`: its single moves and random
    /// neighbours, expanding from every infected one, within [`AROUND`] calls.
    fn around(&mut self, x: Args, rng: &mut ChaCha8Rng) -> Result<(), ExecError> {
        let stop = self.budget.saturating_sub(AROUND);
        let mut frontier = vec![x];
        let mut expanded = HashSet::new();
        while let Some(x) = frontier.pop() {
            if self.done() || self.budget <= stop {
                break;
            }
            if !expanded.insert(key(&x)) {
                continue;
            }
            let mut tries = Vec::new();
            for var in moves::vars(self.params, &x) {
                for d in [1.0, -1.0, 2.0, -2.0] {
                    tries.extend(moves::moved(&x, &var, d));
                }
            }
            for _ in 0..8 {
                tries.extend(crate::inputs::args_neighbour(self.params, &x, rng));
            }
            let fs = self.eval(&tries)?;
            frontier
                .extend(tries.into_iter().zip(fs).filter(|(_, f)| f.infected()).map(|(a, _)| a));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::probe::{GuardProbe, ProbeFnEvaluator};
    use crate::exec::{FnEvaluator, Probe};
    use crate::value::{Outcome, Value};
    use rand::SeedableRng;

    /// `f(w, h) = (2*w*10_000 + h*h) / (2*h*h) < 185` against the mutant's `<=`, probed as
    /// the Rust runtime probes it: the comparison's operands and the distance to infection.
    fn threshold(mutant: bool) -> impl FnMut(&Args) -> (Outcome, Option<Probe>) {
        move |a: &Args| {
            let (w, h) = (a[0].as_int().unwrap_or(0), a[1].as_int().unwrap_or(1).max(1));
            let l = (2 * w * 10_000 + h * h) / (2 * h * h);
            let (orig, mutd) = (l < 185, l <= 185);
            let value = if mutant { mutd } else { orig };
            let probe = Probe {
                reached: 1,
                infected: Some(u32::from(orig != mutd)),
                distance: Some((l - 185).abs() as f64),
                operands: Some([l.to_string(), "185".into()]),
                ..Probe::default()
            };
            (Outcome::Ok { value: value.to_string() }, Some(probe))
        }
    }

    #[test]
    fn the_avm_reaches_an_equality_through_integer_arithmetic() {
        let params = [Ty::int(32, false), Ty::int(32, false)];
        let mut original = FnEvaluator(|a: &Args| threshold(false)(a).0);
        let mut mutant = ProbeFnEvaluator(threshold(true));
        let mut tracker = Tracker::default();
        let mut d = Directed::new(&params, &mut original, &mut mutant, &mut tracker, 5000, None);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // From a weight and height of the archive's kind (60, 170): 20 there.
        d.run(&[vec![Value::Int(60), Value::Int(170)]], &mut rng).unwrap();
        let w = d.witness.expect("a witness at exactly 185");
        let (wi, h) = (w.input[0].as_int().unwrap(), w.input[1].as_int().unwrap());
        assert_eq!((2 * wi * 10_000 + h * h) / (2 * h * h), 185, "{w:?}");
        assert!(d.budget > 3000, "{} calls", 5000 - d.budget);
    }

    #[test]
    fn escapes_get_out_of_a_lattice_too_coarse_for_the_target() {
        // From (1, 3), 20,000 / 18 = 1111: a step of `w` moves by 1111, one of `h` by hundreds.
        let params = [Ty::int(32, false), Ty::int(32, false)];
        let mut original = FnEvaluator(|a: &Args| threshold(false)(a).0);
        let mut mutant = ProbeFnEvaluator(threshold(true));
        let mut tracker = Tracker::default();
        let mut d = Directed::new(&params, &mut original, &mut mutant, &mut tracker, 5000, None);
        d.run(&[vec![Value::Int(1), Value::Int(3)]], &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let w = d.witness.expect("a witness at exactly 185");
        let (wi, h) = (w.input[0].as_int().unwrap(), w.input[1].as_int().unwrap());
        assert_eq!((2 * wi * 10_000 + h * h) / (2 * h * h), 185, "{w:?}");
    }

    #[test]
    fn guards_lead_the_search_to_a_site_behind_early_returns() {
        // `if y < 1812 || y > 2100 { return Err } if m > 12 { return Err } if d < 1 ...`:
        // the mutant `d < 1` → `d <= 1` is reached only with a valid year and month.
        let run = |mutant: bool| {
            move |a: &Args| {
                let (y, m, d) =
                    (a[0].as_int().unwrap(), a[1].as_int().unwrap(), a[2].as_int().unwrap());
                let g1 = if y < 1812 {
                    1812 - y
                } else if y > 2100 {
                    y - 2100
                } else {
                    0
                };
                let g2 = if m > 12 { m - 12 } else { 0 };
                let guards = vec![
                    GuardProbe { satisfied: g1 == 0, distance: Some(g1 as f64) },
                    GuardProbe {
                        satisfied: g1 == 0 && g2 == 0,
                        distance: (g1 == 0).then_some(g2 as f64),
                    },
                ];
                let (reached, value) = if g1 > 0 || g2 > 0 {
                    (0, "Err".to_string())
                } else {
                    (1, if mutant { d <= 1 } else { d < 1 }.to_string())
                };
                let probe = Probe {
                    reached,
                    infected: Some(u32::from(reached == 1 && d == 1)),
                    distance: (reached == 1).then_some((d - 1).abs() as f64),
                    guards,
                    ..Probe::default()
                };
                (Outcome::Ok { value }, Some(probe))
            }
        };
        let params = [Ty::int(64, true), Ty::int(32, false), Ty::int(32, false)];
        let mut original = FnEvaluator(|a: &Args| run(false)(a).0);
        let mut mutant = ProbeFnEvaluator(run(true));
        let mut tracker = Tracker::default();
        let mut d = Directed::new(&params, &mut original, &mut mutant, &mut tracker, 5000, None);
        let start = vec![Value::Int(-7_000_000_000_000), Value::Int(4000), Value::Int(90)];
        d.run(&[start], &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        let w = d.witness.expect("a witness behind the guards");
        assert_eq!(w.input[2], Value::Int(1));
        assert!(d.budget > 3000, "{} calls", 5000 - d.budget);
    }

    #[test]
    fn a_masked_site_is_walked_and_gives_no_witness() {
        // `x.min(10).min(20)`: changing the 20 is infected on every call and never shows.
        let params = [Ty::int(8, false)];
        let probe = || Some(Probe { reached: 1, infected: Some(1), ..Probe::default() });
        let cap = |a: &Args| Outcome::Ok { value: a[0].as_int().unwrap().min(10).to_string() };
        let mut original = FnEvaluator(cap);
        let mut mutant = ProbeFnEvaluator(|a: &Args| (cap(a), probe()));
        let mut tracker = Tracker::default();
        let mut d = Directed::new(&params, &mut original, &mut mutant, &mut tracker, 400, None);
        d.run(&[vec![Value::Int(3)]], &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert!(d.witness.is_none());
        assert!(matches!(
            tracker.unwitnessed(),
            super::super::Unwitnessed::Masked { infected_inputs } if infected_inputs > 10
        ));
    }
}
