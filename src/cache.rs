//! Per-function results cache under `.abex/cache/results/`, so that a re-run on the same commit
//! analyses nothing again and a push that changes one function analyses only that one.
//!
//! A result is keyed by a fingerprint ([`crate::fingerprint::key`], salted with the cache format
//! version and the abex version) of everything it depends on (`pipeline/run.rs`, `cache_key.rs`):
//! the settings and every `ABEX_*` knob, the function's qualified name and source text, every
//! file of the code and tests behind it (its package and the workspace packages it needs, or the
//! Python project: constants, helpers, types, manifests, lock files, test configuration), the
//! toolchain or interpreter and what of the environment they read. Entries are written
//! atomically (temporary file, then rename), so two concurrent runs never see a torn file; a
//! result that is unfinished (a function not explored, a mutant not tested or a survivor not
//! searched within the budget) is never stored.
//!
//! An entry git tracks is never read: a pull request can commit `.abex/cache/` files under keys
//! anyone can compute, and a checkout in CI holds exactly what git tracks ([`tracked`]).
//!
//! What a run finished of a function it did not finish (interrupted, out of time) is kept too,
//! under the same key, in `<key>.partial/`: its exploration (`exploration.json`) and one file per
//! mutant whose tests ran (`tested/<mutant id>.json`), each written the moment it is done. A
//! re-run takes them instead of doing that work again ([`ResultCache::partial`]).

use std::collections::{BTreeMap, BTreeSet};
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
    /// Its files that git tracks: never read.
    tracked: BTreeSet<PathBuf>,
}

/// The files under `dir` (inside `root`'s git work tree) that git tracks, as absolute paths;
/// none outside git. A file a pull request committed there is one to ignore.
pub fn tracked(root: &Path, dir: &Path) -> BTreeSet<PathBuf> {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z", "--"])
        .arg(rel)
        .stderr(std::process::Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => o
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
            .collect(),
        _ => BTreeSet::new(),
    }
}

impl ResultCache {
    /// The cache under `root/.abex/cache/results`.
    pub fn open(root: &Path) -> ResultCache {
        let dir = root.join(".abex").join("cache").join("results");
        ResultCache { tracked: tracked(root, &dir), dir }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The text of the entry at `path`, unless git tracks it.
    fn read(&self, path: &Path) -> Option<String> {
        if self.tracked.contains(path) {
            return None;
        }
        std::fs::read_to_string(path).ok()
    }

    /// The stored result for `key`, if any (an unreadable or tracked entry is a miss).
    pub fn get(&self, key: &str) -> Option<TargetReport> {
        let text = self.read(&self.path(key))?;
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
        if self.write(&self.path(key), &bytes) {
            let partial = self.partial_dir(key);
            if !self.tracked.iter().any(|t| t.starts_with(&partial)) {
                let _ = std::fs::remove_dir_all(partial);
            }
        }
    }

    /// Writes an entry, unless git tracks its file (abex never changes a tracked file);
    /// whether it was written.
    fn write(&self, path: &Path, bytes: &[u8]) -> bool {
        !self.tracked.contains(path) && crate::atomic::write(path, bytes).is_ok()
    }

    fn partial_dir(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.partial"))
    }

    /// What an earlier run finished of the function of `key` without finishing it: its
    /// exploration, and its mutants' test results by mutant id (`T` is the pipeline's record).
    pub fn partial<T: DeserializeOwned>(&self, key: &str) -> Partial<T> {
        let dir = self.partial_dir(key);
        let read = |p: &Path| self.read(p);
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
        self.write(&self.partial_dir(key).join("exploration.json"), &bytes);
    }

    /// Keeps the test result `t` of the mutant `id` of the function of `key`.
    pub fn put_tested<T: Serialize>(&self, key: &str, id: &str, t: &T) {
        // Mutant ids are hex digits; anything else is not a file name to trust.
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return;
        }
        let Ok(bytes) = serde_json::to_vec(t) else { return };
        let path = self.partial_dir(key).join("tested").join(format!("{id}.json"));
        self.write(&path, &bytes);
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
    fn an_entry_git_tracks_is_never_read() {
        let d = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
                .args(args)
                .current_dir(d.path())
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        let cache = ResultCache::open(d.path());
        cache.put_tested("planted", "0123abcd", &"killed".to_string());
        cache.put_tested("own", "0123abcd", &"killed".to_string());
        git(&["add", "-f", ".abex/cache/results/planted.partial"]);
        git(&["commit", "-q", "-m", "a pull request plants a cache entry"]);
        let cache = ResultCache::open(d.path());
        assert!(cache.partial::<String>("planted").tested.is_empty());
        assert_eq!(cache.partial::<String>("own").tested.len(), 1);
        // Nor written over.
        let planted = d.path().join(".abex/cache/results/planted.partial/tested/0123abcd.json");
        cache.put_tested("planted", "0123abcd", &"survived".to_string());
        assert_eq!(std::fs::read_to_string(planted).unwrap(), "\"killed\"");
    }
}
