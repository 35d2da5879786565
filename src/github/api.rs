//! The few GitHub REST calls posting needs, through octocrab: list a pull request's review
//! comments, reviews and changed files (paginated), create a review, edit a comment. Every call is
//! retried on GitHub's rate limits (403/429 with `Retry-After`, an exhausted quota with
//! `x-ratelimit-reset`, or a "secondary rate limit" message) and on a server error, up to three
//! times, waiting at most `max_wait` per retry.
//!
//! octocrab's own retry layer is left out (its `retry` feature): it would wait on any
//! `Retry-After` without a cap. A review that failed with a server error is not simply sent
//! again: it may have landed and show in the list only later ([`Client::create_review`]).
//!
//! The review is sent with abex's own request struct: octocrab's `ReviewComment` is a response
//! model that code outside octocrab cannot build.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::time::Duration;

use octocrab::{Octocrab, Page};
use serde::{Deserialize, Serialize};

use super::event::{Context, PullRequest};
use super::plan::Existing;

/// A failed GitHub call.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// GitHub answered with an error status.
    #[error("{what}: GitHub answered {status}: {message}")]
    Status {
        /// The call, e.g. `POST /repos/o/r/pulls/1/reviews`.
        what: String,
        /// HTTP status.
        status: u16,
        /// GitHub's message and error details.
        message: String,
    },
    /// The request did not get an answer, or the answer did not parse.
    #[error("{what}: {message}")]
    Transport {
        /// The call.
        what: String,
        /// What went wrong.
        message: String,
    },
}

impl ApiError {
    fn new(what: &str, e: octocrab::Error) -> ApiError {
        match e {
            octocrab::Error::GitHub { source, .. } => {
                let mut message = source.message.clone();
                for detail in source.errors.iter().flatten() {
                    message.push_str("; ");
                    message.push_str(
                        &detail.as_str().map_or_else(|| detail.to_string(), String::from),
                    );
                }
                ApiError::Status { what: what.into(), status: source.status_code.as_u16(), message }
            }
            other => ApiError::Transport { what: what.into(), message: other.to_string() },
        }
    }

    /// Whether GitHub refused a review because a comment's line is not in the diff.
    pub fn is_outside_diff(&self) -> bool {
        match self {
            ApiError::Status { status: 422, message, .. } => {
                let m = message.to_lowercase();
                m.contains("part of the diff")
                    || m.contains("same hunk")
                    || m.contains("could not be resolved")
                    || m.contains("diff hunk")
            }
            _ => false,
        }
    }
}

fn is_server_error(e: &octocrab::Error) -> bool {
    matches!(e, octocrab::Error::GitHub { source, .. } if source.status_code.as_u16() >= 500)
}

/// How long to wait before retrying after `e`, if it is worth retrying at all.
fn retry_wait(e: &octocrab::Error) -> Option<Duration> {
    let octocrab::Error::GitHub { source, .. } = e else { return None };
    let status = source.status_code.as_u16();
    if status >= 500 {
        return Some(Duration::from_secs(1));
    }
    if status != 403 && status != 429 {
        return None;
    }
    let header =
        |name: &str| source.headers.as_ref()?.get(name)?.to_str().ok()?.trim().parse::<u64>().ok();
    if let Some(secs) = header("retry-after") {
        return Some(Duration::from_secs(secs));
    }
    if header("x-ratelimit-remaining") == Some(0) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        return Some(Duration::from_secs(header("x-ratelimit-reset")?.saturating_sub(now).max(1)));
    }
    // GitHub's documented fallback for a secondary limit without headers: wait a minute.
    let secondary = source.message.to_lowercase().contains("secondary rate limit");
    (secondary || status == 429).then(|| Duration::from_secs(60))
}

/// A review comment as the list endpoint returns it.
#[derive(Deserialize)]
struct ApiComment {
    id: u64,
    #[serde(default)]
    path: String,
    line: Option<u64>,
    #[serde(default)]
    body: String,
    in_reply_to_id: Option<u64>,
    reactions: Option<Reactions>,
    user: Option<User>,
    #[serde(default)]
    author_association: Option<String>,
}

