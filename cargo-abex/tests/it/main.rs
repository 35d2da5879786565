//! `cargo abex`'s integration tests, one module a former test file, in one test binary: each
//! file of `tests/` is a binary of its own that links the library again, so one binary per
//! crate links it once (as cargo-mutants does). The helpers are the root crate's
//! (`tests/it/support/`): `support`, and the fake GitHub API as `fake`. Run one module with
//! `cargo test -p cargo-abex --test it cli::`.

#[path = "../../../tests/it/support/mod.rs"]
mod support;

#[path = "../../../tests/it/support/github.rs"]
mod fake;

mod bounds;
mod builds;
mod cache;
mod cli;
mod faults;
mod github;
mod interrupt;
mod llm;
mod readable;
mod real_model;
mod review_groups;
mod types;
mod witness;
