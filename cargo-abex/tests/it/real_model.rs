//! `cargo abex` against a real model on loopback: llama-cpp-python's server with SmolLM2-135M
//! (`tests/it/support/llama.rs`; `ABEX_LLAMA_PYTHON`, set up by `.ci/run`). A model run on
//! `examples/demo` must make calls and count them, read usage from the answers, negotiate
//! structured output (the server refuses a JSON schema with HTTP 500 and takes JSON mode with
//! the schema), refuse or ignore the tiny model's nonsense without a crash, hold its budgets,
//! and never fall back to the offline engine because of the shape of a request; the Tester's
//! repair loop ends within its rounds and falls back to the offline test, saying so.

use std::process::Command;

use serde_json::Value;

use crate::support;
use crate::support::llama::LlamaServer;

#[test]
fn a_model_run_on_the_demo_crate_against_a_real_local_server() {
    let Some(mut server) = LlamaServer::start() else { return };
    let (_tmp, dir) = support::example("demo");
    // Short answers keep a 135M model on two loaded cores to seconds a call; its price is 0
    // (a run without a key may take it from the file). The file may only lower the time limit
    // of a request: the command line raises it.
    std::fs::write(
        dir.join("abex.toml"),
        "[llm]\nmax_tokens = 256\nretries = 1\n[llm.prices.smollm2]\ninput = 0.0\noutput = 0.0\n",
    )
    .unwrap();
    let budget_tokens: u64 = 40_000;
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .arg("abex")
        .args(["--function", "src/parse.rs::parse_port", "--base-url", &server.base_url])
        .args(["--model", "smollm2", "--budget-usd", "0.01"])
        .args(["--budget-tokens", &budget_tokens.to_string()])
        .args(["--llm-mutants", "1", "--explorer-calls", "2", "--time-budget", "8m"])
        .args(["--llm-timeout", "90s"])
        .current_dir(&dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}\nserver:\n{}", server.log_text());
    assert!(server.running(), "the server died:\n{}", server.log_text());
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();
    let llm = &r["llm"];
    println!("{stderr}\n{llm:#}");
    assert_eq!(llm["engine"], "model");
    // Calls made and counted; usage read from the answers (not billed at the worst case).
    let calls = llm["total"]["calls"].as_u64().unwrap();
    let requests = llm["requests"].as_u64().unwrap();
    assert!(calls >= 2 && requests >= calls, "{llm:#}");
    assert!(llm["by_role"]["explorer"]["calls"].as_u64().unwrap() >= 1, "{llm:#}");
    let worst = llm["worst_case_billed"].as_u64().unwrap();
    assert!(worst < requests, "every request billed at its worst case: {llm:#}");
    // Structured output negotiated: JSON mode with the schema after the server's 500.
    let adapted = llm["adaptations"].as_array().cloned().unwrap_or_default();
    assert!(
        adapted.iter().any(|a| a.as_str().unwrap().contains("JSON mode with the schema")),
        "{llm:#}"
    );
    // No fallback caused by a request's shape; the budgets held.
    for f in llm["fallbacks"].as_array().cloned().unwrap_or_default() {
        let f = f.as_str().unwrap();
        assert!(!f.starts_with("endpoint failed: HTTP 4") && !f.contains("HTTP 500"), "{f}");
    }
    let tokens = llm["total"]["prompt_tokens"].as_u64().unwrap()
        + llm["total"]["completion_tokens"].as_u64().unwrap();
    assert!(tokens > 0 && tokens <= budget_tokens, "{llm:#}");
    assert!(llm["total"]["usd"].as_f64().unwrap() <= 0.01);
    // The run finished: boundaries explored, mutants tested.
    assert_eq!(r["complete"], true);
    let t = &r["targets"][0];
    assert!(t["exploration"]["bc_count"].as_u64().unwrap() >= 1);
    assert!(stderr.contains("engine: model `smollm2`"), "{stderr}");
    // The Tester's generate-and-repair loop ends within its rounds (at most 4 answers a
    // survivor) and falls back to the offline test, saying so, when its test does not hold.
    let asked = llm["by_role"]["tester"]["calls"].as_u64().unwrap_or(0);
    let (kept, fell_back) =
        (llm["tests_kept"].as_u64().unwrap(), llm["tests_fell_back"].as_u64().unwrap());
    assert!(asked <= 4 * (kept + fell_back), "{llm:#}");
    let tests = t["mutation"]["suggested_tests"].as_array().unwrap();
    assert!(!tests.is_empty(), "{:#}", t["mutation"]);
    for test in tests {
        if test["origin"] == "model" {
            assert!(test["repair_rounds"].as_u64().unwrap_or(0) <= 3, "{test:#}");
        } else if let Some(why) = test["fallback"].as_str() {
            assert!(why.starts_with("the model's test was not kept after"), "{why}");
            let answers: u64 = why.split_whitespace().nth(7).unwrap().parse().unwrap();
            assert!((1..=4).contains(&answers), "{why}");
        }
    }
    if fell_back > 0 && kept == 0 {
        assert!(tests.iter().any(|x| x["fallback"].is_string()), "{tests:#?}");
    }
}
