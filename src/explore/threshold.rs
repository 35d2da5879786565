//! The threshold operator: boundary pairs at the exact thresholds of the original's own
//! comparisons. Bisection finds two adjacent *inputs* with different outcomes, but where a
//! comparison reads a value computed from the inputs (`(2·w·K + h²) / (2·h²) < 185`), adjacent
//! inputs can straddle the threshold from far away (184 and 187), and the one input that sits
//! on it (exactly 185) is where boundary mutants (`<` → `<=`, `185` → `186`) differ.
//!
//! With a tracer (the original's worker in trace mode: every comparison `a OP b` of the
//! function reports its operands, see `exec::probe`), every call of the run is traced. Once
//! half the pair budget is spent, for each comparison seen, from the inputs closest to its
//! threshold, the operator walks the inputs until `a == b`: first a leap of each number by
//! `a − b` (a comparison that reads a number plainly is there at once), then the alternating
//! variable method (`inputs::avm`), then the same from the closest input scaled up. It pairs
//! the input it reached with its nearest single move on the other side of the comparison
//! (`a − b` = ±1 for integers). A move whose outcome differs from the input it moved from is
//! offered to the archive as a pair (and refined like any other); the operator's calls count
//! against the run's pair budget, two calls for a pair (as a fresh pair costs), at most
//! [`SHARE`] of it.
//!
//! It draws nothing at random: a run stays deterministic for its seed. Without a tracer (or
//! with no numeric comparison traced) it does nothing. With one, the run also counts its
//! exact boundary pairs ([`Exact`]) from the traces it has.

use std::collections::BTreeMap;

use super::memo::args_key;
use super::search::Search;
use super::traces::Gap;
use crate::exec::{Compared, ExecError};
use crate::inputs::avm::{self, Objective};
use crate::inputs::moves::{self, Kind};
use crate::value::{Args, Ty};

/// Share of the pair budget spent before the operator runs.
const AT: f64 = 0.5;
/// Share of the pair budget the operator may take (its calls: twice that).
const SHARE: f64 = 0.15;
/// Comparisons walked to their threshold per run, at most.
const MAX_CMPS: usize = 24;
/// Inputs a walk starts from, closest first, until one reaches the threshold.
const STARTS: usize = 4;
/// Steps tried on each side for a partner, finest first for floats.
const INT_STEPS: [f64; 3] = [1.0, 2.0, 3.0];
const FLOAT_STEPS: [f64; 4] = [0.001, 0.01, 0.1, 1.0];
/// Factors the numbers of the closest input are scaled by, for a new start when the walks
/// stop short of the threshold.
const SCALES: [f64; 2] = [10.0, 100.0];

/// The environment variable that, set to `off`, switches the operator off (the exploration as
/// it was before it, for measurements); not a user setting.
pub const THRESHOLDS_ENV: &str = "ABEX_THRESHOLDS";

/// Whether the operator may run (see [`THRESHOLDS_ENV`]): without it, the explorer asks for
/// no tracer.
pub fn enabled() -> bool {
    std::env::var(THRESHOLDS_ENV).map_or(true, |v| v.trim() != "off")
}

