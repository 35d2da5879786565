//! Losing nothing (issue 17): `cargo abex` interrupted by SIGINT or SIGTERM at several points
//! exits 130 or 143 with a report that parses and holds what was finished, leaves no process
//! of its own running and the user's tree as it was; a re-run resumes from what was finished
//! and ends with the findings of an uninterrupted run; a run killed with SIGKILL still leaves
//! a report that parses.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support;

const ARGS: [&str; 5] = ["--offline", "--all", "--test-timeout", "2s", "--seed=3"];

/// `cargo abex` with [`ARGS`] in `dir`, without a model or a base ref from the environment.
fn abex(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-abex"));
    cmd.arg("abex").args(ARGS).current_dir(dir).env("NO_COLOR", "1");
    for k in ["GITHUB_BASE_REF", "ABEX_API_KEY", "OPENAI_API_KEY"] {
        cmd.env_remove(k);
    }
    cmd
}

/// Starts a run whose stderr goes to `log`.
fn start(dir: &Path, log: &Path) -> Child {
    let log = std::fs::File::create(log).unwrap();
    abex(dir).stdout(Stdio::null()).stderr(log).spawn().unwrap()
}

fn run(dir: &Path) -> Output {
    abex(dir).output().unwrap()
}

/// The report as written now, when it parses.
fn read_report(dir: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// Waits (at most two minutes) until `ready` holds of the report or of the run's log.
fn wait_for(dir: &Path, log: &Path, ready: impl Fn(&Value, &str) -> bool) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if read_report(dir).is_some_and(|r| ready(&r, &text)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the run never got there: {}", std::fs::read_to_string(log).unwrap_or_default());
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill").args([name, &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

/// Waits for `child` (at most a minute) and returns its exit code.
fn exit_code(child: &mut Child) -> Option<i32> {
    wait_status(child).code()
}

/// Waits for `child` (at most a minute) and returns how it ended.
fn wait_status(child: &mut Child) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the interrupted run did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Processes running from `dir` (their command line or working folder is in it).
fn processes_in(dir: &Path) -> Vec<(u32, String)> {
    let dir = dir.display().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
        if cmd.contains(&dir) || cwd.starts_with(&dir) {
            found.push((pid, cmd));
        }
    }
    found
}

/// Asserts that nothing runs from `dir` any more (allowing a moment for the kernel to reap).
fn assert_nothing_left(dir: &Path) {
    let start = Instant::now();
    loop {
        let left = processes_in(dir);
        if left.is_empty() {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(3), "processes left running: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Mutants of `r` whose tests ran to an outcome.
fn tested(r: &Value) -> usize {
    mutants(r)
        .filter(|m| !["not_tested", "not_exercised"].contains(&m["status"].as_str().unwrap()))
        .count()
}

fn mutants(r: &Value) -> impl Iterator<Item = &Value> {
    r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["mutation"]["mutants"].as_array().into_iter().flatten())
}

fn explored(r: &Value) -> usize {
    r["targets"].as_array().unwrap().iter().filter(|t| t["exploration"].is_object()).count()
}

/// Per function, its mutants' ids with status and witness input, sorted.
fn findings(r: &Value) -> Vec<(String, Vec<String>)> {
    r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let ms = t["mutation"]["mutants"].as_array().cloned().unwrap_or_default();
            let mut m: Vec<String> = ms
                .iter()
                .map(|x| format!("{} {} {}", x["id"], x["status"], x["witness"]["input"]))
                .collect();
            m.sort();
            (t["qualified_name"].as_str().unwrap().to_string(), m)
        })
        .collect()
}

fn log_of(tmp: &tempfile::TempDir) -> PathBuf {
    tmp.path().join("abex.log")
}

#[test]
fn sigint_while_mutants_are_tested_exits_130_and_a_rerun_resumes_to_the_same_findings() {
    let (tmp, dir) = support::project("gaps");
    let before = support::snapshot(&dir);
    let log = log_of(&tmp);
    let mut child = start(&dir, &log);
    // Some mutants are tested, and saved as they are found.
    wait_for(&dir, &log, |r, _| tested(r) >= 2);
    signal(&child, "-INT");
    assert_eq!(exit_code(&mut child), Some(130), "{}", std::fs::read_to_string(&log).unwrap());
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
    let r = read_report(&dir).expect("a report that parses");
    assert_eq!(r["complete"], false);
    assert_eq!(r["interrupted"]["signal"], "SIGINT");
    let finished = tested(&r);
    assert!(finished >= 2, "the report holds the mutants tested before the signal: {r:#}");
    assert!(explored(&r) >= 1);
    // The summary says so too.
    let summary = std::fs::read_to_string(dir.join(".abex/out/summary.md")).unwrap();
    assert!(summary.contains("interrupted by SIGINT"), "{summary}");
    assert_nothing_left(&dir);
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");

    // The re-run resumes: it explores nothing again and tests only what was left.
    let o = run(&dir);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let resumed = read_report(&dir).unwrap();
    assert_eq!(resumed["complete"], true);
    assert!(resumed["interrupted"].is_null());
    let reused = &resumed["reused"];
    assert!(reused["mutants"].as_u64().unwrap() >= finished as u64, "{reused}");
    assert!(reused["explorations"].as_u64().unwrap() >= 1, "{reused}");
    assert!(stderr.contains("reused from an earlier run"), "{stderr}");

    // And ends where an uninterrupted run ends.
    let (_tmp2, fresh) = support::project("gaps");
    let o = run(&fresh);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(findings(&resumed), findings(&read_report(&fresh).unwrap()));
}

#[test]
fn sigterm_during_the_build_exits_143_and_leaves_no_compiler_running() {
    let (tmp, dir) = support::project("gaps");
    let before = support::snapshot(&dir);
    let log = log_of(&tmp);
    let mut child = start(&dir, &log);
    wait_for(&dir, &log, |_, text| text.contains("Building"));
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "-TERM");
    assert_eq!(exit_code(&mut child), Some(143), "{}", std::fs::read_to_string(&log).unwrap());
    let r = read_report(&dir).expect("a report that parses");
    assert_eq!(r["complete"], false);
    assert_eq!(r["interrupted"]["signal"], "SIGTERM");
    assert_nothing_left(&dir);
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

/// Issue 28: a closed terminal or session (SIGHUP) stops the run like SIGINT, with 129 (it
/// used to end the process without a report).
#[test]
fn sighup_exits_129_with_the_report_of_what_was_finished() {
    let (tmp, dir) = support::project("gaps");
    let log = log_of(&tmp);
    let mut child = start(&dir, &log);
    wait_for(&dir, &log, |r, _| explored(r) >= 1);
    signal(&child, "-HUP");
    assert_eq!(exit_code(&mut child), Some(129), "{}", std::fs::read_to_string(&log).unwrap());
    let r = read_report(&dir).expect("a report that parses");
    assert_eq!(r["complete"], false);
    assert_eq!(r["interrupted"]["signal"], "SIGHUP");
    assert_nothing_left(&dir);
}

#[test]
fn sigint_during_the_witness_search_keeps_every_tested_mutant_and_claims_no_gap_it_did_not_prove() {
    let (tmp, dir) = support::project("gaps");
    let before = support::snapshot(&dir);
    let log = log_of(&tmp);
    let mut child = start(&dir, &log);
    // Every mutant is tested; the survivors' witnesses are being searched.
    wait_for(&dir, &log, |_, text| text.contains("witnesses and suggested tests"));
    signal(&child, "-INT");
    assert_eq!(exit_code(&mut child), Some(130), "{}", std::fs::read_to_string(&log).unwrap());
    let r = read_report(&dir).expect("a report that parses");
    assert_eq!(r["complete"], false);
    assert_eq!(r["interrupted"]["signal"], "SIGINT");
    // The mutants' outcomes were all found before the search: none is lost.
    assert!(tested(&r) >= 20, "{r:#}");
    let survivors: Vec<&Value> = mutants(&r).filter(|m| m["status"] == "survived").collect();
    assert!(!survivors.is_empty(), "{r:#}");
    for m in survivors {
        if m["witness"].is_object() {
            continue;
        }
        // A survivor whose search the signal cut off is neither a gap nor "possibly equivalent".
        assert_eq!(m["possibly_equivalent"], false, "{m:#}");
        // It says why it has no witness: its search's stage, or that no search ran.
        let stage = m["unwitnessed"]["stage"].as_str().expect("a reason");
        if stage == "not_searched" {
            assert_eq!(m["unwitnessed"]["because"], "interrupted by SIGINT", "{m:#}");
        }
    }
    assert_nothing_left(&dir);
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");

    // The re-run finishes the searches from the tested mutants it kept.
    let o = run(&dir);
    let r = read_report(&dir).unwrap();
    assert_eq!(r["complete"], true, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(r["reused"]["mutants"].as_u64().unwrap_or(0) >= 20, "{:#}", r["reused"]);
    assert!(mutants(&r).any(|m| m["status"] == "survived" && m["witness"].is_object()));
}

#[test]
fn a_second_signal_ends_the_run_at_once() {
    let (tmp, dir) = support::project("gaps");
    let log = log_of(&tmp);
    let mut child = start(&dir, &log);
    wait_for(&dir, &log, |r, _| tested(r) >= 1);
    signal(&child, "-INT");
    let sent = Instant::now();
    signal(&child, "-TERM");
    // Either abex heard both (it exits 143 at once, saying so) or the second came while the
    // process was already ending, after its handlers were gone, and SIGTERM ended it: a shell
    // and a CI runner read both as 143.
    let st = wait_status(&mut child);
    let text = std::fs::read_to_string(&log).unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert!(st.code() == Some(143) || st.signal() == Some(15), "{st:?}\n{text}");
    if st.code() == Some(143) {
        assert!(text.contains("SIGTERM again: stopping now"), "{text}");
    }
    assert!(sent.elapsed() < Duration::from_secs(2), "took {:?}", sent.elapsed());
    // The last report written before it still parses; the children died with the first signal.
    assert!(read_report(&dir).is_some());
    assert_nothing_left(&dir);
}

#[test]
fn sigint_during_exploration_keeps_the_functions_explored_before_it() {
    let (tmp, dir) = support::project("gaps");
    let log = log_of(&tmp);
    let mut child = start(&dir, &log);
    wait_for(&dir, &log, |r, _| explored(r) >= 1);
    signal(&child, "-INT");
    assert_eq!(exit_code(&mut child), Some(130), "{}", std::fs::read_to_string(&log).unwrap());
    let r = read_report(&dir).expect("a report that parses");
    assert_eq!(r["interrupted"]["signal"], "SIGINT");
    assert!(explored(&r) >= 1, "{r:#}");
    // An exploration cut short is not reported as finished: every one kept has its cells.
    for t in r["targets"].as_array().unwrap() {
        if let Some(x) = t["exploration"].as_object() {
            assert!(x["cells_total"].as_u64().unwrap() > 0, "{t:#}");
        }
    }
    assert_nothing_left(&dir);
}

#[test]
fn a_run_killed_with_sigkill_leaves_a_report_that_parses_with_what_was_finished() {
    let (tmp, dir) = support::project("gaps");
    let log = log_of(&tmp);
    let mut child = start(&dir, &log);
    wait_for(&dir, &log, |r, _| tested(r) >= 1);
    let seen = read_report(&dir).unwrap();
    signal(&child, "-KILL");
    let _ = child.wait();
    let r = read_report(&dir).expect("a report that parses after SIGKILL");
    assert_eq!(r["complete"], false);
    assert!(tested(&r) >= tested(&seen), "nothing written before the kill is lost");
    assert!(explored(&r) >= explored(&seen));
    // What SIGKILL left behind (it cannot be caught) ends with the temp folder.
    for (pid, _) in processes_in(&dir) {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
}

#[test]
fn a_build_still_running_when_the_time_budget_runs_out_is_killed_and_the_run_ends_normally() {
    let (_tmp, dir) = support::project("gaps");
    // A build script that alone would take five minutes.
    let sleepy = "fn main() { std::thread::sleep(std::time::Duration::from_secs(300)); }\n";
    std::fs::write(dir.join("build.rs"), sleepy).unwrap();
    let before = support::snapshot(&dir);
    let started = Instant::now();
    let o = abex(&dir).args(["--time-budget", "4s"]).output().unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        took < Duration::from_secs(100),
        "the build ran on past the budget: {took:?}\n{stderr}"
    );
    assert!(o.status.success(), "{stderr}");
    let r = read_report(&dir).expect("a report that parses");
    // It ends normally, but it is not complete: the budget left every mutant untested.
    assert_eq!(r["complete"], false, "{r:#}");
    assert_eq!(r["exhausted"], "time budget", "{r:#}");
    assert!(r["interrupted"].is_null());
    let all: Vec<&Value> = mutants(&r).collect();
    assert!(!all.is_empty(), "every function is still listed, with its mutants: {r:#}");
    assert!(all.iter().all(|m| m["status"] == "not_tested"), "{r:#}");
    assert!(stderr.contains("the run stopped first"), "{stderr}");
    assert!(stderr.contains("the time budget ran out before `gaps` was built"), "{stderr}");
    assert_nothing_left(&dir);
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

#[test]
fn the_deadline_kills_the_steps_in_flight_and_spares_the_workers() {
    use abex::interrupt::{expired, stopped, track, track_worker, Watchdog};
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let spawn = || Command::new("sleep").arg("60").process_group(0).spawn().unwrap();
    // A run that ends before its deadline expires nothing.
    drop(Watchdog::start(Some(Instant::now() + Duration::from_millis(200))));
    std::thread::sleep(Duration::from_millis(400));
    assert!(!expired());

    let (mut step, mut worker) = (spawn(), spawn());
    let (_s, _w) = (track(&step), track_worker(&worker));
    let dog = Watchdog::start(Some(Instant::now() + Duration::from_millis(200)));
    assert!(!stopped(), "expired before its deadline");
    assert_eq!(wait_status(&mut step).signal(), Some(9), "the step in flight is killed");
    assert!(expired() && stopped());
    assert!(worker.try_wait().unwrap().is_none(), "the worker is spared");
    // A step started after the deadline is killed at once.
    let mut late = spawn();
    let _l = track(&late);
    assert_eq!(wait_status(&mut late).signal(), Some(9));
    drop(dog);
    // The next run starts afresh.
    drop(Watchdog::start(None));
    assert!(!expired());
    worker.kill().unwrap();
    worker.wait().unwrap();
}
