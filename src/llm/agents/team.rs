//! The agents exploring one function ([`Agents`]): the pool of strategies, the stopping rule, the
//! plateau detector, and the [`Proposer`] that runs the Explorer on the active strategy.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::explorer;
use super::planner::{self, Decision};
use crate::explore::{Proposer, View};
use crate::llm::config::AgentsMode;
use crate::llm::session::Session;
use crate::llm::strategy::{Kind, Library, Mode, Stats, Strategy};
use crate::llm::subject::Subject;
use crate::value::Args;

/// Calls on one strategy before the Coordinator is asked.
pub const STRATEGY_CALLS: u32 = 10;
/// Calls in a row without gain that stop a strategy.
pub const STRATEGY_IDLE: u32 = 3;
/// Calls in a row without a new cell that count as a plateau.
pub const PLATEAU: u32 = 5;
/// Most fresh-generation injections per function.
pub const MAX_INJECTIONS: u32 = 3;
/// Library strategies seeded into a pool.
const SEEDS: usize = 3;

/// The agents exploring one function.
pub struct Agents<'s> {
    session: &'s mut Session,
    subject: &'s Subject,
    library: Library,
    pool: Vec<Strategy>,
    active: usize,
    /// Calls on the active strategy, and of those the last ones in a row without gain.
    iterations: u32,
    idle: u32,
    /// Calls in a row without a new cell, and injections made.
    stall: u32,
    injections: u32,
    /// The pairs of the last call that were not elites already, and how many cells the
    /// agents' own pairs held before it.
    last: Option<(Vec<(Args, Args)>, usize)>,
    calls: usize,
    /// Explorer calls at most (0: no fixed cap).
    max_calls: usize,
    /// The function's share of the token budget, if there is one.
    share: Option<u64>,
    rng: ChaCha8Rng,
    /// The strategy and persona of the last Explorer call.
    last_origin: crate::archive::Origin,
    /// Strategies seeded from the library.
    pub seeded: usize,
}

