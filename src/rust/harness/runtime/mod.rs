//! The harness runtime's own tests. The runtime is source text that abex pastes into the user's
//! crate (`core.rs`, `probe.rs`, `built.rs`, read with `include_str!` by `generate.rs`); these
//! tests include it as a module body, exactly as the generated harness does.

mod built_tests;
mod tests;
