//! Scratch copies of the user's project. Everything abex builds, mutates or runs happens in one;
//! the user's tree is only ever read.
//!
//! A scratch copy is persistent (under `.abex/scratch/`) so that builds in it stay incremental:
//! [`sync`] writes only the files whose content differs, keeps unchanged files (and their
//! modification times) as they are, and removes files that are gone from the source.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// Errors making a scratch copy.
#[derive(Debug, thiserror::Error)]
pub enum ScratchError {
    /// Reading the source tree failed.
    #[error("failed to copy the project: {message}")]
    Read {
        /// Where.
        path: PathBuf,
        /// What went wrong, naming the path (the messages of `ignore` and `fs_err` do).
        message: String,
    },
    /// Writing the scratch copy failed.
    #[error("failed to write the scratch copy: {source}")]
    Write {
        /// Where.
        path: PathBuf,
        /// The OS error, naming the path (from `fs_err`).
        source: io::Error,
    },
}

/// Folders never copied: VCS data, build output, abex's own folder.
const SKIP_DIRS: &[&str] = &[".git", ".hg", ".jj", ".abex", "target", "__pycache__", ".venv"];

/// Lists the files of `src` to copy, relative to it: `.gitignore` rules are honoured (but not
/// the global ones), hidden files are kept, and [`SKIP_DIRS`] and `extra_skip` are left out.
pub fn list_files(src: &Path, extra_skip: &[PathBuf]) -> Result<Vec<PathBuf>, ScratchError> {
    let mut walk = ignore::WalkBuilder::new(src);
    walk.hidden(false).git_global(false).git_exclude(false).parents(false).require_git(false);
    let root = src.to_path_buf();
    let extra: Vec<PathBuf> = extra_skip.to_vec();
    walk.filter_entry(move |e| {
        let name = e.file_name().to_string_lossy();
        let is_dir = e.file_type().is_some_and(|t| t.is_dir());
        let skipped_dir = is_dir && SKIP_DIRS.contains(&name.as_ref());
        let extra_skipped = extra.iter().any(|x| e.path().starts_with(x));
        !skipped_dir && !extra_skipped && e.path() != root.join(".abex")
    });
    let mut files = Vec::new();
    for entry in walk.build() {
        let entry = entry
            .map_err(|e| ScratchError::Read { path: src.to_path_buf(), message: e.to_string() })?;
        if entry.file_type().is_some_and(|t| t.is_file()) {
            if let Ok(rel) = entry.path().strip_prefix(src) {
                files.push(rel.to_path_buf());
            }
        }
    }
    files.sort();
    Ok(files)
}

fn write_if_changed(path: &Path, content: &[u8]) -> Result<bool, ScratchError> {
    if fs_err::read(path).is_ok_and(|old| old == content) {
        return Ok(false);
    }
    let err = |source| ScratchError::Write { path: path.to_path_buf(), source };
    if let Some(parent) = path.parent() {
        fs_err::create_dir_all(parent).map_err(err)?;
    }
    fs_err::write(path, content).map_err(err)?;
    Ok(true)
}

/// What a sync changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Files written because they were new or different.
    pub written: usize,
    /// Files removed because they are gone from the source.
    pub removed: usize,
}

/// Makes `dst` a copy of `src`'s project files with `overrides` (relative path → content) in
/// place of the originals; files under `keep` (relative, e.g. `target`) are never removed.
pub fn sync(
    src: &Path,
    dst: &Path,
    overrides: &BTreeMap<PathBuf, Vec<u8>>,
    extra_skip: &[PathBuf],
) -> Result<SyncStats, ScratchError> {
    let files = list_files(src, extra_skip)?;
    let mut stats = SyncStats::default();
    let mut wanted: BTreeSet<PathBuf> = BTreeSet::new();
    for rel in &files {
        let content = match overrides.get(rel) {
            Some(c) => c.clone(),
            None => fs_err::read(src.join(rel))
                .map_err(|e| ScratchError::Read { path: src.join(rel), message: e.to_string() })?,
        };
        stats.written += write_if_changed(&dst.join(rel), &content)? as usize;
        wanted.insert(rel.clone());
    }
    let extra: Vec<_> = overrides.iter().filter(|(rel, _)| !wanted.contains(*rel)).collect();
    for (rel, content) in extra {
        stats.written += write_if_changed(&dst.join(rel), content)? as usize;
        wanted.insert(rel.clone());
    }
    if dst.is_dir() {
        for existing in list_files(dst, &[])? {
            if !wanted.contains(&existing) {
                fs_err::remove_file(dst.join(&existing))
                    .map_err(|source| ScratchError::Write { path: dst.join(&existing), source })?;
                stats.removed += 1;
            }
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_copies_overrides_and_prunes_but_leaves_unchanged_files_alone() {
        let src = tempfile::tempdir().unwrap();
        let dst = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(src.path().join("src")).unwrap();
        std::fs::create_dir_all(src.path().join("target/debug")).unwrap();
        std::fs::write(src.path().join("src/lib.rs"), "a").unwrap();
        std::fs::write(src.path().join("Cargo.toml"), "t").unwrap();
        std::fs::write(src.path().join("target/debug/x"), "big").unwrap();
        std::fs::write(src.path().join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(src.path().join("ignored.txt"), "i").unwrap();
        let mut over = BTreeMap::new();
        over.insert(PathBuf::from("src/lib.rs"), b"b".to_vec());
        over.insert(PathBuf::from("examples/h.rs"), b"h".to_vec());
        let s = sync(src.path(), dst.path(), &over, &[]).unwrap();
        assert_eq!(s.written, 4);
        assert_eq!(std::fs::read_to_string(dst.path().join("src/lib.rs")).unwrap(), "b");
        assert!(!dst.path().join("target").exists());
        assert!(!dst.path().join("ignored.txt").exists());
        // A second sync with the same inputs writes nothing.
        assert_eq!(sync(src.path(), dst.path(), &over, &[]).unwrap(), SyncStats::default());
        // Dropping the extra file removes it from the copy.
        over.remove(Path::new("examples/h.rs"));
        let s = sync(src.path(), dst.path(), &over, &[]).unwrap();
        assert_eq!(s, SyncStats { written: 0, removed: 1 });
        assert_eq!(std::fs::read_to_string(src.path().join("src/lib.rs")).unwrap(), "a");
    }

    #[test]
    fn a_write_error_names_the_path_once() {
        let src = tempfile::tempdir().unwrap();
        let dst = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(src.path().join("src")).unwrap();
        std::fs::write(src.path().join("src/lib.rs"), "a").unwrap();
        // A file where the copy needs a folder.
        std::fs::write(dst.path().join("src"), "not a folder").unwrap();
        let e = sync(src.path(), dst.path(), &BTreeMap::new(), &[]).unwrap_err();
        let message = e.to_string();
        let folder = dst.path().join("src").display().to_string();
        assert!(message.starts_with("failed to write the scratch copy: "), "{message}");
        assert_eq!(message.matches(&folder).count(), 1, "{message}");
    }
}
