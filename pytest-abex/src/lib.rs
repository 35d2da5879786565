//! `pytest_abex._core`: the abex core as a Python extension module. [`run`] takes the run's
//! settings as JSON and returns the report as JSON; [`render_text`] renders a report as the
//! terminal text the plugin prints in pytest's summary; [`publish`] posts a report as a
//! pull-request review (`--abex-post-review`); [`interrupt`] asks a running analysis to stop (the
//! plugin calls it from its SIGINT and SIGTERM handlers). The GIL is released while the core
//! works (it runs the project's interpreter in subprocesses, never in this one).

use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(_core, AbexError, PyException, "An abex run failed; the message says why.");

/// Runs abex on a Python project. `config` is the JSON of `abex::python::PyRunConfig`; returns
/// `(report_json, out_dir)`. `progress`, when given, is called with `(verb, text, warning)` for
/// each progress line (`abex::render::progress`), the lines `cargo abex` prints.
#[pyfunction]
#[pyo3(signature = (config, progress = None))]
fn run(py: Python<'_>, config: &str, progress: Option<Py<PyAny>>) -> PyResult<(String, String)> {
    let cfg: abex::python::PyRunConfig = serde_json::from_str(config)
        .map_err(|e| AbexError::new_err(format!("invalid abex settings: {e}")))?;
    // A request of an earlier run in this process (pytester runs sessions in one) is not ours.
    abex::interrupt::reset();
    let result = py.detach(|| {
        abex::python::run(cfg, &mut |e| {
            let (Some(cb), Some(l)) = (&progress, abex::render::progress::line(&e, "python"))
            else {
                return;
            };
            // A failing callback must not end the run: its error is dropped.
            Python::attach(|py| drop(cb.call1(py, (l.verb, l.text, l.warning))));
        })
    });
    match result {
        Ok((report, out)) => {
            let text = serde_json::to_string(&report)
                .map_err(|e| AbexError::new_err(format!("failed to serialise the report: {e}")))?;
            Ok((text, out.display().to_string()))
        }
        Err(e) => {
            // The exit status `cargo abex` would end with (2: a usage or configuration error).
            let err = AbexError::new_err(e.to_string());
            err.value(py).setattr("exit_code", e.exit_code().code())?;
            Err(err)
        }
    }
}

/// Asks the running analysis to stop because of `signal` (SIGINT, SIGTERM): it kills its test
/// runners and workers and [`run`] returns the report of what was finished, with `interrupted`
/// set. Returns how many requests this run received (1 for the first; the plugin ends the
/// process at once on the second). Safe to call from any thread.
#[pyfunction]
fn interrupt(signal: i32) -> usize {
    abex::interrupt::request(signal)
}

/// Publishes a report on GitHub Actions, as `cargo abex --post-review` does from its own run:
/// posts the review when `post` (in-run: never on a fork's pull request), appends the job summary
/// to `GITHUB_STEP_SUMMARY` and the step outputs to `GITHUB_OUTPUT` when they are set, and copies
/// the event next to the report. Returns `(notes, warnings, annotations)`: what was done, what
/// failed (a failed post is a warning, never an exception), and in a GitHub Actions step
/// (`GITHUB_ACTIONS=true`) the `::warning` workflow commands of the gaps, one a line, for the
/// plugin to print.
#[pyfunction]
fn publish(
    py: Python<'_>,
    report: &str,
    report_path: &str,
    post: bool,
) -> PyResult<(Vec<String>, Vec<String>, String)> {
    let report: abex::report::Report = serde_json::from_str(report)
        .map_err(|e| AbexError::new_err(format!("invalid abex report: {e}")))?;
    let env_path = |k: &str| std::env::var_os(k).filter(|p| !p.is_empty()).map(PathBuf::from);
    let what = abex::github::Publish {
        post,
        in_run: true,
        event: None,
        options: abex::github::PostOptions::default(),
        step_summary: env_path("GITHUB_STEP_SUMMARY"),
        outputs: env_path("GITHUB_OUTPUT"),
    };
    let done = py.detach(|| abex::github::publish(&report, Path::new(report_path), &what));
    let mut notes = Vec::new();
    let mut warnings = done.warnings;
    match done.posting {
        Some(Ok(p)) => {
            notes.push(format!(
                "review: {} comment(s) posted, {} updated, {} closed, {} unchanged, {} in the review body",
                p.created,
                p.updated,
                p.closed,
                p.unchanged,
                p.in_body.len()
            ));
            notes.extend(p.notes);
        }
        Some(Err(e)) => warnings.push(format!("failed to post the review: {e}")),
        None => {}
    }
    let in_actions = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    let annotations =
        if in_actions { abex::render::annotations::render(&report) } else { String::new() };
    Ok((notes, warnings, annotations))
}

/// The terminal text of a report (JSON), as `cargo abex` prints it: a block per function, then
/// the totals and the engine line (`abex::render::text`). `show` is how many boundaries are shown
/// per validity group, `colour` whether to style it with ANSI escapes, `report_path` where the
/// report was written (named on the totals line).
#[pyfunction]
#[pyo3(signature = (report, show = 5, colour = false, report_path = None))]
fn render_text(
    report: &str,
    show: usize,
    colour: bool,
    report_path: Option<PathBuf>,
) -> PyResult<String> {
    let report: abex::report::Report = serde_json::from_str(report)
        .map_err(|e| AbexError::new_err(format!("invalid abex report: {e}")))?;
    let opts = abex::render::TextOptions { show, colour, report_path };
    Ok(abex::render::text::render(&report, &opts))
}

/// The core's defaults of the settings the plugin leaves unset, as JSON: `pairs`, `seed`,
/// `call_timeout_ms`, `memory_limit_mib`, `witness_evals` (the same as `cargo abex`'s).
#[pyfunction]
fn defaults() -> String {
    use abex::pipeline::Defaults;
    serde_json::json!({
        "pairs": Defaults::PAIRS,
        "seed": Defaults::SEED,
        "call_timeout_ms": Defaults::CALL_TIMEOUT.as_millis() as u64,
        "memory_limit_mib": Defaults::MEMORY_LIMIT_MIB,
        "witness_evals": Defaults::WITNESS_EVALS,
    })
    .to_string()
}

/// Moves the secrets abex uses (`GITHUB_TOKEN`, `GH_TOKEN`, `ABEX_API_KEY`, `OPENAI_API_KEY`)
/// from the process's environment into the core, where only the core reads them, wipes them
/// from the environment block `/proc/self/environ` shows, and takes a snapshot of the settings
/// that say where a key goes (`abex::secrets`). Returns the names taken; the plugin then removes
/// them from `os.environ`, Python's own copy. Nothing in this module hands a secret back.
#[pyfunction]
fn withhold_secrets() -> Vec<String> {
    abex::secrets::withhold()
}

/// The abex version of the core.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt, m)?)?;
    m.add_function(wrap_pyfunction!(publish, m)?)?;
    m.add_function(wrap_pyfunction!(render_text, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(withhold_secrets, m)?)?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add("AbexError", m.py().get_type::<AbexError>())?;
    Ok(())
}
