//! Which of a Python project's tests a run uses (all of them for mutants, those that name a
//! function to show the model), and runners started ahead of time.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use super::project::{Project, PyFile};
use super::runner::{Interpreter, Runner};

/// Longest a runner's traced baseline may take.
pub const BASELINE_LIMIT: Duration = Duration::from_secs(600);

/// The test files that can reach `f`: those that name its module and the function (or its
/// class), the selection by import and name, and its own file when the user's pytest runs its
/// doctests.
pub fn reaching(project: &Project, pf: &PyFile, qualname: &str) -> Vec<PathBuf> {
    let last = pf.module.rsplit('.').next().unwrap_or(&pf.module).to_string();
    let head = qualname.split('.').next().unwrap_or(qualname);
    let tail = qualname.rsplit('.').next().unwrap_or(qualname);
    project
        .tests
        .iter()
        .filter(|t| t.file_name().is_some_and(|n| n != "conftest.py"))
        .filter(|t| {
            std::fs::read_to_string(project.root.join(t)).is_ok_and(|text| {
                text.contains(&last) && (text.contains(head) || text.contains(tail))
            })
        })
        .chain(project.doctests.iter().filter(|d| **d == pf.rel))
        .cloned()
        .collect()
}

/// The test files a mutant's tests come from: every test file of the project (conftest files
/// aside). The runner's traced baseline then picks, per function, the tests that call it, so a
/// function called only through others still meets every test that reaches it; selecting files
/// by name would miss those, and report as survivors mutants that the suite does kill.
/// Source files whose doctests the user's pytest runs are test files too.
pub fn suite(project: &Project) -> Vec<PathBuf> {
    project
        .tests
        .iter()
        .filter(|t| t.file_name().is_some_and(|n| n != "conftest.py"))
        .chain(&project.doctests)
        .cloned()
        .collect()
}

/// What starting a runner needs, owned, so that runners can start on another thread.
#[derive(Clone, Debug)]
pub struct RunnerPlace {
    /// The interpreter.
    pub python: Interpreter,
    /// The scratch copy the runner runs in.
    pub scratch: PathBuf,
    /// The import roots inside it.
    pub sys_path: Vec<PathBuf>,
    /// Every function of the run: a runner's baseline traces them all.
    pub traced: Vec<super::runner::Traced>,
    /// The outer session's options the runner passes on.
    pub pytest_args: Vec<String>,
}

impl RunnerPlace {
    /// Starts a runner of `tests`, its spec written to `spec`.
    pub fn start(
        &self,
        spec: &Path,
        tests: &[PathBuf],
    ) -> Result<Runner, super::runner::RunnerError> {
        Runner::start(&self.python, &self.scratch, spec, tests, &self.sys_path, &self.pytest_args)
    }
}

/// Starts a runner for each of the distinct sets of test files `sets` and runs its traced
/// baseline, on a thread (while the functions are explored), so that it is ready when the tests
/// of mutants start. A runner that fails to start is left out: it is started again when needed,
/// and the failure is reported then.
pub fn warm(
    place: RunnerPlace,
    spec_prefix: PathBuf,
    sets: Vec<Vec<PathBuf>>,
) -> JoinHandle<Vec<(Vec<PathBuf>, Runner)>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        for (i, tests) in sets.into_iter().enumerate() {
            let spec = spec_prefix.with_file_name(format!("warm-{i}.json"));
            let Ok(mut runner) = place.start(&spec, &tests) else { continue };
            if runner.baseline(&place.traced, BASELINE_LIMIT).is_ok() {
                out.push((tests, runner));
            }
        }
        out
    })
}
