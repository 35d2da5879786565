//! `cargo abex` with a model: the real binary on a fixture crate, against a fake
//! OpenAI-compatible server on 127.0.0.1 started by each test. The script answers with
//! strategies and pairs, malformed JSON, a 429 with `Retry-After`, a 500, a slow answer past the
//! timeout and a forbidden mutant; the tests check the run completes, budgets hold, the forbidden
//! mutant never runs, a re-run replays at zero requests with the same report, strategies seed
//! the next run, and each ablation switch changes which agents are asked. The Tester's
//! generate-and-repair loop is led through a test that does not compile, one that fails on the
//! original and one that does not kill to one that kills; hostile tests are refused unrun.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support;
use crate::support::fake_llm::{Call, FakeLlm, Reply, Strictness};

fn abex(dir: &Path, url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .arg("abex")
        .args(["--function", "src/lib.rs::classify", "--base-url", url])
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ABEX_BASE_URL")
        .env_remove("ABEX_MODEL")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The same four pairs on every Explorer call: after the first call they take no cell, so the
/// stopping rule hands over to the Coordinator after three more.
fn pairs() -> Reply {
    Reply::json(json!({"pairs": [[[-1], [0]], [[0], [1]], [[99], [100]], [[5], [500]]]}))
}

fn planner(c: &Call) -> Option<Reply> {
    Some(match c.role {
        // A test that does not parse: refused unrun, the offline tests stand.
        "tester" => Reply::json(json!({"test": "not a test"})),
        "coordinator" => Reply::json(
            json!({"decision": "request", "mode": "mutation", "type": "generic", "gap": "values near 100"}),
        ),
        "ideator" => Reply::json(
            json!({"directions": [{"idea": "walk one step at a time around the pair"}, {"idea": "double it"}], "chosen": 0}),
        ),
        "generator" => Reply::json(
            json!({"name": "step-walk", "steps": ["Take the pair.", "Shift both inputs by one, keeping them adjacent."]}),
        ),
        _ => return None,
    })
}

#[test]
fn a_model_run_survives_a_flaky_endpoint_refuses_a_forbidden_mutant_replays_and_seeds_the_next_run()
{
    let (tmp, dir) = support::project("simple");
    let marker = tmp.path().join("pwned");
    let forbidden = format!(
        "pub fn classify(n: i64) -> &'static str {{ let _ = std::process::Command::new(\"touch\").arg({:?}).status(); \"zero\" }}",
        marker.display().to_string()
    );
    let valid = "pub fn classify(n: i64) -> &'static str {\n    if n < 0 {\n        \"negative\"\n    } else if n == 0 {\n        \"zero\"\n    } else if n <= 100 {\n        \"small\"\n    } else {\n        \"large\"\n    }\n}";
    let caught = valid.replace("n <= 100", "n < 100").replace("n < 0", "n <= 0");
    let s = FakeLlm::start(move |c| {
        if let Some(r) = planner(c) {
            return r;
        }
        match (c.role, c.nth_of_role) {
            ("explorer", 0) => Reply::Status {
                code: 429,
                body: "rate limited".into(),
                headers: vec![("Retry-After".into(), "1".into())],
            },
            ("explorer", 1) => Reply::status(500),
            ("explorer", 2) => Reply::Slow(Duration::from_secs(3), Box::new(pairs())),
            ("explorer", 3) => Reply::text("You could try -1 and 0, they look interesting."),
            // Under the requested strategy (after the Coordinator), pairs no one tried before.
            ("explorer", n) if n >= 8 => {
                let k = 10i64.pow(n as u32);
                Reply::json(json!({"pairs": [[[k], [-k]], [[k + 1], [1 - k]]]}))
            }
            ("explorer", _) => pairs(),
            ("mutator", 0) => {
                Reply::json(json!({"source": forbidden, "description": "touch a file"}))
            }
            ("mutator", 1) => {
                Reply::json(json!({"source": caught, "description": "zero counted as negative"}))
            }
            ("mutator", _) => {
                Reply::json(json!({"source": valid, "description": "100 counted as small"}))
            }
            _ => Reply::status(404),
        }
    });
    let args =
        ["--llm-timeout", "1s", "--llm-mutants", "1", "--explorer-calls", "7", "--seed", "3"];
    let o = abex(&dir, &s.base_url, &args);
    ok(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("engine: model"), "{stderr}");
    let r1 = report(&dir);
    let llm = &r1["llm"];
    assert_eq!(r1["settings"]["engine"], "model");
    assert_eq!(llm["engine"], "model");
    for role in ["explorer", "coordinator", "ideator", "generator", "mutator"] {
        assert!(llm["by_role"][role]["calls"].as_u64().unwrap() >= 1, "{role}: {llm:#}");
    }
    assert!(llm["by_function"]["classify"]["calls"].as_u64().unwrap() >= 5);
    assert_eq!(llm["requests"].as_u64().unwrap() as usize, s.count());
    assert!(llm["total"]["prompt_tokens"].as_u64().unwrap() > 0);
    // The forbidden mutant was refused and never ran. The next one was caught by a test; told
    // which test and shown it, the model wrote one that survived with a witness at 100.
    assert!(!marker.exists());
    assert_eq!(llm["mutants_refused"], 1);
    let t = &r1["targets"][0];
    let model: Vec<&Value> = t["mutation"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["origin"] == "model")
        .collect();
    assert_eq!(model.len(), 2, "{:#}", t["mutation"]);
    assert!(model.iter().all(|m| !m["replacement"].as_str().unwrap().contains("Command")));
    let killed = model.iter().find(|m| m["status"] == "killed").expect("a killed model mutant");
    assert!(killed["description"].as_str().unwrap().contains("zero counted as negative"));
    let survived = model.iter().find(|m| m["status"] == "survived").expect("a surviving one");
    assert_eq!(survived["witness"]["input"], json!([100]));
    let log = s.log.lock().unwrap().clone();
    let retry = log.iter().filter(|c| c.role == "mutator").nth(2).unwrap();
    assert!(
        retry.prompt.contains("caught by the existing test `tests::classifies`"),
        "{}",
        retry.prompt
    );
    assert!(retry.prompt.contains("assert_eq!(classify(0), \"zero\")"), "{}", retry.prompt);
    // ... and how it failed: the assertion's expected and actual values.
    assert!(retry.prompt.contains("left: \"negative\""), "{}", retry.prompt);
    assert!(retry.prompt.contains("right: \"zero\""), "{}", retry.prompt);
    assert_eq!(s.count_role("mutator"), 3);
    // The model's pairs reached the archive.
    let cells = t["exploration"]["cells"].as_array().unwrap();
    assert!(cells.iter().any(|c| c["strings"]["inputs"] == json!(["[99]", "[100]"])
        || c["strings"]["inputs"] == json!(["[100]", "[99]"])));
    let summary = std::fs::read_to_string(dir.join(".abex/out/summary.md")).unwrap();
    assert!(summary.contains("engine: model"), "{summary}");

    // Same commit again: the results replay, no request is made, the report is the same.
    let before = s.count();
    ok(&abex(&dir, &s.base_url, &args));
    assert_eq!(s.count(), before);
    assert_eq!(report(&dir)["targets"], r1["targets"]);

    // Without the results cache and the response cache, the strategy learnt in the first run
    // seeds the pool, and the first Explorer call already follows it.
    std::fs::remove_dir_all(dir.join(".abex/cache/results")).unwrap();
    std::fs::remove_dir_all(dir.join(".abex/cache/llm")).unwrap();
    ok(&abex(&dir, &s.base_url, &args));
    let r3 = report(&dir);
    assert_eq!(r3["llm"]["strategies_seeded"], 1, "{:#}", r3["llm"]);
    let first =
        s.log.lock().unwrap()[before..].iter().find(|c| c.role == "explorer").cloned().unwrap();
    assert!(first.prompt.contains("Shift both inputs by one"), "{}", first.prompt);
}

fn ablation(agents: &str) -> (FakeLlm, Value) {
    let (_tmp, dir) = support::project("simple");
    let s = FakeLlm::start(|c| planner(c).unwrap_or_else(pairs));
    let o = abex(&dir, &s.base_url, &["--no-mutants", "--agents", agents, "--explorer-calls", "6"]);
    ok(&o);
    (s, report(&dir))
}

#[test]
fn each_ablation_switch_asks_only_its_agents() {
    let (s, r) = ablation("explorer-only");
    assert_eq!(s.count_role("explorer"), 6);
    assert_eq!(s.count(), 6);
    assert_eq!(r["llm"]["agents"], "explorer-only");

    let (s, _) = ablation("no-ideator");
    assert!(s.count_role("coordinator") >= 1);
    assert!(s.count_role("generator") >= 1);
    assert_eq!(s.count_role("ideator"), 0);

    let (s, r) = ablation("full");
    assert!(s.count_role("coordinator") >= 1);
    assert_eq!(s.count_role("ideator"), s.count_role("generator"));
    assert!(s.count_role("ideator") >= 1);
    assert_eq!(r["llm"]["agents"], "full");
}

#[test]
fn a_token_budget_that_runs_out_mid_run_is_never_passed_and_the_offline_engine_finishes() {
    let (_tmp, dir) = support::project("simple");
    let s = FakeLlm::start(|c| planner(c).unwrap_or_else(pairs));
    let o = abex(
        &dir,
        &s.base_url,
        &["--no-mutants", "--budget-tokens", "15000", "--explorer-calls", "20"],
    );
    ok(&o);
    let r = report(&dir);
    let llm = &r["llm"];
    let spent = llm["total"]["prompt_tokens"].as_u64().unwrap()
        + llm["total"]["completion_tokens"].as_u64().unwrap();
    assert!(spent <= 15000, "{llm:#}");
    assert!(s.count() >= 2, "the budget should allow a few calls: {llm:#}");
    assert!(llm["skipped_count"].as_u64().unwrap() >= 1, "{llm:#}");
    assert_eq!(llm["fallbacks"], json!(["token budget spent"]));
    assert_eq!(r["complete"], true);
    assert_eq!(r["targets"][0]["exploration"]["stop"], "pairs");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("offline fallback: token budget spent"), "{stderr}");
}

