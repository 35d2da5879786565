//! `cargo abex --post-review` and `cargo abex post REPORT.json`: the GitHub end of a run. Posts
//! the review (a failure is a warning unless `--require-post`), appends the job summary, writes
//! the step outputs, and turns `--fail-on` into the exit code. The report on disk is never
//! touched here.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use abex::github::{publish, PostOptions, Publish};
use abex::report::Report;
use clap::Args;

/// `--fail-on` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Exit 0 whatever was found.
    Never,
    /// Exit 1 when the run found a gap.
    Finding,
}

/// Options for posting and for the files GitHub Actions reads.
#[derive(Args, Debug)]
#[command(next_help_heading = "GitHub")]
pub struct PostArgs {
    /// Exit with 1 when a gap was found (`finding`), or never.
    #[arg(long, value_enum, default_value = "never", value_name = "WHEN")]
    pub fail_on: FailOn,
    /// New review comments per run at most; the rest go into the review body.
    #[arg(long, default_value_t = 30, value_name = "N")]
    pub max_comments: usize,
    /// The pull request's event file [default: `GITHUB_EVENT_PATH`].
    #[arg(long, value_name = "FILE")]
    pub event: Option<PathBuf>,
    /// The project's folder inside the repository, for the paths of comments and annotations
    /// [default: the one the run recorded in the report, from git].
    #[arg(long, value_name = "DIR")]
    pub path_prefix: Option<String>,
    /// The head commit of the run the report came from: `post` refuses a pull request whose head
    /// is another commit (an artifact naming another pull request) [default, for `post` in a
    /// `workflow_run` job: `workflow_run.head_sha` of `GITHUB_EVENT_PATH`].
    #[arg(long, value_name = "SHA")]
    pub head_sha: Option<String>,
    /// The login that posts, when the token cannot say (a GitHub App's `name[bot]`) [default:
    /// the token's own, or `github-actions[bot]`]. Only its comments count as abex's.
    #[arg(long, value_name = "LOGIN")]
    pub identity: Option<String>,
    /// Exit with 3 when posting fails (by default it is a warning and the exit code is kept).
    #[arg(long)]
    pub require_post: bool,
    /// Append the summary to this file (capped at GitHub's 1 MiB).
    #[arg(long, env = "GITHUB_STEP_SUMMARY", value_name = "FILE")]
    pub step_summary: Option<PathBuf>,
}

/// Posts `report` when `post` is set, writes the job summary and outputs, and picks the exit
/// code. `in_run` is true for `--post-review`, which does not post from a fork's pull request
/// (its token is read-only); `cargo abex post` in a `workflow_run` job does.
pub fn finish(
    report: &Report,
    report_path: &Path,
    post: bool,
    in_run: bool,
    args: &PostArgs,
) -> ExitCode {
    let what = Publish {
        post,
        in_run,
        event: args.event.clone(),
        options: PostOptions {
            max_comments: args.max_comments,
            path_prefix: args.path_prefix.clone(),
            expect_head_sha: args.head_sha.clone(),
            identity: args.identity.clone(),
            ..PostOptions::default()
        },
        step_summary: args.step_summary.clone(),
        outputs: std::env::var_os("GITHUB_OUTPUT").filter(|p| !p.is_empty()).map(PathBuf::from),
    };
    let done = publish(report, report_path, &what);
    // In a GitHub Actions step: a `::warning` annotation per gap, on the diff and in the log.
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        let mut report = report.clone();
        if let Some(prefix) = &args.path_prefix {
            report.repo_prefix = prefix.clone();
        }
        print!("{}", abex::render::annotations::render(&report));
    }
    match &done.posting {
        Some(Ok(p)) => {
            eprintln!(
                "abex: review: {} comment(s) posted, {} updated, {} closed, {} unchanged, {} in the review body, {} suppressed",
                p.created,
                p.updated,
                p.closed,
                p.unchanged,
                p.in_body.len(),
                p.suppressed.len()
            );
            for note in &p.notes {
                eprintln!("abex: note: {note}");
            }
        }
        Some(Err(e)) => eprintln!(
            "warning: failed to post the review: {e}\nThe report is intact: `{}`.",
            report_path.display()
        ),
        None => {}
    }
    for w in &done.warnings {
        eprintln!("warning: {w}");
    }
    if args.require_post && matches!(done.posting, Some(Err(_))) {
        return ExitCode::from(3);
    }
    if args.fail_on == FailOn::Finding && done.findings > 0 {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// `cargo abex post REPORT.json`: posts a saved report without running anything (or, without
/// `post`, only writes the job summary and outputs).
pub fn post_saved(path: &Path, post: bool, args: &PostArgs) -> ExitCode {
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<Report>(&t).map_err(|e| e.to_string()));
    match parsed {
        Ok(report) => finish(&report, path, post, false, args),
        Err(e) => {
            crate::render::error(&format!(
                "failed to read the report `{}`: {e}\nhint: pass the `report.json` that a run wrote (`.abex/out/report.json`)",
                path.display()
            ));
            ExitCode::from(2)
        }
    }
}
