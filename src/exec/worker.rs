//! The long-lived worker process and its JSON-lines protocol, shared by every language.
//!
//! Requests are lines `[target_id,[arg0,arg1,…]]` on the worker's stdin. The worker answers each
//! with one line, prefixed by [`MARKER`], on a channel of its own: a pipe it gets as file
//! descriptor [`ANSWER_FD`] (named in `ABEX_ANSWER_FD`), never its stdout, so that what the code
//! under test prints (stdout goes nowhere, stderr to a short tail kept for errors) can never
//! forge an answer. An answer line longer than [`MAX_LINE`] is cut and read as unreadable.
//! The answers: `{"ok":"…"}`, `{"err":["Type","message"]}`, `{"panic":"…"}`, `{"bad":"…"}` (the
//! arguments could not be decoded) or `{"timeout":true}` (then the worker exits). A worker that
//! can interrupt a call and carry on (the Python one) answers `{"timed_out":true}` instead and
//! stays up; it answers `{"slow":true}`, without running it, a call it predicts slow (each of
//! its arguments at least as large as those of a call that took far longer than the target's
//! usual ones): a timeout too, but not one that makes the target's calls go one at a time. It first announces itself with `{"abex_harness":1}`. A worker in probe mode (a
//! mutant's, started with `ABEX_PROBE`) adds a `probe` member to each answer about the mutated
//! site (see [`super::probe`]): `{"ok":"…","probe":{"reached":1,"infected":0,…}}`.
//!
//! Batches are written whole and answered whole. When the worker dies in the middle of a batch,
//! the calls after the last answer are re-run one at a time to find the one that crashed; its
//! outcome is `crash`, and the rest of the batch goes on in a fresh worker. Every process runs
//! with secrets removed from its environment and with a memory limit.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::probe::Answers;
use super::{Evaluate, ExecError, Probe, ProbeEvaluate};
use crate::value::{Args, Outcome, Value};

/// Prefix of every protocol line a worker writes.
pub const MARKER: &str = "@abex@";

/// The file descriptor a worker writes its answers on.
pub const ANSWER_FD: i32 = 3;

/// The environment variable that names [`ANSWER_FD`] to the worker.
pub const ANSWER_FD_ENV: &str = "ABEX_ANSWER_FD";

/// Longest answer line read (a worker cuts each text it sends at 4 KiB).
pub const MAX_LINE: usize = 1 << 20;

/// How to start a worker and what limits it runs under.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Working directory.
    pub cwd: PathBuf,
    /// Per-call time limit.
    pub call_timeout: Duration,
    /// Address-space limit in bytes, if any.
    pub memory_limit: Option<u64>,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// Killed with its process group when the run is interrupted.
    _tracked: crate::interrupt::Tracked,
}

/// A worker process, restarted as needed.
pub struct Worker {
    spec: WorkerSpec,
    running: Option<Running>,
    /// How many times the process was (re)started.
    pub starts: u32,
    /// Its last greeting (a worker may list there the targets it could not load).
    greeting: Option<String>,
    /// Whether its process interrupts a call past its limit and carries on (the greeting says
    /// `"carries_on": true`: the Python worker) rather than stopping (the Rust harness).
    carries_on: bool,
    /// The targets whose calls ran into the time limit: the next process gets their ids in
    /// `ABEX_HUNG_TARGETS`, and the Rust harness gives them a shorter limit (a function that
    /// loops forever on some inputs costs the full limit once, not once per such input). A
    /// timeout never proves a mutant, so the shorter limit cannot forge a witness. Shared with
    /// its siblings and the workers that share its knowledge ([`Worker::sharing_hung`]): what
    /// one learns, the others' next processes know.
    hung: Hung,
    /// Per target that hung, its slowest call since (answered in time), as this worker timed
    /// it: the scale of the limit its calls get ([`Worker::hung_patience`]).
    slowest: std::collections::BTreeMap<usize, Duration>,
}

/// How long past its limit a call of a target that hung before may take before its worker is
/// stopped (others get 2 s: a batch's answers come together).
const HUNG_GRACE: Duration = Duration::from_millis(250);

/// The shortest limit of a call of a target that hung before, as the Python worker's
/// (`pytest_abex/worker.py`; the Rust harness's floor is lower, 20 ms, and it answers itself).
const HUNG_FLOOR: Duration = Duration::from_millis(50);

