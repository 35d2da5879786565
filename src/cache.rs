//! Per-function results cache under `.abex/cache/results/`, so that a re-run on the same commit
//! analyses nothing again and a push that changes one function analyses only that one.
//!
//! A result is keyed by a fingerprint ([`crate::fingerprint::key`], salted with the cache format
//! version and the abex version) of: the settings that shape a result, the function's qualified
//! name and source text, and the test code of the packages whose tests run against it. Callees are not in the key (as in mutmut): a change to a
//! function another one calls does not invalidate the caller. Entries are written atomically
//! (temporary file, then rename), so two concurrent runs never see a torn file; a result that is
//! incomplete (some mutant not tested within the budget) is never stored.
//!
//! What a run finished of a function it did not finish (interrupted, out of time) is kept too,
//! under the same key, in `<key>.partial/`: its exploration (`exploration.json`) and one file per
//! mutant whose tests ran (`tested/<mutant id>.json`), each written the moment it is done. A
//! re-run takes them instead of doing that work again ([`ResultCache::partial`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::report::{ExplorationReport, TargetReport};

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

    /// Stores `report` under `key` unless it is unfinished: a function not explored, a mutant
    /// not tested or a survivor not searched (its partial work is forgotten once the whole
    /// result stands for it). Failures are ignored: a cache is an optimisation, never a reason
    /// to fail a run.
    pub fn put(&self, key: &str, report: &TargetReport) {
        if !report.unfinished().is_empty() {
            return;
        }
        let Ok(bytes) = serde_json::to_vec(report) else { return };
        if write_atomic(&self.path(key), &bytes).is_ok() {
            let _ = std::fs::remove_dir_all(self.partial_dir(key));
        }
    }

    fn partial_dir(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.partial"))
    }

    /// What an earlier run finished of the function of `key` without finishing it: its
    /// exploration, and its mutants' test results by mutant id (`T` is the pipeline's record).
    pub fn partial<T: DeserializeOwned>(&self, key: &str) -> Partial<T> {
        let dir = self.partial_dir(key);
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        let exploration =
            read(&dir.join("exploration.json")).and_then(|t| serde_json::from_str(&t).ok());
        let mut tested = BTreeMap::new();
        for entry in std::fs::read_dir(dir.join("tested")).into_iter().flatten().flatten() {
            let path = entry.path();
            let Some(id) = path.file_stem().and_then(|s| s.to_str()).map(str::to_string) else {
                continue;
            };
            if let Some(t) = read(&path).and_then(|t| serde_json::from_str(&t).ok()) {
                tested.insert(id, t);
            }
        }
        Partial { exploration, tested }
    }

    /// Keeps the finished exploration of the function of `key`.
    pub fn put_exploration(&self, key: &str, x: &ExplorationReport) {
        let Ok(bytes) = serde_json::to_vec(x) else { return };
        let _ = write_atomic(&self.partial_dir(key).join("exploration.json"), &bytes);
    }

    /// Keeps the test result `t` of the mutant `id` of the function of `key`.
    pub fn put_tested<T: Serialize>(&self, key: &str, id: &str, t: &T) {
        // Mutant ids are hex digits; anything else is not a file name to trust.
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return;
        }
        let Ok(bytes) = serde_json::to_vec(t) else { return };
        let path = self.partial_dir(key).join("tested").join(format!("{id}.json"));
        let _ = write_atomic(&path, &bytes);
    }
}

/// What an earlier run finished of a function it did not finish (see the module's
/// documentation).
#[derive(Debug)]
pub struct Partial<T> {
    /// Its exploration, when it was finished.
    pub exploration: Option<ExplorationReport>,
    /// Its mutants' test results, by mutant id.
    pub tested: BTreeMap<String, T>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_work_is_kept_per_mutant_until_the_whole_result_is_stored() {
        let d = tempfile::tempdir().unwrap();
        let cache = ResultCache::open(d.path());
        cache.put_tested("k", "0123abcd", &"killed".to_string());
        cache.put_tested("k", "4567ef01", &"survived".to_string());
        cache.put_tested("k", "../escape", &"no".to_string());
        let p: Partial<String> = cache.partial("k");
        assert_eq!(p.tested.len(), 2);
        assert_eq!(p.tested["0123abcd"], "killed");
        assert!(p.exploration.is_none());
        assert!(cache.partial::<String>("other").tested.is_empty());
    }

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
