//! A fake GitHub REST API on 127.0.0.1 for the posting tests: a wiremock server whose responders
//! keep the state of one pull request (its review comments, reviews, changed files) and record
//! every request. Like GitHub it answers 422 for a review comment on a line outside the diff,
//! checks the review's `event` and `commit_id`, paginates (two items a page, to exercise the
//! `Link` header), can serve under a path prefix (GitHub Enterprise's `/api/v3`), and can answer the next review with a secondary-rate-limit 403 and
//! a `Retry-After`, or with a 502 after storing it, listing it only some time later. It lists a
//! comment's reactions with who gave them, and each user's permission on the repository.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Repository owner and name the fake serves.
pub const REPO: &str = "octo/shop";
const PER_PAGE: usize = 2;

/// The pull request's state.
#[derive(Default)]
pub struct State {
    /// The head commit reviews must name.
    pub head_sha: String,
    /// Changed files: path → unified-diff patch (as `GET …/files` gives it).
    pub patches: BTreeMap<String, String>,
    /// Review comments, as the list endpoint returns them.
    pub comments: Vec<Value>,
    /// Reviews created.
    pub reviews: Vec<Value>,
    /// Answer the next review with a secondary rate limit and this `Retry-After`, in seconds.
    pub rate_limit_next_review: Option<u64>,
    /// Store the next review, then answer it with 502 (a review that landed all the same).
    pub fail_next_review_after_landing: bool,
    /// With `fail_next_review_after_landing`, how long after the 502 the review shows in the list.
    pub landing_delay: std::time::Duration,
    /// Reviews not listed before this time (index into `reviews` → when it shows).
    pub hidden_until: BTreeMap<usize, std::time::Instant>,
    /// Reactions per comment id: (login, content).
    pub reactions: BTreeMap<u64, Vec<(String, String)>>,
    /// Users' permissions on the repository (`admin`, `write`, `read`, …); unnamed: `read`.
    pub permissions: BTreeMap<String, String>,
    /// Pull request numbers → their head commits, for `GET …/pulls/{n}` (the fake's own pull
    /// request, any number, has `head_sha` unless named here).
    pub other_pulls: BTreeMap<u64, String>,
    next_id: u64,
    base: String,
}

/// The running fake.
pub struct FakeGitHub {
    rt: tokio::runtime::Runtime,
    server: MockServer,
    /// Shared with the responders.
    pub state: Arc<Mutex<State>>,
    prefix: String,
}

#[derive(Clone, Copy)]
enum Route {
    ListComments,
    ListReviews,
    CreateReview,
    EditComment,
    ListFiles,
    GetPull,
    ListReactions,
    Permission,
}

struct Api(Route, Arc<Mutex<State>>);

fn error(status: u16, message: &str, errors: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message,
        "errors": errors,
        "documentation_url": "https://docs.github.com/rest",
        "status": status.to_string(),
    }))
}

fn page(req: &Request, items: &[Value], base: &str) -> ResponseTemplate {
    let n: usize = req
        .url
        .query_pairs()
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(1);
    let chunk: Vec<Value> = items.iter().skip((n - 1) * PER_PAGE).take(PER_PAGE).cloned().collect();
    let mut r = ResponseTemplate::new(200).set_body_json(chunk);
    if n * PER_PAGE < items.len() {
        let next = format!("{base}{}?per_page=100&page={}", req.url.path(), n + 1);
        r = r.insert_header("link", format!("<{next}>; rel=\"next\"").as_str());
    }
    r
}

