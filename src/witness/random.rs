//! The random differential search: neighbours of the archive's inputs (and of the inputs
//! tried so far) and fresh random inputs, run on the original and the mutant until their
//! outcomes differ. It is the last resort of a survivor's witness search, after the archive's
//! inputs and the directed search, and feeds what it learns from probes back to the latter.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::archive::{past, tells_apart, CHUNK};
use super::tracker::Tracker;
use crate::exec::probe::Unprobed;
use crate::exec::{Evaluate, ExecError, ProbeEvaluate};
use crate::inputs;
use crate::report::Witness;
use crate::value::{Args, Outcome, Ty, Value};

/// The longest a survivor's witness may be looked for (archive inputs and search together):
/// a function can be slow on some inputs, and the run must end inside its budget.
pub const SEARCH_CAP: Duration = Duration::from_secs(10);

/// When the witness search of one survivor that starts now must end: [`SEARCH_CAP`] from now,
/// or the run's `deadline` if that comes first.
pub fn search_until(deadline: Option<Instant>) -> Instant {
    let cap = Instant::now() + SEARCH_CAP;
    deadline.map_or(cap, |d| d.min(cap))
}

/// The seed of the differential searches of `function`'s survivors in a run seeded `seed`: one
/// per function, so that its searches try the same inputs (see [`Remembered`]).
pub fn search_seed(seed: u64, function: &str) -> u64 {
    seed ^ crate::cache::key(&[function.as_bytes()])
        .bytes()
        .fold(0u64, |h, b| h.rotate_left(5) ^ u64::from(b))
}

/// The original's side of the differential searches of one function: it remembers the
/// original's outcome of every input it ran, so that the searches for several survivors (which
/// try the same inputs in the same order while none of them finds a witness, given the same
/// seed) run the original once.
pub struct Remembered<'a> {
    inner: &'a mut dyn Evaluate,
    known: std::collections::HashMap<String, Outcome>,
}

impl<'a> Remembered<'a> {
    /// Remembers what `inner` answers.
    pub fn new(inner: &'a mut dyn Evaluate) -> Self {
        Remembered { inner, known: std::collections::HashMap::new() }
    }
}

impl Remembered<'_> {
    /// Runs `args` again on the original, whatever it answered before: a witness is checked on
    /// a fresh call, not on the remembered outcome.
    pub fn again(&mut self, args: &Args) -> Result<Outcome, ExecError> {
        let outs = self.inner.evaluate(std::slice::from_ref(args))?;
        Ok(outs.into_iter().next().unwrap_or(Outcome::Timeout))
    }
}

impl Evaluate for Remembered<'_> {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        let keys: Vec<String> = batch.iter().map(|a| Value::List(a.clone()).to_json()).collect();
        let fresh: Vec<usize> =
            (0..batch.len()).filter(|&i| !self.known.contains_key(&keys[i])).collect();
        if !fresh.is_empty() {
            let args: Vec<Args> = fresh.iter().map(|&i| batch[i].clone()).collect();
            let outs = self.inner.evaluate(&args)?;
            for (&i, o) in fresh.iter().zip(outs) {
                self.known.insert(keys[i].clone(), o);
            }
        }
        Ok(keys.iter().map(|k| self.known[k].clone()).collect())
    }
}

/// Looks for an input where `original` and `mutant` differ: neighbours of `seeds` and fresh
/// random inputs, at most `evals` inputs, deterministic for `seed`, until `until` at the latest
/// (the clock is read every few inputs, so a slow function cannot overrun it by much). The
/// inputs tried depend on `seed` and `seeds` only (until a witness or the clock ends the
/// search), so that the searches of one function's survivors share the original's outcomes
/// through [`Remembered`].
pub fn differential(
    params: &[Ty],
    seeds: &[Args],
    original: &mut dyn Evaluate,
    mutant: &mut dyn Evaluate,
    evals: usize,
    seed: u64,
    until: Option<Instant>,
) -> Result<Option<Witness>, ExecError> {
    let search = Random { params, seeds, evals, seed, until };
    search.run(original, &mut Unprobed(mutant), &mut Tracker::default())
}

/// One random differential search (see [`differential`]).
pub(super) struct Random<'a> {
    /// The parameter types.
    pub params: &'a [Ty],
    /// The inputs it starts from.
    pub seeds: &'a [Args],
    /// How many inputs it tries at most.
    pub evals: usize,
    /// Its random seed.
    pub seed: u64,
    /// When it must end.
    pub until: Option<Instant>,
}

