//! Saving the report as the run goes: every change reaches `report.json` within
//! [`SAVE_EVERY`], atomically (a temporary file renamed into place), so that a run killed at any
//! moment (even by SIGKILL) leaves a report that parses and holds everything finished up to its
//! last write. A save that comes sooner than [`SAVE_EVERY`] after the last write is kept and
//! written by a background thread when its time comes; every write holds one lock, so an older
//! report never overwrites a newer one.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::error::RunError;
use crate::out::OutDir;
use crate::report::Report;

/// The longest a finished result waits before it is written.
pub(crate) const SAVE_EVERY: Duration = Duration::from_millis(500);

/// The report's writer for one run (see the module's documentation).
pub(crate) struct Saver {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    out: OutDir,
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// The newest report not written yet.
    pending: Option<Report>,
    last: Option<Instant>,
    /// The first failed write of the background thread, returned by the next save.
    error: Option<std::io::Error>,
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes `report` (the lock held by the caller, in `state`).
    fn write(&self, state: &mut State, report: &Report) -> std::io::Result<()> {
        state.last = Some(Instant::now());
        self.out.write_report(report).map(|_| ())
    }

    /// The background thread: writes a pending report when its time comes.
    fn flush_loop(&self) {
        let mut state = self.lock();
        loop {
            if state.closed {
                return;
            }
            let Some(due) = state.pending.as_ref().map(|_| state.last.map(|t| t + SAVE_EVERY))
            else {
                state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let now = Instant::now();
            match due {
                Some(due) if due > now => {
                    state = self
                        .wake
                        .wait_timeout(state, due - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                _ => {
                    let report = state.pending.take().expect("checked above");
                    if let Err(e) = self.write(&mut state, &report) {
                        state.error.get_or_insert(e);
                    }
                }
            }
        }
    }
}

impl Saver {
    /// A writer of `out`'s report, with its background thread.
    pub(crate) fn start(out: OutDir) -> Saver {
        let shared =
            Arc::new(Shared { out, state: Mutex::new(State::default()), wake: Condvar::new() });
        let background = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("abex-report".into())
            .spawn(move || background.flush_loop())
            .ok();
        Saver { shared, thread }
    }

    fn error(&self, source: std::io::Error) -> RunError {
        RunError::Output { path: self.shared.out.path.join(crate::out::REPORT_FILE), source }
    }

    /// Saves `report` within [`SAVE_EVERY`]: now when the last write is that old, otherwise by
    /// the background thread (or now, without one).
    pub(crate) fn save(&self, report: &Report) -> Result<(), RunError> {
        let mut state = self.shared.lock();
        if let Some(e) = state.error.take() {
            return Err(self.error(e));
        }
        let due = state.last.is_none_or(|t| t.elapsed() >= SAVE_EVERY);
        if due || self.thread.is_none() {
            state.pending = None;
            return self.shared.write(&mut state, report).map_err(|e| self.error(e));
        }
        state.pending = Some(report.clone());
        self.shared.wake.notify_one();
        Ok(())
    }

    /// Saves `report` now.
    pub(crate) fn save_now(&self, report: &Report) -> Result<(), RunError> {
        let mut state = self.shared.lock();
        state.pending = None;
        self.shared.write(&mut state, report).map_err(|e| self.error(e))
    }

    /// Writes the run's last report and every file rendered from it (`summary.md`, …), and
    /// stops the background thread.
    pub(crate) fn finish(mut self, report: &Report) -> Result<(), RunError> {
        self.stop();
        let path = self.shared.out.path.clone();
        self.shared.out.write_all(report).map_err(|source| RunError::Output { path, source })
    }

    /// The folder written to.
    pub(crate) fn path(&self) -> PathBuf {
        self.shared.out.path.clone()
    }

    fn stop(&mut self) {
        {
            let mut state = self.shared.lock();
            state.pending = None;
            state.closed = true;
        }
        self.shared.wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Saver {
    fn drop(&mut self) {
        // A run that ends in an error still leaves its newest report.
        let pending = self.shared.lock().pending.take();
        if let Some(report) = pending {
            let mut state = self.shared.lock();
            let _ = self.shared.write(&mut state, &report);
        }
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report told apart by its `pairs` setting.
    fn report(mark: usize) -> Report {
        let mut r: Report = serde_json::from_value(serde_json::json!({
            "format": "abex-report", "version": 1, "abex_version": "0", "language": "rust",
            "project_root": "/p", "selection": "all", "complete": false, "targets": [],
            "settings": {"engine": "offline", "pairs": 1, "seed": 0, "call_timeout_ms": 1}
        }))
        .unwrap();
        r.settings.pairs = mark;
        r
    }

    fn written(dir: &std::path::Path) -> usize {
        let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
        serde_json::from_str::<Report>(&text).unwrap().settings.pairs
    }

    #[test]
    fn a_save_soon_after_another_is_written_within_the_interval() {
        let d = tempfile::tempdir().unwrap();
        let saver = Saver::start(OutDir::prepare(&d.path().join("out"), "--out").unwrap());
        saver.save(&report(1)).unwrap();
        assert_eq!(written(&saver.path()), 1);
        saver.save(&report(2)).unwrap();
        saver.save(&report(3)).unwrap();
        // Not yet: the last write was just now.
        assert_eq!(written(&saver.path()), 1);
        std::thread::sleep(SAVE_EVERY + Duration::from_millis(300));
        assert_eq!(written(&saver.path()), 3, "the newest pending report was written");
        saver.save_now(&report(4)).unwrap();
        assert_eq!(written(&saver.path()), 4);
        let path = saver.path();
        saver.finish(&report(5)).unwrap();
        assert_eq!(written(&path), 5);
        assert!(path.join("summary.md").exists());
    }
}
