//! `pytest_abex._core`: the abex core as a Python extension module. One function, [`run`],
//! takes the run's settings as JSON and returns the report as JSON; the Python plugin renders
//! it. The GIL is released while the core works (it runs the project's interpreter in
//! subprocesses, never in this one).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(_core, AbexError, PyException, "An abex run failed; the message says why.");

/// Runs abex on a Python project. `config` is the JSON of `abex::python::PyRunConfig`; returns
/// `(report_json, out_dir)`.
#[pyfunction]
fn run(py: Python<'_>, config: &str) -> PyResult<(String, String)> {
    let cfg: abex::python::PyRunConfig = serde_json::from_str(config)
        .map_err(|e| AbexError::new_err(format!("invalid abex settings: {e}")))?;
    let result = py.detach(|| abex::python::run(&cfg));
    match result {
        Ok((report, out)) => {
            let text = serde_json::to_string(&report)
                .map_err(|e| AbexError::new_err(format!("failed to serialise the report: {e}")))?;
            Ok((text, out.display().to_string()))
        }
        Err(e) => Err(AbexError::new_err(e.to_string())),
    }
}

/// The abex version of the core.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("AbexError", m.py().get_type::<AbexError>())?;
    Ok(())
}
