//! Progress of a run, for front ends to render (the core never prints): a terminal's progress
//! bars, pytest's status lines.

use std::path::Path;
use std::time::Duration;

use crate::explore::Progress;
use crate::report::TargetReport;
use crate::targets::Target;

/// What a run is doing.
#[derive(Debug)]
pub enum Event<'a> {
    /// Targets are chosen.
    Targets {
        /// The project root.
        root: &'a Path,
        /// Every target, callable or not.
        targets: &'a [Target],
    },
    /// Something the user should know that does not stop the run (an invalid setting that is
    /// read another way, for example); the text may end with a `hint:` line.
    Warning {
        /// What, in a sentence.
        message: String,
    },
    /// A unit (a crate target, a Python project) is being built or copied.
    Building {
        /// The unit's name (the package).
        package: &'a str,
        /// Functions it will call.
        functions: usize,
    },
    /// A unit is built.
    Built {
        /// The unit's name.
        package: &'a str,
        /// How long it took.
        time: Duration,
    },
    /// Exploration of a target starts.
    Exploring {
        /// Its position among the targets.
        index: usize,
        /// The target.
        target: &'a Target,
        /// Its pair budget.
        pairs: usize,
    },
    /// Exploration progress.
    Progress {
        /// The target's position.
        index: usize,
        /// The figures so far.
        progress: &'a Progress,
    },
    /// A unit's mutants are being tested.
    Testing {
        /// The unit's name.
        package: &'a str,
        /// Mutants to test.
        mutants: usize,
        /// Test binaries (Rust) or test files (Python).
        tests: usize,
    },
    /// Survivors of a unit are being proven (witness search, suggested tests).
    Proving {
        /// The unit's name.
        package: &'a str,
        /// Survivors to prove.
        survivors: usize,
    },
    /// The suggested tests were written into the project's files (`--write-tests`).
    TestsWritten {
        /// How many tests.
        tests: usize,
        /// The files, relative to the project root.
        files: &'a [std::path::PathBuf],
    },
    /// A target is done (analysed, taken from the cache, or listed as not driven).
    Done {
        /// Its position.
        index: usize,
        /// Its report entry.
        report: &'a TargetReport,
    },
}
