//! Posting reviews end to end: the real `cargo abex` on a fixture repository with a
//! `pull_request` event file, talking to a fake GitHub API on 127.0.0.1 that records every
//! request. Covers the first review (through a secondary rate limit), a re-run that updates
//! and closes instead of duplicating, suppression by 👎, and a line GitHub's diff refuses.

#[path = "../../tests/support/mod.rs"]
mod support;

#[path = "../../tests/support/github.rs"]
mod fake;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fake::FakeGitHub;
use serde_json::Value;

struct Pr {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    event: PathBuf,
    summary: PathBuf,
    outputs: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> String {
    support::git(dir, args).trim().to_string()
}

/// The `review` fixture on `main`, and a `feature` branch that rewrites both thresholds.
fn pull_request() -> Pr {
    let (tmp, dir) = support::project("review");
    git(&dir, &["checkout", "-q", "-b", "feature"]);
    edit(
        &dir,
        &[("if total >= 50 {", "if 50 <= total {"), ("if total >= 100 {", "if 100 <= total {")],
    );
    git(&dir, &["commit", "-q", "-am", "thresholds"]);
    let event = tmp.path().join("event.json");
    fake::write_event(&event, &git(&dir, &["rev-parse", "HEAD"]), false);
    let (summary, outputs) = (tmp.path().join("summary.md"), tmp.path().join("outputs"));
    Pr { _tmp: tmp, dir, event, summary, outputs }
}

fn edit(dir: &Path, replacements: &[(&str, &str)]) {
    let path = dir.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in replacements {
        assert!(text.contains(from), "{from} not in the fixture");
        text = text.replacen(from, to, 1);
    }
    std::fs::write(path, text).unwrap();
}

fn abex(pr: &Pr, gh: &FakeGitHub, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .arg("abex")
        .args(args)
        .current_dir(&pr.dir)
        .env_remove("GITHUB_BASE_REF")
        .env("NO_COLOR", "1")
        .env("GITHUB_EVENT_PATH", &pr.event)
        .env("GITHUB_REPOSITORY", fake::REPO)
        .env("GITHUB_TOKEN", "test-token")
        .env("GITHUB_API_URL", gh.uri())
        .env("GITHUB_STEP_SUMMARY", &pr.summary)
        .env("GITHUB_OUTPUT", &pr.outputs)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The fingerprints in a comment body, and whether it says closed.
fn markers(body: &Value) -> (usize, bool) {
    let b = body.as_str().unwrap();
    (b.matches("<!-- abex:v1 fp=").count(), b.contains("<!-- abex:v1 closed -->"))
}

fn comments(gh: &FakeGitHub) -> Vec<Value> {
    gh.state.lock().unwrap().comments.clone()
}

#[test]
fn a_pull_request_gets_one_review_and_later_runs_update_close_and_respect_suppression() {
    let pr = pull_request();
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    gh.state.lock().unwrap().rate_limit_next_review = true;

    // First push: one review, one comment on each changed line, after one rate-limit retry.
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 comment(s) posted"), "{}", stderr(&o));
    assert!(stderr(&o).contains("retried after 1 s"), "{}", stderr(&o));
    assert_eq!(gh.count("POST", "/reviews"), 2, "{:#?}", gh.requests());
    let reviews = gh.state.lock().unwrap().reviews.clone();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0]["state"], "COMMENTED");
    assert_eq!(reviews[0]["commit_id"], head.as_str());
    assert!(reviews[0]["body"].as_str().unwrap().contains("6 gap(s)"), "{:#}", reviews[0]);
    let c = comments(&gh);
    let placed: Vec<(&str, u64, (usize, bool))> = c
        .iter()
        .map(|c| (c["path"].as_str().unwrap(), c["line"].as_u64().unwrap(), markers(&c["body"])))
        .collect();
    assert_eq!(placed, vec![("src/lib.rs", 5, (3, false)), ("src/lib.rs", 14, (3, false))]);
    let fee = c[0]["body"].as_str().unwrap();
    assert!(fee.contains("- input: `[50]`"), "{fee}");
    assert!(
        fee.contains("- original: `0`") && fee.contains("- mutant: `5`"),
        "{fee}"
    );
    assert!(fee.contains("unpinned boundary"), "{fee}");
    assert!(fee.contains("```rust\n"), "{fee}");
    assert_eq!(fee.matches("assert_eq!(fee(50u32), 0);").count(), 1, "{fee}");
    let summary = std::fs::read_to_string(&pr.summary).unwrap();
    assert!(summary.contains("## abex") && summary.contains("### Review"), "{summary}");
    let outputs = std::fs::read_to_string(&pr.outputs).unwrap();
    assert!(outputs.contains("findings=6\n") && outputs.contains("posted=true\n"), "{outputs}");
    for (_, _, body) in gh.requests() {
        assert!(!body.to_string().contains("test-token"));
    }

