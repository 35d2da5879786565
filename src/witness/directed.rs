//! The directed witness search (Korel's alternating variable method on the mutant's probes,
//! `inputs::avm`): from each start, one variable at a time, exploratory moves (±1; for floats,
//! finer steps when ±1 fails) and, in the direction that improved, accelerating pattern moves
//! (doubling steps, tried as one batch), minimising the [`Fitness`] (approach level and branch
//! distance until the site runs, then the distance to infection). Every infected input is run
//! on the original too (propagation); when the site is infected but the outcome stays the same
//! (masked), the search keeps walking the infected region around that input before it restarts
//! elsewhere.
//!
//! The search is deterministic for its random seed (restarts only use it), until a witness,
//! its budget of calls or the clock ends it.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::archive::{past, tells_apart, CHUNK};
use super::further;
use super::tracker::{key, Tracker};
use crate::exec::{Evaluate, ExecError, Fitness, ProbeEvaluate};
use crate::inputs::avm::{self, Objective};
use crate::inputs::moves;
use crate::report::Witness;
use crate::value::{Args, Ty};

/// Calls spent walking around one masked (infected, unchanged) input.
const AROUND: usize = 200;

/// Constants tried in the variables of one masked input, before the walk around it.
const AROUND_CONSTANTS: usize = 64;

/// Constants tried again in each input of the walk around a masked input.
const AROUND_AGAIN: usize = 16;

/// Random restarts after the given starts are used up.
const RESTARTS: usize = 8;

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
    /// The values compared where an input went the wrong way: the first missed guard's
    /// operands, or the site's when it ran uninfected (the method steers by them).
    compared: HashMap<String, Vec<[String; 2]>>,
    /// Inputs to try first around a masked input, made from it by [`Directed::around`]'s
    /// caller-given constants (see [`Directed::with_constants`]).
    constants: Option<&'a super::seeds::Hints>,
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
            compared: HashMap::new(),
            constants: None,
            witness: None,
        }
    }

    /// The same search, which also puts the function's constants (the mutated one and its
    /// neighbours first) into each variable of every masked input it walks around: a site
    /// infected on every call of a region (a month's length in a `match`) often shows only at
    /// one constant (the 32nd day), which no walk of ±1 steps reaches within its calls.
    pub(super) fn with_constants(mut self, hints: &'a super::seeds::Hints) -> Self {
        self.constants = Some(hints);
        self
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
                if let Some(pairs) = probe.as_ref().map(|p| compared(p, f)) {
                    if !pairs.is_empty() {
                        self.compared.insert(key(a), pairs);
                    }
                }
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
                        shrunk_from: None,
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
            let (x, fx) = avm::avm(self.params, self, start)?;
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

    /// Walks the infected region around the masked input `x`: first the function's constants
    /// put into its variables and each of its numbers made equal to another (the comparisons
    /// past the site often read two fields: `ver.minor != minor`), then single moves and random
    /// neighbours, expanding from every infected one, within [`AROUND`] calls.
    fn around(&mut self, x: Args, rng: &mut ChaCha8Rng) -> Result<(), ExecError> {
        let mut tries = Vec::new();
        if let Some(hints) = self.constants {
            tries = super::seeds::from_constants(self.params, &x, hints);
            tries.truncate(AROUND_CONSTANTS);
        }
        let vars = moves::vars(self.params, &x);
        tries.extend(crate::inputs::steer::equalised(&x, &vars));
        // A loop's later passes: masked on the first pass is often infected for nothing there.
        tries.extend(further::further(self.params, &x));
        tries.extend(further::spliced(self.params, &x));
        let fs = self.eval(&tries)?;
        let stop = self.budget.saturating_sub(AROUND);
        // The infected ones among them are walked first (the last pushed is expanded first).
        let mut frontier = vec![x];
        frontier
            .extend(tries.into_iter().zip(fs).filter(|(_, f)| f.infected()).map(|(a, _)| a).rev());
        let mut expanded = HashSet::new();
        while let Some(x) = frontier.pop() {
            if self.done() || self.budget <= stop {
                break;
            }
            if !expanded.insert(key(&x)) {
                continue;
            }
            // A few of the constants again in each input walked: a masked input often lacks a
            // constant in one place after a number made equal in another.
            let mut tries = match self.constants {
                Some(hints) => {
                    let mut c = super::seeds::from_constants(self.params, &x, hints);
                    c.truncate(AROUND_AGAIN);
                    c
                }
                None => Vec::new(),
            };
            for var in moves::vars(self.params, &x) {
                for d in [1.0, -1.0, 2.0, -2.0] {
                    tries.extend(moves::moved(&x, &var, d));
                }
            }
            for _ in 0..8 {
                tries.extend(crate::inputs::args_neighbour(self.params, &x, rng));
            }
            tries.extend(further::further(self.params, &x));
            let fs = self.eval(&tries)?;
            frontier
                .extend(tries.into_iter().zip(fs).filter(|(_, f)| f.infected()).map(|(a, _)| a));
        }
        Ok(())
    }
}

