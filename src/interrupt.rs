//! Interruption of a run (Ctrl-C, a CI job cancelled or past its limit): the front end that
//! receives SIGINT or SIGTERM calls [`request`]; the run then stops starting work, keeps what was
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

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The first signal received, 0 for none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// How many requests were received since the last [`reset`].
static REQUESTS: AtomicUsize = AtomicUsize::new(0);
/// The process groups of the children running now (their leaders' pids).
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// SIGINT: Ctrl-C, or the first signal a CI runner sends to a cancelled job.
pub const SIGINT: i32 = 2;
/// SIGTERM: what `kill` and CI runners send next.
pub const SIGTERM: i32 = 15;

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
            n => format!("signal {n}"),
        }
    }

    /// The exit status of a process ended by this signal, as shells report it: 128 + the
    /// signal's number (130 for SIGINT, 143 for SIGTERM).
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
}

/// Kills the process group of every tracked child.
pub fn kill_children() {
    let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for &pid in groups.iter() {
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

/// Tracks `child`, started in a process group of its own (`crate::safety::own_group`), so that
/// a request kills its group. A child started after a request is killed at once.
pub fn track(child: &std::process::Child) -> Tracked {
    let pid = child.id();
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
    // A request between the spawn and the push above has already killed the groups it knew.
    if requested().is_some() {
        kill_group(pid);
    }
    Tracked(pid)
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = groups.iter().position(|&p| p == self.0) {
            groups.swap_remove(at);
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
    }
}
