//! The witness searches of a unit's survivors: each target's search plan (owned, shared by
//! threads), the threads that search the survivors fed to them while the unit's thread tests
//! and concludes (`Searchers`), and one survivor's search (the archive's inputs, the directed
//! and random searches, then shrinking and a steadiness check).

use std::collections::{BTreeMap, BTreeSet};

use super::error::RunError;
use super::front::Lab;
use crate::report::{Unwitnessed, Witness};
use crate::value::{stringify_input, Outcome};
use crate::witness;

/// What the witness search of one target needs, owned (threads share it): the function
/// called, its parameters, its explored inputs, each survivor's hints (in the order of
/// `numbers`), the search's seed and budget, and the run's deadline.
pub(super) struct Plan {
    pub(super) d: usize,
    pub(super) params: Vec<crate::value::Ty>,
    pub(super) known: Vec<(crate::value::Args, Outcome)>,
    pub(super) hints: Vec<witness::Hints>,
    pub(super) seed: u64,
    pub(super) evals: usize,
    pub(super) deadline: Option<std::time::Instant>,
    /// The survivors it searches (or, planned before the tests, every mutant that may
    /// survive), by number.
    pub(super) numbers: Vec<u32>,
}

impl Plan {
    /// The search of this plan's survivors.
    pub(super) fn search(&self) -> Search<'_> {
        Search {
            params: &self.params,
            known: &self.known,
            hints: &self.hints,
            evals: self.evals,
            seed: self.seed,
            deadline: self.deadline,
        }
    }
}

/// A slot of a thread's or a survivor's evaluator, taken by the thread that needs it.
pub(super) type Slot<T> = std::sync::Mutex<Option<T>>;

/// Per plan: each thread's original, and each of its mutants' evaluator.
pub(super) type Slots = (
    Vec<Slot<Box<dyn crate::exec::Evaluate + Send>>>,
    Vec<Slot<Box<dyn crate::exec::ProbeEvaluate + Send>>>,
);

/// What `slot` holds, taken out (`None` once taken, or when its lock is poisoned).
fn taken_out<T>(slot: &Slot<T>) -> Option<T> {
    slot.lock().ok().and_then(|mut s| s.take())
}

/// The evaluators of every plan that other threads may use ([`Lab::witness_workers`], one
/// original per thread of `jobs`), or `None` when the lab has none for one of them.
pub(super) fn shared_slots(
    lab: &mut dyn Lab,
    plans: &[Plan],
    jobs: usize,
) -> Result<Option<Vec<Slots>>, RunError> {
    let mut slots = Vec::new();
    for plan in plans {
        let Some(w) = lab.witness_workers(plan.d, &plan.numbers, jobs)? else { return Ok(None) };
        slots.push((
            w.originals.into_iter().map(|o| std::sync::Mutex::new(Some(o))).collect(),
            w.mutants.into_iter().map(|m| std::sync::Mutex::new(Some(m))).collect(),
        ));
    }
    Ok(Some(slots))
}

/// Threads that search witnesses beside the thread that tests and concludes: each takes the
/// next survivor fed to it ((plan, index in the plan's numbers)) as soon as it is free, and
/// sends back what the search found. A survivor's search is the same on any thread (see
/// [`searches`]); each thread remembers the original's outcomes of the plan it searches.
pub(super) struct Searchers {
    feed: Option<std::sync::mpsc::Sender<(usize, usize)>>,
    found: std::sync::mpsc::Receiver<(usize, usize, Searched)>,
    fed: BTreeSet<(usize, usize)>,
    got: BTreeMap<(usize, usize), Searched>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Searchers {
    /// Starts `jobs` threads in `scope` over `plans` and their evaluators `slots`.
    pub(super) fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        jobs: usize,
        plans: std::sync::Arc<Vec<Plan>>,
        slots: Vec<Slots>,
    ) -> Searchers {
        let (feed, queue) = std::sync::mpsc::channel::<(usize, usize)>();
        let (tx, found) = std::sync::mpsc::channel();
        let queue = std::sync::Arc::new(std::sync::Mutex::new(queue));
        let slots = std::sync::Arc::new(slots);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        for t in 0..jobs {
            let (tx, queue, plans, slots, stop) =
                (tx.clone(), queue.clone(), plans.clone(), slots.clone(), stop.clone());
            scope.spawn(move || {
                let next = || {
                    let over = stop.load(std::sync::atomic::Ordering::SeqCst)
                        || crate::interrupt::requested().is_some();
                    if over {
                        return None;
                    }
                    let item = queue.lock().ok()?.recv().ok()?;
                    let past =
                        plans[item.0].deadline.is_some_and(|d| std::time::Instant::now() >= d);
                    (!past).then_some(item)
                };
                let mut item = next();
                while let Some((p, _)) = item {
                    let Some(mut original) = slots[p].0.get(t).and_then(taken_out) else { break };
                    let mut original = witness::Remembered::new(original.as_mut());
                    let search = plans[p].search();
                    while let Some((q, k)) = item.filter(|(q, _)| *q == p) {
                        let Some(mut mutant) = slots[q].1.get(k).and_then(taken_out) else {
                            return;
                        };
                        let found = search_one(&search, k, &mut original, mutant.as_mut());
                        // Done with: a mutant's own worker ends here.
                        drop(mutant);
                        if tx.send((q, k, found)).is_err() {
                            return;
                        }
                        item = next();
                    }
                }
            });
        }
        Searchers { feed: Some(feed), found, fed: BTreeSet::new(), got: BTreeMap::new(), stop }
    }