/// Whether an `author_association` is one of someone with write access to the repository.
fn can_write(association: Option<&str>) -> bool {
    matches!(association, Some("OWNER" | "MEMBER" | "COLLABORATOR"))
}

#[derive(Deserialize)]
struct ApiReaction {
    content: String,
    user: Option<User>,
}

#[derive(Deserialize)]
struct ApiPermission {
    permission: String,
}

#[derive(Deserialize)]
struct User {
    login: String,
}

#[derive(Deserialize)]
struct ApiPull {
    number: u64,
    head: ApiHead,
}

#[derive(Deserialize)]
struct ApiHead {
    sha: String,
}

#[derive(Deserialize)]
struct Reactions {
    #[serde(rename = "-1", default)]
    thumbs_down: u64,
}

#[derive(Deserialize)]
struct ApiFile {
    filename: String,
    patch: Option<String>,
}

#[derive(Deserialize)]
struct Created {
    id: u64,
}

#[derive(Deserialize)]
struct ApiReview {
    id: u64,
    #[serde(default)]
    body: Option<String>,
    user: Option<User>,
}

/// The login that posts when the token's own cannot be read: `GITHUB_TOKEN`'s, which `GET /user`
/// refuses.
pub const ACTIONS_LOGIN: &str = "github-actions[bot]";

/// One inline comment of a new review.
#[derive(Serialize)]
pub struct ReviewComment {
    /// File, relative to the repository root.
    pub path: String,
    /// Line on the right side of the diff.
    pub line: usize,
    /// Always `RIGHT`: the head commit's side.
    pub side: &'static str,
    /// The text.
    pub body: String,
}

/// The body of `POST …/pulls/{n}/reviews`.
#[derive(Serialize)]
pub struct ReviewRequest<'a> {
    /// The pull request's head commit.
    pub commit_id: &'a str,
    /// The review's own text; it holds [`run_marker`] of `nonce`.
    pub body: &'a str,
    /// Always `COMMENT`: without an event the review stays pending and invisible.
    pub event: &'static str,
    /// The inline comments.
    pub comments: &'a [ReviewComment],
    /// The run's nonce, by which the review is found in the list after a server error.
    #[serde(skip)]
    pub nonce: &'a str,
}

/// The hidden line that names the run a review comes from, in its body.
pub fn run_marker(nonce: &str) -> String {
    format!("<!-- abex:v1 run={nonce} -->")
}

/// A fresh nonce for one posting run: 128 random bits, in hex.
pub fn new_nonce() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// How long to wait, one wait after another, for a review that failed with a server error to
/// show in the list before it is sent again: about a minute in all.
pub const LANDING_WAITS: [Duration; 6] = [
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
    Duration::from_secs(8),
    Duration::from_secs(15),
    Duration::from_secs(30),
];

/// A GitHub client for one pull request.
pub struct Client {
    gh: Octocrab,
    pr: PullRequest,
    max_wait: Duration,
    /// The login that posts (see [`Client::identity`]): only its comments are abex's.
    pub identity: String,
    /// What happened along the way that a person may want to know (retries).
    pub notes: Vec<String>,
    /// The waits between looks at the review list after a server error
    /// ([`Client::create_review`]); [`LANDING_WAITS`] by default.
    pub landing_waits: Vec<Duration>,
    /// Whether a login has write access to the repository, as learnt.
    writers: HashMap<String, bool>,
}

