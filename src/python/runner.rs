//! The client of `pytest_abex.runner`: a long-lived process in the scratch copy that has
//! collected the tests once and runs them against one mutant per request, each in a fork (see
//! the runner's own documentation for the protocol).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exec::worker::MARKER;

/// The descriptor a runner reads its first twin's requests from (the twin's answers go to the
/// next one, then the second twin's pair, and so on).
const FIRST_LANE_FD: i32 = 3;

/// How long a runner may take to fork a twin, in seconds.
const TWIN_PATIENCE: f64 = 30.0;

/// Longest answer line read from a runner: its failure texts are cut at a few KB each, but the
/// tests that reach each function of a large suite take room.
const MAX_LINE: usize = 64 << 20;

/// A mutant as the Python side applies it: the function's new code is compiled from `source`,
/// the mutated function alone (compiling the whole file for every mutant would cost more than
/// running its tests), placed at `line` so that tracebacks point into the real file.
#[derive(Clone, Debug, Serialize)]
pub struct Patch {
    /// The dotted module.
    pub module: String,
    /// `Class.name` or `name`.
    pub qualname: String,
    /// The file's path in the scratch copy (for tracebacks).
    pub file: PathBuf,
    /// The mutated function's text, from the start of its first line (decorators included).
    pub source: String,
    /// The line `source` starts at in the mutated file (1-based).
    pub line: usize,
    /// Which function of a property it is, when not the getter (`setter`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
}

impl Patch {
    /// The patch of `mutated` (the whole mutated file), whose function spanned `span` (bytes,
    /// decorators included) in the `original` file text.
    pub fn of_function(
        module: &str,
        qualname: &str,
        file: PathBuf,
        original: &str,
        span: (usize, usize),
        mutated: &str,
    ) -> Patch {
        let start = original[..span.0].rfind('\n').map_or(0, |i| i + 1);
        let end = (span.1 + mutated.len()).saturating_sub(original.len()).min(mutated.len());
        let end = if mutated.is_char_boundary(end) { end } else { mutated.len() };
        Patch {
            module: module.to_string(),
            qualname: qualname.to_string(),
            file,
            source: mutated[start..end.max(start)].to_string(),
            line: original[..start].matches('\n').count() + 1,
            role: None,
        }
    }
}

/// The project's interpreter and the limits it runs under.
#[derive(Clone, Debug)]
pub struct Interpreter {
    /// The interpreter (`sys.executable` of the pytest run).
    pub python: PathBuf,
    /// Its address-space limit in bytes, if any.
    pub memory_limit: Option<u64>,
}

/// What a test run of one mutant gave.
/// A survivor's part of a check of suggested tests: its patch, and the names of the tests it
/// runs when not all of them (the others spare it).
pub type SurvivorCheck = (Patch, Option<Vec<String>>);

#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct RunResult {
    /// `pass`, `fail`, `timeout` or `unviable`.
    pub status: String,
    /// The failed tests' node ids.
    #[serde(default)]
    pub failed: Vec<String>,
    /// Why, for `unviable` and odd failures.
    #[serde(default)]
    pub detail: String,
    /// The first failed test's exception (e.g. `AssertionError: assert 'xx' == 'th'`).
    #[serde(default)]
    pub message: String,
    /// Per failed test of a `collect` request (at most 50), its failure's text (the end of it).
    #[serde(default)]
    pub messages: std::collections::BTreeMap<String, String>,
    /// Seconds it took.
    #[serde(default)]
    pub time: f64,
    /// With a trace: per traced function (`module:qualname`), the tests that called it.
    #[serde(default)]
    pub reached: std::collections::BTreeMap<String, Vec<String>>,
    /// With a trace: per traced function asked for seeds, the argument lists the tests passed,
    /// each argument as its kind's tag and its JSON (see `pytest_abex.values.describe`).
    #[serde(default)]
    pub seen: std::collections::BTreeMap<String, Vec<Seen>>,
}

/// One argument list a test passed: parameter name → (tag, JSON).
pub type Seen = std::collections::BTreeMap<String, (String, serde_json::Value)>;

/// A function a baseline traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    /// Its module.
    pub module: String,
    /// `Class.name` or `name`.
    pub qualname: String,
    /// Whether to record the arguments the tests pass (seeds of unannotated parameters).
    pub seeds: bool,
    /// Whether to record those left at their defaults too: a constructor's (a seed of it is a
    /// whole argument list).
    pub defaults: bool,
    /// Which function of a property it is, when not the getter (`setter`).
    pub role: Option<&'static str>,
}

/// Why the runner could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// It could not be started.
    #[error("failed to start `{command}`: {source}\nhint: is pytest-abex installed in this interpreter?")]
    Spawn {
        /// The command.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// It said something unexpected or died.
    #[error("the pytest-abex runner failed: {0}")]
    Broken(String),
}

