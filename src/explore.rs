//! The offline explorer: proposes input pairs with the typed operators of `gen`, runs them in
//! batches through an executor, keeps the best pair per cell in the archive, and bisects pairs
//! whose two outcomes differ down to two adjacent inputs (boundary refinement).
//!
//! One iteration of the loop is one executor call: either a batch of fresh pairs or one lockstep
//! round of every active refinement. Fresh pairs mix a random input with a neighbour, two
//! independent random inputs (the usual seeds of refinement), two boundary constants and, more
//! and more as the archive fills, pairs sampled around elites: chains of shared moves that slide a
//! boundary pair into new cells (`inputs::shared_neighbour`), one-sided steps, SETBVE's shrink-move,
//! and crossings of two elites. Elites are drawn mostly in proportion to PD³, with a uniform
//! share so that every cell keeps a chance. Refinement takes about a tenth of the pairs, valid/error
//! boundaries and outcome pairs not refined before first, so that one boundary found many times
//! does not eat the budget.
//!
//! A run is deterministic for a given seed: randomness comes only from a seeded ChaCha8 stream,
//! outcomes are memoised per argument list (functions are assumed deterministic), and the archive
//! is read in its stable elite order. Only the time budget can end a run differently.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::archive::{Archive, Pair};
use crate::exec::{Evaluate, ExecError};
use crate::inputs::{args_midpoint, args_neighbour, boundary_args, random_args, shared_neighbour};
use crate::value::{Args, Outcome, Ty, Value};

/// Bisection steps after which a refinement gives up (`u128` needs 128).
const MAX_REFINE_STEPS: u32 = 130;

/// Fresh batches in a row that offer no new pair before the search counts as exhausted.
const IDLE_BATCHES: u32 = 20;

// Search knobs, tuned on the demo functions of the tests (next_date, percent, parse_port) and
// checked on a few others (thresholds, email and `@` checks, float and list functions).

/// Refinements run side by side: one per this many fresh pairs of a batch, at least one.
const ACTIVE_PER_BATCH: usize = 8;
/// Share of the pairs that refinement may take.
const REFINE_SHARE: f64 = 0.1;
/// Largest share of fresh pairs sampled around elites, and the archive size at half of it.
const ELITE_SHARE: f64 = 0.9;
const ELITE_HALF: f64 = 8.0;
/// Weight of the shared-move chain among the elite operators (the others weigh 10 together).
const SHARED_WEIGHT: u32 = 20;
/// Longest chain of shared moves proposed from one elite in one batch.
const CHAIN: u32 = 4;
/// Elites are drawn in proportion to min(PD, PD_CAP)^PD_POWER, or uniformly with UNIFORM_PICK.
const PD_CAP: f64 = 50.0;
const PD_POWER: i32 = 3;
const UNIFORM_PICK: f64 = 0.2;

/// How a run is bounded and seeded.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploreConfig {
    /// Pairs to offer to the archive, refinement pairs included.
    pub pairs: usize,
    /// Wall-clock budget, checked between executor calls.
    pub time_budget: Option<Duration>,
    /// Seed of the only random stream.
    pub seed: u64,
    /// Whether pairs with different outcomes are bisected down to adjacent inputs.
    pub refine: bool,
    /// Fresh pairs per executor call.
    pub batch: usize,
}

impl Default for ExploreConfig {
    fn default() -> Self {
        ExploreConfig { pairs: 1000, time_budget: None, seed: 0, refine: true, batch: 64 }
    }
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The pair budget was spent.
    Pairs,
    /// The time budget was spent.
    Time,
    /// No new distinct pair could be proposed (no parameters, or a tiny input space).
    Exhausted,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Exploration {
    /// The archive of best pairs per cell.
    pub archive: Archive,
    /// Pairs offered to the archive.
    pub pairs_evaluated: usize,
    /// Calls of the function under test (distinct argument lists).
    pub evaluations: usize,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Why the run ended.
    pub stop: StopReason,
}

/// A snapshot reported after every executor call.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Pairs offered so far.
    pub pairs_evaluated: usize,
    /// The pair budget.
    pub pairs_total: usize,
    /// Occupied archive cells.
    pub cells: usize,
    /// Cells whose elite has PD > 0.
    pub bc_count: usize,
    /// Sum of PD over cells.
    pub qd_score: f64,
}

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