#[test]
fn a_failing_endpoint_falls_back_to_the_offline_engine_and_says_so() {
    let (_tmp, dir) = support::project("simple");
    // The project's config file sets one retry.
    std::fs::write(dir.join("abex.toml"), "[llm]\nretries = 1\nmodel = \"local-model\"\n").unwrap();
    let s = FakeLlm::start(|_| Reply::status(503));
    let o = abex(&dir, &s.base_url, &["--no-mutants"]);
    ok(&o);
    let r = report(&dir);
    assert_eq!(s.count(), 2);
    assert_eq!(r["llm"]["model"], "local-model");
    let why = r["llm"]["fallbacks"][0].as_str().unwrap();
    assert!(why.starts_with("endpoint failed: HTTP 503"), "{why}");
    assert!(r["targets"][0]["exploration"]["bc_count"].as_u64().unwrap() >= 3);
}

#[test]
fn a_money_budget_priced_from_the_projects_table_is_never_passed() {
    let (_tmp, dir) = support::project("simple");
    // $1,000 per million tokens: a call's worst case (prompt bytes + 2,000 answer tokens) costs
    // about $5.5, what it really spends about $0.5, so a $7 budget allows three or four calls.
    std::fs::write(
        dir.join("abex.toml"),
        "[llm]\nmodel = \"priced\"\n[llm.prices.priced]\ninput = 1000.0\noutput = 1000.0\n",
    )
    .unwrap();
    let s = FakeLlm::start(|c| planner(c).unwrap_or_else(pairs));
    let o =
        abex(&dir, &s.base_url, &["--no-mutants", "--budget-usd", "7", "--explorer-calls", "20"]);
    ok(&o);
    let llm = &report(&dir)["llm"];
    let usd = llm["total"]["usd"].as_f64().unwrap();
    assert!(usd > 0.0 && usd <= 7.0, "{llm:#}");
    assert!((2..=6).contains(&s.count()), "{} requests: {llm:#}", s.count());
    assert_eq!(llm["fallbacks"], json!(["money budget spent"]));
}

