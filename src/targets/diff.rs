//! What changed: the base revision, and the changed line ranges of each file, from `git`.
//!
//! The base is `--base REF` when given; in GitHub Actions `origin/$GITHUB_BASE_REF`; otherwise the
//! first of `origin/main`, `main`, `master` that exists. The diff runs from the merge-base of the
//! base and `HEAD` to the working tree, so uncommitted changes count, and untracked files count as
//! wholly changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

/// Errors finding what changed.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// `git` could not be run, or the folder is not in a repository.
    #[error("`git {args}` failed in `{dir}`: {stderr}")]
    Git {
        /// The arguments.
        args: String,
        /// Where.
        dir: PathBuf,
        /// What git said.
        stderr: String,
    },
    /// No base revision could be found.
    #[error("no base revision: {tried} not found\nhint: name one with `--base REF`")]
    NoBase {
        /// What was tried.
        tried: String,
    },
    /// The diff file of `--in-diff` could not be read.
    #[error("failed to read the diff `{path}`: {message}\nhint: pass a unified diff, e.g. `git diff origin/main.. > pr.diff`")]
    DiffFile {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The named base does not exist.
    #[error("base ref `{0}` does not exist\nhint: fetch it (`git fetch origin {0}`) or name another with `--base`")]
    MissingBase(String),
}

/// The revision that the change is compared against.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Base {
    /// The ref as named (`origin/main`).
    pub reference: String,
    /// The merge-base commit of that ref and `HEAD`.
    pub merge_base: String,
}

/// Changed line ranges (1-based, inclusive, in the new file) per file relative to the repo root.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// The repository's top-level folder.
    pub repo_root: PathBuf,
    /// Per file, its changed line ranges; a pure deletion is recorded as an empty range at the
    /// line after which it happened (`start == end + 1`).
    pub files: BTreeMap<PathBuf, Vec<(usize, usize)>>,
}

impl Changes {
    /// Whether any changed range of `file` (absolute) touches lines `start..=end`.
    pub fn touches(&self, file: &Path, start: usize, end: usize) -> bool {
        let rel = file.strip_prefix(&self.repo_root).unwrap_or(file);
        self.files.get(rel).is_some_and(|ranges| {
            ranges.iter().any(|&(s, e)| {
                if s > e {
                    // A deletion between lines e and s touches a function that spans both.
                    start <= e && s <= end
                } else {
                    s <= end && start <= e
                }
            })
        })
    }

