//! The search loop and the state of one run: the memo of outcomes per argument list, the archive,
//! the pair budget, and the pairs already offered. Fresh batches (`fresh`) and the threshold
//! operator (`threshold`, once, with a tracer) are methods of [`Search`]; refinement is a
//! [`Refiner`] that the loop owns: it runs the midpoints the refiner asks for and offers the
//! pairs the refiner returns.

use std::collections::HashSet;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::exploration::{Exploration, ExploreConfig, Progress, QdPoint, StopReason};
use super::memo::{args_key, hash_unordered, Memo};
use super::proposer::{Proposer, View, RECENT};
use super::refine::Refiner;
use super::traces::Traces;
use crate::archive::{Archive, Origin, Pair};
use crate::exec::{Evaluate, ExecError, ProbeEvaluate};
use crate::value::{Args, Ty};

/// Fresh batches in a row that offer no new pair before the search counts as exhausted.
const IDLE_BATCHES: u32 = 20;

/// Explores the boundaries of a function with parameters `params`, reporting progress after
/// every executor call.
pub fn explore(
    params: &[Ty],
    eval: &mut dyn Evaluate,
    cfg: &ExploreConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Exploration, ExecError> {
    explore_with(params, eval, cfg, progress, None)
}

/// [`explore`], with a `proposer` consulted before every fresh batch. Its pairs are run, offered
/// and refined like the operators' own.
pub fn explore_with(
    params: &[Ty],
    eval: &mut dyn Evaluate,
    cfg: &ExploreConfig,
    progress: &mut dyn FnMut(&Progress),
    proposer: Option<&mut dyn Proposer>,
) -> Result<Exploration, ExecError> {
    explore_traced(params, eval, None, cfg, progress, proposer)
}

/// [`explore_with`], with a `tracer`: the original in trace mode (its comparisons report
/// their operands), which then runs every call instead of `eval`, for the threshold operator
/// (`threshold.rs`) and the count of exact boundary pairs ([`Exploration::exact`]).
pub fn explore_traced<'a>(
    params: &'a [Ty],
    eval: &'a mut dyn Evaluate,
    tracer: Option<&'a mut dyn ProbeEvaluate>,
    cfg: &'a ExploreConfig,
    progress: &mut dyn FnMut(&Progress),
    mut proposer: Option<&mut dyn Proposer>,
) -> Result<Exploration, ExecError> {
    let mut s = Search::new(params, eval, cfg);
    s.tracer = tracer;
    let mut idle = 0;
    let stop = loop {
        if let Some(stop) = s.stop_reason() {
            break stop;
        }
        if s.refiner.busy() {
            s.refine_round()?;
        } else if s.thresholds_due() {
            s.thresholds()?;
        } else {
            let before = s.pairs;
            let n = s.batch().min(s.left());
            let view = View { archive: &s.archive, recent: &s.recent, pairs_evaluated: s.pairs };
            let mut given = Vec::new();
            if let Some(p) = proposer.as_mut() {
                given = p.propose(&view, n).unwrap_or_default();
                s.given_origin = p.origin();
            }
            given.truncate(n);
            s.given = given;
            s.fresh_batch(false)?;
            s.refiner.activate(false, s.pairs);
            idle = if s.pairs == before { idle + 1 } else { 0 };
        }
        let p = s.progress();
        s.history.push(QdPoint {
            evaluations: s.evaluations,
            pairs: p.pairs_evaluated,
            cells: p.cells,
            qd_score: p.qd_score,
        });
        progress(&p);
        if idle >= IDLE_BATCHES {
            break StopReason::Exhausted;
        }
    };
    let exact = s.tracer.is_some().then(|| s.traces.exact(&s.archive, s.params));
    let mut x = s.finish(stop);
    x.exact = exact;
    Ok(x)
}

