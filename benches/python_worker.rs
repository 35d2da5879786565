//! Python worker throughput: a trivial `def f(x: int) -> int` driven through
//! `python -m pytest_abex.worker` and the JSON-lines protocol (the same `Worker` as Rust's).
//! Target: at least 30,000 evaluations/s. The worker is pure Python, so it runs from the
//! sources in `pytest-abex/python` without installing the package; `ABEX_PYTHON` picks the
//! interpreter (default `python3`).
//!
//! Run: `cargo bench --bench python_worker`.

use std::path::PathBuf;
use std::time::Duration;

use abex::exec::worker::{Worker, WorkerSpec};
use abex::value::{Outcome, Value};

#[path = "support.rs"]
mod support;

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::write(tmp.path().join("trivial.py"), "def f(x: int) -> int:\n    return x * 3 + 1\n")
        .expect("write module");
    let spec = tmp.path().join("spec.json");
    let target = serde_json::json!({
        "targets": [{
            "module": "trivial",
            "qualname": "f",
            "kind": "function",
            "params": [{ "ty": { "kind": "int", "bits": 64, "signed": true }, "tuple": false }],
        }],
        "sys_path": [tmp.path()],
    });
    std::fs::write(&spec, target.to_string()).expect("write spec");
    let sources = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pytest-abex/python");
    let python = std::env::var("ABEX_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut w = Worker::new(WorkerSpec {
        program: python.into(),
        args: vec!["-m".into(), "pytest_abex.worker".into(), spec.display().to_string()],
        env: vec![("PYTHONPATH".into(), sources.display().to_string())],
        cwd: tmp.path().to_path_buf(),
        call_timeout: Duration::from_secs(1),
        memory_limit: None,
    });
    let batch: Vec<Vec<Value>> =
        (0..4096).map(|i| vec![Value::Int(i * 7919 - 1_000_000)]).collect();
    let first = w.run(0, &batch[..2]).expect("warm up");
    assert_eq!(first[0], Outcome::Ok { value: "-2999999".into() });
    support::throughput("python worker", &mut w, &batch, 300_000, 30_000.0);
}
