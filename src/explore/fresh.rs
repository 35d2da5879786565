//! Fresh pairs: a random input and a neighbour, two random inputs, two boundary constants, and,
//! more and more as the archive fills, pairs sampled around elites (chains of shared moves,
//! one-sided steps, SETBVE's shrink-move, crossings of two elites). Elites are drawn mostly in
//! proportion to PD³, with a uniform share so that every cell keeps a chance.

use std::collections::HashSet;

use rand::Rng;

use super::memo::{args_key, hash_unordered};
use super::search::Search;
use crate::exec::ExecError;
use crate::inputs::{args_midpoint, args_neighbour, boundary_args, random_args, shared_neighbour};
use crate::value::Args;

// Search knobs, tuned on the demo functions of the tests (next_date, percent, parse_port) and
// checked on a few others (thresholds, email and `@` checks, float and list functions).

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

impl Search<'_> {
    /// Proposes, runs and offers up to one batch of fresh pairs; queues those with different
    /// outcomes for refinement.
    pub(super) fn fresh_batch(&mut self, uniform: bool) -> Result<(), ExecError> {
        let n = self.batch().min(self.left());
        let mut given_n = 0;
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
            given_n = given.len();
            let rest = self.propose(n.saturating_sub(given.len()));
            given.extend(rest);
            given
        };
        self.evaluate_all(proposals.iter().flat_map(|(a, b)| [a, b]))?;
        for (k, (a, b)) in proposals.into_iter().enumerate() {
            self.origin = if k < given_n {
                self.given_origin.clone()
            } else {
                crate::archive::Origin::Operator
            };
            if self.offer(&a, &b) && !uniform {
                self.refiner.enqueue(self.params, &self.memo, a, b);
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
}
