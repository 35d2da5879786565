//! Witnesses: an input on which a surviving mutant's outcome differs from the original's proves
//! the survivor is a real, non-equivalent gap. The explored archive's inputs are tried first (the
//! strongest boundaries first); survivors without a witness there get a bounded differential
//! search around those inputs with the explorer's operators. A survivor with no witness is
//! "possibly equivalent" and never reported as a finding.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::archive::Pair;
use crate::exec::{Evaluate, ExecError};
use crate::inputs;
use crate::report::Witness;
use crate::value::{Args, Outcome, Ty, Value};

/// Whether the original's outcome `original` and a mutant's `mutant` prove them different. A
/// timeout on either side never does: whether a call finishes in time depends on the machine
/// and its load, and a witness must hold on every run.
pub fn tells_apart(original: &Outcome, mutant: &Outcome) -> bool {
    original != mutant && *original != Outcome::Timeout && *mutant != Outcome::Timeout
}

/// The distinct inputs of the archive's `elites` with their original outcomes, strongest
/// boundaries first: the inputs tried first as witnesses. Inputs on which the original timed
/// out are left out: they cannot be witnesses (see [`tells_apart`]) and are the slowest to run.
pub fn known_inputs(elites: &[Pair]) -> Vec<(Args, Outcome)> {
    let mut seen = std::collections::HashSet::new();
    let mut known = Vec::new();
    for p in elites {
        for k in 0..2 {
            if p.outcomes[k] != Outcome::Timeout && seen.insert(format!("{:?}", p.inputs[k])) {
                known.push((p.inputs[k].clone(), p.outcomes[k].clone()));
            }
        }
    }
    known
}

/// Pinning: the indices of the `elites` with a positive PD that a survivor moves, i.e. whose
/// inputs give another outcome on it (`outs`, its outcomes on `known`) than on the original.
pub fn moved_boundaries(
    elites: &[Pair],
    known: &[(Args, Outcome)],
    outs: &[Outcome],
) -> Vec<usize> {
    elites
        .iter()
        .enumerate()
        .filter(|(_, p)| p.pd > 0.0)
        .filter(|(_, p)| {
            (0..2).any(|k| {
                known
                    .iter()
                    .position(|(a, _)| *a == p.inputs[k])
                    .is_some_and(|i| tells_apart(&known[i].1, &outs[i]))
            })
        })
        .map(|(ci, _)| ci)
        .collect()
}

/// The longest a survivor's witness may be looked for (archive inputs and search together):
/// a function can be slow on some inputs, and the run must end inside its budget.
pub const SEARCH_CAP: Duration = Duration::from_secs(10);

/// When the witness search of one survivor that starts now must end: [`SEARCH_CAP`] from now,
/// or the run's `deadline` if that comes first.
pub fn search_until(deadline: Option<Instant>) -> Instant {
    let cap = Instant::now() + SEARCH_CAP;
    deadline.map_or(cap, |d| d.min(cap))
}

/// Inputs evaluated between two looks at the clock.
const CHUNK: usize = 32;

fn past(until: Option<Instant>) -> bool {
    until.is_some_and(|u| Instant::now() >= u)
}

/// Runs `inputs` (with their known original outcomes) on the mutant, until `until` at the
/// latest. Returns the first input whose outcome differs, and the mutant's outcome on every
/// input (for pinning; `timeout` for those left unrun when time ran out).
pub fn from_inputs(
    known: &[(Args, Outcome)],
    mutant: &mut dyn Evaluate,
    until: Option<Instant>,
) -> Result<(Option<Witness>, Vec<Outcome>), ExecError> {
    let mut outs = Vec::with_capacity(known.len());
    for chunk in known.chunks(CHUNK) {
        if past(until) {
            break;
        }
        let batch: Vec<Args> = chunk.iter().map(|(a, _)| a.clone()).collect();
        outs.extend(mutant.evaluate(&batch)?);
    }
    outs.resize(known.len(), Outcome::Timeout);
    let witness =
        known.iter().zip(&outs).find(|((_, o), m)| tells_apart(o, m)).map(|((a, o), m)| Witness {
            input: a.clone(),
            original: o.clone(),
            mutant: m.clone(),
            found_by: "archive".into(),
        });
    Ok((witness, outs))
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
            let m = mutant.evaluate(chunk)?;
            if let Some(i) = (0..chunk.len()).find(|&i| tells_apart(&o[i], &m[i])) {
                return Ok(Some(Witness {
                    input: chunk[i].clone(),
                    original: o[i].clone(),
                    mutant: m[i].clone(),
                    found_by: "search".into(),
                }));
            }
        }
        if pool.len() < 4096 {
            pool.extend(batch.iter().cloned());
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::FnEvaluator;

    fn f(boundary: i128) -> impl FnMut(&Args) -> Outcome {
        move |a: &Args| Outcome::Ok { value: (a[0].as_int().unwrap_or(0) >= boundary).to_string() }
    }

    #[test]
    fn the_first_archive_input_that_differs_is_the_witness() {
        let known: Vec<(Args, Outcome)> = [5, 10, 11]
            .iter()
            .map(|&x| (vec![Value::Int(x)], Outcome::Ok { value: (x >= 10).to_string() }))
            .collect();
        let mut mutant = FnEvaluator(f(11));
        let (w, outs) = from_inputs(&known, &mut mutant, None).unwrap();
        let w = w.unwrap();
        assert_eq!(w.input, vec![Value::Int(10)]);
        assert_eq!(w.original, Outcome::Ok { value: "true".into() });
        assert_eq!(outs.len(), 3);
        let mut same = FnEvaluator(f(10));
        assert!(from_inputs(&known, &mut same, None).unwrap().0.is_none());
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
    fn the_search_and_the_archive_inputs_stop_at_their_deadline() {
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
        let known: Vec<(Args, Outcome)> =
            (0..1000).map(|x| (vec![Value::Int(x)], f(10)(&vec![Value::Int(x)]))).collect();
        let mut slow_mutant = FnEvaluator(|a: &Args| {
            std::thread::sleep(Duration::from_millis(1));
            f(999)(a)
        });
        let until = Some(Instant::now() + Duration::from_millis(50));
        let (w, outs) = from_inputs(&known, &mut slow_mutant, until).unwrap();
        assert_eq!(outs.len(), 1000);
        assert_eq!(outs[999], Outcome::Timeout, "inputs left unrun count as timeouts");
        assert_eq!(w.unwrap().input, vec![Value::Int(10)], "found among the inputs it ran");
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
