//! Opening `report.html` in headless Chromium, shared by the browser tests (`tests/it/html.rs`) and
//! the page benchmark (`benches/html.rs`): the frozen reports of the examples, their pages, a
//! report as large as a full run of the demo, and the browser run itself.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use abex::render::html;
use abex::report::{Cell, Report};
use abex::value::{stringify_input, Value};

pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The frozen report `tests/data/reports/<name>.json`.
pub fn report(name: &str) -> Report {
    let path = manifest_dir().join("tests/data/reports").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).expect("the frozen report");
    serde_json::from_str(&text).expect("a report in the current format")
}

/// The page of `r`, its sources read from the example it was made from (`examples/<example>`,
/// in place of the frozen report's neutral project root).
pub fn page(r: &Report, example: &str) -> String {
    let root = r.project_root.clone();
    let here = manifest_dir().join("examples").join(example);
    html::render(r, &|p| std::fs::read_to_string(here.join(p.strip_prefix(&root).ok()?)).ok())
}

/// Where the pages and screenshots of this test go (under `target/`).
pub fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(name))
            .find(|p| p.is_file());
        if let Some(p) = found {
            return p;
        }
    }
    panic!("no headless browser: install Debian's `chromium` (`apt-get install -y chromium`; .ci/run does)");
}

/// Runs headless Chromium on `file` with `args`; returns stdout and stderr.
pub fn browse(file: &Path, args: &[String]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-domain-reliability",
        "--disable-breakpad",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(args)
    .arg(format!("file://{}", file.display()));
    let out = cmd.output().expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The value of attribute `name` on the `<html>` element of a dumped DOM.
pub fn root_attr<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let start = dom.find("<html")?;
    let tag = &dom[start..start + dom[start..].find('>')?];
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// `c` moved by `k`: integers shifted, strings extended, so that each copy is a new input.
pub fn shifted(c: &Cell, k: usize) -> Cell {
    let shift = |v: &Value| match v {
        Value::Int(i) => Value::Int(i + 13 * k as i128),
        Value::Float(f) => Value::Float(f + k as f64),
        Value::Str(s) => Value::Str(format!("{s}{k}")),
        other => other.clone(),
    };
    let mut c = c.clone();
    for args in &mut c.inputs {
        *args = args.iter().map(shift).collect();
    }
    c.strings.inputs = [stringify_input(&c.inputs[0]), stringify_input(&c.inputs[1])];
    c.descriptor.2 += k % 60;
    c
}

/// A report as large as a full offline run of the demo: its 14 functions have some 3,300 cells
/// (the run's `report.json` is about 4 MB).
pub fn full_size(mut r: Report) -> Report {
    let originals = r.targets.clone();
    for copy in 1..=2 {
        for t in &originals {
            let mut t = t.clone();
            t.target.qualified_name = format!("{}_{copy}", t.target.qualified_name);
            r.targets.push(t);
        }
    }
    r.targets.truncate(14);
    for t in &mut r.targets {
        let Some(x) = &mut t.exploration else { continue };
        if x.cells.is_empty() {
            continue;
        }
        x.cells =
            (0..250).map(|k| shifted(&x.cells[k % x.cells.len()], k / x.cells.len())).collect();
        x.cells_total = x.cells.len();
    }
    r
}