    /// The changed lines of `file` (absolute) that fall inside `start..=end`.
    pub fn lines_in(&self, file: &Path, start: usize, end: usize) -> Vec<usize> {
        let rel = file.strip_prefix(&self.repo_root).unwrap_or(file);
        let mut out = Vec::new();
        for &(s, e) in self.files.get(rel).into_iter().flatten() {
            out.extend((s.max(start)..=e.min(end)).filter(|_| s <= e));
        }
        out
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<String, DiffError> {
    let out = Command::new("git").args(args).current_dir(dir).output().map_err(|e| {
        DiffError::Git { args: args.join(" "), dir: dir.to_path_buf(), stderr: e.to_string() }
    })?;
    if !out.status.success() {
        return Err(DiffError::Git {
            args: args.join(" "),
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn ref_exists(dir: &Path, r: &str) -> bool {
    git(dir, &["rev-parse", "--verify", "--quiet", &format!("{r}^{{commit}}")]).is_ok()
}

/// The top-level folder of the git repository holding `dir`.
pub fn repo_root(dir: &Path) -> Result<PathBuf, DiffError> {
    Ok(PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"])?.trim()))
}

/// `dir` relative to the top of its git repository, with `/` separators and no trailing `/`:
/// `""` at the top, outside git, or when git cannot say.
pub fn repo_prefix(dir: &Path) -> String {
    git(dir, &["rev-parse", "--show-prefix"])
        .map(|p| p.trim().trim_end_matches('/').to_string())
        .unwrap_or_default()
}

/// Resolves the base revision: `explicit`, else `GITHUB_BASE_REF`, else the usual defaults.
pub fn resolve_base(dir: &Path, explicit: Option<&str>) -> Result<Base, DiffError> {
    let reference = match explicit {
        Some(r) if ref_exists(dir, r) => r.to_string(),
        Some(r) => return Err(DiffError::MissingBase(r.to_string())),
        None => {
            let mut tried = Vec::new();
            if let Ok(b) = std::env::var("GITHUB_BASE_REF") {
                if !b.is_empty() {
                    tried.push(format!("origin/{b}"));
                    tried.push(b);
                }
            }
            tried.extend(["origin/main", "main", "master"].map(String::from));
            match tried.iter().find(|r| ref_exists(dir, r)) {
                Some(r) => r.clone(),
                None => return Err(DiffError::NoBase { tried: tried.join(", ") }),
            }
        }
    };
    let merge_base = git(dir, &["merge-base", &reference, "HEAD"])?.trim().to_string();
    Ok(Base { reference, merge_base })
}

/// Parses `git diff --unified=0` output into new-side line ranges per file.
pub fn parse_unified(diff: &str) -> BTreeMap<PathBuf, Vec<(usize, usize)>> {
    let mut files: BTreeMap<PathBuf, Vec<(usize, usize)>> = BTreeMap::new();
    let mut current: Option<PathBuf> = None;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            // `b/x` from git; a diff without prefixes (`--no-prefix`) names `x`; a timestamp may
            // follow a tab; `/dev/null` is a deleted file.
            let path = path.split('\t').next().unwrap_or(path).trim_end();
            current = (path != "/dev/null")
                .then(|| PathBuf::from(path.strip_prefix("b/").unwrap_or(path)));
        } else if let (Some(hunk), Some(file)) = (line.strip_prefix("@@ "), &current) {
            // @@ -a,b +c,d @@
            let Some(new) = hunk.split_whitespace().find(|t| t.starts_with('+')) else {
                continue;
            };
            let mut parts = new[1..].split(',');
            let start: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let count: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(1);
            let range = if count == 0 { (start + 1, start) } else { (start, start + count - 1) };
            files.entry(file.clone()).or_default().push(range);
        }
    }
    files
}

/// The changes from the merge-base to the working tree, plus untracked files.
pub fn changes(dir: &Path, base: &Base) -> Result<Changes, DiffError> {
    let repo_root = repo_root(dir)?;
    let diff = git(
        &repo_root,
        &[
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            &base.merge_base,
        ],
    )?;
    let mut files = parse_unified(&diff);
    let untracked = git(&repo_root, &["ls-files", "--others", "--exclude-standard"])?;
    for f in untracked.lines().filter(|l| !l.is_empty()) {
        files.insert(PathBuf::from(f), vec![(1, usize::MAX)]);
    }
    Ok(Changes { repo_root, files })
}

/// The changes a unified diff file names (`--in-diff FILE`, as cargo-mutants takes it), its
/// paths relative to the repository root of `dir` (or `dir` itself outside git).
pub fn changes_from_file(dir: &Path, file: &Path) -> Result<Changes, DiffError> {
    let text = std::fs::read(file)
        .map_err(|e| DiffError::DiffFile { path: file.to_path_buf(), message: e.to_string() })?;
    let text = String::from_utf8_lossy(&text);
    if !text.trim().is_empty() && !text.lines().any(|l| l.starts_with("@@ ")) {
        return Err(DiffError::DiffFile {
            path: file.to_path_buf(),
            message: "it holds no hunk (`@@ … @@`): not a unified diff".into(),
        });
    }
    let repo_root = repo_root(dir).unwrap_or_else(|_| dir.to_path_buf());
    Ok(Changes { repo_root, files: parse_unified(&text) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_become_new_side_line_ranges() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n\
                    @@ -3 +3 @@ fn x\n-a\n+b\n@@ -10,2 +10,0 @@\n-c\n-d\n@@ -20,0 +19,3 @@\n+e\n\
                    diff --git a/new.rs b/new.rs\n--- /dev/null\n+++ b/new.rs\n@@ -0,0 +1,2 @@\n+x\n+y\n";
        let files = parse_unified(diff);
        assert_eq!(files[Path::new("src/a.rs")], vec![(3, 3), (11, 10), (19, 21)]);
        assert_eq!(files[Path::new("new.rs")], vec![(1, 2)]);
    }

    #[test]
    fn a_deletion_touches_the_function_around_it() {
        let mut c = Changes { repo_root: PathBuf::from("/r"), ..Default::default() };
        c.files.insert(PathBuf::from("a.rs"), vec![(11, 10)]);
        assert!(c.touches(Path::new("/r/a.rs"), 5, 12));
        assert!(!c.touches(Path::new("/r/a.rs"), 11, 20));
        assert!(!c.touches(Path::new("/r/a.rs"), 1, 9));
        assert!(c.lines_in(Path::new("/r/a.rs"), 1, 100).is_empty());
    }
}