/// The targets a group of workers saw hang (see [`Worker::sharing_hung`]).
pub type Hung = std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<usize>>>;

/// What reading one answer gave.
enum Answer {
    Outcome(Outcome, Option<Probe>),
    /// The worker did not run the call: it would be slow (`{"slow":true}`, see the module's
    /// doc). A timeout, which says nothing of whether the target hangs.
    Slow,
    /// The worker timed the call out and exited.
    TimedOut,
    /// The worker died without answering.
    Died(String),
}

impl Worker {
    /// A worker that starts on first use.
    pub fn new(spec: WorkerSpec) -> Worker {
        Worker {
            spec,
            running: None,
            starts: 0,
            greeting: None,
            carries_on: false,
            hung: Default::default(),
            slowest: Default::default(),
        }
    }

    /// The worker's greeting (`{"abex_harness":1,…}`), starting it if it is not running.
    pub fn greeting(&mut self) -> Result<String, ExecError> {
        if self.running.is_none() {
            self.start()?;
        }
        Ok(self.greeting.clone().unwrap_or_default())
    }

    /// Another worker of the same program, environment and limits, sharing what this one knows
    /// of the targets that hang (see `hung`); its process starts on its first call.
    pub fn sibling(&self) -> Worker {
        Worker::new(self.spec.clone()).sharing_hung(&self.hung)
    }

    /// The same worker, sharing `hung`, the targets a group of workers saw hang: a lab's
    /// workers (the original, the tracer, each mutant's) run the same functions, and one that
    /// loops forever on some inputs then costs the full call limit once in a run, not once in
    /// each worker.
    pub fn sharing_hung(mut self, hung: &Hung) -> Worker {
        let known: Vec<usize> = self.hung_ids();
        self.hung = hung.clone();
        self.lock_hung().extend(known);
        self
    }

    fn lock_hung(&self) -> std::sync::MutexGuard<'_, std::collections::BTreeSet<usize>> {
        self.hung.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether target `id` ran into the time limit in this worker or one sharing its knowledge.
    pub fn has_hung(&self, id: usize) -> bool {
        self.lock_hung().contains(&id)
    }

    fn hung_ids(&self) -> Vec<usize> {
        self.lock_hung().iter().copied().collect()
    }

    /// The same worker with `env` added to its environment (before it starts).
    pub fn with_env(mut self, env: impl IntoIterator<Item = (String, String)>) -> Worker {
        self.spec.env.extend(env);
        self
    }