impl Respond for Api {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut s = self.1.lock().unwrap();
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        match self.0 {
            Route::ListComments => page(req, &s.comments, &s.base.clone()),
            Route::GetPull => {
                let n: u64 = req.url.path().rsplit('/').next().unwrap().parse().unwrap();
                let head = s.other_pulls.get(&n).cloned().unwrap_or_else(|| s.head_sha.clone());
                ResponseTemplate::new(200)
                    .set_body_json(json!({"number": n, "state": "open", "head": {"sha": head}}))
            }
            Route::ListReviews => {
                let now = std::time::Instant::now();
                let shown: Vec<Value> = (0..s.reviews.len())
                    .filter(|i| s.hidden_until.get(i).is_none_or(|t| *t <= now))
                    .map(|i| s.reviews[i].clone())
                    .collect();
                page(req, &shown, &s.base.clone())
            }
            Route::ListReactions => {
                let id: u64 = req.url.path().rsplit('/').nth(1).unwrap().parse().unwrap();
                let list: Vec<Value> = s
                    .reactions
                    .get(&id)
                    .into_iter()
                    .flatten()
                    .map(|(login, content)| json!({"content": content, "user": {"login": login}}))
                    .collect();
                page(req, &list, &s.base.clone())
            }
            Route::Permission => {
                let login = req.url.path().rsplit('/').nth(1).unwrap().to_string();
                let p = s.permissions.get(&login).cloned().unwrap_or_else(|| "read".into());
                ResponseTemplate::new(200).set_body_json(json!({"permission": p}))
            }
            Route::ListFiles => {
                let files: Vec<Value> = s
                    .patches
                    .iter()
                    .map(|(p, patch)| json!({"filename": p, "status": "modified", "patch": patch}))
                    .collect();
                page(req, &files, &s.base.clone())
            }
            Route::EditComment => {
                let id: u64 = req.url.path().rsplit('/').next().unwrap().parse().unwrap();
                match s.comments.iter_mut().find(|c| c["id"] == id) {
                    Some(c) => {
                        c["body"] = body["body"].clone();
                        ResponseTemplate::new(200).set_body_json(c.clone())
                    }
                    None => error(404, "Not Found", json!([])),
                }
            }
            Route::CreateReview => {
                if let Some(secs) = s.rate_limit_next_review.take() {
                    return error(
                        403,
                        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                        json!([]),
                    )
                    .insert_header("retry-after", secs.to_string().as_str());
                }
                if body["event"] != "COMMENT" {
                    return error(422, "a review without an event stays pending", json!([]));
                }
                if body["commit_id"] != s.head_sha.as_str() {
                    return error(422, "commit_id is not the pull request's head", json!([]));
                }
                let comments = body["comments"].as_array().cloned().unwrap_or_default();
                for c in &comments {
                    let path = c["path"].as_str().unwrap_or_default();
                    let line = c["line"].as_u64().unwrap_or(0) as usize;
                    let inside = s
                        .patches
                        .get(path)
                        .is_some_and(|p| abex::github::api::right_lines(p).contains(&line));
                    if !inside || c["side"] != "RIGHT" {
                        return error(422, "Unprocessable Entity", json!(["Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank"]));
                    }
                    if c["body"].as_str().unwrap_or_default().chars().count() > 65_536 {
                        return error(
                            422,
                            "Body is too long (maximum is 65536 characters)",
                            json!([]),
                        );
                    }
                }
                s.next_id += 1;
                let review_id = 1000 + s.next_id;
                for c in comments {
                    s.next_id += 1;
                    let id = s.next_id;
                    s.comments.push(json!({
                        "id": id, "pull_request_review_id": review_id, "path": c["path"],
                        "line": c["line"], "original_line": c["line"], "side": "RIGHT",
                        "body": c["body"], "in_reply_to_id": null,
                        "user": {"login": "github-actions[bot]"},
                        "reactions": {"total_count": 0, "+1": 0, "-1": 0},
                    }));
                }
                let review = json!({"id": review_id, "state": "COMMENTED", "body": body["body"],
                    "commit_id": body["commit_id"], "comments": body["comments"],
                    "user": {"login": "github-actions[bot]"}});
                s.reviews.push(review.clone());
                if std::mem::take(&mut s.fail_next_review_after_landing) {
                    let (i, when) =
                        (s.reviews.len() - 1, std::time::Instant::now() + s.landing_delay);
                    s.hidden_until.insert(i, when);
                    return error(502, "Server Error", json!([]));
                }
                ResponseTemplate::new(200).set_body_json(review)
            }
        }
    }
}

impl FakeGitHub {
    /// Starts the fake for a pull request at `head_sha` changing `patches`.
    pub fn start(head_sha: &str, patches: BTreeMap<String, String>) -> FakeGitHub {
        FakeGitHub::start_at("", head_sha, patches)
    }

    /// Starts the fake serving under `prefix`, as GitHub Enterprise serves under `/api/v3`.
    pub fn start_at(prefix: &str, head_sha: &str, patches: BTreeMap<String, String>) -> FakeGitHub {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let server = rt.block_on(MockServer::start());
        let state = Arc::new(Mutex::new(State {
            head_sha: head_sha.into(),
            patches,
            base: server.uri(),
            ..State::default()
        }));
        let pr = format!("^{prefix}/repos/{REPO}/pulls/[0-9]+");
        let routes = [
            ("GET", format!("{pr}/comments$"), Route::ListComments),
            ("GET", format!("{pr}/reviews$"), Route::ListReviews),
            ("POST", format!("{pr}/reviews$"), Route::CreateReview),
            ("PATCH", format!("^{prefix}/repos/{REPO}/pulls/comments/[0-9]+$"), Route::EditComment),
            ("GET", format!("{pr}/files$"), Route::ListFiles),
            ("GET", format!("{pr}$"), Route::GetPull),
            (
                "GET",
                format!("^{prefix}/repos/{REPO}/pulls/comments/[0-9]+/reactions$"),
                Route::ListReactions,
            ),
            (
                "GET",
                format!("^{prefix}/repos/{REPO}/collaborators/[^/]+/permission$"),
                Route::Permission,
            ),
        ];
        for (verb, path, route) in routes {
            let mock = Mock::given(method(verb))
                .and(path_regex(path))
                .respond_with(Api(route, state.clone()));
            rt.block_on(server.register(mock));
        }
        FakeGitHub { rt, server, state, prefix: prefix.into() }
    }

