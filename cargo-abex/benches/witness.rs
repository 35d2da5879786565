//! `cargo bench --bench witness`: the witness search on the example projects and the
//! thresholds fixtures of both languages (issue 19). Each project is copied into a temporary
//! folder and analysed offline with every function (`cargo abex --all`, `pytest --abex
//! --abex-all`, seed 1); from its `report.json` the bench prints the survivors, how many have a
//! witness, the others by reason (the unwitnessed stage), and the time of the search per
//! witness (`search_ms`, median and 95th percentile). It exits with 1 when the median over all
//! witnesses passes [`TARGET_MS`].
//!
//! The Python projects need an interpreter with pytest and pytest-abex installed:
//! `ABEX_BENCH_PYTHON` (default `python3`); without one they are skipped, saying so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

/// The target for the median time per witness, in milliseconds.
const TARGET_MS: f64 = 50.0;

/// What the bench reads from one report.
#[derive(Default)]
struct Tally {
    survivors: usize,
    witnessed: usize,
    unwitnessed: BTreeMap<String, Vec<String>>,
    times: Vec<f64>,
}

impl Tally {
    fn of(report: &Value) -> Tally {
        let mut t = Tally::default();
        for target in report["targets"].as_array().into_iter().flatten() {
            let name = target["qualified_name"].as_str().unwrap_or("?");
            for m in target["mutation"]["mutants"].as_array().into_iter().flatten() {
                if m["status"] != "survived" {
                    continue;
                }
                t.survivors += 1;
                if m["witness"].is_null() {
                    let stage = m["unwitnessed"]["stage"].as_str().unwrap_or("not_searched");
                    let what = format!(
                        "{name} line {}: `{}` → `{}`",
                        m["line"],
                        m["original"].as_str().unwrap_or(""),
                        m["replacement"].as_str().unwrap_or("")
                    );
                    t.unwitnessed.entry(stage.to_string()).or_default().push(what);
                } else {
                    t.witnessed += 1;
                    t.times.extend(m["search_ms"].as_f64());
                }
            }
        }
        t
    }
}

/// The `q` quantile of `xs` (nearest rank), 0 when empty.
fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[k]
}

/// Copies the project at `from` into a fresh temporary folder; the folder and the copy.
fn copy(from: &Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let to = tmp.path().join(from.file_name().unwrap());
    let status = Command::new("cp").arg("-r").arg(from).arg(&to).status().expect("cp");
    assert!(status.success(), "copy {}", from.display());
    let _ = std::fs::remove_dir_all(to.join(".abex"));
    let _ = std::fs::remove_dir_all(to.join("target"));
    (tmp, to)
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).expect("report.json");
    serde_json::from_str(&text).expect("a report")
}

fn rust(dir: &Path) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "--offline", "--seed", "1", "--all"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-abex");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    report(dir)
}

fn python(python: &str, dir: &Path) -> Value {
    let o = Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--abex", "--abex-offline"])
        .args(["--abex-seed", "1", "--abex-all"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run pytest");
    assert!(dir.join(".abex/out/report.json").exists(), "{}", String::from_utf8_lossy(&o.stdout));
    report(dir)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let py = std::env::var("ABEX_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_py = Command::new(&py)
        .args(["-c", "import pytest, pytest_abex"])
        .output()
        .is_ok_and(|o| o.status.success());
    let projects: [(&str, &str, bool); 4] = [
        ("examples/demo", "rust", false),
        ("tests/fixtures/thresholds", "rust", false),
        ("examples/python-demo", "python", true),
        ("pytest-abex/tests/projects/thresholds", "python", true),
    ];
    let mut all = Vec::new();
    for (rel, lang, is_py) in projects {
        if is_py && !has_py {
            println!("{rel} ({lang}): skipped, `{py}` has no pytest-abex (set ABEX_BENCH_PYTHON)");
            continue;
        }
        let (_tmp, dir) = copy(&root.join(rel));
        if is_py {
            // The fixture's tests import its module from the project's root.
            let ini = dir.join("pytest.ini");
            if !ini.exists() && !dir.join("pyproject.toml").exists() {
                std::fs::write(&ini, "[pytest]\npythonpath = .\n").expect("pytest.ini");
            }
        }
        let start = Instant::now();
        let r = if is_py { python(&py, &dir) } else { rust(&dir) };
        let t = Tally::of(&r);
        println!(
            "{rel} ({lang}): {} survivors, {} witnessed, {} unwitnessed; per witness median {:.0} ms, p95 {:.0} ms; run {:.1} s",
            t.survivors,
            t.witnessed,
            t.survivors - t.witnessed,
            quantile(&t.times, 0.5),
            quantile(&t.times, 0.95),
            start.elapsed().as_secs_f64()
        );
        for (stage, ms) in &t.unwitnessed {
            println!("  {stage}: {}", ms.len());
            for m in ms {
                println!("    {m}");
            }
        }
        all.extend(t.times);
    }
    let median = quantile(&all, 0.5);
    println!(
        "all: {} witnesses, median {median:.0} ms, p95 {:.0} ms (target: median ≤ {TARGET_MS} ms)",
        all.len(),
        quantile(&all, 0.95)
    );
    if median > TARGET_MS {
        eprintln!("median time per witness above target");
        std::process::exit(1);
    }
}
