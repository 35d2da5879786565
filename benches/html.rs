//! `report.html`: how long rendering takes and how soon the page is ready in headless Chromium
//! (the page's own `data-ready-ms`, from navigation start to its script having drawn every map and
//! table), for the frozen demo reports and for a report as large as a full offline run of the demo
//! (14 functions, some 3,500 cells, about 4 MB of `report.json`). Target (issue 15): under 2 s for
//! both, on the full-size report. Each figure is the median of five runs, with the slowest shown.
//!
//! Needs Debian's `chromium` (`.ci/run` installs it). Run: `cargo bench --bench html`.

#[path = "../tests/it/support/browser.rs"]
mod browser;

use std::time::Instant;

use abex::report::Report;
use browser::{artifacts, browse, full_size, page, report, root_attr};

const RUNS: usize = 5;

/// Median and maximum of `xs` (milliseconds).
fn median_max(mut xs: Vec<f64>) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[xs.len() - 1])
}

/// Times rendering `r` and opening its page; prints one line.
fn measure(label: &str, r: &Report, example: &str) {
    let mut rendered = Vec::new();
    let mut ready = Vec::new();
    let mut html = String::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        html = page(r, example);
        rendered.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let file = artifacts().join(format!("bench-{label}.html"));
    std::fs::write(&file, &html).expect("write the page");
    for _ in 0..RUNS {
        let (dom, _) = browse(&file, &["--dump-dom".into()]);
        let ms = root_attr(&dom, "data-ready-ms").expect("the page's script ran");
        ready.push(ms.parse().expect("a number of milliseconds"));
    }
    let (r_med, r_max) = median_max(rendered);
    let (p_med, p_max) = median_max(ready);
    let verdict = if r_med < 2000.0 && p_med < 2000.0 { "met" } else { "MISSED" };
    println!(
        "{label:<12} {:>8.1} KB  render {r_med:>7.1} ms (max {r_max:>7.1})  ready in the page {p_med:>7.1} ms (max {p_max:>7.1})  target 2 s: {verdict}",
        html.len() as f64 / 1024.0
    );
}

fn main() {
    measure("demo", &report("demo"), "demo");
    measure("python-demo", &report("python-demo"), "python-demo");
    measure("full-size", &full_size(report("demo")), "demo");
}
