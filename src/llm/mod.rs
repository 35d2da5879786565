//! The model path: an OpenAI-compatible client, its configuration, prices, response cache and
//! usage accounting, the prompts, the ABEX agents that steer exploration, the strategy library,
//! and test-aware model-written mutants. Everything here is language-neutral except the mutant
//! validation, which is per language ([`mutants::validate_rust`], [`python_mutants::validate_python`]).

pub mod agents;
pub mod cache;
pub mod client;
pub mod config;
pub mod engine;
pub mod mutants;
pub mod prices;
pub mod prompts;
pub mod python_mutants;
pub mod session;
pub mod strategy;
pub mod subject;
pub mod usage;