/// The baseline: uniform random pairs (two independent `random_args`), no neighbours, no archive
/// sampling, no refinement; same executor, memo and archive as [`explore`].
pub fn random_pairs(
    params: &[Ty],
    eval: &mut dyn Evaluate,
    cfg: &ExploreConfig,
) -> Result<Exploration, ExecError> {
    let mut s = Search::new(params, eval, cfg);
    let mut idle = 0;
    let stop = loop {
        if let Some(stop) = s.stop_reason() {
            break stop;
        }
        let before = s.pairs;
        s.fresh_batch(true)?;
        idle = if s.pairs == before { idle + 1 } else { 0 };
        if idle >= IDLE_BATCHES {
            break StopReason::Exhausted;
        }
    };
    Ok(s.finish(stop))
}

/// The state of one run.
pub(super) struct Search<'a> {
    pub(super) params: &'a [Ty],
    pub(super) eval: &'a mut dyn Evaluate,
    pub(super) cfg: &'a ExploreConfig,
    pub(super) rng: ChaCha8Rng,
    pub(super) start: Instant,
    pub(super) memo: Memo,
    pub(super) archive: Archive,
    pub(super) pairs: usize,
    pub(super) evaluations: usize,
    /// Unordered pairs already offered, so the budget is not spent twice on one pair.
    pub(super) offered: HashSet<u64>,
    pub(super) refiner: Refiner,
    /// Pairs most recently taken by the archive, newest last (at most [`RECENT`]).
    pub(super) recent: Vec<Pair>,
    /// Pairs a [`Proposer`] gave for the next fresh batch, and where they came from.
    pub(super) given: Vec<(Args, Args)>,
    pub(super) given_origin: Origin,
    /// The origin of the pairs being offered now.
    pub(super) origin: Origin,
    /// The original in trace mode, for the threshold operator.
    pub(super) tracer: Option<&'a mut dyn ProbeEvaluate>,
    pub(super) traces: Traces,
    /// The archive's figures after every executor call.
    history: Vec<QdPoint>,
}