    fn start(&mut self) -> Result<(), ExecError> {
        let mut cmd = Command::new(&self.spec.program);
        let command = format!("{} {}", self.spec.program.display(), self.spec.args.join(" "));
        let spawn = |source| ExecError::Spawn { command: command.clone(), source };
        // The answers' own channel (both ends close-on-exec; the child's copy is not).
        let (answers, answer_end) = crate::safety::pipe().map_err(spawn)?;
        cmd.args(&self.spec.args)
            .current_dir(&self.spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .env(ANSWER_FD_ENV, ANSWER_FD.to_string())
            .env("ABEX_CALL_TIMEOUT_MS", self.spec.call_timeout.as_millis().to_string())
            .env(
                "ABEX_HUNG_TARGETS",
                self.hung_ids().iter().map(usize::to_string).collect::<Vec<_>>().join(","),
            )
            .env("RUST_BACKTRACE", "0");
        #[cfg(unix)]
        crate::safety::pass_fd(&mut cmd, std::os::fd::AsRawFd::as_raw_fd(&answer_end), ANSWER_FD);
        for (k, v) in &self.spec.env {
            cmd.env(k, v);
        }
        crate::safety::scrub_env(&mut cmd);
        if let Some(bytes) = self.spec.memory_limit {
            crate::safety::limit_memory(&mut cmd, bytes);
        }
        crate::safety::own_group(&mut cmd);
        let mut child = cmd.spawn().map_err(spawn)?;
        // Only the child writes answers now: the reader sees the end when it exits.
        drop(answer_end);
        drop(cmd);
        let tracked = crate::interrupt::track_worker(&child);
        self.starts += 1;
        let stdin = child.stdin.take().ok_or_else(|| ExecError::Protocol("no stdin".into()))?;
        let stderr_pipe = child.stderr.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in crate::bounded::Lines::new(answers, MAX_LINE) {
                let line = line.into_text();
                if let Some(answer) = line.strip_prefix(MARKER) {
                    if tx.send(answer.to_string()).is_err() {
                        break;
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(mut pipe) = stderr_pipe {
            let keep = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut s = keep.lock().unwrap_or_else(|e| e.into_inner());
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                    if s.len() > 8192 {
                        let cut = s.len() - 4096;
                        let cut = (cut..s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                        s.drain(..cut);
                    }
                }
            });
        }
        let mut running = Running { child, stdin, lines: rx, stderr, _tracked: tracked };
        match running.lines.recv_timeout(Duration::from_secs(30)) {
            Ok(hello) if hello.contains("\"abex_harness\"") => {
                self.carries_on = serde_json::from_str::<serde_json::Value>(&hello)
                    .is_ok_and(|g| g.get("carries_on") == Some(&serde_json::Value::Bool(true)));
                self.greeting = Some(hello);
                self.running = Some(running);
                Ok(())
            }
            Ok(other) => Err(ExecError::Protocol(format!("unexpected greeting `{other}`"))),
            Err(_) => {
                let _ = running.child.kill();
                let status = running.child.wait().ok();
                Err(ExecError::Unstable {
                    restarts: self.starts,
                    detail: death_detail(status, &running.stderr),
                })
            }
        }
    }

    fn stop(&mut self) {
        if let Some(mut r) = self.running.take() {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }

    fn send(&mut self, lines: &str) -> bool {
        let Some(r) = self.running.as_mut() else { return false };
        r.stdin.write_all(lines.as_bytes()).and_then(|_| r.stdin.flush()).is_ok()
    }

    fn answer(&mut self, patience: Duration) -> Answer {
        let Some(r) = self.running.as_mut() else { return Answer::Died("not running".into()) };
        match r.lines.recv_timeout(patience) {
            Ok(line) => match parse_probed_answer(&line) {
                Some((Some(Outcome::Timeout), _)) if line.starts_with("{\"slow\"") => Answer::Slow,
                Some((Some(o), probe)) => Answer::Outcome(o, probe),
                Some((None, _)) => {
                    self.stop();
                    Answer::TimedOut
                }
                None => {
                    let start: String = line.chars().take(200).collect();
                    let detail = format!("unreadable answer `{start}`");
                    Answer::Outcome(Outcome::Crash { detail }, None)
                }
            },
            Err(RecvTimeoutError::Timeout) => {
                // The worker's own watchdog did not fire: kill it from here.
                self.stop();
                Answer::TimedOut
            }
            Err(RecvTimeoutError::Disconnected) => {
                let mut r = self.running.take().expect("checked above");
                let status = r.child.wait().ok();
                Answer::Died(death_detail(status, &r.stderr))
            }
        }
    }

    /// Whether calls of target `id` are waited for one at a time and briefly: it hung before,
    /// in a worker that carries on after a call it interrupted (see `run_probed`).
    fn waits_briefly(&self, id: usize) -> bool {
        self.carries_on && self.has_hung(id)
    }

    /// How long to wait for the answer to a call of target `id`, which hung before: the limit
    /// the worker gives it (twenty times its slowest call since, at least [`HUNG_FLOOR`], at
    /// most the call limit) and [`HUNG_GRACE`].
    fn hung_patience(&self, id: usize) -> Duration {
        let slowest = self.slowest.get(&id).copied().unwrap_or_default();
        (slowest * 20).max(HUNG_FLOOR).min(self.spec.call_timeout) + HUNG_GRACE
    }

    /// Runs `batch` on target `id` and returns one outcome per call.
    pub fn run(&mut self, id: usize, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        Ok(self.run_probed(id, batch)?.into_iter().map(|(o, _)| o).collect())
    }

    /// Runs `batch` on target `id` and returns one outcome per call, each with the probe the
    /// worker sent (in probe mode).
    pub fn run_probed(&mut self, id: usize, batch: &[Args]) -> Result<Answers, ExecError> {
        self.run_asking(id, batch, true)
    }

    /// Runs `batch` on target `id` of a Python worker in probe mode, asking for no probe
    /// (`[id, args, 0]`, which the Rust harness does not take): one outcome per call.
    pub fn run_unprobed(&mut self, id: usize, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        Ok(self.run_asking(id, batch, false)?.into_iter().map(|(o, _)| o).collect())
    }

    /// [`Worker::run_probed`], or without probes ([`Worker::run_unprobed`]) unless `probe`.
    fn run_asking(&mut self, id: usize, batch: &[Args], probe: bool) -> Result<Answers, ExecError> {
        let mut out = Vec::with_capacity(batch.len());
        let mut solo = false;
        let mut failed_starts = 0;
        while out.len() < batch.len() {
            if self.running.is_none() {
                if let Err(e) = self.start() {
                    failed_starts += 1;
                    if failed_starts >= 3 {
                        return Err(e);
                    }
                    continue;
                }
            }
            // In a worker that interrupts a call and carries on (the Python one), a target that
            // ran into the limit before may do so again where the worker's timer cannot reach
            // (C code holding Python's lock: `format(x, ".900000000f")`): its calls go one at a
            // time, each given the limit the worker gives it and a short grace, not 2 s. (The
            // Rust harness stops itself at its own shorter limit.)
            let hung = self.waits_briefly(id);
            solo |= hung;
            let from = out.len();
            let to = if solo { from + 1 } else { batch.len() };
            let mut text = String::with_capacity((to - from) * 16);
            for args in &batch[from..to] {
                text.push('[');
                text.push_str(&id.to_string());
                text.push(',');
                text.push_str(&Value::List(args.clone()).to_json());
                text.push_str(if probe { "]\n" } else { ",0]\n" });
            }
            // A dead pipe shows up as a disconnected reader below, so the result is not needed.
            let _ = self.send(&text);
            // Answers come when the whole batch is done: the first may take the batch's time.
            // A call of a target that hung before goes alone, limited as the worker limits it
            // (it may be stuck where the worker's own timer cannot reach: C code holding
            // Python's lock, `format(x, ".900000000f")`).
            let patience = match hung {
                true => self.hung_patience(id),
                false => self.spec.call_timeout + Duration::from_secs(2),
            };
            let mut wait = match hung {
                true => patience,
                false => patience + self.spec.call_timeout * (to - from) as u32,
            };
            let sent = Instant::now();
            for k in from..to {
                if k > from && self.waits_briefly(id) {
                    // Once the target hangs, the worker answers each call as it ends.
                    wait = self.hung_patience(id);
                }
                let answer = self.answer(wait.min(Duration::from_secs(600)));
                wait = patience;
                match answer {
                    Answer::Outcome(o, probe) => {
                        if o == Outcome::Timeout {
                            // Interrupted and carried on (Python): it hung all the same.
                            self.lock_hung().insert(id);
                        } else if hung {
                            let took = sent.elapsed();
                            let slowest = self.slowest.entry(id).or_default();
                            *slowest = (*slowest).max(took);
                        }
                        out.push((o, probe))
                    }
                    Answer::Slow => out.push((Outcome::Timeout, None)),
                    Answer::TimedOut => {
                        self.lock_hung().insert(id);
                        out.push((Outcome::Timeout, None));
                        break;
                    }
                    Answer::Died(detail) => {
                        if solo || to - from == 1 {
                            out.push((Outcome::Crash { detail }, None));
                        } else {
                            // Unknown which call crashed: re-run the rest one at a time.
                            solo = true;
                        }
                        break;
                    }
                }
            }
        }
        Ok(out)
    }
}

impl Drop for Worker {
    /// Kills the worker and what it started at once: it keeps nothing past its last answer,
    /// and waiting for its interpreter to end costs a run tens of milliseconds per worker.
    fn drop(&mut self) {
        if let Some(mut r) = self.running.take() {
            crate::safety::kill_group(&mut r.child);
        }
    }
}

/// Parses one answer: `Some(Some(outcome))`, `Some(None)` for a timeout, `None` if unreadable.
#[cfg(test)]
pub(crate) fn parse_answer(line: &str) -> Option<Option<Outcome>> {
    parse_probed_answer(line).map(|(o, _)| o)
}

/// Parses one answer and its probe, if it carries one (see [`parse_answer`]).
pub(crate) fn parse_probed_answer(line: &str) -> Option<(Option<Outcome>, Option<Probe>)> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let obj = v.as_object()?;
    let probe = obj.get("probe").and_then(Probe::from_json);
    let (key, val) = obj.iter().find(|(k, _)| *k != "probe")?;
    Some((outcome_of(key, val)?, probe))
}

/// The outcome of an answer whose member is `key: val`; `Some(None)` for a timeout.
fn outcome_of(key: &str, val: &serde_json::Value) -> Option<Option<Outcome>> {
    let s = |v: &serde_json::Value| v.as_str().map(|t| crate::value::cut(t.to_string()));
    Some(Some(match key {
        "ok" => Outcome::Ok { value: s(val)? },
        "err" => {
            let pair = val.as_array()?;
            let message = s(pair.get(1)?)?;
            Outcome::Error { ty: short_type_name(&s(pair.first()?)?), message: unquote(&message) }
        }
        "panic" => Outcome::Panic { message: s(val)? },
        "bad" => Outcome::Error { ty: "abex: bad arguments".into(), message: s(val)? },
        "timeout" => return Some(None),
        "timed_out" | "slow" => Outcome::Timeout,
        _ => return None,
    }))
}

/// `alloc::string::String` → `String`; `core::num::error::ParseIntError` → `ParseIntError`.
pub fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    let mut chars = full.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear();
        } else if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            out.push_str(&word);
            word.clear();
            out.push(c);
        }
    }
    out.push_str(&word);
    out
}