impl Search<'_> {
    /// Whether the operator runs now: a tracer, half the budget spent, and not run yet.
    pub(super) fn thresholds_due(&self) -> bool {
        self.tracer.is_some()
            && !self.traces.ran
            && enabled()
            && self.pairs as f64 >= AT * self.cfg.pairs as f64
    }

    /// The operator (see the module comment).
    pub(super) fn thresholds(&mut self) -> Result<(), ExecError> {
        self.origin = crate::archive::Origin::Threshold;
        self.traces.ran = true;
        let calls = ((2.0 * SHARE * self.cfg.pairs as f64) as usize).min(2 * self.left());
        self.traces.calls = calls;
        let pairs = self.pairs;
        let cmps = self.comparisons();
        let n = cmps.len();
        for (k, (id, from)) in cmps.into_iter().enumerate() {
            // An even share of the calls left, less what its partner's first steps take.
            let partner = 2 * moves::vars(self.params, &from[0]).len();
            let budget = (self.traces.calls / (n - k)).saturating_sub(partner);
            if let Some(x) = self.walk(id, from, budget)? {
                self.partner(id, &x)?;
            }
            if self.stop_reason().is_some() || self.traces.calls == 0 {
                break;
            }
        }
        // Two calls are one pair of the budget; the pairs it offered are paid already.
        let used = (calls - self.traces.calls).div_ceil(2);
        self.traces.charged = used.saturating_sub(self.pairs - pairs);
        Ok(())
    }

    /// Each numeric comparison traced so far with the inputs closest to its threshold (at most
    /// [`STARTS`]); the comparisons closest to their thresholds first (those already there
    /// cost only their partner), at most [`MAX_CMPS`]. Ties go to the smaller memo key, so
    /// that the order is the same on every run.
    fn comparisons(&self) -> Vec<(u32, Vec<Args>)> {
        let mut near: BTreeMap<u32, Vec<(Gap, &str, &Args)>> = BTreeMap::new();
        for (key, (args, trace)) in &self.traces.traces {
            for c in trace {
                let g = self.traces.gap(key, c.id);
                if g.ran {
                    near.entry(c.id).or_default().push((g, key.as_str(), args));
                }
            }
        }
        let mut cmps: Vec<(Gap, u32, Vec<Args>)> = near
            .into_iter()
            .map(|(id, mut from)| {
                from.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
                from.truncate(STARTS);
                (from[0].0, id, from.into_iter().map(|(_, _, a)| a.clone()).collect())
            })
            .collect();
        cmps.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        cmps.truncate(MAX_CMPS);
        cmps.into_iter().map(|(_, id, from)| (id, from)).collect()
    }

    /// Walks comparison `id` towards its threshold from each of `from` in turn, then from the
    /// closest input scaled up, within `budget` calls, until one gets there; the closest input.
    fn walk(&mut self, id: u32, from: Vec<Args>, budget: usize) -> Result<Option<Args>, ExecError> {
        let mut walk = Walk { s: self, id, budget, at: None };
        let mut best: Option<(Gap, Args)> = None;
        let mut queue: Vec<Args> = from.into_iter().rev().collect();
        let mut scaled = 0;
        while !walk.done() {
            let Some(start) = queue.pop() else { break };
            walk.at = None;
            let start = walk.leap(start)?;
            let (x, g) = avm::avm(walk.s.params, &mut walk, start)?;
            if best.as_ref().is_none_or(|(b, _)| g < *b) {
                best = Some((g, x));
            }
            if walk.goal(&g) {
                break;
            }
            // A lattice too coarse near the closest input (`w·K / h²` steps over the
            // threshold whichever number moves) is finer with the numbers scaled up.
            if queue.is_empty() && scaled < SCALES.len() {
                let base = best.as_ref().map(|(_, x)| x.clone()).unwrap_or_default();
                queue.extend(scale(walk.s.params, &base, SCALES[scaled]).into_iter().rev());
                scaled += 1;
            }
        }
        Ok(best.map(|(_, x)| x))
    }

    /// Runs the unknown of `inputs` (traced, within the operator's calls).
    fn run(&mut self, inputs: &[Args]) -> Result<(), ExecError> {
        let mut fresh: Vec<Args> = Vec::new();
        for a in inputs {
            if self.memo.get(a).is_none() && !fresh.contains(a) {
                fresh.push(a.clone());
            }
        }
        fresh.truncate(self.traces.calls);
        self.traces.calls -= fresh.len();
        self.evaluate_all(&fresh)
    }

    /// Pairs `x` (the closest input to comparison `id`'s threshold) with its nearest move on
    /// the other side: for each variable, steps on either side, finest first, until a move
    /// flips the comparison one unit away (integers) or at all (floats); where every single
    /// move of an integer comparison jumps further (`w·K / h²` moves by 2 whichever number
    /// moves), moves of two numbers at once. The flip closest to the threshold wins.
    fn partner(&mut self, id: u32, x: &Args) -> Result<(), ExecError> {
        let Some(here) = self.traces.at(&args_key(x), id).cloned() else { return Ok(()) };
        let vars = moves::vars(self.params, x);
        let unit = here.integral();
        let levels = if unit { INT_STEPS.len() } else { FLOAT_STEPS.len() };
        let mut best: Option<(f64, Args)> = None;
        let near = |best: &Option<(f64, Args)>| best.as_ref().is_some_and(|b| !unit || b.0 <= 1.0);
        for level in 0..levels {
            let mut tries = Vec::new();
            for v in &vars {
                let step = match v.kind {
                    Kind::Float => FLOAT_STEPS[level],
                    _ => INT_STEPS[level.min(INT_STEPS.len() - 1)],
                };
                tries.extend([step, -step].into_iter().filter_map(|d| moves::moved(x, v, d)));
            }
            self.flips(id, &here, &tries, &mut best)?;
            if near(&best) {
                break;
            }
        }
        if unit && !near(&best) {
            let numbers: Vec<_> =
                vars.iter().filter(|v| matches!(v.kind, Kind::Int { .. })).take(6).collect();
            let mut tries = Vec::new();
            for (k, va) in numbers.iter().enumerate() {
                for vb in &numbers[k + 1..] {
                    for (da, db) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                        tries
                            .extend(moves::moved(x, va, da).and_then(|y| moves::moved(&y, vb, db)));
                    }
                }
            }
            self.flips(id, &here, &tries, &mut best)?;
        }
        if let Some((_, y)) = best {
            self.offer_refined(x, &y);
        }
        Ok(())
    }

    /// Runs `tries` and keeps in `best` the one that flips comparison `id` (from where it
    /// stands at `here`) closest to its threshold.
    fn flips(
        &mut self,
        id: u32,
        here: &Compared,
        tries: &[Args],
        best: &mut Option<(f64, Args)>,
    ) -> Result<(), ExecError> {
        self.run(tries)?;
        let t = &self.traces;
        for y in tries {
            let Some(c) = t.at(&args_key(y), id) else { continue };
            let (Some(d), Some(h), Some(h0)) = (c.diff(), c.holds(), here.holds()) else {
                continue;
            };
            if h != h0 && best.as_ref().is_none_or(|b| d.abs() < b.0) {
                *best = Some((d.abs(), y.clone()));
            }
        }
        Ok(())
    }

    /// Whether the outcomes of `a` and `b` are known and differ.
    fn differ(&self, a: &Args, b: &Args) -> bool {
        match (self.memo.get(a), self.memo.get(b)) {
            (Some(x), Some(y)) => x.text != y.text,
            _ => false,
        }
    }

    /// Offers `(a, b)` and queues it for refinement.
    fn offer_refined(&mut self, a: &Args, b: &Args) {
        if self.offer(a, b) {
            self.refiner.enqueue(self.params, &self.memo, a.clone(), b.clone());
        }
    }
}

