//! Executor throughput: a trivial `fn(i64) -> i64` driven through the generated Rust harness and
//! the JSON-lines worker, after the harness is built. Target: at least 200,000 evaluations/s.
//! Also reports the time to build the harness from a cold scratch copy.
//!
//! Run: `cargo bench --bench executor`.

#[path = "support.rs"]
mod support;

use std::time::Instant;

use abex::value::Value;

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("trivial");
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"trivial\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .expect("write manifest");
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub fn step(x: i64) -> i64 {\n    x.wrapping_mul(3).wrapping_add(1)\n}\n",
    )
    .expect("write lib");

    let t = Instant::now();
    let (_ws, h, _) = support::build(&dir, &["step"]);
    let cold = t.elapsed();
    let t = Instant::now();
    let (_ws, h2, _) = support::build(&dir, &["step"]);
    let warm = t.elapsed();
    drop(h2);
    println!(
        "harness build: {:.2} s cold, {:.2} s when already built",
        cold.as_secs_f64(),
        warm.as_secs_f64()
    );

    let mut w = support::worker(&h);
    let batch: Vec<Vec<Value>> =
        (0..4096).map(|i| vec![Value::Int(i * 7919 - 1_000_000)]).collect();
    w.run(0, &batch[..16]).expect("warm up");
    support::throughput("executor", &mut w, &batch, 1_000_000, 200_000.0);
}
