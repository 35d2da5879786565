//! What can go wrong on the Rust side of a run, and which exit code it deserves.

use crate::exec::ExecError;
use crate::pipeline::{ExitCode, FrontError};
use crate::rust::harness::HarnessError;
use crate::rust::workspace::WorkspaceError;

/// Errors of `cargo abex`'s front end.
#[derive(Debug, thiserror::Error)]
pub enum RustError {
    /// The workspace could not be loaded.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A build failed.
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// The tests fail without any mutant.
    #[error("the tests of `{package}` fail before any mutation (test `{test}`):\n{output}\nhint: fix the failing test first, abex needs a passing baseline; or leave it out of every run with `--skip-test {test}` (a test that cannot pass here, one that needs the network, say)")]
    BaselineFails {
        /// The package.
        package: String,
        /// The failing test.
        test: String,
        /// The end of its output.
        output: String,
    },
    /// The tests hang without any mutant. The hint names what makes a suite that finishes under
    /// `cargo test` run longer in abex's build (base64 0.22.1's whole library suite, at its
    /// `[profile.test] opt-level = 3`: 32 s under `cargo test`, 44 s while the baseline records
    /// which test reaches which site), and the way out.
    #[error("the tests of `{package}` did not finish within {secs} s before any mutation\nhint: abex runs them once recording which test reaches each changed function, in a build where every mutation site checks whether a mutant is active, so a test that calls such a function millions of times (an exhaustive test) takes longer than under `cargo test`; mark it `#[ignore]` (abex runs the tests `cargo test` runs), or name fewer functions with `--function`")]
    BaselineHangs {
        /// The package.
        package: String,
        /// The limit.
        secs: u64,
    },
    /// A worker failed.
    #[error(transparent)]
    Exec(#[from] ExecError),
}

impl FrontError for RustError {
    fn exit_code(&self) -> ExitCode {
        match self {
            RustError::Workspace(_)
            | RustError::Harness(HarnessError::CrateDoesNotBuild { .. })
            | RustError::BaselineFails { .. }
            | RustError::BaselineHangs { .. } => ExitCode::Usage,
            _ => ExitCode::Infrastructure,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_baseline_that_runs_too_long_says_why_it_may_and_what_to_do() {
        let e = RustError::BaselineHangs { package: "base64".into(), secs: 600 };
        let text = e.to_string();
        let (what, hint) = text.split_once("\nhint: ").expect("a hint");
        assert_eq!(what, "the tests of `base64` did not finish within 600 s before any mutation");
        assert!(hint.contains("#[ignore]") && hint.contains("--function"), "{hint}");
        assert_eq!(e.exit_code(), ExitCode::Usage);
    }
}