/// A `Debug`-rendered string literal (`"bad month"`) becomes its text; anything else is kept.
fn unquote(debug: &str) -> String {
    if debug.len() >= 2 && debug.starts_with('"') && debug.ends_with('"') {
        if let Ok(serde_json::Value::String(s)) = serde_json::from_str(debug) {
            return s;
        }
        return debug[1..debug.len() - 1].to_string();
    }
    debug.to_string()
}

fn death_detail(status: Option<std::process::ExitStatus>, stderr: &Mutex<String>) -> String {
    let last = stderr
        .lock()
        .map(|s| s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string())
        .unwrap_or_default();
    let how = match status {
        Some(st) => describe_status(st),
        None => "died".to_string(),
    };
    if last.is_empty() {
        how
    } else {
        format!("{how}: {last}")
    }
}

#[cfg(unix)]
fn describe_status(st: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match st.signal() {
        Some(libc::SIGSEGV) => "segmentation fault (SIGSEGV)".into(),
        Some(libc::SIGABRT) => "aborted (SIGABRT)".into(),
        Some(libc::SIGKILL) => "killed (SIGKILL)".into(),
        Some(sig) => format!("killed by signal {sig}"),
        None => format!("exited with {}", st.code().unwrap_or(-1)),
    }
}

#[cfg(not(unix))]
fn describe_status(st: std::process::ExitStatus) -> String {
    format!("exited with {}", st.code().unwrap_or(-1))
}

