//! Mutation speed against cargo-mutants: both tools on the demo crate (`examples/demo`),
//! restricted to the same functions, in one run; wall time per tested mutant, and their counts
//! side by side. Target: abex at most 0.5× cargo-mutants' time per tested mutant. abex's time
//! includes everything it does (harness build, exploration, witnesses, suggested tests).
//!
//! Needs `cargo install cargo-mutants`. Run: `cargo bench --bench mutation`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use abex::pipeline::{LanguageOptions, RunConfig, RustOptions, Selection};

const FUNCTIONS: &[(&str, &str)] =
    &[("src/date.rs", "next_date"), ("src/parse.rs", "parse_port"), ("src/range.rs", "bucket")];

fn copy_demo(to: &Path) {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    for entry in abex::scratch::list_files(&demo, &[]).expect("list the demo") {
        let dest = to.join(&entry);
        std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
        std::fs::copy(demo.join(&entry), dest).expect("copy");
    }
}

fn main() {
    if Command::new("cargo")
        .args(["mutants", "--version"])
        .output()
        .map_or(true, |o| !o.status.success())
    {
        eprintln!("cargo-mutants is not installed: `cargo install cargo-mutants`");
        std::process::exit(2);
    }
    let tmp = tempfile::tempdir().expect("temp dir");

    // cargo-mutants, on its own copy.
    let cm_dir = tmp.path().join("cm");
    copy_demo(&cm_dir);
    let re = FUNCTIONS.iter().map(|(_, f)| format!("\\b{f}\\b")).collect::<Vec<_>>().join("|");
    let t = Instant::now();
    let out = Command::new("cargo")
        .args(["mutants", "--no-shuffle", "-j", "2", "--re", &re])
        .current_dir(&cm_dir)
        .output()
        .expect("run cargo mutants");
    let cm_time = t.elapsed();
    let outcomes: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(cm_dir.join("mutants.out/outcomes.json")).expect("outcomes.json"),
    )
    .expect("parse outcomes.json");
    let count = |k: &str| outcomes[k].as_u64().unwrap_or(0);
    let (caught, missed, unviable, timeout) =
        (count("caught"), count("missed"), count("unviable"), count("timeout"));
    let cm_tested = caught + missed + timeout;
    if cm_tested == 0 {
        eprintln!("cargo mutants tested nothing:\n{}", String::from_utf8_lossy(&out.stderr));
        std::process::exit(1);
    }

    // abex, on its own copy, the same functions, in-process.
    let abex_dir = tmp.path().join("abex");
    copy_demo(&abex_dir);
    let mut cfg = RunConfig::new(LanguageOptions::Rust(RustOptions {
        manifest_path: Some(abex_dir.join("Cargo.toml")),
        ..Default::default()
    }));
    cfg.llm = abex::llm::config::LlmOptions { offline: true, ..Default::default() };
    cfg.selection =
        Selection::Functions(FUNCTIONS.iter().map(|(file, f)| format!("{file}::{f}")).collect());
    cfg.call_timeout = Duration::from_millis(200);
    cfg.cwd = abex_dir.clone();
    cfg.jobs = 2;
    let t = Instant::now();
    let (report, _) = abex::rust::run(&cfg, &mut |_| {}).expect("abex run");
    let abex_time = t.elapsed();
    let sum = |f: &dyn Fn(&abex::report::MutantCounts) -> usize| -> usize {
        report.targets.iter().filter_map(|t| t.mutation.as_ref()).map(|m| f(&m.counts)).sum()
    };
    let abex_tested = sum(&|c| c.tested());

    println!(
        "{:<16} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>12}",
        "tool", "tested", "killed", "survived", "unviable", "timeout", "wall s", "s / mutant"
    );
    let cm_per = cm_time.as_secs_f64() / cm_tested as f64;
    println!(
        "{:<16} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9.2} {:>12.3}",
        "cargo-mutants",
        cm_tested,
        caught,
        missed,
        unviable,
        timeout,
        cm_time.as_secs_f64(),
        cm_per
    );
    let abex_per = abex_time.as_secs_f64() / abex_tested.max(1) as f64;
    println!(
        "{:<16} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9.2} {:>12.3}",
        "abex",
        abex_tested,
        sum(&|c| c.killed),
        sum(&|c| c.survived),
        sum(&|c| c.unviable),
        sum(&|c| c.timeout),
        abex_time.as_secs_f64(),
        abex_per
    );
    println!("abex witnessed gaps: {}", sum(&|c| c.witnessed));
    let ratio = abex_per / cm_per;
    println!("time per tested mutant, abex / cargo-mutants: {ratio:.2}× (target ≤ 0.5×)");
    if ratio > 0.5 {
        std::process::exit(1);
    }
}