    /// Where to post: its pull request 1 at `head`, with a test token.
    pub fn context(&self, head: &str) -> abex::github::Context {
        abex::github::Context {
            pull_request: abex::github::PullRequest {
                owner: "octo".into(),
                repo: "shop".into(),
                number: 1,
                head_sha: head.into(),
                from_fork: false,
            },
            api_url: self.uri(),
            token: "test-token".into(),
        }
    }

    /// The API base, for `GITHUB_API_URL`.
    pub fn uri(&self) -> String {
        format!("{}{}", self.server.uri(), self.prefix)
    }

    /// Every request so far: method, path and JSON body.
    pub fn requests(&self) -> Vec<(String, String, Value)> {
        let reqs = self.rt.block_on(self.server.received_requests()).unwrap_or_default();
        reqs.iter()
            .map(|r| {
                (
                    r.method.to_string(),
                    r.url.path().to_string(),
                    serde_json::from_slice(&r.body).unwrap_or(Value::Null),
                )
            })
            .collect()
    }

    /// How many requests had this method and a path ending in `suffix`.
    pub fn count(&self, verb: &str, suffix: &str) -> usize {
        self.requests().iter().filter(|(m, p, _)| m == verb && p.ends_with(suffix)).count()
    }

    /// A reviewer with write access reacts to comment `id` with `content` (`-1` for 👎).
    pub fn react(&self, id: u64, content: &str) {
        self.state.lock().unwrap().permissions.insert("reviewer".into(), "write".into());
        self.react_as(id, content, "reviewer");
    }

    /// `login` reacts to comment `id` with `content`.
    pub fn react_as(&self, id: u64, content: &str, login: &str) {
        let mut s = self.state.lock().unwrap();
        let c = s.comments.iter_mut().find(|c| c["id"] == id).expect("comment");
        let n = c["reactions"][content].as_u64().unwrap_or(0);
        c["reactions"][content] = json!(n + 1);
        s.reactions.entry(id).or_default().push((login.into(), content.into()));
    }

    /// Another user writes a review comment with `body` on `line` of `path`; returns its id.
    pub fn comment_as(&self, login: &str, path: &str, line: u64, body: &str) -> u64 {
        let mut s = self.state.lock().unwrap();
        s.next_id += 1;
        let id = s.next_id;
        s.comments.push(json!({"id": id, "path": path, "line": line, "original_line": line,
            "side": "RIGHT", "body": body, "in_reply_to_id": null, "user": {"login": login},
            "reactions": {"total_count": 0, "+1": 0, "-1": 0}}));
        id
    }

    /// A push changed the lines under every comment: GitHub marks them outdated (`line` null).
    pub fn outdate_all(&self) {
        for c in &mut self.state.lock().unwrap().comments {
            c["line"] = Value::Null;
        }
    }

    /// A member of the repository replies to comment `id`.
    pub fn reply(&self, id: u64, body: &str) {
        self.reply_as(id, body, "someone", "MEMBER");
    }

    /// `login`, whose `author_association` is `association` (`MEMBER`, `CONTRIBUTOR`, `NONE`,
    /// …), replies to comment `id`.
    pub fn reply_as(&self, id: u64, body: &str, login: &str, association: &str) {
        let mut s = self.state.lock().unwrap();
        s.next_id += 1;
        let reply = json!({"id": s.next_id, "path": "", "line": null, "original_line": null,
            "body": body, "in_reply_to_id": id, "user": {"login": login},
            "author_association": association});
        s.comments.push(reply);
    }
}

/// The pull request's patches as GitHub would show them: `git diff BASE HEAD` in `dir`, three
/// lines of context, split per file.
pub fn patches(dir: &Path, base: &str) -> BTreeMap<String, String> {
    let out = std::process::Command::new("git")
        .args(["diff", "--no-color", "--no-ext-diff", base, "HEAD"])
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut files = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("+++ b/") {
            current = Some((path.to_string(), String::new()));
        } else if line.starts_with("diff --git") {
            if let Some((p, patch)) = current.take() {
                files.insert(p, patch);
            }
        } else if let Some((_, patch)) = current.as_mut() {
            if line.starts_with("@@") || !patch.is_empty() {
                patch.push_str(line);
                patch.push('\n');
            }
        }
    }
    if let Some((p, patch)) = current {
        files.insert(p, patch);
    }
    files
}

/// Writes a `pull_request` event for pull request 1 at `head_sha` into `path`; `fork` makes
/// the head branch live in another repository.
pub fn write_event(path: &Path, head_sha: &str, fork: bool) {
    write_event_for(path, 1, head_sha, fork);
}

/// [`write_event`] for pull request `number`.
pub fn write_event_for(path: &Path, number: u64, head_sha: &str, fork: bool) {
    let head_repo = if fork { "someone/shop" } else { REPO };
    let event = json!({"action": "synchronize", "number": number, "pull_request": {
        "number": number,
        "head": {"sha": head_sha, "ref": "feature", "repo": {"full_name": head_repo}},
        "base": {"sha": "0".repeat(40), "ref": "main", "repo": {"full_name": REPO}}},
        "repository": {"full_name": REPO, "name": "shop", "owner": {"login": "octo"}}});
    std::fs::write(path, event.to_string()).unwrap();
}
