//! Which of a Python project's tests a run uses (all of them for mutants, those that name a
//! function to show the model), and runners started ahead of time.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use super::project::{Project, PyFile, Selected};
use super::runner::{Interpreter, Runner};
use crate::pipeline::PytestSession;

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

/// What a mutant's tests are collected from: what the user's session collected from (its
/// paths and node ids; the runner then keeps exactly the session's node ids), else every test
/// file of the project (conftest files aside) and the source files whose doctests the session
/// runs. The runner's traced baseline then picks, per function, the tests that call it, so a
/// function called only through others still meets every test that reaches it; selecting files
/// by name would miss those, and report as survivors mutants that the suite does kill.
pub fn suite(sel: &Selected) -> Vec<PathBuf> {
    if !sel.session.paths.is_empty() {
        return sel.session.paths.iter().map(PathBuf::from).collect();
    }
    let project = &sel.project;
    project
        .tests
        .iter()
        .filter(|t| t.file_name().is_some_and(|n| n != "conftest.py"))
        .chain(&project.doctests)
        .cloned()
        .collect()
}

/// Whether the user's session ran no test at all (known: its node ids are given and empty).
pub fn ran_none(sel: &Selected) -> bool {
    sel.session.node_ids.as_ref().is_some_and(Vec::is_empty)
}

/// A fingerprint of the tests the session ran, for the results cache: every test file's name
/// and contents (doctests' files included), and the session's selection (node ids, paths and
/// options), so that a run under another `-k` does not reuse results computed under this one.
pub fn fingerprint(project: &Project, session: &PytestSession) -> String {
    let mut tests: Vec<u8> = Vec::new();
    for t in project.tests.iter().chain(&project.doctests) {
        tests.extend_from_slice(t.display().to_string().as_bytes());
        tests.push(0);
        tests.extend(std::fs::read(project.root.join(t)).unwrap_or_default());
        tests.push(0);
    }
    let selection = serde_json::json!({
        "node_ids": session.node_ids,
        "paths": session.paths,
        "pytest_args": session.pytest_args,
    });
    crate::cache::key(&[&tests, selection.to_string().as_bytes()])
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
    /// The node ids the session ran (`None`: not known).
    pub node_ids: Option<Vec<String>>,
}

impl RunnerPlace {
    /// Starts a runner of the session's tests, collected from `tests` (what [`suite`] gives),
    /// its spec written to `spec`: it keeps exactly the session's node ids. It can fork
    /// `twins` twins of itself ([`Runner::twin`]).
    pub fn start(
        &self,
        spec: &Path,
        tests: &[PathBuf],
        twins: usize,
    ) -> Result<Runner, super::runner::RunnerError> {
        Runner::start(&self.python, &self.spot(spec), tests, self.node_ids.as_deref(), twins)
    }

    /// Starts a runner of `files` alone (abex's suggested tests), its spec written to `spec`.
    pub fn start_files(
        &self,
        spec: &Path,
        files: &[PathBuf],
    ) -> Result<Runner, super::runner::RunnerError> {
        Runner::start(&self.python, &self.spot(spec), files, None, 0)
    }

    fn spot<'a>(&'a self, spec: &'a Path) -> super::runner::Spot<'a> {
        super::runner::Spot {
            cwd: &self.scratch,
            spec_file: spec,
            sys_path: &self.sys_path,
            pytest_args: &self.pytest_args,
        }
    }
}

/// Starts `copies` runners for each of the distinct sets of test files `sets`, on a thread per
/// set (while the functions are explored), so that the `jobs` runners the tests of mutants use
/// are ready when those start: one runner collects and runs the traced baseline, and the
/// others are its twins ([`Runner::twin`]), forked from it then, without an interpreter start,
/// a collection and a baseline of their own. A twin that cannot be forked is started as a
/// runner of its own. A runner that fails to start is left out: it is started again when
/// needed, and the failure is reported then.
pub fn warm(
    place: RunnerPlace,
    spec_prefix: PathBuf,
    sets: Vec<Vec<PathBuf>>,
    copies: usize,
) -> JoinHandle<Vec<(Vec<PathBuf>, Runner)>> {
    std::thread::spawn(move || {
        let place = &place;
        let copies = copies.max(1);
        let warmed: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = sets
                .iter()
                .enumerate()
                .map(|(i, tests)| {
                    let spec_prefix = &spec_prefix;
                    let spec =
                        move |j: usize| spec_prefix.with_file_name(format!("warm-{i}-{j}.json"));
                    s.spawn(move || {
                        let started = |j: usize, twins: usize| {
                            let mut runner = place.start(&spec(j), tests, twins).ok()?;
                            runner.baseline(&place.traced, BASELINE_LIMIT).ok()?;
                            Some(runner)
                        };
                        let Some(first) = started(0, copies - 1) else { return Vec::new() };
                        let mut runners = vec![(tests.clone(), first)];
                        for j in 1..copies {
                            if let Some(r) = runners[0].1.twin().or_else(|| started(j, 0)) {
                                runners.push((tests.clone(), r));
                            }
                        }
                        runners
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).flatten().collect()
        });
        warmed
    })
}