/// An [`Evaluate`] over one target of a shared worker.
pub struct TargetEvaluator<'a> {
    /// The worker.
    pub worker: &'a mut Worker,
    /// The target's id in the harness.
    pub id: usize,
}

impl Evaluate for TargetEvaluator<'_> {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        self.worker.run(self.id, batch)
    }
}

/// A worker in probe mode answers with probes; any other worker gives `None` for each call.
impl ProbeEvaluate for TargetEvaluator<'_> {
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
        self.worker.run_probed(self.id, batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_into_outcomes() {
        let ok = parse_answer(r#"{"ok":"Some(3)"}"#).unwrap().unwrap();
        assert_eq!(ok, Outcome::Ok { value: "Some(3)".into() });
        let err = parse_answer(r#"{"err":["alloc::string::String","\"bad month\""]}"#);
        assert_eq!(
            err.unwrap().unwrap(),
            Outcome::Error { ty: "String".into(), message: "bad month".into() }
        );
        assert_eq!(parse_answer(r#"{"timeout":true}"#), Some(None));
        assert_eq!(parse_answer(r#"{"timed_out":true}"#), Some(Some(Outcome::Timeout)));
        assert_eq!(parse_answer("garbage"), None);
    }

    #[test]
    fn an_answer_may_carry_a_probe_whatever_its_member_order() {
        let (o, p) =
            parse_probed_answer(r#"{"timed_out":true,"probe":{"reached":1,"infected":1}}"#)
                .unwrap();
        assert_eq!(o, Some(Outcome::Timeout));
        assert_eq!(p.unwrap().infected, Some(1));
        let (o, p) = parse_probed_answer(r#"{"probe":{"reached":0},"ok":"3"}"#).unwrap();
        assert_eq!(o, Some(Outcome::Ok { value: "3".into() }));
        assert_eq!(p.unwrap().reached, 0);
        assert_eq!(parse_probed_answer(r#"{"ok":"3"}"#).unwrap().1, None);
    }

    /// A worker running the Python `script` (in `dir`) with a 100 ms call limit.
    fn scripted(dir: &std::path::Path, script: &str) -> Worker {
        let path = dir.join("worker.py");
        std::fs::write(&path, script).unwrap();
        Worker::new(WorkerSpec {
            program: PathBuf::from("python3"),
            args: vec![path.display().to_string()],
            env: Vec::new(),
            cwd: dir.to_path_buf(),
            call_timeout: Duration::from_millis(100),
            memory_limit: None,
        })
    }

    #[test]
    fn a_call_of_a_target_that_hung_before_is_stopped_a_short_grace_after_its_limit() {
        // A worker that interrupts its first call ever (`timed_out`, as the Python one does)
        // and is stuck in every later one, where its own timer cannot reach (C code holding
        // the GIL).
        let dir = tempfile::tempdir().unwrap();
        let mut w = scripted(
            dir.path(),
            "import os, sys, time\n\
             out = os.fdopen(int(os.environ['ABEX_ANSWER_FD']), 'wb', buffering=0)\n\
             out.write(b'@abex@{\"abex_harness\":1,\"carries_on\":true}\\n')\n\
             for line in sys.stdin:\n\
             \x20   if os.path.exists('answered'):\n\
             \x20       time.sleep(60)\n\
             \x20   open('answered', 'w').close()\n\
             \x20   out.write(b'@abex@{\"timed_out\":true}\\n')\n",
        );
        // Within a batch: the second call is waited for the limit and the 250 ms grace once
        // the first hung, not the 2 s a batch's answers may take.
        let started = Instant::now();
        let both = w.run(0, &[vec![], vec![]]).unwrap();
        assert_eq!(both, [Outcome::Timeout, Outcome::Timeout]);
        assert!(w.has_hung(0), "an interrupted call marks its target as one that hangs");
        let took = started.elapsed();
        assert!(took < Duration::from_millis(1500), "stopped after {took:?}");
        // In a later batch, from its first call.
        let started = Instant::now();
        assert_eq!(w.run(0, &[vec![]]).unwrap(), [Outcome::Timeout]);
        let took = started.elapsed();
        assert!(took < Duration::from_millis(1500), "stopped after {took:?}");
    }

    #[test]
    fn a_call_answered_slow_is_a_timeout_that_leaves_the_batch_whole() {
        // The Python worker answers `slow`, unrun, a call it predicts slow: a timeout, but
        // not one of a target that hangs, whose calls would then go one at a time.
        let dir = tempfile::tempdir().unwrap();
        let mut w = scripted(
            dir.path(),
            "import os, sys\n\
             out = os.fdopen(int(os.environ['ABEX_ANSWER_FD']), 'wb', buffering=0)\n\
             out.write(b'@abex@{\"abex_harness\":1,\"carries_on\":true}\\n')\n\
             for line in sys.stdin:\n\
             \x20   big = '1000' in line\n\
             \x20   out.write(b'@abex@{\"slow\":true}\\n' if big else b'@abex@{\"ok\":\"1\"}\\n')\n",
        );
        let one = Outcome::Ok { value: "1".into() };
        let got = w.run(0, &[vec![Value::Int(1)], vec![Value::Int(1000)], vec![Value::Int(2)]]);
        assert_eq!(got.unwrap(), [one.clone(), Outcome::Timeout, one]);
        assert!(!w.has_hung(0), "a call answered slow says nothing of hanging");
        assert_eq!(parse_answer(r#"{"slow": true}"#), Some(Some(Outcome::Timeout)));
    }

    #[test]
    fn type_names_lose_their_paths() {
        assert_eq!(short_type_name("core::num::error::ParseIntError"), "ParseIntError");
        assert_eq!(short_type_name("alloc::boxed::Box<dyn core::error::Error>"), "Box<dyn Error>");
    }
}
