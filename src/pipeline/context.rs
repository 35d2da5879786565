//! What one run shares across its units and phases: its settings, the front end, the model
//! session, the deadline, and how exploration time is shared out.

use std::time::{Duration, Instant};

use super::config::{Defaults, RunConfig};
use super::front::FrontEnd;
use crate::llm::session::Session;

/// How the run's exploration time is shared: half the time budget, split evenly over the
/// targets still to explore; [`Defaults::EXPLORE_CAP`] each without a budget.
pub(crate) struct ExploreClock {
    pub(crate) started: Instant,
    pub(crate) budget: Option<Duration>,
    pub(crate) left: usize,
}

impl ExploreClock {
    /// The time of the next target's exploration (one fewer left afterwards).
    pub(crate) fn next(&mut self) -> Duration {
        let share = self.budget.map_or(Defaults::EXPLORE_CAP, |b| {
            (b / 2).saturating_sub(self.started.elapsed()) / self.left.max(1) as u32
        });
        self.left = self.left.saturating_sub(1);
        share
    }

    /// One target fewer to explore (taken from the cache).
    pub(crate) fn skip(&mut self) {
        self.left = self.left.saturating_sub(1);
    }
}

/// What one run shares across its units.
pub(crate) struct Ctx<'r> {
    pub(crate) cfg: &'r RunConfig,
    pub(crate) front: &'r dyn FrontEnd,
    pub(crate) session: Option<Session>,
    pub(crate) deadline: Option<Instant>,
    pub(crate) clock: ExploreClock,
    /// What the run took from the results cache so far.
    pub(crate) reused: crate::report::Reused,
}

impl Ctx<'_> {
    /// The exploration time of the next target.
    pub(crate) fn clock_next(&mut self) -> Duration {
        self.clock.next()
    }

    /// Whether to start no more work: the run's time budget is spent or it was interrupted.
    pub(crate) fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || crate::interrupt::requested().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exploration_time_is_half_the_budget_shared_by_the_targets_left() {
        let mut c = ExploreClock {
            started: Instant::now(),
            budget: Some(Duration::from_secs(40)),
            left: 4,
        };
        let first = c.next();
        assert!(
            first <= Duration::from_secs(5) && first > Duration::from_millis(4900),
            "{first:?}"
        );
        assert_eq!(c.left, 3);
        let mut unbounded = ExploreClock { started: Instant::now(), budget: None, left: 2 };
        assert_eq!(unbounded.next(), Defaults::EXPLORE_CAP);
    }
}