/// What a [`Proposer`] sees before it proposes.
pub struct View<'a> {
    /// The archive so far.
    pub archive: &'a Archive,
    /// The pairs most recently taken by the archive (new cell or better elite), newest last.
    pub recent: &'a [Pair],
    /// Pairs offered so far.
    pub pairs_evaluated: usize,
}

/// A source of fresh pairs besides the built-in operators: the model's Explorer agent.
pub trait Proposer {
    /// Pairs to run in the next fresh batch (at most `n` are used; the built-in operators fill
    /// the rest of the batch). `None` or an empty list leaves the batch to the operators.
    fn propose(&mut self, view: &View<'_>, n: usize) -> Option<Vec<(Args, Args)>>;
}

/// Pairs most recently taken by the archive that a [`View`] shows.
const RECENT: usize = 10;

/// [`explore`], with a `proposer` consulted before every fresh batch. Its pairs are run, offered
/// and refined like the operators' own.
pub fn explore_with(
    params: &[Ty],
    eval: &mut dyn Evaluate,
    cfg: &ExploreConfig,
    progress: &mut dyn FnMut(&Progress),
    mut proposer: Option<&mut dyn Proposer>,
) -> Result<Exploration, ExecError> {
    let mut s = Search::new(params, eval, cfg);
    let mut idle = 0;
    let stop = loop {
        if let Some(stop) = s.stop_reason() {
            break stop;
        }
        if !s.active.is_empty() {
            s.refine_round()?;
        } else {
            let before = s.pairs;
            let n = s.batch().min(cfg.pairs - s.pairs);
            let view = View { archive: &s.archive, recent: &s.recent, pairs_evaluated: s.pairs };
            let mut given = proposer.as_mut().and_then(|p| p.propose(&view, n)).unwrap_or_default();
            given.truncate(n);
            s.given = given;
            s.fresh_batch(false)?;
            s.activate(false);
            idle = if s.pairs == before { idle + 1 } else { 0 };
        }
        progress(&s.progress());
        if idle >= IDLE_BATCHES {
            break StopReason::Exhausted;
        }
    };
    Ok(s.finish(stop))
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

/// An input's outcome and its stringified form.
struct Known {
    outcome: Outcome,
    text: String,
}

/// A pair with different outcomes being bisected: `mid` is the next point to run.
struct Refinement {
    a: Args,
    b: Args,
    /// Stringified outcomes of `a` and `b`.
    ta: String,
    tb: String,
    /// Their classes (see [`outcome_class`]).
    ca: String,
    cb: String,
    mid: Args,
    steps: u32,
    /// Hash of the unordered pair of outcome classes (see [`outcome_class`]).
    sig: u64,
    /// 0 for a valid/error pair, which goes first; 1 for the others.
    rank: u8,
    /// Queue order.
    seq: u64,
}

/// The state of one run.
struct Search<'a> {
    params: &'a [Ty],
    eval: &'a mut dyn Evaluate,
    cfg: &'a ExploreConfig,
    rng: ChaCha8Rng,
    start: Instant,
    known: HashMap<String, Known>,
    archive: Archive,
    pairs: usize,
    /// Pairs offered by refinement.
    refine_pairs: usize,
    evaluations: usize,
    /// Unordered pairs already offered, so the budget is not spent twice on one pair.
    offered: HashSet<u64>,
    waiting: Vec<Refinement>,
    active: Vec<Refinement>,
    /// Refinements started per pair of outcome classes (`Refinement::sig`).
    started: HashMap<u64, u32>,
    /// Pairs ever queued for refinement.
    queued: HashSet<u64>,
    seq: u64,
    /// Pairs most recently taken by the archive, newest last (at most [`RECENT`]).
    recent: Vec<Pair>,
    /// Pairs a [`Proposer`] gave for the next fresh batch.
    given: Vec<(Args, Args)>,
}

/// The memo key of an argument list: the compact JSON of the list.
fn args_key(args: &[Value]) -> String {
    let mut s = String::from("[");
    for (i, v) in args.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&v.to_json());
    }
    s.push(']');
    s
}