impl Client {
    /// A client for `ctx`; `max_wait` caps each wait for a rate limit.
    pub fn new(ctx: &Context, max_wait: Duration) -> Result<Client, ApiError> {
        let what = format!("connecting to `{}`", ctx.api_url);
        let gh = Octocrab::builder()
            .base_uri(ctx.api_url.as_str())
            .map_err(|e| ApiError::new(&what, e))?
            .personal_token(ctx.token.clone())
            .set_connect_timeout(Some(Duration::from_secs(30)))
            .set_read_timeout(Some(Duration::from_secs(60)))
            .build()
            .map_err(|e| ApiError::new(&what, e))?;
        let identity = ACTIONS_LOGIN.to_string();
        Ok(Client {
            gh,
            pr: ctx.pull_request.clone(),
            max_wait,
            identity,
            notes: Vec::new(),
            landing_waits: LANDING_WAITS.to_vec(),
            writers: HashMap::new(),
        })
    }

    fn route(&self, tail: &str) -> String {
        format!("/repos/{}/{}/{tail}", self.pr.owner, self.pr.repo)
    }

    async fn retrying<T, F, Fut>(&mut self, what: &str, call: F) -> Result<T, ApiError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = octocrab::Result<T>>,
    {
        self.retrying_on(what, true, call).await
    }

    /// [`Client::retrying`], with retries on a server error only when `server_errors` (a `POST`
    /// that failed with 5xx may still have landed).
    async fn retrying_on<T, F, Fut>(
        &mut self,
        what: &str,
        server_errors: bool,
        call: F,
    ) -> Result<T, ApiError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = octocrab::Result<T>>,
    {
        let mut retries = 0;
        loop {
            match call().await {
                Ok(v) => return Ok(v),
                Err(e) if !server_errors && is_server_error(&e) => {
                    return Err(ApiError::new(what, e))
                }
                Err(e) => match retry_wait(&e) {
                    Some(wait) if retries < 3 && wait <= self.max_wait => {
                        retries += 1;
                        self.notes.push(format!(
                            "{what}: rate-limited or failed, retried after {} s",
                            wait.as_secs()
                        ));
                        tokio::time::sleep(wait).await;
                    }
                    _ => return Err(ApiError::new(what, e)),
                },
            }
        }
    }

    async fn all<T: serde::de::DeserializeOwned>(
        &mut self,
        route: String,
    ) -> Result<Vec<T>, ApiError> {
        let what = format!("GET {route}");
        let gh = self.gh.clone();
        let first: Page<T> =
            self.retrying(&what, || gh.get(&route, Some(&[("per_page", "100")]))).await?;
        let mut items = Vec::new();
        let mut page = Some(first);
        while let Some(mut p) = page {
            items.append(&mut p.items);
            page = match p.next {
                Some(next) => {
                    let what = format!("GET {next}");
                    let next = Some(next);
                    self.retrying(&what, || gh.get_page::<T>(&next)).await?
                }
                None => None,
            };
        }
        Ok(items)
    }

    /// Every review comment on the pull request. An abex comment's 👎 reactions count only
    /// those of people with write access to the repository ([`Client::can_write`]).
    pub async fn comments(&mut self) -> Result<Vec<Existing>, ApiError> {
        let route = self.route(&format!("pulls/{}/comments", self.pr.number));
        let list: Vec<ApiComment> = self.all(route).await?;
        let mut out = Vec::with_capacity(list.len());
        for c in list {
            let mine = c.user.as_ref().is_some_and(|u| u.login == self.identity);
            let mut thumbs_down = c.reactions.map_or(0, |r| r.thumbs_down);
            if mine && thumbs_down > 0 {
                thumbs_down = self.thumbs_down_by_writers(c.id).await;
            }
            out.push(Existing {
                id: c.id,
                path: c.path,
                line: c.line,
                body: c.body,
                in_reply_to: c.in_reply_to_id,
                thumbs_down,
                author_can_write: can_write(c.author_association.as_deref()),
                mine,
            });
        }
        Ok(out)
    }

