//! Shared by the benchmarks: building a harness for a crate and starting its worker.

#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use abex::exec::worker::{Worker, WorkerSpec};
use abex::rust::harness::{self, Harness};
use abex::rust::source::FoundFn;
use abex::rust::workspace::Workspace;
use abex::value::Value;

/// Loads the crate at `dir` and builds a harness for the functions named in `names`
/// (qualified names), in `dir/.abex/scratch/bench`.
pub fn build(dir: &Path, names: &[&str]) -> (Workspace, Harness, Vec<FoundFn>) {
    let ws =
        abex::rust::workspace::load(Some(&dir.join("Cargo.toml")), &[]).expect("load the crate");
    let ct = &ws.crates[0];
    let fns: Vec<FoundFn> = names
        .iter()
        .map(|n| {
            ct.sources
                .fns
                .iter()
                .find(|f| f.qualified_name() == *n)
                .unwrap_or_else(|| panic!("no {n}"))
                .clone()
        })
        .collect();
    let scratch = dir.join(".abex/scratch/bench");
    let req = ct.harness_request(&ws.root, fns.iter().collect(), &scratch);
    let h = harness::build(&req).expect("build the harness");
    assert!(h.dropped.is_empty(), "dropped: {:?}", h.dropped);
    (ws, h, fns)
}

/// A worker for a built harness, with the default limits.
pub fn worker(h: &Harness) -> Worker {
    Worker::new(WorkerSpec {
        program: h.exe.clone(),
        args: vec![],
        env: vec![],
        cwd: h.cwd.clone(),
        call_timeout: Duration::from_secs(1),
        memory_limit: Some(4 << 30),
    })
}

/// Runs `batch` on target 0 of `w` until `total` evaluations are done, prints the rate as
/// `name`, and exits with 1 when it is below `target` evaluations/s.
pub fn throughput(name: &str, w: &mut Worker, batch: &[Vec<Value>], total: usize, target: f64) {
    let t = Instant::now();
    let mut done = 0;
    while done < total {
        let out = w.run(0, batch).expect("run a batch");
        assert_eq!(out.len(), batch.len());
        done += out.len();
    }
    let secs = t.elapsed().as_secs_f64();
    let rate = done as f64 / secs;
    println!(
        "{name}: {done} evaluations in {secs:.2} s = {rate:.0} evaluations/s (target ≥ {target})"
    );
    if rate < target {
        eprintln!("{name} throughput below target");
        std::process::exit(1);
    }
}