/// New starts from `x` on a finer lattice: every number (integer or float) times `factor`, and,
/// for each number, that one times `factor²` and the others times `factor` (which keeps ratios
/// such as `w / h²`, `area / side²`); those that fit and change `x`, in that order.
fn scale(params: &[Ty], x: &Args, factor: f64) -> Vec<Args> {
    let numbers: Vec<_> = moves::vars(params, x)
        .into_iter()
        .filter(|v| matches!(v.kind, Kind::Int { .. } | Kind::Float))
        .collect();
    let scaled = |square: Option<usize>| {
        let mut y = x.clone();
        for (k, v) in numbers.iter().enumerate() {
            let f = if square == Some(k) { factor * factor } else { factor };
            if let Some(now) = moves::get(&y, v) {
                y = moves::set(&y, v, now * f).unwrap_or(y);
            }
        }
        y
    };
    let mut out: Vec<Args> = Vec::new();
    let squares = (0..numbers.len().min(4)).map(Some);
    for y in std::iter::once(None).chain(squares).map(scaled) {
        if y != *x && !out.contains(&y) {
            out.push(y);
        }
    }
    out
}

/// The walk of one comparison to its threshold: the method's objective. A move whose outcome
/// differs from the closest input so far (the one the method moved from) is offered as a pair.
struct Walk<'s, 'a> {
    s: &'s mut Search<'a>,
    id: u32,
    /// Calls left.
    budget: usize,
    /// The closest input so far and where it stands.
    at: Option<(Args, Gap)>,
}

impl Walk<'_, '_> {
    /// From `x`, one batch of leaps: each number moved by `a − b` either way, which lands on
    /// the threshold at once where the comparison reads that number plainly (`year < 1812`,
    /// `len > 64`, `item + used <= capacity`); the best of `x` and those.
    fn leap(&mut self, x: Args) -> Result<Args, ExecError> {
        let here = self.eval(std::slice::from_ref(&x))?[0];
        let Some(d) = self.s.traces.at(&args_key(&x), self.id).and_then(Compared::diff) else {
            return Ok(x);
        };
        if d == 0.0 || self.done() {
            return Ok(x);
        }
        let mut tries = Vec::new();
        for v in moves::vars(self.s.params, &x) {
            if v.kind != Kind::Toggle {
                tries.extend([d, -d].into_iter().filter_map(|step| moves::moved(&x, &v, step)));
            }
        }
        let gaps = self.eval(&tries)?;
        Ok(match (0..tries.len()).filter(|&k| gaps[k] < here).min_by_key(|&k| gaps[k]) {
            Some(k) => tries.swap_remove(k),
            None => x,
        })
    }
}

impl Objective for Walk<'_, '_> {
    type Key = Gap;
    type Error = ExecError;

