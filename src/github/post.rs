//! Posting a saved report on its pull request: one review per run (event `COMMENT`) with an
//! inline comment per changed line that holds a gap, earlier abex comments updated or marked
//! closed, suppressed findings left alone, and everything that cannot go on a line in the
//! review's body. A run with nothing new (no new comment, no finding that an earlier review's
//! body did not list) posts no review. The report is only read; a failure here never touches it.
//! Each run's review carries a nonce, by which a review that GitHub answered with a server error
//! is found once it lands instead of being posted again.

use std::fmt::Write as _;
use std::time::Duration;

use super::api::{new_nonce, run_marker, ApiError, Client, ReviewComment, ReviewRequest};
use super::event::Context;
use super::finding::{findings, fit, marker, markers, Finding, Kind};
use super::plan::{plan, Plan};
use crate::report::Report;

/// How to post.
#[derive(Clone, Debug)]
pub struct PostOptions {
    /// At most this many new inline comments per run; the rest go into the review body.
    pub max_comments: usize,
    /// The longest wait for a rate limit before giving up.
    pub max_wait: Duration,
    /// The project root relative to the repository root; `None` takes the one the run recorded
    /// in the report (`Report::repo_prefix`, ignored when it could leave the repository).
    pub path_prefix: Option<String>,
    /// The head commit of the run the report came from, when the event file is not trusted
    /// (`cargo abex post` in a `workflow_run` job: `github.event.workflow_run.head_sha`). The
    /// pull request the event names must have that head, or nothing is posted.
    pub expect_head_sha: Option<String>,
    /// The login that posts, when `GET /user` cannot tell (a GitHub App's bot); by default the
    /// token's own, or `github-actions[bot]` for `GITHUB_TOKEN`.
    pub identity: Option<String>,
    /// Suggestion blocks that add the suggested tests in one click (see
    /// [`super::suggestion`]); [`super::publish`] makes them in the run's own checkout.
    pub suggestions: Vec<super::suggestion::TestSuggestion>,
    /// The waits between looks for a review that failed with a server error
    /// ([`Client::create_review`]); [`super::api::LANDING_WAITS`] by default (tests shorten them).
    pub landing_waits: Vec<Duration>,
}

impl Default for PostOptions {
    fn default() -> Self {
        PostOptions {
            max_comments: 30,
            max_wait: Duration::from_secs(120),
            path_prefix: None,
            expect_head_sha: None,
            identity: None,
            suggestions: Vec::new(),
            landing_waits: super::api::LANDING_WAITS.to_vec(),
        }
    }
}

/// What a posting run did.
#[derive(Clone, Debug, Default)]
pub struct Posted {
    /// The review created, if there was anything new to say.
    pub review_id: Option<u64>,
    /// Inline comments created.
    pub created: usize,
    /// Findings in those comments.
    pub placed: usize,
    /// Earlier comments updated.
    pub updated: usize,
    /// Earlier comments marked closed.
    pub closed: usize,
    /// Earlier comments left as they were.
    pub unchanged: usize,
    /// Earlier comments whose gaps this run did not report, left open, and why: `src/lib.rs:8:
    /// its mutant was not tested in this run (the time budget ran out)`.
    pub kept_open: Vec<String>,
    /// Titles of findings suppressed by a person.
    pub suppressed: Vec<String>,
    /// Titles of findings put in the review body, with the reason.
    pub in_body: Vec<(String, &'static str)>,
    /// Retries and edits that failed; the run went on.
    pub notes: Vec<String>,
}

/// Why posting failed.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    /// A GitHub call failed.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The pull request is not the one the report was made for.
    #[error("{0}")]
    Mismatch(String),
    /// The async runtime could not start.
    #[error("failed to start the HTTP runtime: {0}")]
    Runtime(std::io::Error),
}

/// The review's own text: the run's marker (`nonce`), counts, and every finding that is not on a
/// line (with its marker, so that a later run does not post the same list again).
pub fn review_body(p: &Plan, all: &[Finding], nonce: &str) -> String {
    let mut out = format!("## abex\n{}\n\n", run_marker(nonce));
    let gaps: Vec<&Finding> = all.iter().filter(|f| f.kind == Kind::Gap).collect();
    let functions: std::collections::BTreeSet<&str> =
        gaps.iter().map(|f| f.function.as_str()).collect();
    let unreached = match all.len() - gaps.len() {
        0 => String::new(),
        k => format!(" {k} function(s) not reached by any test (one note each, no gap)."),
    };
    let _ = writeln!(
        out,
        "{} gap(s) the tests do not pin down in {} function(s): {} new comment(s), {} updated, \
         {} closed.{unreached}",
        gaps.len(),
        functions.len(),
        p.new.len(),
        p.updates.len(),
        p.closes.len()
    );
    if !p.unplaced.is_empty() {
        out.push_str("\n### Not on a line\n\n");
        for (f, why) in &p.unplaced {
            // Inside `<summary>` Markdown is not read: the title's parts as HTML text.
            let title = format!("{}:{} {}: {}", f.path, f.line, f.function, f.description);
            let _ = writeln!(
                out,
                "<details><summary>{} ({})</summary>\n\n{}\n</details>\n",
                crate::render::inert::html_text(&title, crate::render::inert::MAX_INLINE),
                why.describe(),
                f.body
            );
        }
    }
    if !p.suppressed.is_empty() {
        let _ =
            writeln!(out, "\n{} finding(s) suppressed (`/abex ignore` or 👎).", p.suppressed.len());
    }
    out.push_str(
        "\n<sub>Everything, with what was skipped, is in the job summary and the `abex-report` \
         artifact: open its `report.html` for the boundary maps and the mutants in their source.</sub>\n",
    );
    let tail: String = p.unplaced.iter().map(|(f, _)| marker(&f.fingerprint) + "\n").collect();
    fit(&out, tail.len()) + &tail
}