    /// Has survivor `k` of plan `p` searched (once).
    pub(super) fn send(&mut self, p: usize, k: usize) {
        if self.fed.insert((p, k)) {
            if let Some(feed) = &self.feed {
                let _ = feed.send((p, k));
            }
        }
    }

    /// No more survivors: the threads end once they searched those fed.
    pub(super) fn close(&mut self) {
        self.feed = None;
    }

    /// What the search of survivor `k` of plan `p` found, waiting for it; `None` when the
    /// threads ended without it (the deadline, an interruption).
    pub(super) fn result(&mut self, p: usize, k: usize) -> Option<Searched> {
        loop {
            if let Some(r) = self.got.remove(&(p, k)) {
                return Some(r);
            }
            let (q, j, r) = self.found.recv().ok()?;
            self.got.insert((q, j), r);
        }
    }
}

impl Drop for Searchers {
    fn drop(&mut self) {
        // Those fed and not yet searched are left: the threads end at once.
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.feed = None;
    }
}

/// What the witness search of one function's survivors shares: the function's parameters and
/// explored inputs, each survivor's hints, the search's budget and seed, and the run's deadline.
pub(super) struct Search<'s> {
    pub(super) params: &'s [crate::value::Ty],
    pub(super) known: &'s [(crate::value::Args, Outcome)],
    /// Per survivor, in their order.
    pub(super) hints: &'s [witness::Hints],
    pub(super) evals: usize,
    pub(super) seed: u64,
    pub(super) deadline: Option<std::time::Instant>,
}

/// A survivor's search: what it found, and the witness shrunk when it found one that loads.
pub(super) type Searched =
    Result<(witness::Found, Option<witness::Shrunk>), crate::exec::ExecError>;

/// The witness search of each of the `survivors` (numbers) of function `d` (in their order;
/// `None` for those the deadline left unsearched), on up to `jobs` threads where the lab gives evaluators that
/// other threads may use ([`Lab::witness_workers`]), else one after the other. A survivor's
/// search is the same on any thread: its seed is the function's, and each thread remembers the
/// original's outcomes for its own searches.
pub(super) fn searches(
    lab: &mut dyn Lab,
    d: usize,
    survivors: &[u32],
    search: &Search<'_>,
    jobs: usize,
) -> Result<Vec<Option<Searched>>, RunError> {
    let threads = jobs.min(survivors.len());
    let shared = if threads > 1 { lab.witness_workers(d, survivors, threads)? } else { None };
    let past = || search.deadline.is_some_and(|d| std::time::Instant::now() >= d);
    let Some(workers) = shared else {
        let mut original = lab.evaluator(d)?;
        let mut original = witness::Remembered::new(original.as_mut());
        let mut out = Vec::new();
        for (k, &n) in survivors.iter().enumerate() {
            if past() || crate::interrupt::requested().is_some() {
                out.push(None);
                continue;
            }
            let mut mutant = lab.mutant(d, n)?;
            out.push(Some(search_one(search, k, &mut original, mutant.as_mut())));
        }
        return Ok(out);
    };
    let mutants: Vec<std::sync::Mutex<_>> =
        workers.mutants.into_iter().map(std::sync::Mutex::new).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: std::sync::Mutex<Vec<Option<Searched>>> =
        std::sync::Mutex::new((0..survivors.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for mut original in workers.originals {
            let (mutants, next, out) = (&mutants, &next, &out);
            s.spawn(move || {
                let mut original = witness::Remembered::new(original.as_mut());
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if k >= mutants.len() || past() || crate::interrupt::requested().is_some() {
                        break;
                    }
                    let Ok(mut mutant) = mutants[k].lock() else { break };
                    let found = search_one(search, k, &mut original, mutant.as_mut());
                    if let Ok(mut out) = out.lock() {
                        out[k] = Some(found);
                    }
                }
            });
        }
    });
    Ok(out.into_inner().unwrap_or_default())
}

