//! The interface for a source of fresh pairs besides the built-in operators (the model's
//! Explorer agent), and what it is shown before it proposes.

use crate::archive::{Archive, Pair};
use crate::value::Args;

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

    /// Where the pairs of the last [`Proposer::propose`] came from (recorded on the archive
    /// cells they fill).
    fn origin(&self) -> crate::archive::Origin;
}

/// Pairs most recently taken by the archive that a [`View`] shows.
pub(super) const RECENT: usize = 10;
