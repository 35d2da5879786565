//! abex's integration tests, one module a former test file, in one test binary: each file of
//! `tests/` is a binary of its own that links the library again, so one binary per crate links
//! it once (as cargo-mutants does). The helpers they share are `support`; the fixture crates
//! and frozen data stay in `tests/fixtures/` and `tests/data/`. Run one module with
//! `cargo test --test it render::`.

mod support;

mod agents;
mod allowlist;
mod executor;
mod html;
mod layout;
mod llm_client;
mod operators;
mod prompts;
mod render;
mod sarif;