/// Where a runner runs and how its pytest starts.
pub struct Spot<'a> {
    /// Its working folder: the scratch copy of the project.
    pub cwd: &'a Path,
    /// Where its spec is written.
    pub spec_file: &'a Path,
    /// The import roots inside the copy.
    pub sys_path: &'a [PathBuf],
    /// The user's session's options it passes to its pytest.
    pub pytest_args: &'a [String],
}

/// The process a runner started, shared by the runner and its twins: killed with its process
/// group (its twins and forks too) when the last of them goes, or when the run is interrupted.
struct Group {
    child: Mutex<Child>,
    _tracked: crate::interrupt::Tracked,
}

impl Group {
    fn kill(&self) {
        crate::safety::kill_group(&mut self.child.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

impl Drop for Group {
    /// Kills the runner, its twins and what they started at once: an idle runner holds nothing
    /// to save, and its own end (pytest's session finish, the interpreter's) would cost the run
    /// 20-50 ms per runner, one after another.
    fn drop(&mut self) {
        self.kill();
    }
}

/// A lane not used yet: the pipes a twin of the runner would answer on (see [`Runner::twin`]).
struct Lane {
    /// Its number in the runner's spec.
    number: usize,
    requests: std::fs::File,
    answers: std::fs::File,
}

/// A running `pytest_abex.runner`, or a twin of one (see [`Runner::twin`]).
pub struct Runner {
    group: Arc<Group>,
    requests: Box<dyn Write + Send>,
    lines: Receiver<String>,
    /// Lanes for twins, not used yet.
    lanes: Vec<Lane>,
    /// Tests it collected.
    pub collected: usize,
    /// Test files that failed to collect in it, left out: (file, error).
    pub dropped: Vec<(String, String)>,
    /// The session's node ids it did not collect.
    pub missing: Vec<String>,
    /// Its traced baseline, once run.
    pub traced: Option<RunResult>,
}

impl Runner {
    /// Starts `python -m pytest_abex.runner SPEC` (the run's interpreter, under its memory limit,
    /// secrets scrubbed) at `spot`, collecting `tests` (paths and node ids) and keeping the
    /// items of `node_ids` (all of them when `None`), with pipes for `twins` twins.
    pub fn start(
        python: &Interpreter,
        spot: &Spot<'_>,
        tests: &[PathBuf],
        node_ids: Option<&[String]>,
        twins: usize,
    ) -> Result<Runner, RunnerError> {
        let (cwd, spec_file) = (spot.cwd, spot.spec_file);
        let broken = |e: std::io::Error| RunnerError::Broken(format!("cannot make a pipe: {e}"));
        // Each twin's lane: the runner's ends of two pipes, given to it as descriptors
        // `FIRST_LANE_FD + 2k` (requests) and `+ 1` (answers).
        let mut lanes = Vec::new();
        let mut given = Vec::new();
        let mut lane_fds = serde_json::Map::new();
        for k in 0..twins {
            let (their_requests, requests) = crate::safety::pipe().map_err(broken)?;
            let (answers, their_answers) = crate::safety::pipe().map_err(broken)?;
            let fd = FIRST_LANE_FD + 2 * k as i32;
            given.push((their_requests, fd));
            given.push((their_answers, fd + 1));
            lane_fds.insert((k + 1).to_string(), serde_json::json!([fd, fd + 1]));
            lanes.push(Lane { number: k + 1, requests, answers });
        }
        let spec = serde_json::json!({
            "tests": tests, "sys_path": spot.sys_path, "pytest_args": spot.pytest_args,
            "node_ids": node_ids, "lanes": lane_fds,
        });
        std::fs::write(spec_file, spec.to_string()).map_err(|e| {
            RunnerError::Broken(format!("cannot write `{}`: {e}", spec_file.display()))
        })?;
        let mut cmd = Command::new(&python.python);
        cmd.args(["-m", "pytest_abex.runner"])
            .arg(spec_file)
            .current_dir(cwd)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("ABEX_INNER", "1")
            // Its options are in the spec, the session's `PYTEST_ADDOPTS` among them.
            .env_remove("PYTEST_ADDOPTS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // The session's own environment, as the user's tests ran in it, minus secrets.
        crate::safety::drop_secrets(&mut cmd);
        if let Some(bytes) = python.memory_limit {
            crate::safety::limit_memory(&mut cmd, bytes);
        }
        crate::safety::own_group(&mut cmd);
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let fds: Vec<_> = given.iter().map(|(f, to)| (f.as_raw_fd(), *to)).collect();
            crate::safety::pass_fds(&mut cmd, &fds);
        }
        let command = format!("{} -m pytest_abex.runner", python.python.display());
        let mut child = cmd.spawn().map_err(|source| RunnerError::Spawn { command, source })?;
        // Only the runner holds these ends now: each side sees the end when the other goes.
        drop(given);
        drop(cmd);
        let _tracked = crate::interrupt::track(&child);
        let stdin = child.stdin.take().ok_or_else(|| RunnerError::Broken("no stdin".into()))?;
        let stdout = child.stdout.take().ok_or_else(|| RunnerError::Broken("no stdout".into()))?;
        let group = Arc::new(Group { child: Mutex::new(child), _tracked });
        let mut r = Runner::on(group, Box::new(stdin), stdout);
        r.lanes = lanes;
        r.greeted(tests)?;
        Ok(r)
    }

    /// A runner of `group` that sends its requests to `requests` and reads its answers from
    /// `answers`, before its greeting.
    fn on(
        group: Arc<Group>,
        requests: Box<dyn Write + Send>,
        answers: impl Read + Send + 'static,
    ) -> Runner {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // The runner writes its answers alone on this pipe (its stdout goes to /dev/null
            // inside), each line prefixed; a line past the cap is cut, and reads as broken.
            for line in crate::bounded::Lines::new(answers, MAX_LINE) {
                let line = line.into_text();
                if let Some(answer) = line.strip_prefix(MARKER) {
                    if tx.send(answer.to_string()).is_err() {
                        break;
                    }
                }
            }
        });
        Runner {
            group,
            requests,
            lines: rx,
            lanes: Vec::new(),
            collected: 0,
            dropped: Vec::new(),
            missing: Vec::new(),
            traced: None,
        }
    }

    /// Reads the runner's greeting (it collected `tests`).
    fn greeted(&mut self, tests: &[PathBuf]) -> Result<(), RunnerError> {
        let hello = self.next(Duration::from_secs(300))?;
        let v: serde_json::Value = serde_json::from_str(&hello)
            .map_err(|_| RunnerError::Broken(format!("unexpected greeting `{hello}`")))?;
        if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
            return Err(RunnerError::Broken(format!("{e} (tests: {})", list(tests))));
        }
        self.collected = v.get("collected").and_then(|c| c.as_u64()).unwrap_or(0) as usize;
        let text = |d: &serde_json::Value, k: &str| d[k].as_str().unwrap_or_default().to_string();
        self.dropped = v
            .get("dropped")
            .and_then(|d| d.as_array())
            .map(|d| d.iter().map(|d| (text(d, "file"), text(d, "error"))).collect())
            .unwrap_or_default();
        self.missing = v
            .get("missing")
            .and_then(|d| d.as_array())
            .map(|d| d.iter().filter_map(|id| id.as_str().map(String::from)).collect())
            .unwrap_or_default();
        Ok(())
    }