/// The search of the `k`-th survivor (its mutant `mutant`) against `original`, then the
/// shrinking of its witness: the simplest input that still tells them apart is the one the test
/// is written on. A mutant its worker could not load answers "bad arguments": that is no
/// witness, and nothing is shrunk.
fn search_one(
    search: &Search<'_>,
    k: usize,
    original: &mut witness::Remembered<'_>,
    mutant: &mut dyn crate::exec::ProbeEvaluate,
) -> Searched {
    let survivor =
        witness::Survivor { params: search.params, known: search.known, hints: &search.hints[k] };
    let limits = witness::Limits {
        evals: search.evals,
        seed: search.seed,
        until: Some(witness::search_until(search.deadline)),
    };
    let found = witness::find(&survivor, original, mutant, &limits)?;
    let unloadable = |w: &&Witness| matches!(&w.mutant, Outcome::Error { ty, .. } if ty == "abex: bad arguments");
    let Some(first) = found.witness.clone().filter(|w| !unloadable(&w)) else {
        return Ok((found, None));
    };
    // A witness that does not hold when run again gives way to the archive's other ones,
    // simplest first (looked for only then); the first one's reason stands when none holds.
    let past = || search.deadline.is_some_and(|d| std::time::Instant::now() >= d);
    let mut to_try = vec![first];
    let mut why = None;
    while let Some(w) = to_try.pop() {
        let until = Some(witness::search_until(search.deadline));
        let shrunk = witness::shrink(search.params, &w, original, mutant, until)?;
        let Some(u) = unsteady(&shrunk.witness, original, mutant)? else {
            return Ok((witness::Found { witness: Some(w), ..found }, Some(shrunk)));
        };
        if why.is_none() {
            why = Some(u);
            to_try = witness::alternatives(search.known, &found.outcomes, &w.input, ALTERNATIVES);
            to_try.reverse();
        }
        if past() {
            break;
        }
    }
    Ok((witness::Found { witness: None, unwitnessed: why, ..found }, None))
}

/// How many of the archive's other witnesses are tried when the one found first does not hold
/// when run again ([`unsteady`]).
const ALTERNATIVES: usize = 2;

/// How many times a witness is run again on both sides before it counts.
const STEADY_RUNS: usize = 2;

