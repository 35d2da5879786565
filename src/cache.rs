//! Per-function results cache under `.abex/cache/results/`, so that a re-run on the same commit
//! analyses nothing again and a push that changes one function analyses only that one.
//!
//! A result is keyed by a fingerprint ([`crate::fingerprint::key`], salted with the cache format
//! version and the abex version) of: the settings that shape a result, the function's qualified
//! name and source text, and the test code of the packages whose tests run against it. Callees are not in the key (as in mutmut): a change to a
//! function another one calls does not invalidate the caller. Entries are written atomically
//! (temporary file, then rename), so two concurrent runs never see a torn file; a result that is
//! incomplete (some mutant not tested within the budget) is never stored.

use std::path::{Path, PathBuf};

use crate::report::TargetReport;

/// The fingerprint function, re-exported for the callers that still name it `cache::key` (the
/// run pipelines and the witness search).
pub use crate::fingerprint::key;

/// The results cache of a project.
pub struct ResultCache {
    dir: PathBuf,
}

/// Writes `bytes` to `path` atomically (a temporary file in the same folder, then a rename), so
/// a concurrent reader sees the old file or the new one, never a torn one. The folder is created.
/// Every error names the path it is about.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs_err::create_dir_all(dir)?;
    // `tempfile` names the temporary file in its creation and write errors, not in a rename's.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| {
        let what =
            format!("failed to rename a temporary file to `{}`: {}", path.display(), e.error);
        std::io::Error::new(e.error.kind(), what)
    })?;
    Ok(())
}

impl ResultCache {
    /// The cache under `root/.abex/cache/results`.
    pub fn open(root: &Path) -> ResultCache {
        ResultCache { dir: root.join(".abex").join("cache").join("results") }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The stored result for `key`, if any (an unreadable entry is a miss).
    pub fn get(&self, key: &str) -> Option<TargetReport> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Stores `report` under `key` unless it is incomplete. Failures are ignored: a cache is an
    /// optimisation, never a reason to fail a run.
    pub fn put(&self, key: &str, report: &TargetReport) {
        let incomplete = report.mutation.as_ref().is_some_and(|m| m.counts.not_tested > 0);
        if incomplete {
            return;
        }
        let Ok(bytes) = serde_json::to_vec(report) else { return };
        let _ = write_atomic(&self.path(key), &bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_errors_name_the_path() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("file"), "x").unwrap();
        let target = d.path().join("file").join("entry.json");
        let e = write_atomic(&target, b"{}").unwrap_err();
        let folder = d.path().join("file").display().to_string();
        assert!(e.to_string().contains(&folder), "{e}");
        write_atomic(&d.path().join("sub").join("entry.json"), b"{}").unwrap();
        let text = std::fs::read_to_string(d.path().join("sub").join("entry.json")).unwrap();
        assert_eq!(text, "{}");
    }
}