    /// A twin of this runner: a fork of it, collected and traced as it is (its [`traced`]
    /// baseline too), that answers on a lane of its own; another runner of the same tests
    /// without another interpreter start, collection and baseline (about 0.35 s of processor
    /// time on a small project). `None` when this runner has no lane left (it was started with
    /// fewer twins) or the fork failed. The runner must be idle: the fork copies its state.
    ///
    /// [`traced`]: Runner::traced
    pub fn twin(&mut self) -> Option<Runner> {
        let lane = self.lanes.pop()?;
        let answer =
            self.ask(serde_json::json!({ "twin": lane.number, "timeout": TWIN_PATIENCE })).ok()?;
        let answer: serde_json::Value = serde_json::from_str(&answer).ok()?;
        answer.get("twin")?;
        let mut twin = Runner::on(self.group.clone(), Box::new(lane.requests), lane.answers);
        twin.greeted(&[]).ok()?;
        // What it collected is its runner's.
        twin.dropped = self.dropped.clone();
        twin.missing = self.missing.clone();
        twin.traced = self.traced.clone();
        Some(twin)
    }

    fn next(&mut self, patience: Duration) -> Result<String, RunnerError> {
        self.lines.recv_timeout(patience).map_err(|_| {
            // A runner that stopped answering: its twins go with it.
            self.group.kill();
            RunnerError::Broken("the runner stopped answering".into())
        })
    }

    /// Runs the tests with `patch` applied (none: the original), within `timeout`; with `all`,
    /// every test runs (otherwise the first failure ends the run).
    pub fn run(
        &mut self,
        patch: Option<&Patch>,
        timeout: Duration,
        all: bool,
    ) -> Result<RunResult, RunnerError> {
        self.request(
            serde_json::json!({ "patch": patch, "timeout": timeout.as_secs_f64(), "all": all }),
        )
    }

