//! abex core: finds what a change's tests do not pin down.
//!
//! The pipeline (DESIGN.md): targets from a diff → an executor per target → boundary exploration
//! into a MAP-Elites archive → report. The library never prints and never exits; it reports
//! progress as [`pipeline::Event`]s and returns typed errors. Front ends (`cargo abex`,
//! `pytest --abex`) render them.

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