impl Random<'_> {
    /// Runs the search; every probe of the mutant goes to `tracker`.
    pub(super) fn run(
        &self,
        original: &mut dyn Evaluate,
        mutant: &mut dyn ProbeEvaluate,
        tracker: &mut Tracker,
    ) -> Result<Option<Witness>, ExecError> {
        let (params, seeds, evals, seed, until) =
            (self.params, self.seeds, self.evals, self.seed, self.until);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut seen = std::collections::HashSet::new();
        // Walk outward: neighbours of the seeds and of the inputs tried so far.
        let mut pool: Vec<Args> = seeds.to_vec();
        let mut done = 0;
        while done < evals {
            let n = (evals - done).min(256);
            let mut batch = Vec::with_capacity(n);
            let mut tries = 0;
            while batch.len() < n && tries < n * 4 {
                tries += 1;
                let candidate = if !pool.is_empty() && rand::Rng::random_bool(&mut rng, 0.7) {
                    let base = &pool[rand::Rng::random_range(&mut rng, 0..pool.len())];
                    inputs::args_neighbour(params, base, &mut rng)
                } else {
                    Some(inputs::random_args(params, &mut rng))
                };
                if let Some(c) = candidate {
                    if seen.insert(Value::List(c.clone()).to_json()) {
                        batch.push(c);
                    }
                }
            }
            if batch.is_empty() {
                break;
            }
            done += batch.len();
            for chunk in batch.chunks(CHUNK) {
                if past(until) {
                    return Ok(None);
                }
                let o = original.evaluate(chunk)?;
                let m = mutant.evaluate_probed(chunk)?;
                for (a, (_, p)) in chunk.iter().zip(&m) {
                    tracker.see(a, p.as_ref());
                }
                if let Some(i) = (0..chunk.len()).find(|&i| tells_apart(&o[i], &m[i].0)) {
                    return Ok(Some(Witness {
                        input: chunk[i].clone(),
                        original: o[i].clone(),
                        mutant: m[i].0.clone(),
                        found_by: "search".into(),
                        shrunk_from: None,
                    }));
                }
            }
            if pool.len() < 4096 {
                pool.extend(batch.iter().cloned());
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::FnEvaluator;
    use crate::witness::archive::from_inputs;

    fn f(boundary: i128) -> impl FnMut(&Args) -> Outcome {
        move |a: &Args| Outcome::Ok { value: (a[0].as_int().unwrap_or(0) >= boundary).to_string() }
    }

    #[test]
    fn a_timeout_on_either_side_is_never_a_witness() {
        let slow_above = |limit: i128| {
            move |a: &Args| {
                let x = a[0].as_int().unwrap_or(0);
                if x > limit {
                    Outcome::Timeout
                } else {
                    Outcome::Ok { value: (x >= 10).to_string() }
                }
            }
        };
        let known: Vec<(Args, Outcome)> = [5, 1000]
            .iter()
            .map(|&x| (vec![Value::Int(x)], slow_above(100)(&vec![Value::Int(x)])))
            .collect();
        // The mutant answers where the original timed out, and times out where it answered.
        let mut mutant =
            FnEvaluator(
                |a: &Args| {
                    if a[0].as_int() == Some(5) {
                        Outcome::Timeout
                    } else {
                        f(10)(a)
                    }
                },
            );
        assert!(from_inputs(&known, &mut mutant, None).unwrap().0.is_none());
        let params = [Ty::int(32, true)];
        let mut o = FnEvaluator(slow_above(100));
        let mut m = FnEvaluator(slow_above(1_000_000));
        assert!(differential(&params, &[vec![Value::Int(50)]], &mut o, &mut m, 2000, 3, None)
            .unwrap()
            .is_none());
        // Where both answer, a different answer still is a witness.
        let mut m = FnEvaluator(f(11));
        let w =
            differential(&params, &[vec![Value::Int(50)]], &mut o, &mut m, 2000, 3, None).unwrap();
        assert_eq!(w.unwrap().input, vec![Value::Int(10)]);
    }

    #[test]
    fn the_search_stops_at_its_deadline() {
        let params = [Ty::int(32, true)];
        let calls = std::cell::Cell::new(0usize);
        let slow = |a: &Args| {
            calls.set(calls.get() + 1);
            std::thread::sleep(Duration::from_millis(1));
            f(10)(a)
        };
        let (mut o, mut m) = (FnEvaluator(slow), FnEvaluator(f(10)));
        let until = Some(Instant::now() + Duration::from_millis(100));
        let started = Instant::now();
        let w = differential(&params, &[vec![Value::Int(0)]], &mut o, &mut m, 100_000, 1, until);
        assert!(w.unwrap().is_none());
        assert!(
            started.elapsed() < Duration::from_millis(100 + 32 * 10),
            "{:?}",
            started.elapsed()
        );
        assert!(calls.get() < 200, "{} inputs run after the deadline", calls.get());
    }

    #[test]
    fn the_searches_of_one_function_run_the_original_once() {
        let params = [Ty::int(32, true)];
        let seeds = vec![vec![Value::Int(0)]];
        let calls = std::cell::Cell::new(0usize);
        let mut counted = FnEvaluator(|a: &Args| {
            calls.set(calls.get() + 1);
            f(10)(a)
        });
        let mut original = Remembered::new(&mut counted);
        let mut same = FnEvaluator(f(10));
        assert!(differential(&params, &seeds, &mut original, &mut same, 500, 7, None)
            .unwrap()
            .is_none());
        let first = calls.get();
        assert_eq!(first, 500);
        let mut also_same = FnEvaluator(f(10));
        assert!(differential(&params, &seeds, &mut original, &mut also_same, 500, 7, None)
            .unwrap()
            .is_none());
        assert_eq!(calls.get(), first, "the second search ran the original again");
        let mut other = FnEvaluator(f(3));
        let w = differential(&params, &seeds, &mut original, &mut other, 500, 7, None)
            .unwrap()
            .unwrap();
        assert_eq!(calls.get(), first);
        assert_ne!(w.original, w.mutant);
    }

    #[test]
    fn the_differential_search_finds_a_gap_near_the_seeds_and_none_for_an_equivalent_mutant() {
        let params = [Ty::int(32, true)];
        let seeds = vec![vec![Value::Int(97)]];
        let (mut o, mut m) = (FnEvaluator(f(100)), FnEvaluator(f(101)));
        let w = differential(&params, &seeds, &mut o, &mut m, 2000, 1, None).unwrap().unwrap();
        assert_eq!(w.input, vec![Value::Int(100)]);
        let (mut o, mut m) = (FnEvaluator(f(100)), FnEvaluator(f(100)));
        assert!(differential(&params, &seeds, &mut o, &mut m, 500, 1, None).unwrap().is_none());
    }
}