    /// Runs with `patch` applied, within `timeout`, the tests the last mutant that failed on
    /// this runner ran, in its order, up to its killer (every one of them: a failure does not
    /// end the run): the killer again where it killed.
    pub fn replay(&mut self, patch: &Patch, timeout: Duration) -> Result<RunResult, RunnerError> {
        self.request(serde_json::json!({
            "patch": patch, "timeout": timeout.as_secs_f64(), "all": true, "replay": true
        }))
    }

    /// Runs every test of `files` (collected anew in the fork, e.g. suggested tests) with `patch`
    /// applied.
    pub fn run_files(
        &mut self,
        patch: Option<&Patch>,
        timeout: Duration,
        files: &[PathBuf],
    ) -> Result<RunResult, RunnerError> {
        self.request(serde_json::json!({
            "patch": patch, "timeout": timeout.as_secs_f64(), "all": true, "collect": files,
        }))
    }

    /// Runs every test of `files` (suggested tests, collected in the runner) against each mutant
    /// of `checks` (its number, its patch, and the names of the tests it runs when not all):
    /// per mutant, the tests that failed on it. One forked run serves them all when the tests
    /// are plain calls (see `pytest_abex.runner`'s `checks`); `timeout` is each mutant's limit.
    pub fn run_checks(
        &mut self,
        timeout: Duration,
        files: &[PathBuf],
        checks: &[(u32, SurvivorCheck)],
    ) -> Result<std::collections::BTreeMap<u32, Vec<String>>, RunnerError> {
        let checks: Vec<serde_json::Value> = checks
            .iter()
            .map(|(n, (patch, only))| serde_json::json!({ "n": n, "patch": patch, "only": only }))
            .collect();
        // The batch, then (when it cannot serve) a run per mutant: the answer may take both.
        let patience = timeout.as_secs_f64() * (2 * checks.len() + 2) as f64;
        let answer = self.ask(serde_json::json!({
            "collect": files, "timeout": timeout.as_secs_f64(), "checks": checks,
            "patience": patience,
        }))?;
        #[derive(Deserialize)]
        struct Checked {
            failed_by: std::collections::BTreeMap<u32, Vec<String>>,
        }
        let checked: Checked = serde_json::from_str(&answer)
            .map_err(|e| RunnerError::Broken(format!("unreadable answer `{answer}`: {e}")))?;
        Ok(checked.failed_by)
    }

    /// The baseline: every test on the original, recording which ones call each of `targets`
    /// (and, for those asked, the arguments they pass); from then on a mutant runs only the
    /// tests that call its function.
    /// Kept in [`Runner::traced`].
    pub fn baseline(
        &mut self,
        targets: &[Traced],
        timeout: Duration,
    ) -> Result<RunResult, RunnerError> {
        let trace: Vec<serde_json::Value> = targets
            .iter()
            .map(|t| {
                serde_json::json!({
                    "module": t.module, "qualname": t.qualname, "seeds": t.seeds, "role": t.role,
                    "defaults": t.defaults
                })
            })
            .collect();
        let r = self.request(serde_json::json!({
            "patch": null, "timeout": timeout.as_secs_f64(), "all": true, "trace": trace
        }))?;
        self.traced = Some(r.clone());
        Ok(r)
    }

    fn request(&mut self, req: serde_json::Value) -> Result<RunResult, RunnerError> {
        let answer = self.ask(req)?;
        serde_json::from_str(&answer)
            .map_err(|e| RunnerError::Broken(format!("unreadable answer `{answer}`: {e}")))
    }

    /// Sends `req` and waits for the answer line, at most its `timeout` and a minute.
    fn ask(&mut self, req: serde_json::Value) -> Result<String, RunnerError> {
        let timeout = req["patience"]
            .as_f64()
            .or_else(|| req["timeout"].as_f64())
            .map_or(Duration::from_secs(600), Duration::from_secs_f64);
        let line = format!("{req}\n");
        self.requests
            .write_all(line.as_bytes())
            .and_then(|_| self.requests.flush())
            .map_err(|e| RunnerError::Broken(format!("cannot send a request: {e}")))?;
        self.next(timeout + Duration::from_secs(60))
    }
}

fn list(tests: &[PathBuf]) -> String {
    tests.iter().map(|t| t.display().to_string()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_holds_the_mutated_function_and_its_line() {
        let original = "import re\n\nclass A:\n    @staticmethod\n    def f(x):\n        return x > 1\n\ndef g():\n    pass\n";
        let span = (original.find("@staticmethod").unwrap(), original.find("\n\ndef g").unwrap());
        let mutated = original.replace("x > 1", "x >= 10");
        let p = Patch::of_function("m", "A.f", "m.py".into(), original, span, &mutated);
        assert_eq!(p.line, 4);
        assert_eq!(p.source, "    @staticmethod\n    def f(x):\n        return x >= 10");
    }
}
