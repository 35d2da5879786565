//! abex core: finds what a change's tests do not pin down.
//!
//! One run, the same for every language (`pipeline`): the functions a diff touches (or the named
//! ones, or all) become targets; each is explored for behavioural boundaries (pairs of nearly
//! equal inputs with different outcomes, kept in a MAP-Elites archive); its self-check,
//! rule-based and model-written mutants are tested with the project's own tests in a scratch
//! copy; each survivor is searched for a witness (an input on which it and the original
//! differ), and each witnessed survivor, a gap, gets a suggested test that was compiled and run:
//! it passes on the original and fails on the mutant. Everything goes into one versioned report
//! (`report`), from which the renderers (`render`) and the output folder (`out`) make every
//! other file, and from which `github` posts a pull-request review when asked. What differs per
//! language sits in the front ends (`rust`, `python`), behind the spine's `FrontEnd` and `Lab`
//! traits.
//!
//! The library never prints and never exits: it reports progress as events and returns typed
//! errors, and `cargo abex` and `pytest --abex` render them. The definitions, a walk-through of
//! a run, the layout rules and a map of every file are in `docs/design.md`.

pub mod allowlist;
pub mod archive;
pub mod atomic;
pub mod bounded;
pub mod cache;
pub mod cache_key;
pub mod event;
pub mod exec;
pub mod explore;
pub mod fingerprint;
pub mod github;
pub mod inputs;
pub mod interrupt;
pub mod llm;
pub mod mutate;
pub mod out;
pub mod patch;
pub mod pipeline;
pub mod provenance;
pub mod python;
pub mod render;
pub mod report;
pub mod rust;
pub mod safety;
pub mod scratch;
pub mod secrets;
pub mod targets;
pub mod testname;
pub mod value;
pub mod witness;
