//! Exploring one target's boundaries: the offline explorer, with the model's agents as its
//! proposer when a session runs, within the target's share of the run's time.

use super::context::Ctx;
use super::error::RunError;
use super::front::{FrontEnd, Lab};
use crate::event::Event;
use crate::explore::{self, Exploration, ExploreConfig, Progress, Proposer};
use crate::llm::agents::Agents;
use crate::value::Ty;

/// Explores target `i` through `lab`'s original of function `driver`: the target itself, or the
/// caller that drives it (see [`super::FrontEnd::vehicle`]).
pub(crate) fn explore(
    ctx: &mut Ctx<'_>,
    lab: &mut dyn Lab,
    i: usize,
    driver: usize,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Exploration, RunError> {
    let front = ctx.front;
    let target = &front.targets()[i];
    let params = driven_types(front, lab, driver);
    let ecfg = ExploreConfig {
        pairs: ctx.cfg.pairs,
        time_budget: Some(ctx.clock_next()),
        seed: ctx.cfg.seed,
        ..ExploreConfig::default()
    };
    on_event(Event::Exploring { index: i, target, pairs: ctx.cfg.pairs });
    let mut eval = lab.evaluator(driver)?;
    let mut progress = |p: &Progress| on_event(Event::Progress { index: i, progress: p });
    let subject = ctx.session.as_ref().map(|_| front.subject(driver, params.clone()));
    let root = front.root();
    let (calls, seed) = (ctx.session.as_ref().map_or(0, |s| s.cfg.explorer_calls), ctx.cfg.seed);
    // Each function's share of the token budget: what is left, over the functions left.
    let left = front.targets().len().saturating_sub(i).max(1) as u64;
    let share = ctx
        .session
        .as_ref()
        .and_then(|s| s.budget.max_tokens.map(|cap| cap.saturating_sub(s.budget.tokens) / left));
    let mut agents = ctx
        .session
        .as_mut()
        .zip(subject.as_ref())
        .map(|(s, subject)| Agents::new(s, subject, root, calls, seed).with_share(share));
    // Offline, a function that takes a dictionary gets pairs that hold the keys it names (a
    // caller that drives a target is not one of the targets the front end has constants of).
    let mut keyed = match &agents {
        None if driver == i => {
            let hints = front.hints(i, &front.self_check(i)).and(lab.hints(i));
            Keyed::new(&params, &hints, seed)
        }
        _ => None,
    };
    let proposer = match agents.as_mut() {
        Some(a) => Some(a as &mut dyn Proposer),
        None => keyed.as_mut().map(|k| k as &mut dyn Proposer),
    };
    // The original in trace mode, for the threshold operator.
    let mut tracer = if explore::thresholds_enabled() { lab.tracer(i, driver)? } else { None };
    let tracer = tracer.as_mut().map(|t| t.as_mut() as &mut dyn crate::exec::ProbeEvaluate);
    let x = explore::explore_traced(&params, eval.as_mut(), tracer, &ecfg, &mut progress, proposer)
        .map_err(|source| RunError::Exec {
            target: target.qualified_name.clone(),
            source,
            hint: front.exec_hint().map(|h| format!("\nhint: {h}")).unwrap_or_default(),
        })?;
    if let Some(a) = agents {
        a.finish();
    }
    Ok(x)
}

/// The value types abex drives target `d` with: the lab's, when it knows better than the
/// function's signature, else the signature's.
pub(crate) fn driven_types(front: &dyn FrontEnd, lab: &mut dyn Lab, d: usize) -> Vec<Ty> {
    match lab.params(d) {
        Some(ps) => ps.into_iter().filter_map(|p| p.ty).collect(),
        None => front.function(d).param_types().unwrap_or_default(),
    }
}

/// The explorer's first pairs for a function that takes a dictionary: inputs that hold the keys
/// the function names (see [`crate::witness::keyed_pairs`]), given out batch by batch.
struct Keyed {
    pairs: Vec<(crate::value::Args, crate::value::Args)>,
}

impl Keyed {
    /// The pairs for `params` with `hints`' constants, the other arguments random (`seed`);
    /// `None` when no argument is a dictionary.
    fn new(params: &[Ty], hints: &crate::witness::Hints, seed: u64) -> Option<Keyed> {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let base = crate::inputs::random_args(params, &mut rng);
        let mut pairs = crate::witness::keyed_pairs(params, &base, hints);
        pairs.reverse();
        (!pairs.is_empty()).then_some(Keyed { pairs })
    }
}

impl Proposer for Keyed {
    fn propose(
        &mut self,
        _: &explore::View<'_>,
        n: usize,
    ) -> Option<Vec<(crate::value::Args, crate::value::Args)>> {
        let take = n.min(self.pairs.len());
        Some(self.pairs.split_off(self.pairs.len() - take).into_iter().rev().collect())
    }

    fn origin(&self) -> crate::archive::Origin {
        crate::archive::Origin::Operator
    }
}