    /// How many people with write access reacted 👎 to comment `id`; a failure to tell counts
    /// none (a note says so).
    async fn thumbs_down_by_writers(&mut self, id: u64) -> u64 {
        let route = self.route(&format!("pulls/comments/{id}/reactions"));
        let reactions: Vec<ApiReaction> = match self.all(route).await {
            Ok(r) => r,
            Err(e) => {
                self.notes.push(format!("👎 on comment {id} not counted: {e}"));
                return 0;
            }
        };
        let mut logins: Vec<String> = reactions
            .into_iter()
            .filter(|r| r.content == "-1")
            .filter_map(|r| r.user)
            .map(|u| u.login)
            .collect();
        logins.sort();
        logins.dedup();
        let mut n = 0;
        for login in logins {
            if self.can_write(&login).await {
                n += 1;
            }
        }
        n
    }

    /// Whether `login` has write access to the repository (`admin`, `maintain` or `write`), from
    /// `GET …/collaborators/{login}/permission`; no when GitHub does not say.
    pub async fn can_write(&mut self, login: &str) -> bool {
        if let Some(known) = self.writers.get(login) {
            return *known;
        }
        let route = self.route(&format!("collaborators/{login}/permission"));
        let what = format!("GET {route}");
        let gh = self.gh.clone();
        let answer: Result<ApiPermission, _> =
            self.retrying(&what, || gh.get(&route, None::<&()>)).await;
        let writes = match answer {
            Ok(p) => matches!(p.permission.as_str(), "admin" | "maintain" | "write"),
            Err(e) => {
                self.notes.push(format!("the permission of `{login}` is unknown: {e}"));
                false
            }
        };
        self.writers.insert(login.to_string(), writes);
        writes
    }

    /// The bodies of the pull request's reviews that the posting identity wrote.
    pub async fn review_bodies(&mut self) -> Result<Vec<String>, ApiError> {
        Ok(self.own_reviews().await?.into_iter().filter_map(|r| r.body).collect())
    }

    async fn own_reviews(&mut self) -> Result<Vec<ApiReview>, ApiError> {
        let route = self.route(&format!("pulls/{}/reviews", self.pr.number));
        let list: Vec<ApiReview> = self.all(route).await?;
        let identity = self.identity.clone();
        Ok(list
            .into_iter()
            .filter(|r| r.user.as_ref().is_some_and(|u| u.login == identity))
            .collect())
    }

    /// Learns the login that posts ([`Client::identity`]): `GET /user` for a personal or app
    /// user token; [`ACTIONS_LOGIN`] when GitHub refuses it (`GITHUB_TOKEN`), or `given`.
    pub async fn learn_identity(&mut self, given: Option<&str>) {
        if let Some(login) = given.filter(|l| !l.is_empty()) {
            self.identity = login.to_string();
            return;
        }
        let gh = self.gh.clone();
        let me: Result<serde_json::Value, _> = gh.get("/user", None::<&()>).await;
        if let Some(login) = me.ok().and_then(|u| u["login"].as_str().map(String::from)) {
            self.identity = login;
        }
    }

    /// The pull request's number and head commit, as GitHub has them now.
    pub async fn pull_request(&mut self) -> Result<(u64, String), ApiError> {
        let route = self.route(&format!("pulls/{}", self.pr.number));
        let what = format!("GET {route}");
        let gh = self.gh.clone();
        let pull: ApiPull = self.retrying(&what, || gh.get(&route, None::<&()>)).await?;
        Ok((pull.number, pull.head.sha.to_lowercase()))
    }

    /// The right-side lines of the pull request's diff per file, as GitHub sees it; a file whose
    /// patch GitHub leaves out (too large) has none.
    pub async fn diff_lines(&mut self) -> Result<HashMap<String, HashSet<usize>>, ApiError> {
        let route = self.route(&format!("pulls/{}/files", self.pr.number));
        let files: Vec<ApiFile> = self.all(route).await?;
        Ok(files
            .into_iter()
            .map(|f| (f.filename, f.patch.as_deref().map(right_lines).unwrap_or_default()))
            .collect())
    }

