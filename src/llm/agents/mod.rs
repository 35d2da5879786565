//! The ABEX agents driving exploration (paper 000, section 3): [`Agents`] is the explorer's
//! [`Proposer`], consulted before every fresh batch. It runs the active strategy through the
//! Explorer, applies the stopping rule (10 calls on one strategy, or 3 in a row whose pairs
//! took no cell and improved none), and then lets the Coordinator repeat, select or request a
//! strategy (the Ideator and the Strategy Generator make requested ones). From EvoGPT: the
//! Explorer cycles through personas at several temperatures, and a plateau detector (5 calls in
//! a row with no new cell) injects a fresh generic generation strategy, at most 3 times.
//!
//! The pool starts with the baseline strategy and the best ones the strategy library has for
//! this function or its shape; at the end the strategies used are saved back with their
//! statistics. With `--agents explorer-only` only the Explorer runs, on the baseline strategy;
//! with `no-ideator` requested strategies are generated from the Coordinator's gap directly.

pub mod explorer;
pub mod planner;
mod team;

pub use team::{Agents, MAX_INJECTIONS, PLATEAU, STRATEGY_CALLS, STRATEGY_IDLE};