async fn run(report: &Report, ctx: &Context, opts: &PostOptions) -> Result<Posted, PostError> {
    let prefix = opts.path_prefix.clone().unwrap_or_else(|| report.safe_prefix().to_string());
    let all = findings(report, &prefix);
    let mut client = Client::new(ctx, opts.max_wait)?;
    client.landing_waits = opts.landing_waits.clone();
    let nonce = new_nonce();
    let head = &ctx.pull_request.head_sha;
    verify(&mut client, ctx, opts).await?;
    client.learn_identity(opts.identity.as_deref()).await;
    let existing = client.comments().await?;
    let closing = super::closing::Closing::of(report, &prefix);
    let mut p = plan(&all, &existing, opts.max_comments, &closing, head);
    p.attach(&opts.suggestions, &existing);
    let mut posted = Posted::default();
    // Findings an earlier review's body already listed do not call for a new review.
    let mut listed = std::collections::HashSet::new();
    if !p.unplaced.is_empty() {
        for body in client.review_bodies().await? {
            listed.extend(markers(&body).map(|m| m.fingerprints).unwrap_or_default());
        }
    }
    let news = p.unplaced.iter().any(|(f, _)| !listed.contains(&f.fingerprint));
    if !p.new.is_empty() || news {
        let mut retried = false;
        loop {
            let comments: Vec<ReviewComment> = p
                .new
                .iter()
                .map(|c| ReviewComment {
                    path: c.path.clone(),
                    line: c.line,
                    side: "RIGHT",
                    body: c.body(),
                })
                .collect();
            let body = review_body(&p, &all, &nonce);
            let req = ReviewRequest {
                commit_id: head,
                body: &body,
                event: "COMMENT",
                comments: &comments,
                nonce: &nonce,
            };
            match client.create_review(&req).await {
                Ok(id) => {
                    posted.review_id = Some(id);
                    break;
                }
                Err(e) if e.is_outside_diff() && !retried => {
                    retried = true;
                    let allowed = client.diff_lines().await?;
                    let moved = p.drop_anchors(&allowed);
                    client.notes.push(format!(
                        "GitHub refused a line outside its diff; {moved} comment(s) moved to the review body"
                    ));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
    for edit in p.updates.iter().chain(&p.closes) {
        if let Err(e) = client.edit_comment(edit.id, &edit.body).await {
            client.notes.push(format!("failed to edit comment {}: {e}", edit.id));
        }
    }
    posted.created = p.new.len();
    posted.placed = p.new.iter().map(|c| c.findings.len()).sum();
    posted.updated = p.updates.len();
    posted.closed = p.closes.len();
    posted.unchanged = p.unchanged;
    posted.kept_open = p
        .kept_open
        .iter()
        .map(|k| match k.line {
            Some(line) => format!("{}:{line}: {}", k.path, k.why),
            None => format!("{} (outdated): {}", k.path, k.why),
        })
        .collect();
    posted.suppressed = p.suppressed.iter().map(|f| f.title.clone()).collect();
    posted.in_body = p.unplaced.iter().map(|(f, why)| (f.title.clone(), why.describe())).collect();
    posted.notes = client.notes;
    Ok(posted)
}

/// Checks the pull request against the run: GitHub's head of the pull request the event names
/// must be the event's head (else a newer push's run will post), and the head of the run the
/// report came from, when given (else the event, from an artifact, names another pull request).
async fn verify(client: &mut Client, ctx: &Context, opts: &PostOptions) -> Result<(), PostError> {
    let pr = &ctx.pull_request;
    let (number, head) = client.pull_request().await?;
    if number != pr.number {
        return Err(PostError::Mismatch(format!(
            "GitHub's pull request #{number} is not the event's #{}",
            pr.number
        )));
    }
    if let Some(expected) = opts.expect_head_sha.as_deref().map(str::to_lowercase) {
        if expected != pr.head_sha || expected != head {
            return Err(PostError::Mismatch(format!(
                "refused: the report's event names pull request #{number} at {}, whose head is \
                 {head}, but the run that made the report was for {expected}\nhint: an artifact \
                 naming another pull request is never posted",
                pr.head_sha
            )));
        }
    }
    if head != pr.head_sha {
        return Err(PostError::Mismatch(format!(
            "pull request #{number} has moved on to {head}; the report is for {}: the run for \
             the newer commit posts",
            pr.head_sha
        )));
    }
    Ok(())
}

/// Posts `report` on the pull request of `ctx`. Blocks; runs its own single-threaded runtime.
pub fn post(report: &Report, ctx: &Context, opts: &PostOptions) -> Result<Posted, PostError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(PostError::Runtime)?;
    rt.block_on(run(report, ctx, opts))
}
