//! The witness search of one survivor, the same for every front end: the archive's inputs
//! first, then the directed search on the mutant's probes (from the archive's closest inputs
//! and the function's constants), then the random differential search as before (whose
//! closest inputs start a second directed search). It returns the witness, the survivor's
//! outcomes on the archive's inputs (for pinning), and when there is no witness, why.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::archive;
use super::directed::Directed;
use super::random::Random;
use super::seeds::{self, Hints};
use super::tracker::Tracker;
use crate::exec::probe::Outcomes;
use crate::exec::{Evaluate, ExecError, ProbeEvaluate};
use crate::report::Unwitnessed;
use crate::report::Witness;
use crate::value::{Args, Outcome, Ty};

/// The environment variable that switches the directed search (and the probes it needs) off:
/// `ABEX_WITNESS_SEARCH=random` leaves the archive's inputs and the random search, as before
/// probes existed. For tests and measurements; not a user setting.
pub const SEARCH_ENV: &str = "ABEX_WITNESS_SEARCH";

/// Whether the directed search (and probes in the builds it needs them in) is on.
pub fn directed_enabled() -> bool {
    std::env::var(SEARCH_ENV).map_or(true, |v| v.trim() != "random")
}

/// Mutant calls of the directed search per survivor, before the random search.
const DIRECTED_CALLS: usize = 2000;

/// Mutant calls of the directed search per survivor, after the random search.
const DIRECTED_AGAIN: usize = 1000;

/// How many of the closest inputs start the directed search.
const STARTS: usize = 6;

/// What the search of one survivor starts from.
#[derive(Clone, Copy)]
pub struct Survivor<'a> {
    /// The function's parameter types (no search without them).
    pub params: &'a [Ty],
    /// The archive's inputs with the original's outcomes (see [`super::known_inputs`]).
    pub known: &'a [(Args, Outcome)],
    /// Constants of the function's source (see [`Hints::for_mutant`]).
    pub hints: &'a Hints,
}

/// How far the search may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Inputs tried by the random differential search.
    pub evals: usize,
    /// The random seed (one per function, see [`super::search_seed`]).
    pub seed: u64,
    /// When the search must end (see [`super::search_until`]).
    pub until: Option<Instant>,
}

/// What the search of one survivor found.
#[derive(Clone, Debug)]
pub struct Found {
    /// The witness, if one was found.
    pub witness: Option<Witness>,
    /// The survivor's outcome on each archive input (`timeout` for those left unrun).
    pub outcomes: Vec<Outcome>,
    /// Why there is no witness, when there is none.
    pub unwitnessed: Option<Unwitnessed>,
    /// How long the search took.
    pub time: Duration,
}