    fn eval(&mut self, batch: &[Args]) -> Result<Vec<Gap>, ExecError> {
        // The unknown inputs within the walk's calls; the others are left unrun (no gap).
        let mut fresh: Vec<Args> = Vec::new();
        for a in batch {
            if fresh.len() < self.budget && self.s.memo.get(a).is_none() && !fresh.contains(a) {
                fresh.push(a.clone());
            }
        }
        let calls = self.s.traces.calls;
        self.s.run(&fresh)?;
        self.budget = self.budget.saturating_sub(calls - self.s.traces.calls);
        let t = &self.s.traces;
        let gaps: Vec<Gap> = batch.iter().map(|a| t.gap(&args_key(a), self.id)).collect();
        // Every move of a batch is a move from the closest input so far: a boundary where
        // their outcomes differ.
        if let Some((from, _)) = self.at.clone() {
            for a in batch {
                if self.s.memo.get(a).is_some() && self.s.differ(&from, a) {
                    self.s.offer_refined(&from, a);
                }
            }
        }
        for (a, g) in batch.iter().zip(&gaps) {
            if self.at.as_ref().is_none_or(|(_, h)| g < h) {
                self.at = Some((a.clone(), *g));
            }
        }
        Ok(gaps)
    }

    fn done(&self) -> bool {
        self.budget == 0 || self.s.traces.calls == 0 || self.s.stop_reason().is_some()
    }

    fn goal(&self, key: &Gap) -> bool {
        key.ran && key.d == 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::probe::ProbeFnEvaluator;
    use crate::exec::{FnEvaluator, Probe};
    use crate::explore::{explore, explore_traced, ExploreConfig};
    use crate::value::{Outcome, Ty};

    /// The BMI threshold of `tests/fixtures/thresholds` with K = 100,000: the outcome, and
    /// the trace of its one comparison.
    fn underweight(a: &Args) -> (Outcome, Option<Probe>) {
        let (w, h) = (a[0].as_int().unwrap_or(0), a[1].as_int().unwrap_or(0));
        let ok = |v: bool| Outcome::Ok { value: v.to_string() };
        let l = (2 * w)
            .checked_mul(100_000)
            .zip(h.checked_mul(h))
            .and_then(|(x, hh)| x.checked_add(hh).zip(hh.checked_mul(2)))
            .filter(|(_, d)| *d != 0 && *d <= u64::MAX as i128)
            .map(|(n, d)| n / d);
        let Some(l) = l else {
            return (Outcome::Panic { message: "attempt to multiply with overflow".into() }, None);
        };
        let c = Compared { id: 1, op: "<".into(), operands: [l.to_string(), "185".into()] };
        (ok(l < 185), Some(Probe { cmps: vec![c], ..Probe::default() }))
    }

    fn exact_at_185(x: &crate::explore::Exploration) -> bool {
        let l = |a: &Args| {
            let c = underweight(a).1?.cmps.pop()?;
            c.operands[0].parse::<i128>().ok()
        };
        x.archive.elites().iter().any(|p| {
            let (x, y) = (l(&p.inputs[0]), l(&p.inputs[1]));
            matches!((x, y), (Some(184), Some(185)) | (Some(185), Some(184)))
        })
    }

    #[test]
    fn the_threshold_of_a_computed_value_gets_its_exact_pair_within_the_budget() {
        let params = [Ty::int(64, false), Ty::int(64, false)];
        for seed in 0..4 {
            let cfg = ExploreConfig { seed, ..ExploreConfig::default() };
            let mut plain = FnEvaluator(|a: &Args| underweight(a).0);
            let before = explore(&params, &mut plain, &cfg, &mut |_| {}).unwrap();
            let mut plain = FnEvaluator(|a: &Args| underweight(a).0);
            let mut tracer = ProbeFnEvaluator(underweight);
            let after =
                explore_traced(&params, &mut plain, Some(&mut tracer), &cfg, &mut |_| {}, None)
                    .unwrap();
            println!(
                "seed {seed}: exact pair before {} after {}; qd {:.2} → {:.2}, bc {} → {}",
                exact_at_185(&before),
                exact_at_185(&after),
                before.archive.qd_score(),
                after.archive.qd_score(),
                before.archive.bc_count(),
                after.archive.bc_count()
            );
            assert!(exact_at_185(&after), "seed {seed}");
            // Its calls come out of the pair budget: two for a pair.
            assert!(after.pairs_evaluated <= 1000, "seed {seed}");
            assert!(after.evaluations <= 2 * 1000, "seed {seed}: {} calls", after.evaluations);
        }
    }

    #[test]
    fn the_operator_is_deterministic_for_a_seed() {
        let params = [Ty::int(16, false), Ty::int(16, false)];
        let run = || {
            let cfg = ExploreConfig { seed: 3, pairs: 400, ..ExploreConfig::default() };
            let mut plain = FnEvaluator(|a: &Args| underweight(a).0);
            let mut tracer = ProbeFnEvaluator(underweight);
            let x = explore_traced(&params, &mut plain, Some(&mut tracer), &cfg, &mut |_| {}, None)
                .unwrap();
            x.archive.elites().into_iter().cloned().collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }
}
