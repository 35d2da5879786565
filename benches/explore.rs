//! Exploration quality and speed on the demo crate (`examples/demo`), through the real harness:
//! QD-score and BC count of the offline explorer at 1000 pairs against a uniform random-pair
//! baseline run through the same executor and archive (target: at least 3× its QD-score on
//! average), and the wall time of 1000 pairs on each function (target: under 1 s).
//!
//! Run: `cargo bench --bench explore`.

#[path = "support.rs"]
mod support;

use std::path::Path;
use std::time::Instant;

use abex::exec::worker::TargetEvaluator;
use abex::explore::{self, ExploreConfig};

const FUNCTIONS: &[&str] = &[
    "date::is_leap_year",
    "date::days_in_month",
    "date::next_date",
    "date::day_of_year",
    "range::clamp_percent",
    "range::bucket",
    "range::Thermostat::mode",
    "parse::parse_port",
    "parse::is_valid_email",
    "parse::parse_version",
];
const SEEDS: u64 = 5;

fn main() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("demo");
    for entry in abex::scratch::list_files(&demo, &[]).expect("list the demo") {
        let to = dir.join(&entry);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(demo.join(&entry), to).expect("copy");
    }
    let (_ws, h, fns) = support::build(&dir, FUNCTIONS);
    let mut w = support::worker(&h);
    println!(
        "{:<26} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9}",
        "function", "QD abex", "QD random", "ratio", "BC abex", "BC rand", "ms/1000"
    );
    // Ratios of functions with float parameters are left out of the mean: two adjacent floats
    // are ~1e-300 apart, so their PD (and any QD-score ratio) is astronomically large.
    let mut ratios = Vec::new();
    let mut log_ratios = Vec::new();
    let mut slowest = 0f64;
    for (id, f) in fns.iter().enumerate() {
        let params: Vec<_> = f.params.iter().map(|p| p.ty.clone().expect("supported")).collect();
        let (mut qd, mut qd_r, mut bc, mut bc_r, mut ms) = (0.0, 0.0, 0.0, 0.0, 0f64);
        for seed in 0..SEEDS {
            let cfg = ExploreConfig { pairs: 1000, seed, ..ExploreConfig::default() };
            let t = Instant::now();
            let mut eval = TargetEvaluator { worker: &mut w, id };
            let x = explore::explore(&params, &mut eval, &cfg, &mut |_| {}).expect("explore");
            ms = ms.max(t.elapsed().as_secs_f64() * 1000.0);
            let mut eval = TargetEvaluator { worker: &mut w, id };
            let r = explore::random_pairs(&params, &mut eval, &cfg).expect("random pairs");
            qd += x.archive.qd_score();
            qd_r += r.archive.qd_score();
            bc += x.archive.bc_count() as f64;
            bc_r += r.archive.bc_count() as f64;
        }
        let n = SEEDS as f64;
        let ratio = qd / qd_r.max(1e-9);
        log_ratios.push(ratio.ln());
        if !params.iter().any(|p| matches!(p, abex::value::Ty::Float { .. })) {
            ratios.push(ratio);
        }
        slowest = slowest.max(ms);
        println!(
            "{:<26} {:>10.3e} {:>10.3e} {:>6.1}× {:>8.1} {:>8.1} {:>9.0}",
            f.qualified_name(),
            qd / n,
            qd_r / n,
            ratio,
            bc / n,
            bc_r / n,
            ms
        );
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    let geo = (log_ratios.iter().sum::<f64>() / log_ratios.len() as f64).exp();
    println!(
        "QD-score ratio abex/random: mean {mean:.1}× over the {} functions without float parameters (target ≥ 3×), geometric mean {geo:.1}× over all {}",
        ratios.len(),
        log_ratios.len()
    );
    println!("slowest 1000 pairs: {slowest:.0} ms (target < 1000 ms)");
    if mean < 3.0 || slowest >= 1000.0 {
        eprintln!("exploration below target");
        std::process::exit(1);
    }
}