    // Second push: the tests now pin `discount` and one threshold of `fee`.
    edit(
        &pr.dir,
        &[(
            "assert_eq!((discount(200), discount(20)), (10, 0));",
            "assert_eq!((discount(200), discount(20)), (10, 0));\n        assert_eq!((discount(100), discount(99), fee(50)), (10, 0, 0));",
        )],
    );
    git(&pr.dir, &["commit", "-q", "-am", "pin the thresholds"]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    fake::write_event(&pr.event, &head, false);
    gh.state.lock().unwrap().head_sha = head;
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(gh.state.lock().unwrap().reviews.len(), 1, "no second review");
    assert_eq!(gh.count("PATCH", ""), 2, "{:#?}", gh.requests());
    let c = comments(&gh);
    assert_eq!(c.len(), 2, "updated, not duplicated");
    assert_eq!(markers(&c[0]["body"]), (1, false), "{}", c[0]["body"]);
    assert!(c[0]["body"].as_str().unwrap().contains("`[49]`"));
    assert_eq!(markers(&c[1]["body"]), (3, true), "{}", c[1]["body"]);
    assert!(c[1]["body"].as_str().unwrap().contains("abex: closed"));

    // Third push: the reviewer 👎'd the `fee` comment; moving the code (which would
    // otherwise edit the comment's text) posts and edits nothing.
    gh.react(c[0]["id"].as_u64().unwrap(), "-1");
    gh.reply(c[1]["id"].as_u64().unwrap(), "Thanks, pinned now.");
    edit(&pr.dir, &[("//! Fixture", "//! A fixture\n//! Fixture")]);
    git(&pr.dir, &["commit", "-q", "-am", "move"]);
    let o = abex(&pr, &gh, &["--offline", "--post-review", "--fail-on", "finding"]);
    assert_eq!(o.status.code(), Some(1), "a gap remains: --fail-on finding: {}", stderr(&o));
    assert!(stderr(&o).contains("1 suppressed"), "{}", stderr(&o));
    assert_eq!(gh.count("PATCH", ""), 2);
    assert_eq!(gh.state.lock().unwrap().reviews.len(), 1);
    // Three comments now: the list took two pages (the fake serves two a page).
    assert_eq!(gh.count("GET", "/comments"), 4);
}

#[test]
fn a_line_outside_github_s_diff_goes_into_the_review_body_and_failures_only_warn() {
    let pr = pull_request();
    // GitHub compares against a base that already has the `discount` change.
    git(&pr.dir, &["checkout", "-q", "-b", "upstream", "main"]);
    edit(&pr.dir, &[("if total >= 100 {", "if 100 <= total {")]);
    git(&pr.dir, &["commit", "-q", "-am", "discount upstream"]);
    git(&pr.dir, &["checkout", "-q", "feature"]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "upstream"));
    let o = abex(&pr, &gh, &["--offline"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(gh.requests().is_empty(), "no posting without --post-review");

    let o = abex(&pr, &gh, &["post", ".abex/out/report.json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let calls: Vec<String> = gh.requests().iter().map(|(m, p, _)| format!("{m} {p}")).collect();
    let pulls = format!("/repos/{}/pulls/1", fake::REPO);
    assert_eq!(
        calls,
        [
            format!("GET {pulls}/comments"),
            format!("POST {pulls}/reviews"),
            format!("GET {pulls}/files"),
            format!("POST {pulls}/reviews"),
        ]
    );
    let c = comments(&gh);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["line"], 5);
    let review = gh.state.lock().unwrap().reviews[0]["body"].as_str().unwrap().to_string();
    assert!(review.contains("### Not on a line"), "{review}");
    assert_eq!(
        review.matches("GitHub's diff of the pull request does not hold its line").count(),
        3
    );

    // An unreachable API is a warning: the exit code and the report stay.
    let report = std::fs::read(pr.dir.join(".abex/out/report.json")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "post", ".abex/out/report.json", "--event"])
        .arg(&pr.event)
        .current_dir(&pr.dir)
        .env("GITHUB_REPOSITORY", fake::REPO)
        .env("GITHUB_TOKEN", "t")
        .env("GITHUB_API_URL", "http://127.0.0.1:9")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_OUTPUT")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: failed to post the review"), "{}", stderr(&o));
    assert_eq!(std::fs::read(pr.dir.join(".abex/out/report.json")).unwrap(), report);
}
