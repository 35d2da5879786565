//! The model path: an OpenAI-compatible client, its configuration, prices, response cache and
//! usage accounting, the prompts, the ABEX agents that steer exploration, the strategy library,
//! and test-aware model-written mutants. Everything here is language-neutral: how a language shows
//! a function to the model and validates its mutants lives with its front end
//! (`crate::rust::model`, `crate::python::model`).

pub mod agents;
pub mod budget;
pub mod cache;
pub mod client;
pub mod config;
pub mod engine;
pub mod mutants;
pub mod negotiate;
pub mod prices;
pub mod prompts;
pub mod session;
pub mod strategy;
pub mod subject;
pub mod tester;
