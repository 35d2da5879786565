//! Interruption of a run (Ctrl-C, a CI job cancelled or past its limit, a closed terminal): the
//! front end that receives SIGINT, SIGTERM or SIGHUP calls [`request`]; the run then stops starting work, keeps what was
//! finished and writes its report (`"complete": false` with the reason), and the front end exits
//! with [`Interruption::exit_code`]. Nothing here installs a signal handler: `cargo abex` does
//! with `signal-hook`, the pytest plugin with Python's `signal` module.
//!
//! Every process abex starts from the user's project (builds, test binaries, workers, pytest
//! runners) runs in a process group of its own and is [`track`]ed while it runs, so that a
//! request kills every one of them and what they started (a rustc under cargo, a test's own
//! children) at once. A result obtained after the request (a test binary that "failed" because
//! it was killed) is never a finding: whoever waits on a child checks [`requested`] before
//! recording what it gave.
//!
//! The run's time budget ends the same way, short of an interruption: a [`Watchdog`] started
//! with the run's deadline [`expire`]s it when the deadline passes, which kills the process
//! groups of the steps in flight (builds, test runs, pytest runners; not the workers that
//! evaluate functions, whose calls are bounded by the call timeout), so that a build cannot
//! overrun the budget. What a killed step gave is dropped the same way ([`stopped`]), and the
//! run ends normally, its untested mutants and unsearched survivors saying "the time budget ran
//! out".

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// The first signal received, 0 for none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// How many requests were received since the last [`reset`].
static REQUESTS: AtomicUsize = AtomicUsize::new(0);
/// Whether the running run's deadline passed (see [`Watchdog`]).
static EXPIRED: AtomicBool = AtomicBool::new(false);
/// The process groups of the children running now: their leaders' pids, and whether each is a
/// step (killed when the deadline passes too) rather than a worker.
static GROUPS: Mutex<Vec<(u32, bool)>> = Mutex::new(Vec::new());

/// SIGINT: Ctrl-C, or the first signal a CI runner sends to a cancelled job.
pub const SIGINT: i32 = 2;
/// SIGTERM: what `kill` and CI runners send next.
pub const SIGTERM: i32 = 15;
/// SIGHUP: the terminal or the session went away.
pub const SIGHUP: i32 = 1;

/// Why a run was asked to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interruption {
    /// The signal's number.
    pub signal: i32,
}

impl Interruption {
    /// The signal's name: `SIGINT`, `SIGTERM`, or `signal N`.
    pub fn name(self) -> String {
        match self.signal {
            SIGINT => "SIGINT".into(),
            SIGTERM => "SIGTERM".into(),
            SIGHUP => "SIGHUP".into(),
            n => format!("signal {n}"),
        }
    }

    /// The exit status of a process ended by this signal, as shells report it: 128 + the
    /// signal's number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
    pub fn exit_code(self) -> u8 {
        (128 + self.signal.clamp(0, 127)) as u8
    }
}

/// Asks the run to stop because of `signal`, and kills every tracked child's process group.
/// Returns how many requests there were so far (1 for the first: a front end ends the process
/// at once on the second).
pub fn request(signal: i32) -> usize {
    // The flag goes up before the groups are killed: a child that dies of it is then never
    // mistaken for a result (see the module's documentation).
    let _ = SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    let n = REQUESTS.fetch_add(1, Ordering::SeqCst) + 1;
    kill_children();
    n
}

/// The interruption asked for, if any.
pub fn requested() -> Option<Interruption> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(Interruption { signal }),
    }
}

/// Forgets an earlier request: for a front end that runs several analyses in one process (the
/// pytest plugin under `pytester`), at the start of each.
pub fn reset() {
    SIGNAL.store(0, Ordering::SeqCst);
    REQUESTS.store(0, Ordering::SeqCst);
    EXPIRED.store(false, Ordering::SeqCst);
}

/// Ends the running run's time budget now: no step starts any more and the steps in flight are
/// killed (their results dropped, see [`stopped`]); workers live on.
pub fn expire() {
    EXPIRED.store(true, Ordering::SeqCst);
    let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for &(pid, _) in groups.iter().filter(|g| g.1) {
        kill_group(pid);
    }
}

/// Whether the running run's deadline passed and its [`Watchdog`] killed the steps in flight.
pub fn expired() -> bool {
    EXPIRED.load(Ordering::SeqCst)
}

/// Whether what a child gives now is no result: the run was interrupted, or its deadline passed
/// and the child may have been killed for it.
pub fn stopped() -> bool {
    requested().is_some() || expired()
}

/// Kills the process group of every tracked child.
pub fn kill_children() {
    let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for &(pid, _) in groups.iter() {
        kill_group(pid);
    }
}

#[cfg(unix)]
fn kill_group(pid: u32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

/// A child tracked by [`track`]: untracked when dropped (keep it as long as the child runs).
#[derive(Debug)]
pub struct Tracked(u32);

/// Tracks `child`, a step (a build, a test run), started in a process group of its own
/// (`crate::safety::own_group`), so that a request or the deadline kills its group. A child
/// started after either is killed at once.
pub fn track(child: &std::process::Child) -> Tracked {
    tracked(child, true)
}

/// Tracks `child`, a worker that evaluates functions, like [`track`], except that the deadline
/// does not kill it (its calls are bounded by the call timeout, and its caller checks the
/// deadline between them): only a request does.
pub fn track_worker(child: &std::process::Child) -> Tracked {
    tracked(child, false)
}

fn tracked(child: &std::process::Child, step: bool) -> Tracked {
    let pid = child.id();
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push((pid, step));
    // A request between the spawn and the push above has already killed the groups it knew.
    if requested().is_some() || (step && expired()) {
        kill_group(pid);
    }
    Tracked(pid)
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = groups.iter().position(|&(p, _)| p == self.0) {
            groups.swap_remove(at);
        }
    }
}

/// Expires the run when its deadline passes (see [`expire`]) unless it is dropped first; the
/// run holds it from its start to its end.
#[derive(Debug)]
pub struct Watchdog {
    /// Dropped (disconnected) to tell the thread the run ended.
    done: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts watching `deadline` (none: nothing to watch) for a new run: an earlier run's
    /// expiry is forgotten.
    pub fn start(deadline: Option<Instant>) -> Watchdog {
        EXPIRED.store(false, Ordering::SeqCst);
        let Some(deadline) = deadline else {
            return Watchdog { done: None, thread: None };
        };
        let (done, ended) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let wait = deadline.saturating_duration_since(Instant::now());
            if let Err(mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(wait) {
                expire();
            }
        });
        Watchdog { done: Some(done), thread: Some(thread) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_of_an_interruption_is_the_shells() {
        assert_eq!(Interruption { signal: SIGINT }.exit_code(), 130);
        assert_eq!(Interruption { signal: SIGTERM }.exit_code(), 143);
        assert_eq!(Interruption { signal: SIGTERM }.name(), "SIGTERM");
        assert_eq!(Interruption { signal: SIGHUP }.exit_code(), 129);
    }
}