impl<'a> Search<'a> {
    fn new(params: &'a [Ty], eval: &'a mut dyn Evaluate, cfg: &'a ExploreConfig) -> Search<'a> {
        Search {
            params,
            eval,
            cfg,
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            start: Instant::now(),
            memo: Memo::default(),
            archive: Archive::new(),
            pairs: 0,
            evaluations: 0,
            offered: HashSet::new(),
            refiner: Refiner::new(cfg),
            recent: Vec::new(),
            given: Vec::new(),
            given_origin: Origin::Operator,
            origin: Origin::Operator,
            tracer: None,
            traces: Traces::default(),
            history: Vec::new(),
        }
    }

    /// Pairs left in the budget: those not offered yet, less the threshold operator's calls
    /// that no pair paid for (two calls for one pair, as a fresh pair costs).
    pub(super) fn left(&self) -> usize {
        self.cfg.pairs.saturating_sub(self.pairs + self.traces.charged)
    }

    pub(super) fn batch(&self) -> usize {
        self.cfg.batch.max(1)
    }
    pub(super) fn stop_reason(&self) -> Option<StopReason> {
        if self.params.is_empty() {
            return Some(StopReason::Exhausted);
        }
        if self.left() == 0 {
            return Some(StopReason::Pairs);
        }
        match self.cfg.time_budget {
            Some(t) if self.start.elapsed() >= t => Some(StopReason::Time),
            _ => None,
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            pairs_evaluated: self.pairs,
            pairs_total: self.cfg.pairs,
            cells: self.archive.len(),
            bc_count: self.archive.bc_count(),
            qd_score: self.archive.qd_score(),
        }
    }

    fn finish(self, stop: StopReason) -> Exploration {
        Exploration {
            archive: self.archive,
            pairs_evaluated: self.pairs,
            evaluations: self.evaluations,
            elapsed: self.start.elapsed(),
            stop,
            exact: None,
            history: self.history,
        }
    }

    /// Runs every not yet known input of `inputs` in one executor call.
    pub(super) fn evaluate_all<'x>(
        &mut self,
        inputs: impl IntoIterator<Item = &'x Args>,
    ) -> Result<(), ExecError> {
        let mut batch: Vec<Args> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        for args in inputs {
            let k = args_key(args);
            if self.memo.by_key(&k).is_none() && !keys.contains(&k) {
                batch.push(args.clone());
                keys.push(k);
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        // With a tracer, every call is traced (for the threshold operator).
        let outcomes = match self.tracer.as_mut() {
            Some(t) => {
                let answers = t.evaluate_probed(&batch)?;
                let mut outcomes = Vec::with_capacity(answers.len());
                for ((k, a), (o, probe)) in keys.iter().zip(&batch).zip(answers) {
                    self.traces.note(k.clone(), a, probe);
                    outcomes.push(o);
                }
                outcomes
            }
            None => self.eval.evaluate(&batch)?,
        };
        if outcomes.len() != batch.len() {
            return Err(ExecError::Protocol(format!(
                "the executor returned {} outcomes for {} inputs",
                outcomes.len(),
                batch.len()
            )));
        }
        self.evaluations += batch.len();
        for (k, outcome) in keys.into_iter().zip(outcomes) {
            self.memo.insert(k, outcome);
        }
        Ok(())
    }

    /// One lockstep bisection step of every active refinement, in one executor call.
    fn refine_round(&mut self) -> Result<(), ExecError> {
        self.origin = Origin::Bisection;
        let mids = self.refiner.mids();
        self.evaluate_all(&mids)?;
        for (a, b) in self.refiner.step(self.params, &self.memo) {
            if self.offer(&a, &b) {
                self.refiner.count_offered();
            }
        }
        self.refiner.activate(true, self.pairs);
        Ok(())
    }

    /// Offers a pair of evaluated inputs to the archive, unless the budget is spent, the inputs
    /// are identical, the pair was offered before or one of its inputs could not be built.
    /// Returns whether it was offered.
    pub(super) fn offer(&mut self, a: &Args, b: &Args) -> bool {
        if self.left() == 0 {
            return false;
        }
        let (ka, kb) = (args_key(a), args_key(b));
        if ka == kb || !self.offered.insert(hash_unordered(&ka, &kb)) {
            return false;
        }
        let (Some(oa), Some(ob)) = (self.memo.by_key(&ka), self.memo.by_key(&kb)) else {
            return false;
        };
        let (oa, ob) = (oa.outcome.clone(), ob.outcome.clone());
        if oa.unbuilt() || ob.unbuilt() {
            // A constructor failed, not the function: no boundary of it, but the pair is spent.
            self.pairs += 1;
            return false;
        }
        match Pair::new(a.clone(), b.clone(), oa, ob) {
            Some(mut pair) => {
                pair.origin = self.origin.clone();
                if self.archive.insert(pair.clone()) != crate::archive::Insert::Rejected {
                    if self.recent.len() == RECENT {
                        self.recent.remove(0);
                    }
                    self.recent.push(pair);
                }
                self.pairs += 1;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::exec::FnEvaluator;
    use crate::value::{Outcome, Value};

    fn ok(s: impl ToString) -> Outcome {
        Outcome::Ok { value: s.to_string() }
    }

    fn err(ty: &str, message: impl ToString) -> Outcome {
        Outcome::Error { ty: ty.into(), message: message.to_string() }
    }

    fn int(v: &Value) -> i128 {
        match v {
            Value::Int(i) => *i,
            Value::BigUint(u) => *u as i128,
            other => panic!("not an integer: {other:?}"),
        }
    }

    fn text(v: &Value) -> &str {
        match v {
            Value::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    fn run(params: &[Ty], f: impl FnMut(&Args) -> Outcome, cfg: &ExploreConfig) -> Exploration {
        explore(params, &mut FnEvaluator(f), cfg, &mut |_| {}).unwrap()
    }

    fn leap(y: i64) -> bool {
        y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
    }

    fn days_in_month(y: i64, m: i128) -> Option<i64> {
        match m {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
            4 | 6 | 9 | 11 => Some(30),
            2 => Some(if leap(y) { 29 } else { 28 }),
            _ => None,
        }
    }

    /// `next_date(y: i32, m: u32, d: u32) -> Result<(i32, u32, u32), DateError>`.
    fn next_date(a: &Args) -> Outcome {
        let (y, m, d) = (int(&a[0]) as i64, int(&a[1]), int(&a[2]) as i64);
        let Some(n) = days_in_month(y, m) else {
            return err("DateError", format!("month {m} out of range"));
        };
        if d == 0 || d > n {
            return err("DateError", format!("day {d} out of range"));
        }
        let next = if d < n {
            (y, m, d + 1)
        } else if m < 12 {
            (y, m + 1, 1)
        } else if y < i32::MAX as i64 {
            (y + 1, 1, 1)
        } else {
            return err("DateError", "year overflow");
        };
        ok(format!("{next:?}"))
    }

    /// `percent(part: i32, total: i32) -> Result<u8, String>`, clamped to 0..=100.
    fn percent(a: &Args) -> Outcome {
        let (part, total) = (int(&a[0]), int(&a[1]));
        if total <= 0 {
            return err("PercentError", "total must be positive");
        }
        ok((part * 100 / total).clamp(0, 100))
    }

    /// `parse_port(s: &str) -> Result<u16, PortError>`.
    fn parse_port(a: &Args) -> Outcome {
        match text(&a[0]).parse::<u16>() {
            Ok(0) => err("PortError", "port 0 is reserved"),
            Ok(p) => ok(p),
            Err(e) => err("ParseIntError", e),
        }
    }

    fn has_pair(x: &Exploration, pred: impl Fn(&Args, &Args) -> bool) -> Option<Pair> {
        x.archive
            .elites()
            .into_iter()
            .find(|p| pred(&p.inputs[0], &p.inputs[1]) || pred(&p.inputs[1], &p.inputs[0]))
            .cloned()
    }

    #[test]
    fn a_threshold_is_refined_to_999_and_1000() {
        for seed in 0..8 {
            let cfg = ExploreConfig { seed, ..ExploreConfig::default() };
            let x = run(&[Ty::int(64, true)], |a| ok(int(&a[0]) >= 1000), &cfg);
            let p =
                has_pair(&x, |a, b| a == &vec![Value::Int(999)] && b == &vec![Value::Int(1000)]);
            assert_eq!(p.map(|p| p.pd), Some(1.0), "seed {seed}");
        }
    }

    #[test]
    fn a_missing_at_sign_is_a_one_character_boundary() {
        for seed in 0..8 {
            let cfg = ExploreConfig { seed, ..ExploreConfig::default() };
            let x = run(&[Ty::Str], |a| ok(text(&a[0]).contains('@')), &cfg);
            let one_at = |a: &Args, b: &Args| {
                let (a, b) = (text(&a[0]), text(&b[0]));
                b.char_indices()
                    .any(|(i, c)| c == '@' && format!("{}{}", &b[..i], &b[i + 1..]) == a)
            };
            let best = x
                .archive
                .elites()
                .into_iter()
                .filter(|p| {
                    one_at(&p.inputs[0], &p.inputs[1]) || one_at(&p.inputs[1], &p.inputs[0])
                })
                .map(|p| p.pd)
                .fold(0.0, f64::max);
            assert!(best >= 1.0, "seed {seed}: best PD of a one-@ pair {best}");
        }
    }

    #[test]
    fn a_boundary_where_one_side_timed_out_is_not_bisected() {
        // A function that is slow past 1000 (a timeout in the worker) and says so at 0: the
        // 0 boundary is refined to -1/0, the timeout one is left where the pairs found it,
        // since each step towards it would cost a call as long as the limit.
        for seed in 0..4 {
            let cfg = ExploreConfig { seed, ..ExploreConfig::default() };
            let f = |a: &Args| match int(&a[0]) {
                n if n > 1000 => Outcome::Timeout,
                n => ok(n >= 0),
            };
            let x = run(&[Ty::int(64, true)], f, &cfg);
            let near = |a: &Args, b: &Args| int(&a[0]) == 1000 && int(&b[0]) == 1001;
            assert!(has_pair(&x, |a, b| int(&a[0]) == -1 && int(&b[0]) == 0).is_some());
            assert!(has_pair(&x, near).is_none(), "seed {seed}: the timeout boundary was bisected");
        }
    }

    #[test]
    fn month_validity_boundaries_are_found_at_both_ends() {
        let month = |a: &Args| match days_in_month(int(&a[0]) as i64, int(&a[1])) {
            Some(n) => ok(n),
            None => err("InvalidMonth", format!("month {} out of range", int(&a[1]))),
        };
        let params = [Ty::int(32, true), Ty::int(32, false)];
        for seed in 0..8 {
            let cfg = ExploreConfig { seed, ..ExploreConfig::default() };
            let x = run(&params, month, &cfg);
            let at = |m1: i128, m2: i128| {
                has_pair(&x, |a, b| a[0] == b[0] && int(&a[1]) == m1 && int(&b[1]) == m2)
            };
            let (low, high) = (at(0, 1), at(12, 13));
            assert!(low.is_some(), "seed {seed}: no 0/1 boundary");
            assert!(high.is_some(), "seed {seed}: no 12/13 boundary");
            assert_eq!(high.unwrap().pd, 1.0);
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_archive() {
        let params = [Ty::int(32, true), Ty::int(32, false), Ty::int(32, false)];
        let elites = |seed| {
            let cfg = ExploreConfig { seed, pairs: 500, ..ExploreConfig::default() };
            let x = run(&params, next_date, &cfg);
            x.archive.elites().into_iter().cloned().collect::<Vec<Pair>>()
        };
        assert_eq!(elites(7), elites(7));
        assert_ne!(elites(7), elites(8));
        let s = [Ty::Str];
        let strings = |seed| {
            let cfg = ExploreConfig { seed, pairs: 300, ..ExploreConfig::default() };
            run(&s, parse_port, &cfg).archive.elites().into_iter().cloned().collect::<Vec<Pair>>()
        };
        assert_eq!(strings(1), strings(1));
    }

    #[test]
    fn exactly_the_pair_budget_is_offered_and_no_input_runs_twice() {
        for (pairs, batch, refine) in
            [(777, 64, true), (1000, 1, true), (50, 64, false), (1, 7, true)]
        {
            let mut seen = HashSet::new();
            let f = |a: &Args| {
                assert!(seen.insert(args_key(a)), "evaluated twice: {a:?}");
                percent(a)
            };
            let cfg = ExploreConfig { pairs, batch, refine, ..ExploreConfig::default() };
            let x = run(&[Ty::int(32, true), Ty::int(32, true)], f, &cfg);
            assert_eq!((x.pairs_evaluated, x.stop), (pairs, StopReason::Pairs));
            assert!(x.evaluations <= 2 * pairs);
            let r = random_pairs(&[Ty::Str], &mut FnEvaluator(parse_port), &cfg).unwrap();
            assert_eq!((r.pairs_evaluated, r.stop), (pairs, StopReason::Pairs));
        }
    }

    #[test]
    fn progress_is_reported_after_every_call_and_ends_at_the_budget() {
        let mut reports: Vec<Progress> = Vec::new();
        let cfg = ExploreConfig { pairs: 300, ..ExploreConfig::default() };
        let x = explore(&[Ty::Str], &mut FnEvaluator(parse_port), &cfg, &mut |p| {
            reports.push(p.clone())
        })
        .unwrap();
        assert!(reports.len() >= 5);
        assert!(reports.windows(2).all(|w| w[0].pairs_evaluated <= w[1].pairs_evaluated));
        let last = reports.last().unwrap();
        assert_eq!(last.pairs_evaluated, 300);
        assert_eq!(last.pairs_total, 300);
        assert_eq!(last.cells, x.archive.len());
        assert_eq!(last.qd_score, x.archive.qd_score());
        let qd: Vec<f64> = x.history.iter().map(|h| h.qd_score).collect();
        assert_eq!(qd, reports.iter().map(|p| p.qd_score).collect::<Vec<_>>());
        assert_eq!(x.history.last().map(|h| h.evaluations), Some(x.evaluations));
        let thin = QdPoint::thin(&x.history, 4);
        assert_eq!(thin.len(), 4);
        assert_eq!((thin[0], thin[3]), (x.history[0], *x.history.last().unwrap()));
    }

    #[test]
    fn a_time_budget_stops_the_run_and_no_parameters_exhaust_it() {
        let cfg = ExploreConfig {
            pairs: usize::MAX,
            time_budget: Some(Duration::from_millis(30)),
            ..ExploreConfig::default()
        };
        let x = run(&[Ty::int(64, true)], |a| ok(int(&a[0]) % 7), &cfg);
        assert_eq!(x.stop, StopReason::Time);
        assert!(x.pairs_evaluated > 0);
        let none = run(&[], |_| ok(1), &ExploreConfig::default());
        assert_eq!((none.stop, none.pairs_evaluated), (StopReason::Exhausted, 0));
        let tiny = run(&[Ty::Bool], |a| ok(a[0].to_json()), &ExploreConfig::default());
        assert_eq!((tiny.stop, tiny.pairs_evaluated), (StopReason::Exhausted, 1));
        assert_eq!(serde_json::to_string(&StopReason::Exhausted).unwrap(), "\"exhausted\"");
    }

    #[test]
    fn executor_errors_are_returned() {
        struct Broken;
        impl Evaluate for Broken {
            fn evaluate(&mut self, _: &[Args]) -> Result<Vec<Outcome>, ExecError> {
                Ok(Vec::new())
            }
        }
        let r = explore(&[Ty::Bool], &mut Broken, &ExploreConfig::default(), &mut |_| {});
        assert!(matches!(r, Err(ExecError::Protocol(_))));
    }

    /// Acceptance target: at 1000 pairs, explore reaches at least 3× the QD-score of uniform
    /// random pairs on average over the demo-like functions. Run with `--nocapture` for figures.
    #[test]
    fn explore_beats_random_pairs_on_qd_score() {
        type Demo = (&'static str, Vec<Ty>, fn(&Args) -> Outcome);
        let demos: Vec<Demo> = vec![
            (
                "next_date",
                vec![Ty::int(32, true), Ty::int(32, false), Ty::int(32, false)],
                next_date,
            ),
            ("percent", vec![Ty::int(32, true), Ty::int(32, true)], percent),
            ("parse_port", vec![Ty::Str], parse_port),
        ];
        let mut ratios = Vec::new();
        for (name, params, f) in demos {
            let (mut qe, mut qr) = (0.0, 0.0);
            let seeds = 0..3u64;
            for seed in seeds.clone() {
                let cfg = ExploreConfig { seed, ..ExploreConfig::default() };
                let e = explore(&params, &mut FnEvaluator(f), &cfg, &mut |_| {}).unwrap();
                let r = random_pairs(&params, &mut FnEvaluator(f), &cfg).unwrap();
                println!(
                    "{name} seed {seed}: explore qd {:.2} cells {} bc {} | random qd {:.4} cells {} bc {}",
                    e.archive.qd_score(),
                    e.archive.len(),
                    e.archive.bc_count(),
                    r.archive.qd_score(),
                    r.archive.len(),
                    r.archive.bc_count()
                );
                qe += e.archive.qd_score();
                qr += r.archive.qd_score();
            }
            let n = seeds.count() as f64;
            let ratio = qe / qr.max(1e-9);
            println!(
                "{name}: explore {:.2} vs random {:.4} (mean of 3 seeds), ratio {ratio:.1}",
                qe / n,
                qr / n
            );
            ratios.push(ratio);
        }
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
        println!("mean ratio {mean:.1}, geometric mean {:.1}", geo.exp());
        assert!(ratios.iter().all(|&r| r >= 3.0), "{ratios:?}");
    }

    #[test]
    fn a_thousand_pairs_on_a_trivial_function_are_fast() {
        let cfg = ExploreConfig::default();
        let t = Instant::now();
        let x = run(
            &[Ty::int(64, true), Ty::Str],
            |a| ok(int(&a[0]) > 10 && text(&a[1]).len() < 5),
            &cfg,
        );
        let took = t.elapsed();
        assert_eq!(x.pairs_evaluated, 1000);
        println!("1000 pairs in {took:?}");
        if !cfg!(debug_assertions) {
            assert!(took < Duration::from_millis(50), "{took:?}");
        }
    }
}
