//! Posting reviews end to end: the real `cargo abex` on a fixture repository with a
//! `pull_request` event file, talking to a fake GitHub API on 127.0.0.1 that records every
//! request. Covers the first review (through a secondary rate limit), a re-run that updates
//! and closes instead of duplicating, suppression by 👎, and a line GitHub's diff refuses.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::fake::{self, FakeGitHub};
use crate::support;

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

/// A command in the pull request's checkout with the environment of a GitHub Actions step.
fn in_actions(program: impl AsRef<std::ffi::OsStr>, pr: &Pr, gh: &FakeGitHub) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(&pr.dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ABEX_BASE_URL")
        .env("NO_COLOR", "1")
        .env("GITHUB_EVENT_PATH", &pr.event)
        .env("GITHUB_REPOSITORY", fake::REPO)
        .env("GITHUB_TOKEN", "test-token")
        .env("GITHUB_API_URL", gh.uri())
        .env("GITHUB_STEP_SUMMARY", &pr.summary)
        .env("GITHUB_OUTPUT", &pr.outputs);
    cmd
}

fn abex(pr: &Pr, gh: &FakeGitHub, args: &[&str]) -> Output {
    in_actions(env!("CARGO_BIN_EXE_cargo-abex"), pr, gh).arg("abex").args(args).output().unwrap()
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

/// A push that adds `assertion` to the fixture's test: committed, and the event and the fake's
/// head moved to it.
fn pin(pr: &Pr, gh: &FakeGitHub, assertion: &str) {
    let anchor = "assert_eq!((discount(200), discount(20)), (10, 0));";
    edit(&pr.dir, &[(anchor, &format!("{anchor}\n        {assertion}"))]);
    git(&pr.dir, &["commit", "-q", "-am", "pin thresholds"]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    fake::write_event(&pr.event, &head, false);
    gh.state.lock().unwrap().head_sha = head;
}

#[test]
fn a_pull_request_gets_one_review_and_later_runs_update_close_and_respect_suppression() {
    let pr = pull_request();
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    gh.state.lock().unwrap().rate_limit_next_review = Some(1);

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
    // The diff does not touch the test module: the tests come as code, no suggestion.
    assert!(c.iter().all(|c| !c["body"].as_str().unwrap().contains("```suggestion")), "{c:#?}");
    assert!(fee.contains("- input: `[50]`"), "{fee}");
    assert!(fee.contains("- original: `0`") && fee.contains("- mutant: `5`"), "{fee}");
    assert!(fee.contains("unpinned boundary"), "{fee}");
    assert!(fee.contains("```rust\n"), "{fee}");
    assert_eq!(fee.matches("assert_eq!(fee(50), 0);").count(), 1, "{fee}");
    assert!(
        fee.contains("- line 5: replace `<=` with `<`; on `[50]` the original gives `0`"),
        "{fee}"
    );
    let summary = std::fs::read_to_string(&pr.summary).unwrap();
    assert!(summary.contains("## abex") && summary.contains("### Review"), "{summary}");
    let outputs = std::fs::read_to_string(&pr.outputs).unwrap();
    assert!(outputs.contains("findings=6\n") && outputs.contains("posted=true\n"), "{outputs}");
    assert!(outputs.contains("cost-usd=0.0000\n"), "{outputs}");
    for (_, _, body) in gh.requests() {
        assert!(!body.to_string().contains("test-token"));
    }

    // Second push: the tests now pin `discount` and one threshold of `fee`.
    pin(&pr, &gh, "assert_eq!((discount(100), discount(99), fee(50)), (10, 0, 0));");
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
fn a_run_the_time_budget_cut_closes_nothing_and_a_complete_one_closes_what_its_tests_kill() {
    let pr = pull_request();
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let posted = comments(&gh);
    assert_eq!(posted.len(), 2);

    // The tests now pin `discount`; a run whose budget runs out before any mutant is tested.
    pin(&pr, &gh, "assert_eq!((discount(100), discount(99)), (10, 0));");
    std::fs::write(&pr.summary, "").unwrap();
    let o = abex(&pr, &gh, &["--offline", "--post-review", "--time-budget", "300ms"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(pr.dir.join(".abex/out/report.json")).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["complete"], false, "{r:#}");
    assert_eq!(r["exhausted"], "time budget");
    assert!(r["unfinished"]["mutants_not_tested"].as_u64().unwrap() > 0, "{r:#}");
    assert!(stderr(&o).contains("the time budget ran out:"), "{}", stderr(&o));
    assert_eq!(gh.count("PATCH", ""), 0, "a cut run edits no comment: {:#?}", gh.requests());
    assert_eq!(comments(&gh), posted);
    let summary = std::fs::read_to_string(&pr.summary).unwrap();
    assert!(
        summary.contains("left open, not closed: src/lib.rs:14: its mutant was not tested in this run (the time budget ran out)"),
        "{summary}"
    );

    // The same code, analysed to the end: the discount's mutants are killed, its comment closed.
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    let closed: Vec<&Value> =
        c.iter().filter(|c| c["body"].as_str().unwrap().contains("abex: closed")).collect();
    assert_eq!(closed.len(), 1, "{c:#?}");
    assert_eq!(closed[0]["line"], 14);
    assert!(closed[0]["body"].as_str().unwrap().contains("the tests now kill its mutant"));
    assert_eq!(markers(&c[0]["body"]), (3, false), "the fee's gaps stay open: {}", c[0]["body"]);
}

#[test]
fn a_function_no_test_reaches_gets_one_note_which_closes_once_a_test_reaches_it() {
    let pr = pull_request();
    // The pull request also adds a function that no test calls.
    let surcharge = "\n/// Surcharge for big orders.\npub fn surcharge(total: u32) -> u32 {\n    if total > 500 {\n        7\n    } else {\n        0\n    }\n}\n";
    let anchor = "#[cfg(test)]";
    edit(&pr.dir, &[(anchor, &format!("{}\n{anchor}", surcharge.trim_start()))]);
    git(&pr.dir, &["commit", "-q", "-am", "surcharge"]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    fake::write_event(&pr.event, &head, false);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    let notes: Vec<&Value> = c
        .iter()
        .filter(|c| c["body"].as_str().unwrap().contains("a function no test reaches"))
        .collect();
    // One note for the function, with one marker: none of its mutants is a gap or a comment.
    assert_eq!(notes.len(), 1, "{c:#?}");
    let note = notes[0]["body"].as_str().unwrap();
    assert_eq!(markers(&notes[0]["body"]), (1, false), "{note}");
    assert!(note.contains("`surcharge`") && !note.contains("```rust"), "{note}");
    assert!(c.iter().all(|c| !c["body"].as_str().unwrap().contains("total > 500")), "{c:#?}");
    let reviews = gh.state.lock().unwrap().reviews.clone();
    let body = reviews[0]["body"].as_str().unwrap();
    assert!(body.contains("6 gap(s)") && body.contains("1 function(s) not reached"), "{body}");

    // The next push tests it: the note is closed, saying why, and its gaps are now gaps.
    let tested = "assert_eq!((discount(200), discount(20)), (10, 0));";
    edit(
        &pr.dir,
        &[
            ("use super::{discount, fee};", "use super::{discount, fee, surcharge};"),
            (
                tested,
                &format!("{tested}\n        assert_eq!((surcharge(1000), surcharge(10)), (7, 0));"),
            ),
        ],
    );
    git(&pr.dir, &["commit", "-q", "-am", "test surcharge"]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    fake::write_event(&pr.event, &head, false);
    {
        // GitHub's diff now holds the test module's new line too.
        let mut state = gh.state.lock().unwrap();
        state.head_sha = head;
        state.patches = fake::patches(&pr.dir, "main");
    }
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    let id = notes[0]["id"].as_u64().unwrap();
    let note = c.iter().find(|x| x["id"].as_u64() == Some(id)).unwrap();
    let text = note["body"].as_str().unwrap();
    assert!(
        text.contains("abex: closed") && text.contains("a test now reaches its function"),
        "{text}"
    );
    assert!(
        c.iter().any(|x| x["body"].as_str().unwrap().contains("replace `>` with `>=`")),
        "the threshold 500 is a gap now: {}",
        stderr(&o)
    );
}

/// `text` with GitHub's suggestion in `body` applied on `line`: the block's lines replace it.
fn apply_suggestion(text: &str, line: usize, body: &str) -> String {
    let block = body.split("```suggestion\n").nth(1).expect("a suggestion block");
    let block = &block[..block.find("\n```").expect("the block's end")];
    let mut lines: Vec<&str> = text.split('\n').collect();
    lines.splice(line - 1..line, block.split('\n'));
    lines.join("\n")
}

#[test]
fn a_pull_request_that_touches_the_test_module_gets_a_suggestion_that_applies_the_patch() {
    let pr = pull_request();
    // The author also adds a test at the end of the test module.
    edit(
        &pr.dir,
        &[(
            "        assert_eq!((discount(200), discount(20)), (10, 0));\n    }\n",
            "        assert_eq!((discount(200), discount(20)), (10, 0));\n    }\n\n    #[test]\n    fn no_fee_for_big_orders() {\n        assert_eq!(fee(1000), 0);\n    }\n",
        )],
    );
    git(&pr.dir, &["commit", "-q", "-am", "a test"]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    fake::write_event(&pr.event, &head, false);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    let with: Vec<&Value> =
        c.iter().filter(|c| c["body"].as_str().unwrap().contains("```suggestion")).collect();
    assert_eq!(with.len(), 1, "{c:#?}");
    let (body, line) = (with[0]["body"].as_str().unwrap(), with[0]["line"].as_u64().unwrap());
    assert_eq!(with[0]["path"], "src/lib.rs");
    // On the last line of the author's new test, one GitHub accepts.
    let text = std::fs::read_to_string(pr.dir.join("src/lib.rs")).unwrap();
    assert_eq!(text.lines().nth(line as usize - 1), Some("    }"), "{line}");
    let suggested = apply_suggestion(&text, line as usize, body);
    let o = Command::new("git")
        .args(["apply", ".abex/out/suggested-tests.patch"])
        .current_dir(&pr.dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let patched = std::fs::read_to_string(pr.dir.join("src/lib.rs")).unwrap();
    assert_ne!(patched, text);
    assert_eq!(suggested, patched, "the suggestion and the patch give different files");
    // Its gaps are still listed, each with its line, change and witness.
    assert!(body.contains("- line "), "{body}");
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
    // Served under `/api/v3`, as GitHub Enterprise does.
    let gh = FakeGitHub::start_at("/api/v3", &head, fake::patches(&pr.dir, "upstream"));
    let o = abex(&pr, &gh, &["--offline"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(gh.requests().is_empty(), "no posting without --post-review");
    let o = abex(&pr, &gh, &["post", ".abex/out/report.json", "--summary-only"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(gh.requests().is_empty(), "no posting with --summary-only");
    assert!(std::fs::read_to_string(&pr.outputs).unwrap().contains("posted=false\n"));
    assert!(std::fs::read_to_string(&pr.summary).unwrap().contains("**6 gap(s)**"));

    let o = abex(&pr, &gh, &["post", ".abex/out/report.json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let calls: Vec<String> = gh.requests().iter().map(|(m, p, _)| format!("{m} {p}")).collect();
    let pulls = format!("/api/v3/repos/{}/pulls/1", fake::REPO);
    assert_eq!(
        calls,
        [
            format!("GET {pulls}"),
            "GET /api/v3/user".to_string(),
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

    // A failure to post is a warning: the exit code and the report stay. A rate limit longer
    // than abex waits (120 s) is a failure, reported at once.
    let report = std::fs::read(pr.dir.join(".abex/out/report.json")).unwrap();
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "upstream"));
    gh.state.lock().unwrap().rate_limit_next_review = Some(3600);
    let started = std::time::Instant::now();
    let o = abex(&pr, &gh, &["post", ".abex/out/report.json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(started.elapsed().as_secs() < 60);
    assert!(stderr(&o).contains("warning: failed to post the review"), "{}", stderr(&o));
    assert!(stderr(&o).contains("403"), "{}", stderr(&o));
    assert_eq!(std::fs::read(pr.dir.join(".abex/out/report.json")).unwrap(), report);
    // With --require-post, and an API that does not answer at all.
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "post", ".abex/out/report.json", "--require-post", "--event"])
        .arg(&pr.event)
        .current_dir(&pr.dir)
        .env("GITHUB_REPOSITORY", fake::REPO)
        .env("GITHUB_TOKEN", "t")
        .env("GITHUB_API_URL", "http://127.0.0.1:9")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_OUTPUT")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: failed to post the review"), "{}", stderr(&o));
}

#[test]
fn a_project_in_a_subfolder_gets_comments_on_repository_paths() {
    let (tmp, top) = support::project("review");
    std::fs::create_dir(top.join("shop")).unwrap();
    git(&top, &["mv", "Cargo.toml", "src", "shop/"]);
    git(&top, &["commit", "-q", "-m", "into a subfolder"]);
    git(&top, &["checkout", "-q", "-b", "feature"]);
    let dir = top.join("shop");
    edit(&dir, &[("if total >= 50 {", "if 50 <= total {")]);
    git(&top, &["commit", "-q", "-am", "fee"]);
    let head = git(&top, &["rev-parse", "HEAD"]);
    let event = tmp.path().join("event.json");
    fake::write_event(&event, &head, false);
    let pr = Pr {
        dir,
        event,
        summary: tmp.path().join("summary.md"),
        outputs: tmp.path().join("outputs"),
        _tmp: tmp,
    };
    let gh = FakeGitHub::start(&head, fake::patches(&top, "main"));
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    assert_eq!(c.len(), 1, "{:#?}", gh.requests());
    assert_eq!((c[0]["path"].as_str(), c[0]["line"].as_u64()), (Some("shop/src/lib.rs"), Some(5)));

    // `post` from a `workflow_run` job has no checkout: the report's recorded prefix gives the
    // paths, of comments and of annotations.
    let away = pr._tmp.path().join("artifact");
    std::fs::create_dir(&away).unwrap();
    std::fs::copy(pr.dir.join(".abex/out/report.json"), away.join("report.json")).unwrap();
    let gh = FakeGitHub::start(&head, fake::patches(&top, "main"));
    let o = in_actions(env!("CARGO_BIN_EXE_cargo-abex"), &pr, &gh)
        .current_dir(&away)
        .env("GITHUB_ACTIONS", "true")
        .args(["abex", "post", "report.json", "--head-sha", &head])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    assert_eq!((c[0]["path"].as_str(), c[0]["line"].as_u64()), (Some("shop/src/lib.rs"), Some(5)));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("::warning file=shop/src/lib.rs,line=5,"), "{stdout}");
}

/// `cargo abex post` (as a `workflow_run` job runs it) on a saved report, against a fresh fake.
fn post(pr: &Pr, gh: &FakeGitHub, extra: &[&str]) -> Output {
    in_actions(env!("CARGO_BIN_EXE_cargo-abex"), pr, gh)
        .args(["abex", "post", ".abex/out/report.json"])
        .args(extra)
        .output()
        .unwrap()
}

fn writes(gh: &FakeGitHub) -> Vec<String> {
    let calls = gh.requests().into_iter().filter(|(m, _, _)| m != "GET");
    calls.map(|(m, p, _)| format!("{m} {p}")).collect()
}

#[test]
fn posting_checks_the_pull_request_owns_only_its_comments_and_never_doubles_a_review() {
    let pr = pull_request();
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let patches = fake::patches(&pr.dir, "main");
    let o = abex(&pr, &FakeGitHub::start(&head, patches.clone()), &["--offline"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let victim = "b".repeat(40);

    // A fork's artifact whose event names another pull request (#2) is refused, whether it
    // claims that pull request's head or the run's own; nothing is written.
    for claimed in [victim.as_str(), head.as_str()] {
        let gh = FakeGitHub::start(&head, patches.clone());
        gh.state.lock().unwrap().other_pulls.insert(2, victim.clone());
        fake::write_event_for(&pr.event, 2, claimed, true);
        let o = post(&pr, &gh, &["--head-sha", &head, "--require-post"]);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(stderr(&o).contains("pull request #2"), "{}", stderr(&o));
        assert_eq!(writes(&gh), Vec::<String>::new());
    }
    // In a `workflow_run` job the run's head comes from its own (trusted) event by default.
    let gh = FakeGitHub::start(&head, patches.clone());
    gh.state.lock().unwrap().other_pulls.insert(2, victim.clone());
    fake::write_event_for(&pr.event, 2, &victim, true);
    let run_event = pr._tmp.path().join("workflow_run.json");
    let trusted = serde_json::json!({"workflow_run": {"head_sha": head, "event": "pull_request"}});
    std::fs::write(&run_event, trusted.to_string()).unwrap();
    let o = in_actions(env!("CARGO_BIN_EXE_cargo-abex"), &pr, &gh)
        .env("GITHUB_EVENT_PATH", &run_event)
        .args(["abex", "post", ".abex/out/report.json", "--require-post", "--event"])
        .arg(&pr.event)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("the run that made the report was for"), "{}", stderr(&o));
    assert_eq!(writes(&gh), Vec::<String>::new());
    fake::write_event(&pr.event, &head, false);

    // A comment by another user that carries abex's marker is left alone (not closed, not
    // joined); abex's own comments go beside it. A review that GitHub stored but answered with
    // 502 is found, not posted twice.
    let gh = FakeGitHub::start(&head, patches.clone());
    let forged = format!("looks like abex\n<!-- abex:v1 fp={} -->\n", "e".repeat(64));
    let mallory = gh.comment_as("mallory", "src/lib.rs", 5, &forged);
    gh.state.lock().unwrap().fail_next_review_after_landing = true;
    let o = post(&pr, &gh, &["--head-sha", &head, "--require-post"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("the review had landed"), "{}", stderr(&o));
    assert_eq!(gh.state.lock().unwrap().reviews.len(), 1);
    assert_eq!(gh.count("POST", "/reviews"), 1);
    let c = comments(&gh);
    assert_eq!(c.iter().find(|c| c["id"] == mallory).unwrap()["body"], forged.as_str());
    assert!(!writes(&gh).iter().any(|w| w.ends_with(&format!("/comments/{mallory}"))));
    let ours: Vec<u64> = c
        .iter()
        .filter(|c| c["user"]["login"] == "github-actions[bot]")
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert_eq!(ours, [5, 14]);

    // A push moved the code under abex's comments (GitHub marks them outdated): each finding is
    // posted again on its line, and the old comments say so.
    gh.outdate_all();
    let o = post(&pr, &gh, &["--require-post"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    let bot = |c: &&Value| c["user"]["login"] == "github-actions[bot]";
    let fresh: Vec<u64> = c.iter().filter(bot).filter_map(|c| c["line"].as_u64()).collect();
    assert_eq!(fresh, [5, 14]);
    let moved =
        c.iter().filter(bot).filter(|c| c["body"].as_str().unwrap().contains("abex: moved"));
    assert_eq!(moved.count(), 2);
    assert_eq!(c.iter().find(|c| c["id"] == mallory).unwrap()["body"], forged.as_str());
}

#[test]
fn the_scratch_build_is_keyed_on_the_toolchain_of_a_crate_and_not_kept_for_a_python_project() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../action/run.sh");
    let (tmp, dir) = support::project("review");
    let key = |folder: &Path| {
        let out = tmp.path().join("outputs");
        std::fs::write(&out, "").unwrap();
        let o = Command::new("bash")
            .arg(&script)
            .arg("scratch-key")
            .env("ABEX_WORKING_DIRECTORY", folder)
            .env("GITHUB_OUTPUT", &out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(&out).unwrap()
    };
    let crate_key = key(&dir);
    let line = crate_key.strip_prefix("toolchain=rustc-").unwrap_or_else(|| panic!("{crate_key}"));
    assert!(line.trim_end().chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'));
    let python = tmp.path().join("python");
    std::fs::create_dir_all(&python).unwrap();
    std::fs::write(python.join("pyproject.toml"), "[project]\nname = \"p\"\n").unwrap();
    assert_eq!(key(&python), "", "no scratch build to keep");
}

/// The action's `run.sh`, as `action.yml` runs it: `install` (here linking the binary the tests
/// built, through `ABEX_BINARY`), then `subcommand` (`analyse` or `post`) with the inputs as
/// `ABEX_*` variables. `analyse` gets no token, `post` gets `GITHUB_TOKEN` and the report's folder.
fn action(pr: &Pr, gh: &FakeGitHub, subcommand: &str, inputs: &[(&str, &str)]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../action/run.sh");
    let temp = pr.dir.parent().unwrap().join("runner");
    std::fs::create_dir_all(&temp).unwrap();
    let github_path = temp.join("path");
    let step = |arg: &str, path: &std::ffi::OsStr| {
        let mut cmd = in_actions("bash", pr, gh);
        cmd.arg(&script)
            .arg(arg)
            .env("PATH", path)
            .env("RUNNER_TEMP", &temp)
            .env("GITHUB_PATH", &github_path)
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("ABEX_BINARY", env!("CARGO_BIN_EXE_cargo-abex"));
        if arg == "analyse" {
            cmd.env_remove("GITHUB_TOKEN");
        } else {
            cmd.env("ABEX_REPORT_DIR", pr.dir.join(".abex/out"));
        }
        for (k, v) in inputs {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    let o = step("install", &path);
    assert!(o.status.success(), "install: {}", stderr(&o));
    // Actions adds the lines of GITHUB_PATH to PATH for the later steps.
    let added = std::fs::read_to_string(&github_path).unwrap();
    let mut dirs: Vec<PathBuf> = added.lines().map(PathBuf::from).collect();
    dirs.extend(std::env::split_paths(&path));
    step(subcommand, &std::env::join_paths(dirs).unwrap())
}

/// `action.yml` parses, runs `action/install.sh` and `action/run.sh` in bash (`exec`ed into, so
/// signals reach abex), hands every input to the script through `env:` only, gives the token to
/// the posting step alone, and takes its outputs from the steps that `cargo abex` writes them
/// from.
fn check_action_metadata() {
    use yaml_rust2::{Yaml, YamlLoader};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("action.yml")).unwrap();
    let script = std::fs::read_to_string(root.join("action/run.sh")).unwrap();
    let docs = YamlLoader::load_from_str(&text).expect("action.yml is YAML");
    let action = &docs[0];
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let steps = action["runs"]["steps"].as_vec().unwrap();
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert_eq!(
        runs,
        [
            r#"exec "$GITHUB_ACTION_PATH/action/install.sh" fetch"#,
            r#"exec "$GITHUB_ACTION_PATH/action/install.sh" build"#,
            r#"exec "$GITHUB_ACTION_PATH/action/run.sh" scratch-key"#,
            r#"exec "$GITHUB_ACTION_PATH/action/run.sh" analyse"#,
            r#"exec "$GITHUB_ACTION_PATH/action/run.sh" post"#
        ]
    );
    // The build fallback and its cache run only when no release binary was installed.
    let fallback: Vec<&str> = steps
        .iter()
        .filter(|s| s["if"].as_str() == Some("steps.install.outputs.installed != 'true'"))
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(fallback, ["Restore the build of abex", "Build abex"]);
    for step in steps.iter().filter(|s| !s["run"].is_badvalue()) {
        assert_eq!(step["shell"].as_str(), Some("bash"), "composite run steps need a shell");
    }
    let inputs = action["inputs"].as_hash().unwrap();
    for (name, _) in inputs {
        let name = name.as_str().unwrap();
        let used = format!("inputs.{name} ");
        assert!(
            text.contains(&format!("${{{{ {used}}}}}"))
                || text.contains(&format!("inputs.{name} =="))
                || text.contains(&format!("inputs.{name} ||")),
            "input {name} is not used"
        );
    }
    let mut passed = std::collections::BTreeSet::new();
    for id in ["analyse", "post"] {
        let step = steps.iter().find(|s| s["id"].as_str() == Some(id)).unwrap();
        let env = step["env"].as_hash().unwrap();
        for (var, value) in env {
            let (var, value) = (var.as_str().unwrap(), value.as_str().unwrap());
            passed.insert(var.to_string());
            if var == "ABEX_REPORT_DIR" {
                assert_eq!(value, "${{ runner.temp }}/abex-report");
                continue;
            }
            let input = value.trim_start_matches("${{ inputs.").trim_end_matches(" }}");
            assert!(
                inputs.contains_key(&Yaml::String(input.into())),
                "{var} comes from no input: {value}"
            );
            if var.starts_with("ABEX_") {
                assert!(script.contains(var) || docs_mention(var), "run.sh does not read {var}");
            }
        }
        // The analysis, which runs the pull request's code, never holds the token.
        let token = env.contains_key(&Yaml::String("GITHUB_TOKEN".into()));
        assert_eq!(token, id == "post", "{id}: GITHUB_TOKEN");
    }
    for word in script.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if word.len() > 5 && word.starts_with("ABEX_") && word != "ABEX_BINARY" {
            assert!(passed.contains(word), "action.yml does not pass {word}");
        }
    }
    for (name, output) in action["outputs"].as_hash().unwrap() {
        let name = name.as_str().unwrap();
        assert_eq!(
            output["value"].as_str(),
            Some(&*format!("${{{{ steps.analyse.outputs.{name} || steps.post.outputs.{name} }}}}"))
        );
    }
}

/// Issue 28: a `${{ }}` expression is never written into a `run:` script, where a value with a
/// quote or `$(…)` would run as shell: every value reaches `run:` through `env:`. Checked in
/// `action.yml`, the example workflows and the project's own.
#[test]
fn no_expression_is_interpolated_into_a_run_script() {
    use yaml_rust2::{Yaml, YamlLoader};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("action.yml")];
    for dir in ["examples/workflows", ".github/workflows"] {
        for entry in std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten() {
            files.push(entry.path());
        }
    }
    fn runs<'a>(y: &'a Yaml, out: &mut Vec<&'a str>) {
        match y {
            Yaml::Hash(h) => {
                for (k, v) in h {
                    match (k.as_str(), v.as_str()) {
                        (Some("run"), Some(script)) => out.push(script),
                        _ => runs(v, out),
                    }
                }
            }
            Yaml::Array(a) => a.iter().for_each(|v| runs(v, out)),
            _ => {}
        }
    }
    let mut scripts = Vec::new();
    let docs: Vec<Vec<Yaml>> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .map(|f| YamlLoader::load_from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect();
    for doc in docs.iter().flatten() {
        runs(doc, &mut scripts);
    }
    assert!(scripts.len() >= 10, "only {} run scripts found", scripts.len());
    for s in scripts {
        assert!(!s.contains("${{"), "a `${{{{ }}}}` expression in a run script:\n{s}");
    }
}

/// Every action the Action and the example workflows use from a third party is pinned by a full
/// commit SHA (a tag can be moved to other code); abex's own (`<owner>/abex@v1`, a placeholder
/// for the user's copy) and local ones (`./…`) are exempt.
#[test]
fn every_third_party_action_is_pinned_by_a_commit_sha() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("action.yml")];
    for dir in ["examples/workflows", ".github/workflows"] {
        for entry in std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten() {
            files.push(entry.path());
        }
    }
    let mut checked = 0;
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "yml" || e == "yaml")) {
        let text = std::fs::read_to_string(file).unwrap();
        for line in text.lines() {
            let Some((_, rest)) = line.split_once("uses:") else { continue };
            let action = rest.split('#').next().unwrap().trim().trim_matches(['"', '\'']);
            if action.starts_with("./") || action.starts_with("<owner>/abex@") {
                continue;
            }
            let sha = action.rsplit_once('@').map(|(_, r)| r).unwrap_or("");
            assert!(
                sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
                "{}: `{action}` is not pinned by a commit SHA",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} `uses:` found");
}

/// The model inputs are read by the engine from the environment, not by the script.
fn docs_mention(var: &str) -> bool {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ci.md"));
    docs.is_ok_and(|d| d.contains(&format!("`{var}`")))
}

#[test]
fn the_action_analyses_without_a_token_then_posts_and_skips_posting_for_a_fork() {
    check_action_metadata();
    let pr = pull_request();
    // The base branch comes from `origin`, which the script fetches when it is missing.
    git(&pr.dir, &["remote", "add", "origin", "."]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    let inputs = [("ABEX_BASE_REF", "main"), ("ABEX_FRONT_END", "auto")];
    let o = action(&pr, &gh, "analyse", &inputs);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(gh.requests().is_empty(), "the analysis talks to GitHub: {:#?}", gh.requests());
    let outputs = std::fs::read_to_string(&pr.outputs).unwrap();
    assert!(outputs.contains("findings=6\n") && outputs.contains("posted=false\n"), "{outputs}");
    assert!(outputs.contains("cost-usd=0.0000\n"), "{outputs}");
    assert!(pr.dir.join(".abex/out/event.json").exists(), "the event travels with the report");

    let o = action(&pr, &gh, "post", &[("ABEX_MAX_COMMENTS", "1")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reviews = gh.state.lock().unwrap().reviews.clone();
    assert_eq!(reviews.len(), 1);
    assert_eq!(comments(&gh).len(), 1, "max-comments 1");
    let body = reviews[0]["body"].as_str().unwrap();
    assert_eq!(body.matches("over this run's cap on new comments").count(), 3, "{body}");
    let outputs = std::fs::read_to_string(&pr.outputs).unwrap();
    assert!(outputs.contains("posted=true\n"), "{outputs}");
    assert!(std::fs::read_to_string(&pr.summary).unwrap().contains("1 comment(s) posted"));

    // Inputs that are not what they claim are refused before anything runs.
    for (input, value) in [
        ("ABEX_TIME_BUDGET", "$(touch pwned)"),
        ("ABEX_TIME_BUDGET", "10m; id"),
        ("ABEX_BUDGET_USD", "1e9"),
        ("ABEX_FAIL_ON", "always"),
        ("ABEX_BASE_REF", "--upload-pack=touch pwned"),
    ] {
        let o = action(&pr, &gh, "analyse", &[(input, value)]);
        assert_eq!(o.status.code(), Some(2), "{input}={value}: {}", stderr(&o));
        assert!(stderr(&o).contains("error: the input"), "{}", stderr(&o));
        assert!(!pr.dir.join("pwned").exists());
    }

    // A fork's pull request: analysed and summarised; a job that `needs:` the analysis (its
    // token is read-only) does not post; fail-on finding fails it.
    fake::write_event(&pr.event, &head, true);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    let o = action(&pr, &gh, "analyse", &[("ABEX_BASE_REF", "main"), ("ABEX_FAIL_ON", "finding")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = action(&pr, &gh, "post", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(writes(&gh).is_empty(), "{:#?}", gh.requests());
    assert!(stderr(&o).contains("comes from a fork"), "{}", stderr(&o));
    let summary = std::fs::read_to_string(&pr.summary).unwrap();
    assert!(summary.contains("Not posted: the pull request comes from a fork"), "{summary}");
}

/// Issue 28: on `pull_request_target`, `workflow_run` or `issue_comment` (which run with the
/// repository's secrets and a write token), the analysis refuses a checkout that is not the
/// workflow's own commit, unless `allow-untrusted-code-with-secrets` says otherwise.
#[test]
fn the_analysis_refuses_a_pull_request_s_checkout_in_a_privileged_workflow() {
    let pr = pull_request();
    git(&pr.dir, &["remote", "add", "origin", "."]);
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    let base = git(&pr.dir, &["rev-parse", "main"]);
    for event in ["pull_request_target", "workflow_run", "issue_comment"] {
        let inputs = [("GITHUB_EVENT_NAME", event), ("GITHUB_SHA", base.as_str())];
        let o = action(&pr, &gh, "analyse", &inputs);
        assert_eq!(o.status.code(), Some(2), "{event}: {}", stderr(&o));
        assert!(stderr(&o).contains("refused: this"), "{}", stderr(&o));
        assert!(!pr.dir.join(".abex/out/report.json").exists(), "{event}: it ran");
    }
    // The workflow's own commit is no pull request's code.
    let own = [("GITHUB_EVENT_NAME", "pull_request_target"), ("GITHUB_SHA", head.as_str())];
    let o = action(&pr, &gh, "analyse", &[own[0], own[1], ("ABEX_BASE_REF", "main")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = action(
        &pr,
        &gh,
        "analyse",
        &[
            ("GITHUB_EVENT_NAME", "pull_request_target"),
            ("GITHUB_SHA", base.as_str()),
            ("ABEX_ALLOW_UNTRUSTED", "true"),
            ("ABEX_BASE_REF", "main"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 28: a review that GitHub answers with 502 but lists 0, 3 or 30 s later is posted
/// exactly once (the poster looks for its run's nonce in the list for about a minute before it
/// sends the review again). Here at a tenth of the time: the waits between looks and the delays
/// are scaled down together.
#[test]
fn a_review_answered_with_502_and_listed_0_3_or_30_s_later_is_posted_exactly_once() {
    let report: abex::report::Report = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/reports/demo.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let tenth = |d: std::time::Duration| d / 10;
    let opts = abex::github::PostOptions {
        landing_waits: abex::github::api::LANDING_WAITS.iter().copied().map(tenth).collect(),
        ..abex::github::PostOptions::default()
    };
    let head = "a".repeat(40);
    for delay_s in [0, 3, 30] {
        let gh = FakeGitHub::start(&head, Default::default());
        {
            let mut s = gh.state.lock().unwrap();
            s.fail_next_review_after_landing = true;
            s.landing_delay = tenth(std::time::Duration::from_secs(delay_s));
        }
        let posted = abex::github::post(&report, &gh.context(&head), &opts).expect("posted");
        assert!(posted.review_id.is_some(), "{delay_s} s");
        assert_eq!(gh.count("POST", "/reviews"), 1, "{delay_s} s: sent again");
        assert_eq!(gh.state.lock().unwrap().reviews.len(), 1, "{delay_s} s");
        assert!(
            posted.notes.iter().any(|n| n.contains("the review had landed")),
            "{:?}",
            posted.notes
        );
    }
    // Never listed within the minute: sent once more, once.
    let gh = FakeGitHub::start(&head, Default::default());
    {
        let mut s = gh.state.lock().unwrap();
        s.fail_next_review_after_landing = true;
        s.landing_delay = std::time::Duration::from_secs(3600);
    }
    let posted =
        abex::github::post(&report, &gh.context(&head), &opts).expect("posted on the second try");
    assert_eq!(gh.count("POST", "/reviews"), 2);
    assert!(posted.notes.iter().any(|n| n.contains("sent once more")), "{:?}", posted.notes);
}

/// Issue 28: a 👎 or an `/abex ignore` reply counts only from someone with write access to the
/// repository: the pull request's author from a fork cannot silence what abex says.
#[test]
fn suppression_counts_only_from_people_with_write_access() {
    let pr = pull_request();
    let head = git(&pr.dir, &["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start(&head, fake::patches(&pr.dir, "main"));
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = comments(&gh);
    assert_eq!(c.len(), 2);
    // The author (a contributor from a fork) 👎s one comment and replies `/abex ignore` to the
    // other; a push moves the code, which would otherwise leave both as they are.
    gh.react_as(c[0]["id"].as_u64().unwrap(), "-1", "author");
    gh.reply_as(c[1]["id"].as_u64().unwrap(), "/abex ignore", "author", "CONTRIBUTOR");
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("0 suppressed"), "{}", stderr(&o));
    // A maintainer's 👎 and a collaborator's reply do count.
    gh.state.lock().unwrap().permissions.insert("maintainer".into(), "admin".into());
    gh.react_as(c[0]["id"].as_u64().unwrap(), "-1", "maintainer");
    gh.reply_as(c[1]["id"].as_u64().unwrap(), "/abex ignore", "helper", "COLLABORATOR");
    let o = abex(&pr, &gh, &["--offline", "--post-review"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("6 suppressed"), "{}", stderr(&o));
}

/// Issue 28: the safe pattern is the default everywhere a workflow is shown (the examples, the
/// README's quick start, docs/ci.md): every checkout leaves no credentials behind
/// (`persist-credentials: false`), a job that checks out the pull request writes nothing
/// (`contents: read` only, the Action in `analyse` mode), and the job that can post
/// (`pull-requests: write`) checks out no pull request and analyses nothing.
#[test]
fn every_workflow_shown_analyses_without_credentials_and_posts_from_a_job_that_runs_nothing() {
    use yaml_rust2::{Yaml, YamlLoader};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut workflows: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(root.join("examples/workflows")).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        workflows.push((entry.path().display().to_string(), text));
    }
    for doc in ["README.md", "docs/ci.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let blocks: Vec<&str> =
            text.split("```yaml\n").skip(1).map(|b| b.split("\n```").next().unwrap()).collect();
        let whole: Vec<&&str> = blocks.iter().filter(|b| b.contains("\njobs:")).collect();
        assert!(!whole.is_empty(), "{doc} shows no whole workflow");
        workflows.extend(whole.iter().map(|b| (doc.to_string(), b.to_string())));
    }
    let mut posting_jobs = 0;
    for (file, text) in &workflows {
        let docs = YamlLoader::load_from_str(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let w = &docs[0];
        for (name, job) in w["jobs"].as_hash().unwrap() {
            let name = name.as_str().unwrap();
            let steps = job["steps"].as_vec().unwrap();
            let perms = |k: &str| {
                job["permissions"][k].as_str().or(w["permissions"][k].as_str()).unwrap_or("none")
            };
            let checkouts: Vec<&Yaml> = steps
                .iter()
                .filter(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("actions/checkout@")))
                .collect();
            for c in &checkouts {
                assert_eq!(
                    c["with"]["persist-credentials"].as_bool(),
                    Some(false),
                    "{file} job {name}: a checkout keeps the token in .git/config"
                );
            }
            let checks_out_pr = checkouts.iter().any(|c| c["with"]["repository"].is_badvalue());
            let analyses = steps.iter().any(|s| {
                s["with"]["mode"].as_str() == Some("analyse")
                    || s["run"].as_str().is_some_and(|r| r.contains("cargo abex --"))
            });
            if perms("pull-requests") == "write" {
                posting_jobs += 1;
                assert!(!checks_out_pr && !analyses, "{file} job {name}: posts and runs the PR");
            }
            if checks_out_pr || analyses {
                assert_eq!(perms("contents"), "read", "{file} job {name}");
                for k in ["pull-requests", "security-events", "actions", "checks"] {
                    assert_eq!(perms(k), "none", "{file} job {name}: {k} with the PR's code");
                }
            }
        }
    }
    assert!(posting_jobs >= 4, "{posting_jobs} posting jobs");
}
