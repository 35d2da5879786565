//! Bounded reads end to end (issue 27): the real `cargo abex` on code that prints a forged
//! harness answer and 100 MiB, and against a model endpoint that streams 1 GiB. The outcomes
//! stay right, the errors say what happened, and abex's own peak memory (its `VmHWM`, read
//! from `/proc` while it runs) stays small.

#![cfg(target_os = "linux")]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support;

/// Peak resident memory abex may reach on these runs, in MiB (it reads 100 MiB of output and
/// a 1 GiB body: reading either whole would pass it).
const PEAK_MIB: u64 = 64;

/// Runs `cmd`, polling its `VmHWM` (peak resident set) until it exits: its stderr and the
/// peak in MiB.
fn run_measured(mut cmd: Command) -> (bool, String, u64) {
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text.lines().find_map(|l| l.strip_prefix("VmHWM:"));
            let kb = hwm.and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
            peak_kb = peak_kb.max(kb.unwrap_or(0));
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.success(), reader.join().unwrap(), peak_kb >> 10)
}

fn abex(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-abex"));
    cmd.arg("abex")
        .args(["--function", "src/lib.rs::classify"])
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ABEX_BASE_URL")
        .env_remove("ABEX_MODEL")
        .env("NO_COLOR", "1");
    cmd
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn code_that_prints_a_forged_answer_and_100_mib_gets_true_outcomes_in_bounded_memory() {
    let (_tmp, dir) = support::project("noisy");
    let (ok, stderr, peak) = run_measured(abex(&dir, &["--offline", "--pairs", "300"]));
    assert!(ok, "{stderr}");
    let r = report(&dir);
    let t = &r["targets"][0];
    // Every explored outcome is the function's own.
    let cells = t["exploration"]["cells"].as_array().unwrap();
    for c in cells {
        for o in c["outcomes"].as_array().unwrap() {
            assert!(o["value"] == "\"small\"" || o["value"] == "\"large\"", "{c:#}");
        }
    }
    let at = |a: i64, b: i64| c_at(cells, a, b);
    assert!(at(99, 100), "the boundary is where the code puts it: {cells:#?}");
    let m = &t["mutation"];
    let boundary = m["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["replacement"].as_str().unwrap().contains("<="))
        .unwrap_or_else(|| panic!("{m:#}"));
    assert_eq!(boundary["status"], "survived");
    assert_eq!(boundary["witness"]["input"], serde_json::json!([100]));
    // The killed mutants' failures (libtest printed the 100 MiB again for each) keep the test's
    // name and message, in a few KB.
    let killed: Vec<&Value> =
        m["mutants"].as_array().unwrap().iter().filter(|x| x["status"] == "killed").collect();
    assert!(killed.len() >= 2, "{m:#}");
    for k in &killed {
        assert_eq!(k["killed_by"], "tests::far_from_the_threshold", "{k:#}");
        let failure = k["failure"].as_str().unwrap();
        assert!(failure.len() < 16 << 10, "{} bytes", failure.len());
        assert!(failure.contains("panicked at"), "{failure}");
        assert!(!failure.contains("running 1 test"), "the section alone: {failure}");
    }
    eprintln!("abex's peak resident memory: {peak} MiB");
    assert!(peak < PEAK_MIB, "abex's peak resident memory was {peak} MiB");
}

/// Whether `cells` hold the pair `[a]`, `[b]`.
fn c_at(cells: &[Value], a: i64, b: i64) -> bool {
    let (a, b) = (serde_json::json!([a]), serde_json::json!([b]));
    cells.iter().any(|c| {
        let i = &c["inputs"];
        (i[0] == a && i[1] == b) || (i[0] == b && i[1] == a)
    })
}

/// A chat completions endpoint on 127.0.0.1 whose every answer is 1 GiB of `x`, streamed.
fn endless_endpoint() -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", server.server_addr().to_ip().unwrap());
    std::thread::spawn(move || {
        for rq in server.incoming_requests() {
            std::thread::spawn(move || {
                let body = std::io::repeat(b'x').take(1 << 30);
                let header =
                    tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
                let response = tiny_http::Response::new(200.into(), vec![header], body, None, None);
                let _ = rq.respond(response);
            });
        }
    });
    url
}

#[test]
fn a_model_endpoint_that_streams_a_gigabyte_is_cut_off_with_a_clear_error_in_bounded_memory() {
    let (_tmp, dir) = support::project("simple");
    std::fs::write(dir.join("abex.toml"), "[llm]\nretries = 0\nmodel = \"local-model\"\n").unwrap();
    let url = endless_endpoint();
    let (ok, stderr, peak) = run_measured(abex(&dir, &["--no-mutants", "--base-url", &url]));
    assert!(ok, "{stderr}");
    let r = report(&dir);
    let why = r["llm"]["fallbacks"][0].as_str().unwrap_or_else(|| panic!("{:#}", r["llm"]));
    assert!(why.contains("is larger than 4 MiB: abex stopped reading it"), "{why}");
    assert!(stderr.contains("larger than 4 MiB"), "{stderr}");
    // The offline engine finished the run.
    assert!(r["targets"][0]["exploration"]["bc_count"].as_u64().unwrap() >= 3, "{r:#}");
    eprintln!("abex's peak resident memory: {peak} MiB");
    assert!(peak < PEAK_MIB, "abex's peak resident memory was {peak} MiB");
}
