//! The language-neutral spine of a run: targets → exploration → mutants → test runs →
//! survivors (witness, pinning, suggested tests) → report, written once for every language.
//! What differs per language sits behind [`FrontEnd`] and [`Lab`] (`crate::rust`,
//! `crate::python`).

mod cases;
mod choose;
mod config;
mod context;
mod error;
mod exploration;
mod feedback;
mod front;
mod reuse;
mod run;
mod saver;
mod searches;
mod shard;
mod survivors;
mod tester;
mod vehicles;

pub use choose::{choose, Catalog};
pub use config::{
    Defaults, LanguageOptions, PytestSession, PythonOptions, RunConfig, RustOptions, Selection,
    TestScope,
};
pub use error::{ExitCode, FrontError, RunError};
pub use front::{
    bounded, Choice, FrontEnd, Lab, Numbered, Suggestion, Tested, Uncallable, Unit, Verdict,
    WitnessWorkers, VERDICT_TEXT,
};
pub use run::run;
pub use shard::shard;
