//! `report.html` in a real browser (issue 15): the frozen reports of `examples/demo` and
//! `examples/python-demo` (`tests/data/reports/`) are rendered and opened in headless Chromium
//! (Debian's `chromium`, which `.ci/run` installs), which dumps the DOM after the page's script
//! ran. The page must load without a console error or a blocked fetch, give every function its
//! map or table, show as many gaps as the report has, and say it is ready. A screenshot of each
//! page is left in `target/tmp/html/` as a test artifact. A report as large as a full run of the
//! demo (14 functions, thousands of cells) must give a page under 2 MB that loads as cleanly. How
//! fast the pages are made and become ready (under 2 s) is measured by `cargo bench --bench html`,
//! not here: a timed assertion fails on a busy machine without anything being wrong.
//!
//! Chromium runs with its background networking off; the page's own Content-Security-Policy
//! forbids every fetch, so the only traffic is the browser reading the file.

#[path = "support/browser.rs"]
mod browser;

use std::time::Instant;

use abex::report::Report;
use browser::{artifacts, browse, full_size, page, report, root_attr};

/// The gaps (witnessed survivors) of the report's function `i`.
fn gaps_of(r: &Report, i: usize) -> usize {
    r.targets[i].mutation.as_ref().map_or(0, |m| m.counts.witnessed)
}

/// Renders the frozen report `name` of `examples/<example>`, opens it, checks it and screenshots it.
fn open_in_browser(name: &str, example: &str) {
    let r = report(name);
    let html = page(&r, example);
    let file = artifacts().join(format!("{name}.html"));
    std::fs::write(&file, &html).unwrap();

    let started = Instant::now();
    let (dom, log) = browse(&file, &["--dump-dom".into()]);
    let took = started.elapsed();
    eprintln!("{name}: {} bytes, browser run {took:?}", html.len());
    let console: Vec<&str> = log
        .lines()
        .filter(|l| {
            l.contains("CONSOLE")
                || l.contains("Content Security Policy")
                || l.contains("Refused to")
        })
        .collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    assert_eq!(root_attr(&dom, "data-errors"), None, "the page's script saw errors");
    let ready: f64 =
        root_attr(&dom, "data-ready-ms").expect("the page's script ran").parse().unwrap();
    eprintln!("{name}: ready after {ready} ms in the page");

    let gaps: usize = (0..r.targets.len()).map(|i| gaps_of(&r, i)).sum();
    assert!(gaps > 0, "the frozen report has gaps");
    assert_eq!(root_attr(&dom, "data-gaps-shown"), Some(gaps.to_string().as_str()));
    let sections: Vec<&str> = dom.split("<section class=\"function\"").skip(1).collect();
    assert_eq!(sections.len(), r.targets.len());
    for (i, (s, t)) in sections.iter().zip(&r.targets).enumerate() {
        let name = &t.target.qualified_name;
        assert!(s.contains(&format!("<h2 id=\"f{i}-h\">")), "{name}: no heading");
        let has_map = s.contains("<svg class=\"boundary-map\"");
        let has_table = s.contains("<table class=\"boundaries sortable\"");
        let explored = t.exploration.as_ref().is_some_and(|x| x.bc_count > 0);
        if explored {
            assert!(has_map || has_table, "{name}: neither a map nor a table");
        } else {
            assert!(
                s.contains("class=\"no-boundaries\""),
                "{name}: says nothing of its boundaries"
            );
        }
        assert_eq!(s.matches("data-gap=\"true\"").count(), gaps_of(&r, i), "{name}: gaps shown");
        // Every chart has a text alternative.
        assert_eq!(s.matches("<svg ").count(), s.matches("<desc id=").count(), "{name}");
    }

    let shot = artifacts().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    browse(&file, &[format!("--screenshot={}", shot.display()), "--window-size=1280,3000".into()]);
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());
    eprintln!("screenshot: {}", shot.display());
}

#[test]
fn the_rust_demo_s_page_loads_in_a_browser_with_a_map_or_table_per_function_and_every_gap() {
    let r = report("demo");
    let html = page(&r, "demo");
    // One parameter (is_leap_year), two (days_in_month): maps; a string (parse_port): tables.
    let section = |name: &str| {
        let start = html.find(&format!("data-function=\"{name}\"")).unwrap();
        html[start..].split("</section>").next().unwrap().to_string()
    };
    assert!(section("date::is_leap_year").contains("<svg class=\"boundary-map\""));
    assert!(section("date::days_in_month").contains("<svg class=\"boundary-map\""));
    assert!(!section("parse::parse_port").contains("<svg class=\"boundary-map\""));
    assert!(section("parse::parse_port").contains("VE: a value and an error"));
    // The unpinned boundaries and each gap's witness are drawn on the map.
    let leap = section("date::is_leap_year");
    assert!(leap.contains("class=\"pair unpinned\""), "no unpinned boundary drawn");
    assert_eq!(leap.matches("<g class=\"witness\">").count(), gaps_of(&r, 0));
    // The QD-score curve is drawn from the report's history (a report without one says so).
    assert!(leap.contains("<svg class=\"qd-chart\""), "no QD-score chart");
    assert!(section("range::Thermostat::mode").contains("has no QD-score history"));
    // The mutants are shown in their source line.
    assert!(leap.contains("<tr class=\"line mutated\"><th scope=\"row\">4</th>"), "{leap}");
    open_in_browser("demo", "demo");
}

#[test]
fn the_python_demo_s_page_loads_in_a_browser_with_a_map_or_table_per_function_and_every_gap() {
    open_in_browser("python-demo", "python-demo");
}

#[test]
fn a_page_of_a_full_size_demo_report_stays_under_2_mb_and_loads_without_an_error() {
    let r = full_size(report("demo"));
    let json = serde_json::to_vec_pretty(&r).unwrap();
    let html = page(&r, "demo");
    eprintln!("report.json {} bytes → report.html {} bytes", json.len(), html.len());
    assert!(json.len() > 3_000_000, "the report is {} bytes", json.len());
    assert!(html.len() < 2_000_000, "report.html is {} bytes", html.len());
    let file = artifacts().join("full-size.html");
    std::fs::write(&file, &html).unwrap();
    let (dom, log) = browse(&file, &["--dump-dom".into()]);
    assert!(!log.contains("CONSOLE"), "{log}");
    assert_eq!(root_attr(&dom, "data-errors"), None, "the page's script saw errors");
    let ready: f64 =
        root_attr(&dom, "data-ready-ms").expect("the page's script ran").parse().unwrap();
    eprintln!("full size: ready after {ready} ms in the page");
    assert_eq!(dom.matches("<section class=\"function\"").count(), r.targets.len());
}