/// What refinements are told apart by: a return value in full, an error by its type only (error
/// messages often quote the input, which would make every pair look new).
fn outcome_class(o: &Outcome) -> String {
    match o {
        Outcome::Ok { value } => format!("ok {value}"),
        Outcome::Error { ty, .. } => format!("error {ty}"),
        Outcome::Panic { .. } => "panic".to_string(),
        Outcome::Timeout => "timeout".to_string(),
        Outcome::Crash { .. } => "crash".to_string(),
    }
}

/// How big a change two outcome classes are: 2 between valid and raised, 1 between two classes
/// of the same validity, 0 within one class.
fn crossing(c1: &str, c2: &str) -> u8 {
    let raised = |c: &str| !c.starts_with("ok ");
    if raised(c1) != raised(c2) {
        2
    } else {
        (c1 != c2) as u8
    }
}

fn hash_unordered(x: &str, y: &str) -> u64 {
    let (lo, hi) = if x <= y { (x, y) } else { (y, x) };
    let mut h = DefaultHasher::new();
    lo.hash(&mut h);
    hi.hash(&mut h);
    h.finish()
}

impl<'a> Search<'a> {
    fn new(params: &'a [Ty], eval: &'a mut dyn Evaluate, cfg: &'a ExploreConfig) -> Search<'a> {
        Search {
            params,
            eval,
            cfg,
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            start: Instant::now(),
            known: HashMap::new(),
            archive: Archive::new(),
            pairs: 0,
            refine_pairs: 0,
            evaluations: 0,
            offered: HashSet::new(),
            waiting: Vec::new(),
            active: Vec::new(),
            started: HashMap::new(),
            queued: HashSet::new(),
            seq: 0,
            recent: Vec::new(),
            given: Vec::new(),
        }
    }

    fn batch(&self) -> usize {
        self.cfg.batch.max(1)
    }

    fn max_active(&self) -> usize {
        (self.batch() / ACTIVE_PER_BATCH).max(1)
    }

    fn stop_reason(&self) -> Option<StopReason> {
        if self.params.is_empty() {
            return Some(StopReason::Exhausted);
        }
        if self.pairs >= self.cfg.pairs {
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
        }
    }

    /// Runs every not yet known input of `inputs` in one executor call.
    fn evaluate_all<'x>(
        &mut self,
        inputs: impl IntoIterator<Item = &'x Args>,
    ) -> Result<(), ExecError> {
        let mut batch: Vec<Args> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        for args in inputs {
            let k = args_key(args);
            if !self.known.contains_key(&k) && !keys.contains(&k) {
                batch.push(args.clone());
                keys.push(k);
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        let outcomes = self.eval.evaluate(&batch)?;
        if outcomes.len() != batch.len() {
            return Err(ExecError::Protocol(format!(
                "the executor returned {} outcomes for {} inputs",
                outcomes.len(),
                batch.len()
            )));
        }
        self.evaluations += batch.len();
        for (k, outcome) in keys.into_iter().zip(outcomes) {
            let text = outcome.stringify();
            self.known.insert(k, Known { outcome, text });
        }
        Ok(())
    }

    fn known(&self, args: &[Value]) -> Option<&Known> {
        self.known.get(&args_key(args))
    }

    /// Offers a pair of evaluated inputs to the archive, unless the budget is spent, the inputs
    /// are identical or the pair was offered before. Returns whether it was offered.
    fn offer(&mut self, a: &Args, b: &Args, refining: bool) -> bool {
        if self.pairs >= self.cfg.pairs {
            return false;
        }
        let (ka, kb) = (args_key(a), args_key(b));
        if ka == kb || !self.offered.insert(hash_unordered(&ka, &kb)) {
            return false;
        }
        let (Some(oa), Some(ob)) = (self.known.get(&ka), self.known.get(&kb)) else {
            return false;
        };
        let (oa, ob) = (oa.outcome.clone(), ob.outcome.clone());
        match Pair::new(a.clone(), b.clone(), oa, ob) {
            Some(pair) => {
                if self.archive.insert(pair.clone()) != crate::archive::Insert::Rejected {
                    if self.recent.len() == RECENT {
                        self.recent.remove(0);
                    }
                    self.recent.push(pair);
                }
                self.pairs += 1;
                self.refine_pairs += refining as usize;
                true
            }
            None => false,
        }
    }

    /// Proposes, runs and offers up to one batch of fresh pairs; queues those with different
    /// outcomes for refinement.
    fn fresh_batch(&mut self, uniform: bool) -> Result<(), ExecError> {
        let n = self.batch().min(self.cfg.pairs - self.pairs);
        let proposals = if uniform {
            (0..n)
                .map(|_| {
                    (
                        random_args(self.params, &mut self.rng),
                        random_args(self.params, &mut self.rng),
                    )
                })
                .collect()
        } else {
            let mut given = std::mem::take(&mut self.given);
            given.retain(|(a, b)| a != b);
            let rest = self.propose(n.saturating_sub(given.len()));
            given.extend(rest);
            given
        };
        self.evaluate_all(proposals.iter().flat_map(|(a, b)| [a, b]))?;
        for (a, b) in proposals {
            if self.offer(&a, &b, false) && !uniform {
                self.enqueue(a, b);
            }
        }
        Ok(())
    }

    /// `n` fresh pairs (fewer when proposals keep repeating pairs already offered).
    fn propose(&mut self, n: usize) -> Vec<(Args, Args)> {
        let picks = self.pick_elites(n);
        let filled = self.archive.len() as f64 / (self.archive.len() as f64 + ELITE_HALF);
        let p_elite = if picks.is_empty() { 0.0 } else { ELITE_SHARE * filled };
        let mut out: Vec<(Args, Args)> = Vec::with_capacity(n);
        let mut fresh: HashSet<u64> = HashSet::new();
        let mut tries = 0;
        while out.len() < n && tries < 4 * n {
            tries += 1;
            let pairs = if self.rng.random_bool(p_elite) {
                let i = self.rng.random_range(0..picks.len());
                let j = self.rng.random_range(0..picks.len());
                self.around_elite(&picks[i], &picks[j])
            } else {
                self.fresh_pair(&picks).into_iter().collect()
            };
            for (a, b) in pairs {
                let h = hash_unordered(&args_key(&a), &args_key(&b));
                if out.len() < n && a != b && !self.offered.contains(&h) && fresh.insert(h) {
                    out.push((a, b));
                }
            }
        }
        out
    }

    /// `n` elites, drawn in proportion to PD³ (capped), or uniformly with some probability so
    /// that every cell keeps a chance.
    fn pick_elites(&mut self, n: usize) -> Vec<(Args, Args)> {
        let elites = self.archive.elites();
        if elites.is_empty() {
            return Vec::new();
        }
        let mut cum = Vec::with_capacity(elites.len());
        let mut total = 0.0;
        for e in &elites {
            total += e.pd.min(PD_CAP).powi(PD_POWER);
            cum.push(total);
        }
        (0..n)
            .map(|_| {
                let i = if total > 0.0 && !self.rng.random_bool(UNIFORM_PICK) {
                    let x = self.rng.random_range(0.0..total);
                    cum.partition_point(|&c| c <= x).min(elites.len() - 1)
                } else {
                    self.rng.random_range(0..elites.len())
                };
                let [a, b] = &elites[i].inputs;
                (a.clone(), b.clone())
            })
            .collect()
    }

    /// A pair not tied to the archive.
    fn fresh_pair(&mut self, picks: &[(Args, Args)]) -> Option<(Args, Args)> {
        let rng = &mut self.rng;
        match rng.random_range(0..10) {
            // A random input and a neighbour: boundaries near typical and constant inputs.
            0..=4 => {
                let a = random_args(self.params, rng);
                let b = args_neighbour(self.params, &a, rng)?;
                Some((a, b))
            }
            // Two boundary constants.
            5 => Some((boundary_args(self.params, rng), boundary_args(self.params, rng))),
            // An elite's input against a random one: a far pair to bisect.
            6..=7 if !picks.is_empty() => {
                let (x, y) = &picks[rng.random_range(0..picks.len())];
                let a = if rng.random() { x.clone() } else { y.clone() };
                Some((a, random_args(self.params, rng)))
            }
            // Two independent random inputs: the usual seeds of refinement.
            _ => Some((random_args(self.params, rng), random_args(self.params, rng))),
        }
    }

    /// Pairs sampled around an elite; `other` is a second elite for crossing.
    fn around_elite(&mut self, elite: &(Args, Args), other: &(Args, Args)) -> Vec<(Args, Args)> {
        let params = self.params;
        let rng = &mut self.rng;
        let (e1, e2) = if rng.random() { (&elite.0, &elite.1) } else { (&elite.1, &elite.0) };
        let op = rng.random_range(0..10 + SHARED_WEIGHT);
        if op >= 10 {
            // A chain of shared moves, proposed together: the pair drifts several steps per batch.
            let mut chain = Vec::new();
            let mut cur = (e1.clone(), e2.clone());
            for _ in 0..rng.random_range(1..=CHAIN) {
                let Some(next) = shared_neighbour(params, &cur.0, &cur.1, rng) else { break };
                chain.push(next.clone());
                cur = next;
            }
            if !chain.is_empty() {
                return chain;
            }
        }
        self.around_elite_one(op, e1, e2, other).into_iter().collect()
    }

    /// One pair around the elite `(e1, e2)` by operator `op` (0..10).
    fn around_elite_one(
        &mut self,
        op: u32,
        e1: &Args,
        e2: &Args,
        other: &(Args, Args),
    ) -> Option<(Args, Args)> {
        let params = self.params;
        let rng = &mut self.rng;
        match op {
            // One of its inputs and a short random walk from it.
            0..=3 => {
                let steps = if rng.random_ratio(7, 10) { 1 } else { rng.random_range(2..=4) };
                let mut b = e1.clone();
                for _ in 0..steps {
                    b = args_neighbour(params, &b, rng)?;
                }
                Some((e1.clone(), b))
            }
            // Keep one input, move the other one step.
            4..=6 => Some((e1.clone(), args_neighbour(params, e2, rng)?)),
            // SETBVE's shrink-move: a point between the two, moved one step, against one end.
            7..=8 => {
                let m = args_midpoint(params, e1, e2).unwrap_or_else(|| e2.clone());
                Some((e1.clone(), args_neighbour(params, &m, rng)?))
            }
            // Cross with another elite: a pair to bisect between two regions.
            _ => Some((e1.clone(), if rng.random() { other.0.clone() } else { other.1.clone() })),
        }
    }

    /// Queues an evaluated pair for refinement when its outcomes differ and it is not adjacent.
    fn enqueue(&mut self, a: Args, b: Args) {
        if !self.cfg.refine {
            return;
        }
        let (Some(ka), Some(kb)) = (self.known(&a), self.known(&b)) else {
            return;
        };
        if ka.text == kb.text {
            return;
        }
        let (ta, tb) = (ka.text.clone(), kb.text.clone());
        let (ca, cb) = (outcome_class(&ka.outcome), outcome_class(&kb.outcome));
        let sig = hash_unordered(&ca, &cb);
        let rank = (ka.outcome.raised() == kb.outcome.raised()) as u8;
        if !self.queued.insert(hash_unordered(&args_key(&a), &args_key(&b))) {
            return;
        }
        let Some(mid) = args_midpoint(self.params, &a, &b) else {
            return;
        };
        self.seq += 1;
        self.waiting.push(Refinement {
            a,
            b,
            ta,
            tb,
            ca,
            cb,
            mid,
            steps: 0,
            sig,
            rank,
            seq: self.seq,
        });
        if self.waiting.len() > 4 * self.batch() {
            // Drop the candidate whose outcome pair has been refined most, the newest on ties.
            let started = &self.started;
            let worst = (0..self.waiting.len())
                .max_by_key(|&i| {
                    let w = &self.waiting[i];
                    (started.get(&w.sig).copied().unwrap_or(0), w.rank, w.seq)
                })
                .unwrap_or(0);
            self.waiting.swap_remove(worst);
        }
    }

    /// Starts waiting refinements, up to the number that run side by side and while refinement
    /// is within its share of the pairs: outcome-class pairs refined least often first, then
    /// valid/error pairs, then the oldest; one per class pair per call. With `novel_only` (between
    /// rounds), only class pairs never refined before.
    fn activate(&mut self, novel_only: bool) {
        // Refinement may take its share of the first 1000 pairs (or of the whole budget when
        // smaller) up front, and of the pairs spent after that.
        let base = self.pairs.max(self.cfg.pairs.min(1000));
        if self.refine_pairs as f64 >= REFINE_SHARE * base as f64 {
            return;
        }
        let limit = self.max_active();
        let mut chosen: HashSet<u64> = self.active.iter().map(|r| r.sig).collect();
        while self.active.len() < limit {
            let started = &self.started;
            let best = (0..self.waiting.len())
                .filter(|&i| !chosen.contains(&self.waiting[i].sig))
                .map(|i| {
                    let w = &self.waiting[i];
                    (started.get(&w.sig).copied().unwrap_or(0), w.rank, w.seq, i)
                })
                .filter(|&(n, ..)| !novel_only || n == 0)
                .min();
            let Some((.., i)) = best else { break };
            let r = self.waiting.swap_remove(i);
            *self.started.entry(r.sig).or_insert(0) += 1;
            chosen.insert(r.sig);
            self.active.push(r);
        }
    }

    /// One lockstep bisection step of every active refinement, in one executor call.
    fn refine_round(&mut self) -> Result<(), ExecError> {
        let mids: Vec<Args> = self.active.iter().map(|r| r.mid.clone()).collect();
        self.evaluate_all(&mids)?;
        let mut next = Vec::with_capacity(self.active.len());
        for mut r in std::mem::take(&mut self.active) {
            let mid = std::mem::take(&mut r.mid);
            let Some((tm, cm)) =
                self.known(&mid).map(|k| (k.text.clone(), outcome_class(&k.outcome)))
            else {
                continue;
            };
            let (left, right) = (tm != r.ta, tm != r.tb);
            if left {
                self.offer(&r.a, &mid, true);
            }
            if right {
                self.offer(&mid, &r.b, true);
            }
            // Follow the half whose outcomes differ; when both do (a third outcome in between),
            // the one that crosses the bigger change (valid/error, then the class), and queue
            // the other half, which holds a boundary too.
            let go_left = left && (!right || crossing(&r.ca, &cm) >= crossing(&cm, &r.cb));
            if left && right {
                if go_left {
                    self.enqueue(mid.clone(), r.b.clone());
                } else {
                    self.enqueue(r.a.clone(), mid.clone());
                }
            }
            if go_left {
                r.b = mid;
                (r.tb, r.cb) = (tm, cm);
            } else {
                r.a = mid;
                (r.ta, r.ca) = (tm, cm);
            }
            r.steps += 1;
            if r.steps < MAX_REFINE_STEPS {
                if let Some(m) = args_midpoint(self.params, &r.a, &r.b) {
                    r.mid = m;
                    next.push(r);
                }
            }
        }
        self.active = next;
        self.activate(true);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::FnEvaluator;

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