#[test]
fn a_whole_model_run_meets_gpt5_rules_and_a_llama_cpp_server_without_falling_back() {
    let valid = "pub fn classify(n: i64) -> &'static str {\n    if n < 0 {\n        \"negative\"\n    } else if n == 0 {\n        \"zero\"\n    } else if n <= 100 {\n        \"small\"\n    } else {\n        \"large\"\n    }\n}";
    for (strictness, model, refused) in
        [(Strictness::Gpt5, None, 0), (Strictness::LlamaCpp, Some("smollm2"), 1)]
    {
        let (_tmp, dir) = support::project("simple");
        let s = FakeLlm::start_with(strictness, move |c| {
            if let Some(r) = planner(c) {
                return r;
            }
            match c.role {
                "mutator" => Reply::json(json!({"source": valid, "description": "100 is small"})),
                _ => pairs(),
            }
        });
        let mut args = vec!["--llm-mutants", "1", "--explorer-calls", "6"];
        if let Some(m) = model {
            args.extend(["--model", m]);
        }
        let o = abex(&dir, &s.base_url, &args);
        ok(&o);
        let llm = &report(&dir)["llm"];
        assert_eq!(s.refused(strictness), refused, "{strictness:?}: {llm:#}");
        assert!(llm.get("fallbacks").is_none(), "{strictness:?}: {llm:#}");
        assert_eq!(llm["requests"].as_u64().unwrap() as usize, s.count());
        for role in ["explorer", "coordinator", "mutator"] {
            assert!(llm["by_role"][role]["calls"].as_u64().unwrap() >= 1, "{role}: {llm:#}");
        }
        assert_eq!(llm["adaptations"].as_array().map_or(0, Vec::len), refused, "{llm:#}");
        // Provenance: the model's pairs hold cells under their strategy and persona, and the
        // report's per-origin figures credit them and their tokens.
        let r = report(&dir);
        let cells = r["targets"][0]["exploration"]["cells"].as_array().unwrap();
        let model_cell =
            cells.iter().find(|c| c["origin"]["kind"] == "model").expect("a model cell");
        assert_eq!(model_cell["origin"]["strategy"], "baseline");
        assert!(cells.iter().any(|c| c["origin"]["kind"] == "bisection"));
        let origins = r["origins"].as_array().unwrap();
        let explorer = origins.iter().find(|o| o["origin"] == "model explorer").unwrap();
        assert!(
            explorer["cells"].as_u64().unwrap() >= 1 && explorer["tokens"].as_u64().unwrap() > 0
        );
        let mutator = origins.iter().find(|o| o["origin"] == "model mutator").unwrap();
        assert_eq!(mutator["mutants"], 1);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(explorer["qd_share"].as_f64().is_some(), "{explorer:#}");
        let line = stderr.lines().find(|l| l.starts_with("abex: by origin (")).expect(&stderr);
        assert!(line.contains("operator") && line.contains("model explorer"), "{line}");
    }
}