    /// Creates a review (event `COMMENT`); returns its id. A server error may come after the
    /// review landed, and GitHub may list it only seconds later: the list is searched for the
    /// review by the posting identity that holds the run's nonce at once and after each of
    /// [`Client::landing_waits`] (about a minute in all), and only when none shows is the review
    /// sent once more (and searched for again after a second server error). A review is never
    /// posted twice while GitHub lists it within that minute.
    pub async fn create_review(&mut self, req: &ReviewRequest<'_>) -> Result<u64, ApiError> {
        let route = self.route(&format!("pulls/{}/reviews", self.pr.number));
        let what = format!("POST {route}");
        let gh = self.gh.clone();
        let mut sent = 0;
        loop {
            sent += 1;
            let err = match self.retrying_on(&what, false, || gh.post(&route, Some(req))).await {
                Ok(Created { id }) => return Ok(id),
                Err(e @ ApiError::Status { status: 500.., .. }) => e,
                Err(e) => return Err(e),
            };
            let waits = self.landing_waits.clone();
            let mut waited = Duration::ZERO;
            for wait in std::iter::once(Duration::ZERO).chain(waits) {
                tokio::time::sleep(wait).await;
                waited += wait;
                if let Some(id) = self.landed(req.nonce).await? {
                    self.notes.push(format!(
                        "{what}: {err}; the review had landed (id {id}, listed after {:.0} s)",
                        waited.as_secs_f64()
                    ));
                    return Ok(id);
                }
            }
            if sent >= 2 {
                return Err(err);
            }
            self.notes.push(format!(
                "{what}: {err}; no review listed after {:.0} s, sent once more",
                waited.as_secs_f64()
            ));
        }
    }

    /// The id of the posting identity's review whose body holds the run marker of `nonce`.
    async fn landed(&mut self, nonce: &str) -> Result<Option<u64>, ApiError> {
        let marker = run_marker(nonce);
        let own = self.own_reviews().await?;
        Ok(own
            .into_iter()
            .find(|r| r.body.as_deref().is_some_and(|b| b.contains(&marker)))
            .map(|r| r.id))
    }

    /// Replaces the body of review comment `id`.
    pub async fn edit_comment(&mut self, id: u64, body: &str) -> Result<(), ApiError> {
        let route = self.route(&format!("pulls/comments/{id}"));
        let what = format!("PATCH {route}");
        let gh = self.gh.clone();
        let payload = serde_json::json!({ "body": body });
        let _: serde_json::Value =
            self.retrying(&what, || gh.patch(&route, Some(&payload))).await?;
        Ok(())
    }
}

/// The right-side (head) line numbers that a unified-diff patch shows: added and context lines.
pub fn right_lines(patch: &str) -> HashSet<usize> {
    let mut out = HashSet::new();
    let mut line = 0usize;
    for l in patch.lines() {
        if let Some(hunk) = l.strip_prefix("@@ ") {
            let new = hunk.split_whitespace().find(|t| t.starts_with('+'));
            line = new
                .and_then(|t| t[1..].split(',').next())
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
        } else if l.starts_with('+') || l.starts_with(' ') || l.is_empty() {
            out.insert(line);
            line += 1;
        }
    }
    out.remove(&0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_right_side_of_a_patch_is_its_added_and_context_lines() {
        let patch = "@@ -5,4 +5,5 @@ fn f() {\n a\n-b\n+c\n+d\n e\n@@ -40,0 +41,1 @@\n+z";
        let mut lines: Vec<usize> = right_lines(patch).into_iter().collect();
        lines.sort();
        assert_eq!(lines, vec![5, 6, 7, 8, 41]);
    }

    #[test]
    fn a_422_about_the_diff_is_recognised() {
        let e = ApiError::Status {
            what: "POST".into(),
            status: 422,
            message:
                "Unprocessable Entity; Pull request review thread line must be part of the diff"
                    .into(),
        };
        assert!(e.is_outside_diff());
        let e = ApiError::Status {
            what: "POST".into(),
            status: 422,
            message: "Body is too long".into(),
        };
        assert!(!e.is_outside_diff());
    }
}
