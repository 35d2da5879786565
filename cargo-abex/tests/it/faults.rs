//! Faults in the code under test or its tests end in a clear outcome, never a lost run (issue
//! 17): the `faults` fixture aborts, segfaults and allocates without bound on one input each
//! (and its mutants do so in the tests), has a test that prints megabytes on every run, a test
//! that fails one run in three whatever the code, and a build script slower than the test
//! timeout.

use std::process::Command;

use serde_json::Value;

use crate::support;

#[test]
fn aborts_segfaults_runaway_memory_flaky_and_loud_tests_and_a_slow_build_each_have_an_outcome() {
    let (_tmp, dir) = support::project("faults");
    let before = support::snapshot(&dir);
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "--offline", "--all", "--test-timeout", "2s", "--memory-limit", "512"])
        .args(["--call-timeout", "500ms"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["complete"], true);
    let target = |name: &str| {
        r["targets"].as_array().unwrap().iter().find(|t| t["qualified_name"] == name).unwrap()
    };
    let faults = |name: &str| -> Vec<String> {
        let cells = target(name)["exploration"]["cells"].as_array().unwrap();
        let outcomes = cells.iter().flat_map(|c| c["outcomes"].as_array().unwrap());
        outcomes
            .filter(|o| o["kind"] != "ok")
            .map(|o| format!("{} {}", o["kind"].as_str().unwrap(), o["detail"]))
            .collect()
    };
    // The function under test: each fault is the outcome of its input, the run goes on.
    assert!(
        faults("abort_at").iter().any(|f| f.contains("crash") && f.contains("SIGABRT")),
        "{:?}",
        faults("abort_at")
    );
    assert!(
        faults("segv_at").iter().any(|f| f.contains("crash") && f.contains("SIGSEGV")),
        "{:?}",
        faults("segv_at")
    );
    // Runaway memory meets the memory limit (a crash) or the call's time limit first.
    assert!(
        faults("hog").iter().any(|f| f.starts_with("crash") || f.starts_with("timeout")),
        "{:?}",
        faults("hog")
    );
    // The flaky test is found out on the original and kills no mutant; the reliable ones do.
    assert!(stderr.contains("test `tests::flaky` is flaky"), "{stderr}");
    let mutants: Vec<&Value> = r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["mutation"]["mutants"].as_array().unwrap())
        .collect();
    for m in &mutants {
        let status = m["status"].as_str().unwrap();
        assert!(["killed", "survived", "timeout", "unviable"].contains(&status), "{m:#}");
        assert!(!m["killed_by"].as_str().unwrap_or_default().contains("flaky"), "{m:#}");
    }
    // A mutant that makes the tests abort or segfault is killed; one that exhausts their memory
    // is killed by the limit, or times out on a loaded machine.
    for name in ["abort_at", "segv_at", "hog"] {
        let counts = &target(name)["mutation"]["counts"];
        let ended = counts["killed"].as_u64().unwrap() + counts["timeout"].as_u64().unwrap();
        assert!(ended >= 2, "{:#}", target(name)["mutation"]);
    }
    // Two aborts that differ only in their last words prove nothing: `n > 105` -> `n >= 105`
    // aborts at 105 after a line the original does not print, and stays without a witness.
    let loud_abort = target("abort_loudly")["mutation"]["mutants"].as_array().unwrap();
    let ge = loud_abort.iter().find(|m| m["replacement"] == "n >= 105").unwrap();
    assert_eq!((&ge["status"], &ge["witness"]), (&Value::from("survived"), &Value::Null), "{ge:#}");
    for m in loud_abort.iter().filter(|m| !m["witness"].is_null()) {
        let kinds = [&m["witness"]["original"]["kind"], &m["witness"]["mutant"]["kind"]];
        assert_ne!(kinds, [&Value::from("crash"); 2], "{m:#}");
    }
    // The loud test's megabytes did not drown its failures: it names the mutants it kills.
    let loud = mutants.iter().filter(|m| m["killed_by"] == "tests::loud").count();
    assert!(loud >= 1, "{:#}", target("even")["mutation"]);
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}