/// Looks for a witness of one survivor: `mutant` is its executor (with probes when its worker
/// runs in probe mode), `original` the original's (a [`super::Remembered`] shared by the
/// function's survivors). A timeout never makes a witness ([`super::tells_apart`]).
pub fn find(
    s: &Survivor<'_>,
    original: &mut dyn Evaluate,
    mutant: &mut dyn ProbeEvaluate,
    limits: &Limits,
) -> Result<Found, ExecError> {
    let started = Instant::now();
    let mut tracker = Tracker::default();
    let directed = directed_enabled();
    // A witness among the archive's inputs ends the search when neither side panics (or
    // there is no directed search to look for a better one).
    let ends = |w: &Option<Witness>| {
        w.as_ref().is_some_and(|w| {
            (archive::calm(&w.original) && archive::calm(&w.mutant))
                || !directed
                || s.params.is_empty()
        })
    };
    // A worker whose probes cost much runs the archive's inputs without them first; only when
    // that found no witness that ends the search are they run again with probes, for the
    // search that follows (the same outcomes: the tracker needs the probes).
    let mut unprobed = None;
    if mutant.probes_cost() {
        let found = archive::from_inputs(s.known, &mut Outcomes(&mut *mutant), limits.until)?;
        unprobed = Some(found).filter(|(w, _)| ends(w));
    }
    let (witness, outcomes) = match unprobed {
        Some(found) => found,
        None => {
            let (witness, answers) = archive::probed(s.known, mutant, limits.until)?;
            for ((a, _), (_, p)) in s.known.iter().zip(&answers) {
                tracker.see(a, p.as_ref());
            }
            (witness, answers.into_iter().map(|(o, _)| o).collect::<Vec<Outcome>>())
        }
    };
    let done = |witness: Option<Witness>, tracker: &Tracker| Found {
        unwitnessed: witness.is_none().then(|| match tracker.unwitnessed() {
            Unwitnessed::NoProbe { .. } if !directed && tracker.probed == 0 => {
                Unwitnessed::NoProbe {
                    why: format!("probes are off ({}=random)", super::SEARCH_ENV),
                }
            }
            why => why,
        }),
        witness,
        outcomes: outcomes.clone(),
        time: started.elapsed(),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(limits.seed);
    if ends(&witness) {
        return Ok(done(witness, &tracker));
    }
    if witness.is_some() {
        // A panic on either side (an overflow far from the boundary, say): the directed search
        // may find a witness whose suggested test asserts a value; else the archive's stands.
        let better = first_directed(s, original, mutant, &mut tracker, limits, &mut rng)?
            .filter(|w| archive::calm(&w.original) && archive::calm(&w.mutant));
        return Ok(done(better.or(witness), &tracker));
    }
    if s.params.is_empty() {
        // One input only (the empty argument list): the archive has no pair of it.
        let w = if s.known.is_empty() { only_input(original, mutant, &mut tracker)? } else { None };
        return Ok(done(w, &tracker));
    }
    if directed {
        let w = first_directed(s, original, mutant, &mut tracker, limits, &mut rng)?;
        if w.is_some() {
            return Ok(done(w, &tracker));
        }
    }
    let closest = tracker.closest();
    let seeds: Vec<Args> = s.known.iter().map(|(a, _)| a.clone()).collect();
    let random = Random {
        params: s.params,
        seeds: &seeds,
        evals: limits.evals,
        seed: limits.seed,
        until: limits.until,
    };
    let w = random.run(original, mutant, &mut tracker)?;
    if w.is_some() || !directed || tracker.probed == 0 || tracker.closest() >= closest {
        return Ok(done(w, &tracker));
    }
    // The random search came closer: start again from there.
    let starts: Vec<Args> = tracker.best().iter().take(STARTS).map(|(_, a)| a.clone()).collect();
    let mut d =
        Directed::new(s.params, original, mutant, &mut tracker, DIRECTED_AGAIN, limits.until)
            .with_constants(s.hints);
    d.run(&starts, &mut rng)?;
    let w = d.witness.take();
    Ok(done(w, &tracker))
}

/// A function without parameters has one input: its witness, if the outcomes differ there.
fn only_input(
    original: &mut dyn Evaluate,
    mutant: &mut dyn ProbeEvaluate,
    tracker: &mut Tracker,
) -> Result<Option<Witness>, ExecError> {
    let none: Args = Vec::new();
    let (m, probe) = mutant.evaluate_probed(std::slice::from_ref(&none))?.remove(0);
    tracker.see(&none, probe.as_ref());
    let o = original.evaluate(std::slice::from_ref(&none))?.remove(0);
    Ok(super::tells_apart(&o, &m).then(|| Witness {
        input: none,
        original: o,
        mutant: m,
        found_by: "search".into(),
        shrunk_from: None,
    }))
}

/// Whether the function accepted its input: it returned a value that is neither an `Err` nor
/// `None` (an error returned, an exception or a panic is a rejection).
fn accepted(o: &Outcome) -> bool {
    matches!(o, Outcome::Ok { value } if !value.starts_with("Err(") && value != "None")
}

/// The first directed search: the constants put into the closest inputs (or the archive's
/// strongest, or a plain input) are run as one batch, then the method starts from the closest inputs seen.
fn first_directed(
    s: &Survivor<'_>,
    original: &mut dyn Evaluate,
    mutant: &mut dyn ProbeEvaluate,
    tracker: &mut Tracker,
    limits: &Limits,
    rng: &mut ChaCha8Rng,
) -> Result<Option<Witness>, ExecError> {
    // The closest inputs so far, once one reached the site. Before that, the archive's inputs
    // the function accepted first: they went furthest through its checks (a date whose month
    // parsed, not one rejected at its first character), where a constant put into one variable
    // (the month) reaches a site that no input of the archive reached.
    let reached = tracker.closest().stage <= 1;
    let best = tracker.best().iter().take(if reached { 2 } else { 1 }).map(|(_, a)| a.clone());
    let mut bases: Vec<Args> = Vec::new();
    if !reached {
        bases.extend(s.known.iter().filter(|(_, o)| accepted(o)).take(2).map(|(a, _)| a.clone()));
    }
    for b in best {
        if !bases.contains(&b) {
            bases.push(b);
        }
    }
    if bases.is_empty() {
        bases.push(seeds::plain(s.params));
    }
    let mut batch = bases.clone();
    for b in &bases {
        batch.extend(seeds::from_constants(s.params, b, s.hints));
        batch.extend(seeds::spellings(s.params, b));
    }
    let mut d = Directed::new(s.params, original, mutant, tracker, DIRECTED_CALLS, limits.until)
        .with_constants(s.hints);
    d.eval(&batch)?;
    if d.witness.is_none() {
        // Without probes there is nothing to climb.
        let (probed, starts) = d.starts(STARTS);
        if probed {
            d.run(&starts, rng)?;
        }
    }
    Ok(d.witness.take())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::probe::{ProbeFnEvaluator, Unprobed};
    use crate::exec::{FnEvaluator, Probe};
    use crate::value::Value;

    /// `s.chars().count() > 64` against the mutant's `>= 64`, probed like a worker does.
    fn limit(mutant: bool) -> impl FnMut(&Args) -> (Outcome, Option<Probe>) {
        move |a: &Args| {
            let Value::Str(s) = &a[0] else { unreachable!() };
            let n = s.chars().count() as i128;
            let (orig, mutd) = (n > 64, n >= 64);
            let probe = Probe {
                reached: 1,
                infected: Some(u32::from(orig != mutd)),
                distance: Some((n - 64).abs() as f64),
                ..Probe::default()
            };
            let v = if mutant { mutd } else { orig };
            (Outcome::Ok { value: v.to_string() }, Some(probe))
        }
    }

    fn known(xs: &[&str]) -> Vec<(Args, Outcome)> {
        xs.iter()
            .map(|x| {
                let a = vec![Value::Str(x.to_string())];
                let o = limit(false)(&a).0;
                (a, o)
            })
            .collect()
    }

    #[test]
    fn a_length_limit_is_witnessed_by_the_directed_search_and_not_by_luck() {
        let params = [Ty::Str];
        let known = known(&["", "abc", &"x".repeat(200)]);
        let hints = Hints::default();
        let s = Survivor { params: &params, known: &known, hints: &hints };
        let limits = Limits { evals: 300, seed: 5, until: None };
        let mut original = FnEvaluator(|a: &Args| limit(false)(a).0);
        let mut mutant = ProbeFnEvaluator(limit(true));
        let found = find(&s, &mut original, &mut mutant, &limits).unwrap();
        let w = found.witness.expect("a witness");
        assert_eq!(w.found_by, "directed");
        assert_eq!(w.input[0].to_json().len(), 66, "64 characters and two quotes");
        assert_eq!(found.outcomes.len(), 3);
        assert!(found.unwitnessed.is_none());
        // Without probes, 300 random tries do not find the exact length.
        let mut plain = FnEvaluator(|a: &Args| limit(true)(a).0);
        let found = find(&s, &mut original, &mut Unprobed(&mut plain), &limits).unwrap();
        assert!(found.witness.is_none());
        assert!(matches!(found.unwitnessed, Some(Unwitnessed::NoProbe { .. })));
    }

    /// A mutant's executor whose probes cost much (the Python worker's), counting the inputs it
    /// ran with and without them.
    struct Costly<E> {
        inner: E,
        probed: usize,
        unprobed: usize,
    }

    impl<E: ProbeEvaluate> ProbeEvaluate for Costly<E> {
        fn evaluate_probed(
            &mut self,
            batch: &[Args],
        ) -> Result<crate::exec::probe::Answers, ExecError> {
            self.probed += batch.len();
            self.inner.evaluate_probed(batch)
        }

        fn evaluate_outcomes(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
            self.unprobed += batch.len();
            Ok(self.inner.evaluate_probed(batch)?.into_iter().map(|(o, _)| o).collect())
        }

        fn probes_cost(&self) -> bool {
            true
        }
    }

    #[test]
    fn where_probes_cost_much_an_archive_witness_is_found_without_them_and_the_rest_as_before() {
        let params = [Ty::Str];
        let hints = Hints::default();
        let limits = Limits { evals: 300, seed: 5, until: None };
        let search = |known: &[(Args, Outcome)], costly: bool| {
            let s = Survivor { params: &params, known, hints: &hints };
            let mut original = FnEvaluator(|a: &Args| limit(false)(a).0);
            let mut mutant =
                Costly { inner: ProbeFnEvaluator(limit(true)), probed: 0, unprobed: 0 };
            let found = if costly {
                find(&s, &mut original, &mut mutant, &limits).unwrap()
            } else {
                find(&s, &mut original, &mut mutant.inner, &limits).unwrap()
            };
            (
                found.witness.map(|w| (w.input, w.found_by)),
                found.outcomes,
                mutant.probed,
                mutant.unprobed,
            )
        };
        // The archive holds a witness (64 characters): no input runs with its probe.
        let witnessed = known(&["", &"x".repeat(64), "abc"]);
        let (w, outcomes, probed, unprobed) = search(&witnessed, true);
        assert_eq!((probed, unprobed), (0, 3));
        let (plain_w, plain_outcomes, ..) = search(&witnessed, false);
        assert_eq!((&w, &outcomes), (&plain_w, &plain_outcomes));
        assert_eq!(w.expect("a witness").1, "archive");
        // It holds none: the archive runs again with probes, and the directed search finds
        // the same witness as where probes cost nothing.
        let unwitnessed = known(&["", "abc", &"x".repeat(200)]);
        let (w, outcomes, probed, unprobed) = search(&unwitnessed, true);
        assert_eq!(unprobed, 3);
        assert!(probed > 3, "the archive's inputs and the directed search's, with probes");
        let (plain_w, plain_outcomes, ..) = search(&unwitnessed, false);
        assert_eq!((&w, &outcomes), (&plain_w, &plain_outcomes));
        assert_eq!(w.expect("a witness").1, "directed");
    }

    #[test]
    fn an_equivalent_mutant_is_never_a_gap_and_says_it_is_masked() {
        let params = [Ty::int(8, false)];
        let cap = |a: &Args| Outcome::Ok { value: a[0].as_int().unwrap().min(10).to_string() };
        let known: Vec<(Args, Outcome)> =
            [3, 200].iter().map(|&x| (vec![Value::Int(x)], cap(&vec![Value::Int(x)]))).collect();
        let hints = Hints { ints: vec![10, 20], ..Hints::default() };
        let s = Survivor { params: &params, known: &known, hints: &hints };
        let limits = Limits { evals: 500, seed: 1, until: None };
        let mut original = FnEvaluator(cap);
        let probe = || Some(Probe { reached: 1, infected: Some(1), ..Probe::default() });
        let mut mutant = ProbeFnEvaluator(|a: &Args| (cap(a), probe()));
        let found = find(&s, &mut original, &mut mutant, &limits).unwrap();
        assert!(found.witness.is_none());
        assert!(matches!(found.unwitnessed, Some(Unwitnessed::Masked { .. })));
    }

    #[test]
    fn a_function_without_parameters_is_tried_on_its_only_input() {
        let s = Survivor { params: &[], known: &[], hints: &Hints::default() };
        let limits = Limits { evals: 10, seed: 1, until: None };
        let mut original = FnEvaluator(|_: &Args| Outcome::Ok { value: "(18, 24)".into() });
        let mut mutant = FnEvaluator(|_: &Args| Outcome::Ok { value: "(16, 26)".into() });
        let found = find(&s, &mut original, &mut Unprobed(&mut mutant), &limits).unwrap();
        assert_eq!(found.witness.unwrap().input, Vec::<Value>::new());
    }

    #[test]
    fn the_search_is_deterministic_for_its_seed() {
        let params = [Ty::Str];
        let known = known(&["ab"]);
        let hints = Hints::default();
        let s = Survivor { params: &params, known: &known, hints: &hints };
        let limits = Limits { evals: 100, seed: 9, until: None };
        let run = || {
            let mut original = FnEvaluator(|a: &Args| limit(false)(a).0);
            let mut mutant = ProbeFnEvaluator(limit(true));
            find(&s, &mut original, &mut mutant, &limits).unwrap().witness.unwrap().input
        };
        assert_eq!(run(), run());
    }
}
