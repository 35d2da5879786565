//! The GitHub end of a run, for every front end: post the review when asked, append the job
//! summary, write the step outputs, and (in the analysing run) put the pull request's event next
//! to the report, for the job that posts it from the artifact. Nothing here fails the run: each
//! problem comes back as a warning for the front end to show, and the report is only read.

use std::path::{Path, PathBuf};

use super::actions;
use super::event::Context;
use super::post::{post, PostOptions, Posted};
use crate::report::Report;

/// What to publish, and where.
#[derive(Clone, Debug, Default)]
pub struct Publish {
    /// Post the review.
    pub post: bool,
    /// Posting from the analysis run itself (`--post-review`): a fork's pull request is not
    /// posted on, since its token is read-only. False for `cargo abex post` in a `workflow_run`
    /// job, whose token can post on a fork's pull request; there the report may come from an
    /// untrusted artifact, whose recorded path prefix is used only if it stays inside the
    /// repository.
    pub in_run: bool,
    /// The event file, instead of `GITHUB_EVENT_PATH`.
    pub event: Option<PathBuf>,
    /// How to post.
    pub options: PostOptions,
    /// The job summary file to append to (`GITHUB_STEP_SUMMARY`).
    pub step_summary: Option<PathBuf>,
    /// The step outputs file to append to (`GITHUB_OUTPUT`).
    pub outputs: Option<PathBuf>,
}

/// What publishing did.
#[derive(Debug, Default)]
pub struct Published {
    /// The outcome of posting, when it was asked for.
    pub posting: Option<Result<Posted, String>>,
    /// Gaps in the report.
    pub findings: usize,
    /// Files that could not be written.
    pub warnings: Vec<String>,
}

/// The step outputs of a run: `findings`, `cost-usd` (model spending, 0 offline), `report`
/// (the path) and `posted`.
pub fn outputs(report: &Report, report_path: &Path, posted: bool) -> Vec<(&'static str, String)> {
    let cost = report.llm.as_ref().map_or(0.0, |l| l.total.usd);
    vec![
        ("findings", actions::findings_count(report).to_string()),
        ("cost-usd", format!("{cost:.4}")),
        ("report", report_path.display().to_string()),
        ("posted", posted.to_string()),
    ]
}

/// Publishes `report`, read from or written to `report_path`.
pub fn publish(report: &Report, report_path: &Path, what: &Publish) -> Published {
    let posting = what.post.then(|| {
        let ctx = Context::from_env(what.event.as_deref()).map_err(|e| e.to_string())?;
        // A fork's `pull_request` run (the analysis, or a job that `needs:` it) has a read-only
        // token; a `workflow_run` job posts for it.
        let pull_request_run =
            std::env::var("GITHUB_EVENT_NAME").is_ok_and(|e| e == "pull_request");
        if (what.in_run || pull_request_run) && ctx.pull_request.from_fork {
            return Err("the pull request comes from a fork, whose token cannot post\nhint: post \
                        from a `workflow_run` workflow with `cargo abex post` (docs/ci.md)"
                .to_string());
        }
        let mut options = what.options.clone();
        if what.in_run && options.suggestions.is_empty() {
            // The run's own checkout is the pull request's head: its patch and diff hold.
            options.suggestions = super::suggestion::of_run(report);
        }
        if !what.in_run && options.expect_head_sha.is_none() {
            // In a `workflow_run` job, the run's own head guards against an artifact's event.
            options.expect_head_sha = super::event::workflow_run_head();
        }
        post(report, &ctx, &options).map_err(|e| e.to_string())
    });
    let mut warnings = Vec::new();
    if what.in_run {
        let event = what.event.clone().or_else(|| {
            std::env::var_os("GITHUB_EVENT_PATH").filter(|p| !p.is_empty()).map(PathBuf::from)
        });
        if let Some(event) = event.filter(|e| e.is_file()) {
            let copy = report_path.with_file_name("event.json");
            if let Err(e) = std::fs::copy(&event, &copy) {
                warnings.push(format!("failed to copy the event to `{}`: {e}", copy.display()));
            }
        }
    }
    if let Some(path) = &what.step_summary {
        let text = actions::step_summary(report, posting.as_ref());
        if let Err(e) = actions::append_step_summary(path, &text) {
            warnings.push(format!("failed to write the job summary `{}`: {e}", path.display()));
        }
    }
    if let Some(path) = &what.outputs {
        let values = outputs(report, report_path, matches!(posting, Some(Ok(_))));
        if let Err(e) = actions::write_outputs(path, &values) {
            warnings.push(format!("failed to write the step outputs `{}`: {e}", path.display()));
        }
    }
    Published { posting, findings: actions::findings_count(report), warnings }
}