/// The method minimises the fitness of the mutant's calls, until a witness or the budget.
impl Objective for Directed<'_> {
    type Key = Fitness;
    type Error = ExecError;
    fn eval(&mut self, batch: &[Args]) -> Result<Vec<Fitness>, ExecError> {
        Directed::eval(self, batch)
    }
    fn done(&self) -> bool {
        Directed::done(self)
    }
    fn goal(&self, key: &Fitness) -> bool {
        key.infected()
    }
    fn compared(&self, x: &Args) -> Vec<[String; 2]> {
        self.compared.get(&key(x)).cloned().unwrap_or_default()
    }
}

/// The values `p` (of fitness `f`) compared where its call went the wrong way: the site's
/// operands when it ran uninfected, otherwise those of the first guard it missed.
fn compared(p: &crate::exec::Probe, f: Fitness) -> Vec<[String; 2]> {
    match f.stage {
        0 => Vec::new(),
        1 => p.operands.iter().cloned().collect(),
        _ => p.guards.iter().find(|g| !g.satisfied).map(|g| g.operands.clone()).unwrap_or_default(),
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
                    GuardProbe {
                        satisfied: g1 == 0,
                        distance: Some(g1 as f64),
                        ..GuardProbe::default()
                    },
                    GuardProbe {
                        satisfied: g1 == 0 && g2 == 0,
                        distance: (g1 == 0).then_some(g2 as f64),
                        ..GuardProbe::default()
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

    /// A month's length in a `match` arm, mutated from 31 to 32: the arm's constant differs on
    /// every call with month 1 (infected), and only day 32 shows it.
    fn month_length(mutant: bool) -> impl FnMut(&Args) -> (Outcome, Option<Probe>) {
        move |a: &Args| {
            let (m, d) = (a[0].as_int().unwrap(), a[1].as_int().unwrap());
            let days = if m == 1 {
                if mutant {
                    32
                } else {
                    31
                }
            } else {
                30
            };
            let probe = Probe {
                reached: u32::from(m == 1),
                infected: Some(u32::from(m == 1)),
                ..Probe::default()
            };
            let value = if d >= 1 && d <= days { "Ok" } else { "Err" };
            (Outcome::Ok { value: value.into() }, Some(probe))
        }
    }

    #[test]
    fn the_constants_are_tried_around_a_masked_input() {
        // From 1 January 1900-like inputs with a large day, walks of ±1 from day 9_000 never
        // reach 32 within the calls; the mutated constant put into the day does at once.
        let params = [Ty::int(8, false), Ty::int(16, false)];
        let hints = super::super::seeds::Hints { ints: vec![31, 32, 33], ..Default::default() };
        let run = |constants: bool| {
            let mut original = FnEvaluator(|a: &Args| month_length(false)(a).0);
            let mut mutant = ProbeFnEvaluator(month_length(true));
            let mut tracker = Tracker::default();
            let mut d = Directed::new(&params, &mut original, &mut mutant, &mut tracker, 300, None);
            if constants {
                d = d.with_constants(&hints);
            }
            let start = vec![Value::Int(1), Value::Int(9_000)];
            d.run(&[start], &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
            (d.witness.take(), 300 - d.budget)
        };
        let (w, calls) = run(true);
        assert_eq!(
            w.expect("a witness on the 32nd day").input,
            vec![Value::Int(1), Value::Int(32)]
        );
        // Without them, only the walk from the day made equal to the month (1) gets there, 31
        // days later.
        let (_, walked) = run(false);
        assert!(calls * 2 < walked, "{calls} calls with the constants, {walked} without");
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
            crate::report::Unwitnessed::Masked { infected_inputs } if infected_inputs > 10
        ));
    }
}
