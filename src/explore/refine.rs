//! Boundary refinement: pairs whose two outcomes differ are bisected, in lockstep rounds, down
//! to two adjacent inputs. Refinement takes about a tenth of the pairs, valid/error boundaries
//! and outcome pairs not refined before first, so that one boundary found many times does not
//! eat the budget.
//!
//! A [`Refiner`] holds the refinements of one run. It never runs an input nor touches the
//! archive: the search loop runs the midpoints it asks for (into the memo), offers the pairs it
//! returns, and tells it which of them were offered.

use std::collections::{HashMap, HashSet};

use super::exploration::ExploreConfig;
use super::memo::{args_key, hash_unordered, Memo};
use crate::inputs::args_midpoint;
use crate::value::{Args, Outcome, Ty};

/// Bisection steps after which a refinement gives up (`u128` needs 128).
const MAX_REFINE_STEPS: u32 = 130;
// Knobs tuned with those of `fresh`.

/// Refinements run side by side: one per this many fresh pairs of a batch, at least one.
const ACTIVE_PER_BATCH: usize = 8;
/// Share of the pairs that refinement may take.
const REFINE_SHARE: f64 = 0.1;

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

/// The refinements of one run: those waiting to start and those running side by side.
pub(super) struct Refiner {
    /// Whether pairs are refined at all ([`ExploreConfig::refine`]).
    on: bool,
    /// Fresh pairs per executor call ([`ExploreConfig::batch`], at least 1).
    batch: usize,
    /// The pair budget of the run ([`ExploreConfig::pairs`]).
    budget: usize,
    /// Pairs from refinement that the archive was offered.
    pairs: usize,
    waiting: Vec<Refinement>,
    active: Vec<Refinement>,
    /// Refinements started per pair of outcome classes (`Refinement::sig`).
    started: HashMap<u64, u32>,
    /// Pairs ever queued for refinement.
    queued: HashSet<u64>,
    seq: u64,
}

impl Refiner {
    pub(super) fn new(cfg: &ExploreConfig) -> Refiner {
        Refiner {
            on: cfg.refine,
            batch: cfg.batch.max(1),
            budget: cfg.pairs,
            pairs: 0,
            waiting: Vec::new(),
            active: Vec::new(),
            started: HashMap::new(),
            queued: HashSet::new(),
            seq: 0,
        }
    }

    /// Whether refinements are running (the next executor call is a refinement round).
    pub(super) fn busy(&self) -> bool {
        !self.active.is_empty()
    }

    /// Counts one pair returned by [`Refiner::step`] that the archive was offered.
    pub(super) fn count_offered(&mut self) {
        self.pairs += 1;
    }

    fn max_active(&self) -> usize {
        (self.batch / ACTIVE_PER_BATCH).max(1)
    }

    /// Queues an evaluated pair for refinement when its outcomes differ and it is not adjacent.
    pub(super) fn enqueue(&mut self, params: &[Ty], memo: &Memo, a: Args, b: Args) {
        if !self.on {
            return;
        }
        let (Some(ka), Some(kb)) = (memo.get(&a), memo.get(&b)) else {
            return;
        };
        // Where one side ran out of time, the boundary lies where the machine's speed puts it,
        // and each step towards it costs a call as long as the limit: it is not refined.
        if ka.text == kb.text || ka.outcome == Outcome::Timeout || kb.outcome == Outcome::Timeout {
            return;
        }
        let (ta, tb) = (ka.text.clone(), kb.text.clone());
        let (ca, cb) = (outcome_class(&ka.outcome), outcome_class(&kb.outcome));
        let sig = hash_unordered(&ca, &cb);
        let rank = (ka.outcome.raised() == kb.outcome.raised()) as u8;
        if !self.queued.insert(hash_unordered(&args_key(&a), &args_key(&b))) {
            return;
        }
        let Some(mid) = args_midpoint(params, &a, &b) else {
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
        if self.waiting.len() > 4 * self.batch {
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
    /// is within its share of the `pairs` offered so far: outcome-class pairs refined least often
    /// first, then valid/error pairs, then the oldest; one per class pair per call. With
    /// `novel_only` (between rounds), only class pairs never refined before.
    pub(super) fn activate(&mut self, novel_only: bool, pairs: usize) {
        // Refinement may take its share of the first 1000 pairs (or of the whole budget when
        // smaller) up front, and of the pairs spent after that.
        let base = pairs.max(self.budget.min(1000));
        if self.pairs as f64 >= REFINE_SHARE * base as f64 {
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

    /// The next point of every active refinement, to run in one executor call before
    /// [`Refiner::step`].
    pub(super) fn mids(&self) -> Vec<Args> {
        self.active.iter().map(|r| r.mid.clone()).collect()
    }

    /// One lockstep bisection step of every active refinement, on the outcomes of their
    /// midpoints in `memo`. Returns the pairs to offer to the archive, in order; offering them
    /// after the whole step is the same as offering each as it comes, since a step reads only the
    /// memo and the refiner's own queue, which offering does not change.
    pub(super) fn step(&mut self, params: &[Ty], memo: &Memo) -> Vec<(Args, Args)> {
        let mut offers = Vec::new();
        let mut next = Vec::with_capacity(self.active.len());
        for mut r in std::mem::take(&mut self.active) {
            let mid = std::mem::take(&mut r.mid);
            let Some((tm, cm)) =
                memo.get(&mid).map(|k| (k.text.clone(), outcome_class(&k.outcome)))
            else {
                continue;
            };
            let (left, right) = (tm != r.ta, tm != r.tb);
            if left {
                offers.push((r.a.clone(), mid.clone()));
            }
            if right {
                offers.push((mid.clone(), r.b.clone()));
            }
            // Follow the half whose outcomes differ; when both do (a third outcome in between),
            // the one that crosses the bigger change (valid/error, then the class), and queue
            // the other half, which holds a boundary too.
            let go_left = left && (!right || crossing(&r.ca, &cm) >= crossing(&cm, &r.cb));
            if left && right {
                if go_left {
                    self.enqueue(params, memo, mid.clone(), r.b.clone());
                } else {
                    self.enqueue(params, memo, r.a.clone(), mid.clone());
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
                if let Some(m) = args_midpoint(params, &r.a, &r.b) {
                    r.mid = m;
                    next.push(r);
                }
            }
        }
        self.active = next;
        offers
    }
}
