//! One review comment per suggested test (issue 18): a report with 20 gaps that 6 tests close
//! is posted to the fake GitHub API on 127.0.0.1; each test gets one comment, on a line of its
//! own, naming every gap it closes, the tests that close the most first. A later push that
//! closes some of the gaps edits those comments (and closes the one whose gaps are all gone).

use abex::github::post::{post, PostOptions};
use abex::report::Report;
use serde_json::{json, Value};

use crate::fake::FakeGitHub;

/// The lines of the gaps each test closes: test 1's first gap shares test 0's line, test 2's
/// shares one of test 0's, so they must go on lines of their other gaps.
const TESTS: [&[usize]; 6] = [
    &[10, 11, 12, 13, 14, 15],
    &[10, 20, 21, 22, 23],
    &[11, 24, 25],
    &[26, 27],
    &[28, 29],
    &[30, 31],
];

/// The frozen demo report cut to one function whose survivors are `gaps` (test index, line).
fn report(gaps: &[(usize, usize)]) -> Report {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/reports/demo.json");
    let mut r: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut target = r["targets"][0].clone();
    let m = &mut target["mutation"];
    let template = m["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["status"] == "survived" && !x["witness"].is_null())
        .unwrap()
        .clone();
    let mut mutants = Vec::new();
    let mut tests: Vec<Value> = Vec::new();
    for (k, lines) in TESTS.iter().enumerate() {
        let kills: Vec<String> = gaps
            .iter()
            .filter(|(t, _)| *t == k)
            .map(|(_, line)| format!("m{line:02}{k}"))
            .collect();
        if !kills.is_empty() {
            let name = format!("f_is_{k}_for_{}", lines[0]);
            tests
                .push(json!({"name": name, "code": format!("fn {name}() {{}}\n"), "kills": kills}));
        }
    }
    for &(k, line) in gaps {
        let mut x = template.clone();
        x["id"] = json!(format!("m{line:02}{k}"));
        x["line"] = json!(line);
        x["replacement"] = json!(format!("{line} + {k}"));
        x["description"] = json!(format!("replace `x` with `{line} + {k}`"));
        x["suggested_test"] = json!(format!("f_is_{k}_for_{}", TESTS[k][0]));
        mutants.push(x);
    }
    m["mutants"] = json!(mutants);
    m["suggested_tests"] = json!(tests);
    target["changed_lines"] = json!((1..=40).collect::<Vec<usize>>());
    r["targets"] = json!([target]);
    serde_json::from_value(r).unwrap()
}

fn options() -> PostOptions {
    PostOptions { identity: Some("github-actions[bot]".into()), ..Default::default() }
}

fn markers(body: &str) -> usize {
    body.matches("<!-- abex:v1 fp=").count()
}

#[test]
fn twenty_gaps_closed_by_six_tests_get_six_comments_on_six_lines_and_a_later_push_edits_them() {
    let all: Vec<(usize, usize)> =
        TESTS.iter().enumerate().flat_map(|(k, ls)| ls.iter().map(move |&l| (k, l))).collect();
    assert_eq!(all.len(), 20);
    let r = report(&all);
    let file = r.targets[0].target.file.to_string_lossy().replace('\\', "/");
    let patch = format!("@@ -0,0 +1,40 @@\n{}", "+x\n".repeat(40));
    let head = "a".repeat(40);
    let gh = FakeGitHub::start(&head, [(file.clone(), patch)].into());
    let posted = post(&r, &gh.context(&head), &options()).unwrap();
    assert_eq!((posted.created, posted.placed), (6, 20), "{posted:?}");
    let comments = gh.state.lock().unwrap().comments.clone();
    assert_eq!(comments.len(), 6);
    let lines: Vec<u64> = comments.iter().map(|c| c["line"].as_u64().unwrap()).collect();
    let distinct: std::collections::BTreeSet<u64> = lines.iter().copied().collect();
    assert_eq!(distinct.len(), 6, "two comments on one line: {lines:?}");
    // Each names the gaps its test closes (line, change, witness) and carries the test; the
    // most closing first.
    let sizes: Vec<usize> = comments.iter().map(|c| markers(c["body"].as_str().unwrap())).collect();
    assert_eq!(sizes, vec![6, 5, 3, 2, 2, 2]);
    for (c, (k, gap_lines)) in comments.iter().zip(TESTS.iter().enumerate()) {
        let body = c["body"].as_str().unwrap();
        assert!(body.contains(&format!("fn f_is_{k}_for_{}() {{}}", gap_lines[0])), "{body}");
        for line in *gap_lines {
            assert!(
                body.contains(&format!("- line {line}: replace `x` with `{line} + {k}`; on ")),
                "{body}"
            );
        }
        assert!(gap_lines.contains(&(c["line"].as_u64().unwrap() as usize)), "{body}");
    }
    assert_eq!(lines[0], 10, "the first test on its first gap's line");

    // A later push: test 1 closes two gaps fewer, test 5's gaps are all gone.
    let fewer: Vec<(usize, usize)> =
        all.iter().copied().filter(|&(k, l)| !(k == 1 && (l == 22 || l == 23)) && k != 5).collect();
    let head2 = "b".repeat(40);
    gh.state.lock().unwrap().head_sha = head2.clone();
    let posted = post(&report(&fewer), &gh.context(&head2), &options()).unwrap();
    assert_eq!((posted.created, posted.updated, posted.closed, posted.unchanged), (0, 1, 1, 4));
    assert_eq!(gh.count("PATCH", &comments[1]["id"].to_string()), 1);
    let after = gh.state.lock().unwrap().comments.clone();
    let edited = after[1]["body"].as_str().unwrap();
    assert_eq!(markers(edited), 3, "{edited}");
    assert!(!edited.contains("- line 22:") && edited.contains("- line 21:"), "{edited}");
    assert!(after[5]["body"].as_str().unwrap().contains("abex: closed"));
}
