//! Which pull request to post on, read from what GitHub Actions provides: the event file
//! (`GITHUB_EVENT_PATH`), the repository (`GITHUB_REPOSITORY`), the token (`GITHUB_TOKEN`) and the
//! API base (`GITHUB_API_URL`, which GitHub Enterprise needs).
//!
//! The event file may come from an artifact that a pull request's own workflow uploaded (the
//! two-workflow pattern for forks), so it is untrusted: only the pull request number and head
//! SHA are read from it, both checked for shape; the repository always comes from the
//! environment of the workflow that posts.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Errors finding the pull request or the credentials to post on it.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    /// A required environment variable is unset or empty.
    #[error("`{0}` is not set\nhint: {1}")]
    MissingVar(&'static str, &'static str),
    /// The event file could not be read or parsed.
    #[error("failed to read the event file `{path}`: {message}\nhint: run on a `pull_request` event, or pass the event file the pull request's workflow saved with `--event FILE`")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// `GITHUB_REPOSITORY` is not `owner/name`.
    #[error("`GITHUB_REPOSITORY` is `{0}`, not `owner/name`")]
    BadRepository(String),
}

/// The pull request a run belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PullRequest {
    /// Repository owner.
    pub owner: String,
    /// Repository name.
    pub repo: String,
    /// Pull request number.
    pub number: u64,
    /// The head commit, which review comments must name (not `GITHUB_SHA`, the merge commit).
    pub head_sha: String,
    /// Whether the head branch lives in another repository (a fork: no secrets, read-only token).
    pub from_fork: bool,
}

#[derive(Deserialize)]
struct Event {
    pull_request: Option<EventPr>,
}

#[derive(Deserialize)]
struct EventPr {
    number: u64,
    head: EventRef,
    base: EventRef,
}

#[derive(Deserialize)]
struct EventRef {
    sha: String,
    repo: Option<EventRepo>,
}

#[derive(Deserialize)]
struct EventRepo {
    full_name: String,
}

/// Reads the pull request from the event file at `path`, in repository `repository` (`owner/name`).
pub fn read(path: &Path, repository: &str) -> Result<PullRequest, EventError> {
    let bad = |message: String| EventError::Unreadable { path: path.to_path_buf(), message };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let event: Event = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let pr = event.pull_request.ok_or_else(|| bad("it has no `pull_request`".into()))?;
    let sha = &pr.head.sha;
    if !(sha.len() == 40 || sha.len() == 64) || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad(format!("`pull_request.head.sha` is not a commit SHA: `{sha}`")));
    }
    if pr.number == 0 {
        return Err(bad("`pull_request.number` is 0".into()));
    }
    let (owner, repo) = repository
        .split_once('/')
        .filter(|(o, r)| !o.is_empty() && !r.is_empty() && !r.contains('/'))
        .ok_or_else(|| EventError::BadRepository(repository.to_string()))?;
    let full = |r: &EventRef| r.repo.as_ref().map(|x| x.full_name.to_lowercase());
    Ok(PullRequest {
        owner: owner.to_string(),
        repo: repo.to_string(),
        number: pr.number,
        head_sha: sha.to_lowercase(),
        from_fork: full(&pr.head) != full(&pr.base),
    })
}

/// The head commit of the run that triggered this `workflow_run` job
/// (`workflow_run.head_sha` of `GITHUB_EVENT_PATH`): trusted, unlike an artifact's event file.
/// `None` outside such a job.
pub fn workflow_run_head() -> Option<String> {
    let path = std::env::var_os("GITHUB_EVENT_PATH").filter(|p| !p.is_empty())?;
    let event: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let sha = event.get("workflow_run")?.get("head_sha")?.as_str()?;
    (sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then(|| sha.to_lowercase())
}

/// Where and as whom to post.
#[derive(Clone, Debug)]
pub struct Context {
    /// The pull request.
    pub pull_request: PullRequest,
    /// The API base, e.g. `https://api.github.com`.
    pub api_url: String,
    /// The token.
    pub token: String,
}

fn var(name: &'static str, hint: &'static str) -> Result<String, EventError> {
    crate::secrets::var(name)
        .filter(|v| !v.trim().is_empty())
        .ok_or(EventError::MissingVar(name, hint))
}

impl Context {
    /// Reads the context from the environment; `event` overrides `GITHUB_EVENT_PATH`.
    pub fn from_env(event: Option<&Path>) -> Result<Context, EventError> {
        let path = match event {
            Some(p) => p.to_path_buf(),
            None => PathBuf::from(var(
                "GITHUB_EVENT_PATH",
                "run in GitHub Actions on a `pull_request` event, or pass `--event FILE`",
            )?),
        };
        let repository = var("GITHUB_REPOSITORY", "set it to `owner/name`")?;
        let pull_request = read(&path, &repository)?;
        let token = var(
            "GITHUB_TOKEN",
            "pass `GITHUB_TOKEN: ${{ github.token }}` in the step's `env`, with `pull-requests: write` permission",
        )?;
        let api_url = std::env::var("GITHUB_API_URL")
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "https://api.github.com".into());
        Ok(Context { pull_request, api_url, token })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(dir: &Path, head_repo: &str, sha: &str) -> PathBuf {
        let p = dir.join("event.json");
        let body = serde_json::json!({"pull_request": {"number": 7,
            "head": {"sha": sha, "repo": {"full_name": head_repo}},
            "base": {"sha": "b".repeat(40), "repo": {"full_name": "o/r"}}}});
        std::fs::write(&p, body.to_string()).unwrap();
        p
    }

    #[test]
    fn the_head_sha_and_fork_status_come_from_the_event() {
        let d = tempfile::tempdir().unwrap();
        let sha = "A".repeat(40);
        let pr = read(&event(d.path(), "o/r", &sha), "o/r").unwrap();
        assert_eq!((pr.number, pr.head_sha.as_str(), pr.from_fork), (7, &*"a".repeat(40), false));
        assert!(read(&event(d.path(), "someone/r", &sha), "o/r").unwrap().from_fork);
    }

    #[test]
    fn a_malformed_event_or_repository_is_refused_with_the_file_named() {
        let d = tempfile::tempdir().unwrap();
        let e = read(&event(d.path(), "o/r", "HEAD; rm -rf /"), "o/r").unwrap_err();
        assert!(e.to_string().contains("event.json") && e.to_string().contains("not a commit SHA"));
        let e = read(&event(d.path(), "o/r", &"a".repeat(40)), "o/r/x").unwrap_err();
        assert!(matches!(e, EventError::BadRepository(_)));
    }
}