/// Why the witness `w` proves nothing, when it does not hold when run again ([`STEADY_RUNS`]
/// times on both sides, fresh calls): an outcome that depends on more than the input (whether
/// an allocation fits in what the worker's memory holds, the clock) is no behaviour a test
/// pins. smallbitvec 2.5.3: `SmallBitVec::with_capacity(33778221521)` then `remove(0)` panicked
/// on one side and aborted on the other, in both directions for one mutant that never ran.
fn unsteady(
    w: &Witness,
    original: &mut witness::Remembered<'_>,
    mutant: &mut dyn crate::exec::ProbeEvaluate,
) -> Result<Option<crate::report::Unwitnessed>, crate::exec::ExecError> {
    let input = std::slice::from_ref(&w.input);
    for _ in 0..STEADY_RUNS {
        let o = original.again(&w.input)?;
        let m = mutant.evaluate_probed(input)?.into_iter().next().map(|(m, _)| m);
        let (side, was, now) = match (o == w.original, m) {
            (false, _) => ("original", &w.original, o),
            (true, Some(m)) if m != w.mutant => ("mutant", &w.mutant, m),
            (true, Some(_)) => continue,
            (true, None) => ("mutant", &w.mutant, Outcome::Timeout),
        };
        let short = |o: &Outcome| o.stringify().chars().take(200).collect::<String>();
        let seen = format!("{side}: {}, then {}", short(was), short(&now));
        let input = stringify_input(&w.input);
        return Ok(Some(Unwitnessed::Unsteady { input, seen }));
    }
    Ok(None)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::exec::probe::ProbeFnEvaluator;
    use crate::exec::{Evaluate, FnEvaluator, ProbeEvaluate};
    use crate::pipeline::{Numbered, Suggestion, Tested, Verdict, WitnessWorkers};
    use crate::value::{Args, Ty, Value};
    use std::collections::HashSet;
    use std::sync::{Arc, Mutex};
    use std::thread::ThreadId;

    /// A lab of one function, `x > 10` on a byte, whose mutant `n` compares with `10 + n`;
    /// `threads` records the threads its evaluators ran on, `shared` whether it gives evaluators
    /// of their own (as the Rust lab) or not (as the Python lab).
    pub(crate) struct Compare {
        pub(crate) threads: Arc<Mutex<HashSet<ThreadId>>>,
        pub(crate) shared: bool,
    }

    impl Compare {
        fn original(&self) -> impl FnMut(&Args) -> Outcome + Send + 'static {
            let threads = self.threads.clone();
            move |a: &Args| {
                threads.lock().unwrap().insert(std::thread::current().id());
                // Slow enough that one thread cannot do every search before the other starts.
                std::thread::sleep(std::time::Duration::from_millis(1));
                Outcome::Ok { value: (a[0].as_int().unwrap() > 10).to_string() }
            }
        }

        fn mutant(
            &self,
            n: u32,
        ) -> ProbeFnEvaluator<impl FnMut(&Args) -> (Outcome, Option<crate::exec::Probe>) + Send>
        {
            let threads = self.threads.clone();
            ProbeFnEvaluator(move |a: &Args| {
                threads.lock().unwrap().insert(std::thread::current().id());
                let x = a[0].as_int().unwrap();
                (Outcome::Ok { value: (x > 10 + i128::from(n)).to_string() }, None)
            })
        }
    }

    impl Lab for Compare {
        fn test_count(&mut self) -> usize {
            0
        }
        fn test_tool(&self, _: usize) -> String {
            String::new()
        }
        fn test(
            &mut self,
            _: &[u32],
            _: &mut dyn FnMut(u32, &Tested),
        ) -> Result<BTreeMap<u32, Tested>, RunError> {
            unreachable!("not tested here")
        }
        fn evaluator(&mut self, _: usize) -> Result<Box<dyn Evaluate>, RunError> {
            Ok(Box::new(FnEvaluator(self.original())))
        }
        fn mutant(&mut self, _: usize, n: u32) -> Result<Box<dyn ProbeEvaluate>, RunError> {
            Ok(Box::new(Compare::mutant(self, n)))
        }
        fn witness_workers(
            &mut self,
            _: usize,
            survivors: &[u32],
            threads: usize,
        ) -> Result<Option<WitnessWorkers>, RunError> {
            if self.shared {
                return Ok(None);
            }
            let originals =
                (0..threads).map(|_| Box::new(FnEvaluator(self.original())) as _).collect();
            let mutants =
                survivors.iter().map(|&n| Box::new(Compare::mutant(self, n)) as _).collect();
            Ok(Some(WitnessWorkers { originals, mutants }))
        }
        fn suggest(&self, _: usize, _: &Witness, _: &str, _: &str) -> Vec<String> {
            Vec::new()
        }
        fn name_parts<'w>(&self, _: usize, w: &'w Witness) -> (String, &'w [Value]) {
            (String::new(), &w.input)
        }
        fn joined(&self, _: usize, _: &[&Witness], _: &str, _: &str, _: bool) -> Option<String> {
            None
        }
        fn check(
            &mut self,
            _: &[Suggestion],
            _: &[u32],
        ) -> Result<BTreeMap<String, Verdict>, RunError> {
            unreachable!("not checked here")
        }
        fn add(&mut self, _: &[Numbered]) -> Result<(), RunError> {
            Ok(())
        }
    }

    #[test]
    fn a_witness_that_does_not_hold_when_run_again_proves_nothing() {
        let panic = Outcome::Panic { message: "index out of range".into() };
        let crash = Outcome::Crash { detail: "aborted (SIGABRT)".into() };
        let w = Witness {
            input: vec![Value::Int(0)],
            original: panic.clone(),
            mutant: crash.clone(),
            found_by: "search".into(),
            shrunk_from: None,
        };
        struct Steady(Outcome);
        impl crate::exec::Evaluate for Steady {
            fn evaluate(&mut self, b: &[Args]) -> Result<Vec<Outcome>, crate::exec::ExecError> {
                Ok(vec![self.0.clone(); b.len()])
            }
        }
        let mut steady = Steady(panic.clone());
        let mut original = witness::Remembered::new(&mut steady);
        // The mutant panics like the original on the second run: the abort was its state's.
        let mut runs = 0;
        let mut flaky = crate::exec::probe::ProbeFnEvaluator(|_: &Args| {
            runs += 1;
            (if runs == 2 { panic.clone() } else { crash.clone() }, None)
        });
        let why = unsteady(&w, &mut original, &mut flaky).unwrap();
        let Some(Unwitnessed::Unsteady { input, seen }) = why else { panic!("{why:?}") };
        assert_eq!(
            (input.as_str(), seen.as_str()),
            ("[0]", "mutant: crash: aborted (SIGABRT), then panic: index out of range")
        );
        // One that gives its outcome every time keeps the witness.
        let mut same = crate::exec::probe::ProbeFnEvaluator(|_: &Args| (crash.clone(), None));
        assert_eq!(unsteady(&w, &mut original, &mut same).unwrap(), None);
        // So does the original only when it repeats itself.
        let mut other = Steady(Outcome::Ok { value: "1".into() });
        let mut original = witness::Remembered::new(&mut other);
        assert!(unsteady(&w, &mut original, &mut same).unwrap().is_some());
    }

    #[test]
    fn a_witness_that_turned_slow_gives_way_to_another_known_input() {
        // more_itertools-like `windows(seq, n)` in the lazy fixture, on a loaded machine: the
        // explorer saw the original return on n = 36203 (a tuple shown in 10 ms), then the
        // worker answered it `slow` when run again; the mutant differs there and on 7 only.
        let ok = |i: i128| Outcome::Ok { value: i.to_string() };
        let known = vec![(vec![Value::Int(36203)], ok(36203)), (vec![Value::Int(7)], ok(7))];
        let n = |a: &Args| match a[0] {
            Value::Int(i) => i,
            _ => unreachable!(),
        };
        let mut slow_now =
            crate::exec::FnEvaluator(
                |a: &Args| if n(a) >= 1000 { Outcome::Timeout } else { ok(n(a)) },
            );
        let mut original = witness::Remembered::new(&mut slow_now);
        let mut mutant = mutant_on(&[36203, 7]);
        let params = [Ty::int(64, true)];
        let hints = vec![witness::Hints::default()];
        let search = Search {
            params: &params,
            known: &known,
            hints: &hints,
            evals: 0,
            seed: 1,
            deadline: None,
        };
        let (found, shrunk) = search_one(&search, 0, &mut original, &mut mutant).unwrap();
        let shrunk = shrunk.unwrap_or_else(|| panic!("no witness: {:?}", found.unwitnessed));
        assert_eq!(shrunk.witness.input, vec![Value::Int(7)]);
        assert_eq!(found.witness.map(|w| w.input), Some(vec![Value::Int(7)]));
        // With no other input that tells them apart, the first one's reason stands.
        let (found, shrunk) =
            search_one(&search, 0, &mut original, &mut mutant_on(&[36203])).unwrap();
        assert!(shrunk.is_none());
        assert!(
            matches!(&found.unwitnessed, Some(Unwitnessed::Unsteady { input, .. }) if input == "[36203]"),
            "{:?}",
            found.unwitnessed
        );
    }

    /// A mutant that raises `TypeError` on the integers `on` and returns its argument elsewhere.
    fn mutant_on(on: &[i128]) -> impl crate::exec::ProbeEvaluate + '_ {
        crate::exec::probe::ProbeFnEvaluator(move |a: &Args| {
            let Value::Int(i) = a[0] else { unreachable!() };
            let o = if on.contains(&i) {
                Outcome::Error { ty: "TypeError".into(), message: "unsupported".into() }
            } else {
                Outcome::Ok { value: i.to_string() }
            };
            (o, None)
        })
    }

    #[test]
    fn survivors_are_searched_on_two_threads_with_the_results_of_one() {
        let params = [Ty::int(8, false)];
        let hints = vec![witness::Hints { ints: vec![10], ..Default::default() }; 8];
        let search = Search {
            params: &params,
            known: &[],
            hints: &hints,
            evals: 400,
            seed: 3,
            deadline: None,
        };
        let survivors: Vec<u32> = (1..=8).collect();
        let run = |shared: bool, jobs: usize| {
            let threads = Arc::new(Mutex::new(HashSet::new()));
            let mut lab = Compare { threads: threads.clone(), shared };
            let out = searches(&mut lab, 0, &survivors, &search, jobs).unwrap();
            let inputs: Vec<Vec<Value>> = out
                .into_iter()
                .map(|s| s.expect("searched").unwrap().1.expect("witnessed").witness.input)
                .collect();
            let n = threads.lock().unwrap().len();
            (inputs, n)
        };
        let (one, threads) = run(false, 1);
        assert_eq!(threads, 1);
        // Mutant n differs from the original on 11..=10+n only; shrinking finds the smallest.
        assert_eq!(one, (1..=8).map(|_| vec![Value::Int(11)]).collect::<Vec<_>>(), "{one:?}");
        let (two, threads) = run(false, 2);
        assert_eq!(threads, 2, "both threads searched");
        assert_eq!(one, two);
        // A lab whose workers are shared searches on the calling thread, with the same results.
        let (shared, threads) = run(true, 2);
        assert_eq!(threads, 1);
        assert_eq!(one, shared);
    }

    #[test]
    fn survivors_fed_while_the_tests_run_are_searched_at_once_as_one_thread_would() {
        // Two targets' plans over Compare's function (mutant n compares with `10 + n`): the
        // first target's survivors are fed while the feed is still open, as when its tests
        // are in and the next target's still run; their results come back before any more is
        // fed, and every result is the one-thread search's.
        let plan = |numbers: Vec<u32>| Plan {
            d: 0,
            params: vec![Ty::int(8, false)],
            known: Vec::new(),
            hints: vec![witness::Hints { ints: vec![10], ..Default::default() }; numbers.len()],
            seed: 3,
            evals: 400,
            deadline: None,
            numbers,
        };
        let plans = vec![plan(vec![1, 2, 3]), plan(vec![4, 5, 6, 7])];
        let mut lab = Compare { threads: Default::default(), shared: false };
        let one: Vec<Vec<Args>> = plans
            .iter()
            .map(|p| {
                let out = searches(&mut lab, 0, &p.numbers, &p.search(), 1).unwrap();
                out.into_iter().map(|s| s.unwrap().unwrap().1.unwrap().witness.input).collect()
            })
            .collect();
        assert_eq!(one[0], [vec![Value::Int(11)], vec![Value::Int(11)], vec![Value::Int(11)]]);
        let threads: Arc<Mutex<HashSet<ThreadId>>> = Default::default();
        let mut lab = Compare { threads: threads.clone(), shared: false };
        let slots = shared_slots(&mut lab, &plans, 2).unwrap().expect("Compare shares");
        let plans = Arc::new(plans);
        let witness = |s: Option<Searched>| s.expect("searched").unwrap().1.unwrap().witness.input;
        std::thread::scope(|scope| {
            let mut searchers = Searchers::start(scope, 2, plans.clone(), slots);
            for k in 0..3 {
                searchers.send(0, k);
            }
            searchers.send(0, 1);
            let first: Vec<Args> = (0..3).map(|k| witness(searchers.result(0, k))).collect();
            assert_eq!(first, one[0], "searched with the feed open, as one thread does");
            assert!(!threads.lock().unwrap().contains(&std::thread::current().id()));
            // The second target's survivors but its last: it was not fed, so it has no result.
            for k in 0..3 {
                searchers.send(1, k);
            }
            searchers.close();
            let second: Vec<Args> = (0..3).map(|k| witness(searchers.result(1, k))).collect();
            assert_eq!(second, one[1][..3]);
            assert!(searchers.result(1, 3).is_none(), "never fed, never searched");
            assert!(searchers.result(0, 1).is_none(), "fed twice, searched once");
        });
        assert_eq!(threads.lock().unwrap().len(), 2, "both threads searched");
    }
}