/// `cargo abex` with the API key `KEY` in its environment and the endpoint, if any, on its
/// command line (as the Action passes them).
fn abex_with_key(dir: &Path, url: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-abex"));
    cmd.args(["abex", "--function", "src/lib.rs::classify"]);
    if let Some(url) = url {
        cmd.args(["--base-url", url]);
    }
    cmd.args(args)
        .current_dir(dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ABEX_BASE_URL")
        .env_remove("ABEX_MODEL")
        .env_remove("ABEX_PRICES")
        .env("ABEX_API_KEY", KEY)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

const KEY: &str = "sk-abex-test-key-5e1d";

#[test]
fn a_project_file_never_sends_the_key_to_its_endpoint() {
    let (_tmp, dir) = support::project("simple");
    let s = FakeLlm::start(|c| planner(c).unwrap_or_else(pairs));
    // The pull request's abex.toml names its own endpoint; the key is in the environment.
    std::fs::write(dir.join("abex.toml"), format!("[llm]\nbase_url = \"{}\"\n", s.base_url))
        .unwrap();
    let o = abex_with_key(&dir, None, &["--no-mutants"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("refused: `") && stderr.contains("abex.toml` key `llm.base_url`"),
        "{stderr}"
    );
    assert_eq!(s.count(), 0, "the file's endpoint got a request");
    // The same through Cargo.toml's metadata.
    std::fs::remove_file(dir.join("abex.toml")).unwrap();
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let metadata = format!("\n[package.metadata.abex.llm]\nbase_url = \"{}\"\n", s.base_url);
    std::fs::write(dir.join("Cargo.toml"), manifest + &metadata).unwrap();
    let o = abex_with_key(&dir, None, &["--no-mutants"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(s.count(), 0);
    // Named on the command line, the endpoint gets the key.
    let o = abex_with_key(&dir, Some(&s.base_url), &["--no-mutants", "--explorer-calls", "1"]);
    ok(&o);
    assert!(s.count() > 0);
    assert!(s.authorizations().iter().all(|a| a == &format!("Bearer {KEY}")));
}

#[test]
fn project_prices_of_zero_or_nan_do_not_loosen_a_money_budget_and_a_negative_timeout_is_an_error() {
    // $0.01 at gpt-5-mini's built-in prices; the project's table says its tokens are free.
    let run = |prices: Option<&str>| {
        let (_tmp, dir) = support::project("simple");
        if let Some(p) = prices {
            std::fs::write(dir.join("abex.toml"), p).unwrap();
        }
        let s = FakeLlm::start(|c| planner(c).unwrap_or_else(pairs));
        let args = ["--no-mutants", "--budget-usd", "0.01", "--explorer-calls", "40"];
        let o = abex_with_key(&dir, Some(&s.base_url), &args);
        (o, s.count(), dir.join(".abex/out/report.json"), _tmp)
    };
    let (o, built_in, path, _t) = run(None);
    ok(&o);
    let llm = serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap()).unwrap()
        ["llm"]
        .clone();
    assert_eq!(llm["fallbacks"], json!(["money budget spent"]), "{llm:#}");
    let free = "[llm.prices.\"gpt-5-mini\"]\ninput = 0.0\noutput = 0.0\n";
    let (o, zero, path, _t) = run(Some(free));
    ok(&o);
    assert_eq!(zero, built_in, "a zero price in the project's file bought more requests");
    let llm = serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap()).unwrap()
        ["llm"]
        .clone();
    let usd = llm["total"]["usd"].as_f64().unwrap();
    assert!(usd > 0.0 && usd <= 0.01, "{llm:#}");
    for (bad, named) in [
        (
            "[llm.prices.\"gpt-5-mini\"]\ninput = nan\noutput = 0.0\n",
            "llm.prices.\"gpt-5-mini\".input",
        ),
        (
            "[llm.prices.\"gpt-5-mini\"]\ninput = -1.0\noutput = 0.0\n",
            "llm.prices.\"gpt-5-mini\".input",
        ),
        ("[llm]\ntimeout_s = -1\n", "llm.timeout_s"),
    ] {
        let (o, requests, ..) = run(Some(bad));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("abex.toml") && stderr.contains(named), "{bad}: {stderr}");
        assert_eq!(requests, 0);
    }
}

#[test]
fn a_money_budget_with_a_model_of_unknown_price_exits_2_with_a_hint() {
    let (_tmp, dir) = support::project("simple");
    let s = FakeLlm::start(|_| Reply::status(500));
    let o = abex(&dir, &s.base_url, &["--model", "mystery-model", "--budget-usd", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("mystery-model") && stderr.contains("[llm.prices."), "{stderr}");
    assert_eq!(s.count(), 0);
    // With its price in the project's table, the same run starts.
    std::fs::write(
        dir.join("abex.toml"),
        "[llm.prices.\"mystery-model\"]\ninput = 0.0\noutput = 0.0\n",
    )
    .unwrap();
    let o =
        abex(&dir, &s.base_url, &["--model", "mystery-model", "--budget-usd", "1", "--no-mutants"]);
    ok(&o);
}

#[test]
fn no_answer_of_the_hostile_corpus_runs_in_a_model_run() {
    let (tmp, dir) = support::project("simple");
    let markers = tmp.path().join("markers");
    std::fs::create_dir(&markers).unwrap();
    let corpus = hostile_corpus(&markers);
    let n = corpus.len();
    assert!(n >= 30);
    let s = FakeLlm::start(move |c| match (c.role, c.nth_of_role) {
        ("mutator", k) if k < n => {
            Reply::json(json!({"source": corpus[k], "description": "hostile"}))
        }
        ("mutator", _) => Reply::status(404),
        _ => pairs(),
    });
    let calls = n.div_ceil(3).to_string();
    let args = ["--llm-mutants", &calls, "--explorer-calls", "1", "--agents", "explorer-only"];
    let o = abex(&dir, &s.base_url, &args);
    ok(&o);
    let r = report(&dir);
    assert_eq!(r["llm"]["mutants_refused"].as_u64().unwrap() as usize, n, "{:#}", r["llm"]);
    let ran: Vec<_> =
        std::fs::read_dir(&markers).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(ran.is_empty(), "hostile answers ran: {ran:?}");
    let mutants = r["targets"][0]["mutation"]["mutants"].as_array().unwrap();
    assert!(mutants.iter().all(|m| m["origin"] != "model"), "a hostile mutant was kept");
}

/// The Tester's answer for a prompt: for the survivor at 100, a test that does not compile, then
/// one that fails on the original, then one that does not kill, then a good one (round by
/// round, read from the feedback in the prompt); for every other survivor a hostile test.
fn tester_script(prompt: &str, marker: &str) -> Reply {
    let round = prompt.matches("Your previous test (round").count();
    let test = if prompt.contains("with the arguments [100]") {
        match round {
            0 => "#[test]\nfn t() { assert_eq!(classify(100, 1), \"large\"); }",
            1 => "#[test]\nfn t() { assert_eq!(classify(100), \"small\"); }",
            2 => "#[test]\nfn t() { assert_eq!(classify(5), \"small\"); }",
            _ => "#[test]\nfn t() {\n    assert_eq!(classify(-1), \"negative\");\n    assert_eq!(classify(0), \"zero\");\n    assert_eq!(classify(1), \"small\");\n    assert_eq!(classify(99), \"small\");\n    assert_eq!(classify(100), \"large\");\n}",
        }
        .to_string()
    } else {
        format!("#[test]\nfn t() {{ std::process::Command::new(\"touch\").arg({marker:?}).status().unwrap(); }}")
    };
    Reply::json(json!({ "test": test }))
}

/// A fake model whose Tester follows [`tester_script`] (its hostile answers would create
/// `marker`), with Explorer pairs and no model mutant.
fn tester_fake(marker: String) -> FakeLlm {
    FakeLlm::start(move |c| {
        if c.role == "tester" {
            return tester_script(&c.prompt, &marker);
        }
        if let Some(r) = planner(c) {
            return r;
        }
        match c.role {
            "explorer" => pairs(),
            // No model mutant: one replaces the whole body, so the rule-based mutants it overlaps
            // are built alone, where suggested tests are not checked.
            "mutator" => Reply::json(json!({"source": "none", "description": "none"})),
            _ => Reply::status(404),
        }
    })
}

#[test]
fn the_testers_test_is_repaired_until_it_kills_and_a_hostile_test_never_runs() {
    let (tmp, dir) = support::project("simple");
    let marker = tmp.path().join("pwned").display().to_string();
    let s = tester_fake(marker.clone());
    let args = ["--llm-mutants", "1", "--explorer-calls", "2", "--seed", "3"];
    let o = abex(&dir, &s.base_url, &args);
    ok(&o);
    let r = report(&dir);
    assert!(!Path::new(&marker).exists(), "a hostile test ran");
    let llm = &r["llm"];
    let log = s.log.lock().unwrap().clone();
    let at_100: Vec<&Call> = log
        .iter()
        .filter(|c| c.role == "tester" && c.prompt.contains("with the arguments [100]"))
        .collect();
    // Each round's prompt says what went wrong with the last test.
    let last = at_100.iter().max_by_key(|c| c.prompt.len()).unwrap();
    assert!(last.prompt.contains("It did not compile:"), "{}", last.prompt);
    assert!(last.prompt.contains("error[E0061]"), "{}", last.prompt);
    assert!(last.prompt.contains("It failed on the function as written:"), "{}", last.prompt);
    assert!(last.prompt.contains("does not kill the mutant"), "{}", last.prompt);
    // The good test killed what no single offline test does, so the smallest set took it.
    let t = &r["targets"][0]["mutation"];
    let tests = t["suggested_tests"].as_array().unwrap();
    let model = tests.iter().find(|x| x["origin"] == "model").expect("a model test");
    assert_eq!(model["repair_rounds"], 3, "{model:#}");
    assert!(model["code"].as_str().unwrap().contains("assert_eq!(classify(99), \"small\")"));
    let summary = std::fs::read_to_string(dir.join(".abex/out/summary.md")).unwrap();
    assert!(summary.contains("written by the model, 3 repair rounds"), "{summary}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("written by the model, 3 repair rounds"), "{stderr}");
    let at_100_mutants: Vec<&Value> = t["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["witness"]["input"] == json!([100]))
        .collect();
    assert!(!at_100_mutants.is_empty(), "{t:#}");
    for m in at_100_mutants {
        assert!(model["kills"].as_array().unwrap().contains(&m["id"]), "{t:#}");
    }
    // The other survivors' Testers answered with a process call: refused unrun, every time.
    let others = log.iter().filter(|c| c.role == "tester").count() - at_100.len();
    assert_eq!(llm["tests_refused"].as_u64().unwrap() as usize, others, "{llm:#}");
}

#[test]
fn llm_tests_caps_the_testers_answers_per_survivor_and_zero_asks_nothing() {
    for cap in [2usize, 0] {
        let (tmp, dir) = support::project("simple");
        let s = tester_fake(tmp.path().join("pwned").display().to_string());
        let cap_s = cap.to_string();
        let args =
            ["--llm-mutants", "1", "--explorer-calls", "2", "--seed", "3", "--llm-tests", &cap_s];
        let o = abex(&dir, &s.base_url, &args);
        ok(&o);
        let r = report(&dir);
        let log = s.log.lock().unwrap().clone();
        let tester: Vec<&Call> = log.iter().filter(|c| c.role == "tester").collect();
        let tests = r["targets"][0]["mutation"]["suggested_tests"].as_array().unwrap().clone();
        assert!(!tests.is_empty(), "the offline tests stand: {r:#}");
        assert!(tests.iter().all(|t| t["origin"] != "model"), "{tests:#?}");
        if cap == 0 {
            assert!(tester.is_empty(), "the Tester was asked: {}", tester.len());
            assert!(tests.iter().all(|t| t["fallback"].is_null()), "{tests:#?}");
            continue;
        }
        // The good test comes fourth: with two answers the loop ends before it, on every survivor.
        let mutants = r["targets"][0]["mutation"]["mutants"].as_array().unwrap().clone();
        let witnessed = mutants.iter().filter(|m| m["witness"].is_object()).count();
        let survivors_at_100 =
            mutants.iter().filter(|m| m["witness"]["input"] == json!([100])).count();
        assert!(survivors_at_100 > 0, "{mutants:#?}");
        let at_100 = tester.iter().filter(|c| c.prompt.contains("with the arguments [100]"));
        assert_eq!(at_100.count(), cap * survivors_at_100, "answers at 100");
        assert!(
            tester.len() <= cap * witnessed,
            "{} calls for {witnessed} survivors",
            tester.len()
        );
        assert!(r["llm"]["tests_fell_back"].as_u64().unwrap() > 0, "{:#}", r["llm"]);
    }
}

/// The hostile Rust answers of `tests/data/hostile/rust`, each of which would create its own
/// marker file in `markers` if it ever ran.
fn hostile_corpus(markers: &Path) -> Vec<String> {
    let corpus_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/hostile/rust");
    let mut files: Vec<_> =
        std::fs::read_dir(&corpus_dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            let marker = markers.join(stem).display().to_string();
            std::fs::read_to_string(p).unwrap().replace("MARKER", &marker)
        })
        .collect()
}

#[test]
fn no_test_of_the_hostile_corpus_runs_in_a_model_run() {
    let (tmp, dir) = support::project("simple");
    let markers = tmp.path().join("markers");
    std::fs::create_dir(&markers).unwrap();
    // Each hostile function made a test: no parameters (`n` bound first), `#[test]`.
    let sig = "pub fn classify(n: i64) -> &'static str {";
    let tests: Vec<String> = hostile_corpus(&markers)
        .iter()
        .map(|c| c.replacen(sig, "#[test]\nfn t() {\n    let n: i64 = 1;", 1))
        .collect();
    let n = tests.len();
    let s = FakeLlm::start(move |c| match (c.role, c.nth_of_role) {
        ("tester", k) => Reply::json(json!({"test": tests[k % n]})),
        ("mutator", _) => Reply::json(json!({"source": "none", "description": "none"})),
        _ => pairs(),
    });
    let args = ["--llm-mutants", "1", "--explorer-calls", "1", "--agents", "explorer-only"];
    ok(&abex(&dir, &s.base_url, &args));
    let r = report(&dir);
    let asked = s.count_role("tester");
    assert!(asked >= 8, "{asked} tests asked for");
    let refused = r["llm"]["tests_refused"].as_u64().unwrap() as usize;
    assert!(refused >= asked - 2, "{refused} of {asked} refused: {:#}", r["llm"]);
    let ran: Vec<_> =
        std::fs::read_dir(&markers).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(ran.is_empty(), "hostile tests ran: {ran:?}");
    let tests = r["targets"][0]["mutation"]["suggested_tests"].as_array().unwrap();
    assert!(!tests.is_empty() && tests.iter().all(|t| t["origin"] == "offline"), "{tests:#?}");
}

/// A raw HTTP POST of `body` to `url` (`http://127.0.0.1:PORT/path`) with `Authorization:
/// Bearer token`; returns the status.
fn post_json(url: &str, token: &str, body: &Value) -> u16 {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut s = std::net::TcpStream::connect(host).unwrap();
    let body = body.to_string();
    write!(
        s,
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
}

/// Issue 28: the model proxy of the Action's pytest path takes the key on stdin, forwards only
/// requests that carry its token, sends the key only to the endpoint it was given, and refuses
/// (402, never forwarded) a request whose worst case does not fit in its budget.
#[test]
fn the_model_proxy_holds_the_key_checks_its_token_and_keeps_the_budget() {
    use std::io::{BufRead, Write};
    let upstream = FakeLlm::start(|_| pairs());
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "model-proxy", "--base-url", &upstream.base_url, "--budget-usd", "0.01"])
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ABEX_BASE_URL")
        .env_remove("ABEX_PRICES")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(proxy.stdin.take().unwrap(), "{KEY}").unwrap();
    let mut line = String::new();
    std::io::BufReader::new(proxy.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let (url, token) = line.trim().split_once(' ').expect("URL TOKEN");
    assert!(url.starts_with("http://127.0.0.1:") && token.starts_with("abex-proxy-"), "{line}");
    let endpoint = format!("{url}/chat/completions");
    let request = |max: u64| {
        json!({"model": "gpt-5-mini", "max_completion_tokens": max,
               "messages": [{"role": "user", "content": "Propose pairs."}]})
    };
    assert_eq!(post_json(&endpoint, "a-guess", &request(100)), 401);
    assert_eq!(upstream.count(), 0);
    assert_eq!(post_json(&endpoint, token, &request(100)), 200);
    assert_eq!(upstream.authorizations(), [format!("Bearer {KEY}")]);
    // 100,000 answer tokens at gpt-5-mini's $2/M is $0.20: past the $0.01 budget, not sent.
    assert_eq!(post_json(&endpoint, token, &request(100_000)), 402);
    assert_eq!(upstream.count(), 1);
    let _ = proxy.kill();
    let _ = proxy.wait();
}