impl<'s> Agents<'s> {
    /// Agents for `subject`, making at most `max_calls` Explorer calls.
    pub fn new(
        session: &'s mut Session,
        subject: &'s Subject,
        root: &std::path::Path,
        max_calls: usize,
        seed: u64,
    ) -> Agents<'s> {
        let library = Library::open(root);
        let mut pool = vec![Strategy::baseline()];
        if session.cfg.agents != AgentsMode::ExplorerOnly {
            let seeds =
                library.seeds(&subject.function_fingerprint(), &subject.shape_fingerprint(), SEEDS);
            pool.extend(seeds.into_iter().map(|s| Strategy { stats: Stats::default(), ..s }));
        }
        let seeded = pool.len() - 1;
        session.report.strategies_seeded += seeded as u64;
        Agents {
            session,
            subject,
            library,
            // A seeded pool starts from the best strategy learnt before.
            active: if seeded > 0 { 1 } else { 0 },
            pool,
            iterations: 0,
            idle: 0,
            stall: 0,
            injections: 0,
            last: None,
            calls: 0,
            max_calls,
            share: None,
            rng: ChaCha8Rng::seed_from_u64(seed),
            last_origin: crate::archive::Origin::Operator,
            seeded,
        }
    }

    /// The same agents, stopping once the function has spent `tokens` (its share of the run's
    /// token budget).
    pub fn with_share(mut self, tokens: Option<u64>) -> Agents<'s> {
        self.share = tokens;
        self
    }

    /// Whether the function's share of the token budget is spent.
    fn share_spent(&self) -> bool {
        let spent = self
            .session
            .report
            .by_function
            .get(&self.subject.name)
            .map_or(0, |s| s.prompt_tokens + s.completion_tokens);
        self.share.is_some_and(|share| spent >= share)
    }

    /// The pool (for tests and the report).
    pub fn pool(&self) -> &[Strategy] {
        &self.pool
    }

    /// Saves the strategies used to the library.
    pub fn finish(self) {
        if self.session.cfg.agents == AgentsMode::ExplorerOnly {
            return;
        }
        let (f, s) = (self.subject.function_fingerprint(), self.subject.shape_fingerprint());
        for st in &self.pool {
            self.library.save(&f, &s, st);
        }
    }

    /// Records how the last call did.
    fn score_last(&mut self, view: &View<'_>) {
        let Some((pairs, own_before)) = self.last.take() else { return };
        let elites = view.archive.elites();
        let took = pairs.iter().any(|p| is_elite(&elites, p));
        self.pool[self.active].stats.record(took);
        self.iterations += 1;
        self.idle = if took { 0 } else { self.idle + 1 };
        // A plateau of the agents' own: no new cell held by a pair they proposed (cells the
        // offline operators or bisection found meanwhile do not count).
        self.stall = if own_cells(view) > own_before { 0 } else { self.stall + 1 };
    }

    fn switch_to(&mut self, i: usize) {
        self.active = i;
        self.iterations = 0;
        self.idle = 0;
    }

    /// The plateau detector and the stopping rule, before a call.
    fn steer(&mut self, view: &View<'_>) {
        let mode = self.session.cfg.agents;
        if mode == AgentsMode::ExplorerOnly {
            return;
        }
        if self.stall >= PLATEAU && self.injections < MAX_INJECTIONS {
            self.injections += 1;
            self.stall = 0;
            self.pool.push(Strategy {
                name: format!("fresh generation {}", self.injections),
                mode: Mode::Generation,
                kind: Kind::Generic,
                steps: vec![
                    "Ignore the inputs tried so far and pick a region of the input space none of them is in.".into(),
                    "Use unusual but valid values there: extremes, empty and very long values, special characters.".into(),
                    "Pair each with a minimally changed neighbour.".into(),
                ],
                stats: Stats::default(),
            });
            let last = self.pool.len() - 1;
            self.switch_to(last);
            return;
        }
        if self.iterations < STRATEGY_CALLS && self.idle < STRATEGY_IDLE {
            return;
        }
        let why = if self.idle >= STRATEGY_IDLE {
            format!("{STRATEGY_IDLE} calls in a row found no new cell and no better pair")
        } else {
            format!("it ran {STRATEGY_CALLS} calls")
        };
        let decision = planner::coordinate(
            self.session,
            self.subject,
            &self.pool,
            self.active,
            &why,
            view.archive,
        );
        match decision {
            Some(Decision::Select(i)) => self.switch_to(i),
            Some(Decision::Request { mode: m, kind, gap }) => {
                let direction = if mode == AgentsMode::Full {
                    planner::ideate(self.session, self.subject, m, kind, &gap, &self.pool)
                } else {
                    Some(gap)
                };
                let made = direction
                    .and_then(|d| planner::generate(self.session, self.subject, m, kind, &d));
                match made {
                    Some(s) => {
                        self.pool.push(s);
                        let last = self.pool.len() - 1;
                        self.switch_to(last);
                    }
                    None => self.switch_to(self.active),
                }
            }
            Some(Decision::Repeat) | None => self.switch_to(self.active),
        }
    }
}

/// Archive cells whose elite the model's Explorer proposed.
fn own_cells(view: &View<'_>) -> usize {
    view.archive.elites().iter().filter(|p| p.origin.kind() == "model").count()
}

/// Whether `(a, b)` is an elite, in either order.
fn is_elite(elites: &[&crate::archive::Pair], (a, b): &(Args, Args)) -> bool {
    elites.iter().any(|e| {
        let [x, y] = &e.inputs;
        (x == a && y == b) || (x == b && y == a)
    })
}

impl Proposer for Agents<'_> {
    fn propose(&mut self, view: &View<'_>, _n: usize) -> Option<Vec<(Args, Args)>> {
        self.score_last(view);
        let capped = self.max_calls > 0 && self.calls >= self.max_calls;
        if capped || self.share_spent() || self.session.stopped().is_some() {
            return None;
        }
        self.steer(view);
        let persona_index = self.calls % explorer::PERSONAS.len();
        let (persona, temperature) = explorer::PERSONAS[persona_index];
        self.last_origin = crate::archive::Origin::Model {
            strategy: self.pool[self.active].name.clone(),
            persona: persona_index,
        };
        let messages = explorer::messages(
            self.session,
            self.subject,
            &self.pool[self.active],
            persona,
            view,
            &mut self.rng,
        );
        self.calls += 1;
        let pairs = explorer::ask(self.session, self.subject, messages, temperature)?;
        let elites = view.archive.elites();
        let fresh = pairs.iter().filter(|p| !is_elite(&elites, p)).cloned().collect();
        self.last = Some((fresh, own_cells(view)));
        Some(pairs)
    }

    fn origin(&self) -> crate::archive::Origin {
        self.last_origin.clone()
    }
}
