//! The Python worker (`python -m pytest_abex.worker SPEC`) as the core starts it: the spec of
//! its targets (a function to import and call, or a mutant's patched copy: its parameters'
//! types and how each is passed, whether it takes a built receiver, goes through a decorator or
//! runs on an event loop), and the import roots of the project inside the scratch copy.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::project::{Chosen, Project};
use super::runner::Interpreter;
use super::types::Pass;
use crate::exec::worker::{Worker, WorkerSpec};
use crate::targets::Param;

/// The worker's description of the chosen function `c` (see `pytest_abex/worker.py`), with
/// `learnt` parameters in place of its own when the tests told more of their types.
pub fn target(project: &Project, c: &Chosen, learnt: Option<&[Param]>) -> serde_json::Value {
    let pf = &project.files[c.file];
    let f = &pf.fns[c.func];
    let params: Vec<serde_json::Value> = learnt
        .unwrap_or(&f.params)
        .iter()
        .zip(&f.tuples)
        .zip(&f.passes)
        .map(|((p, t), pass)| {
            serde_json::json!({ "name": p.name, "ty": p.ty, "tuple": t, "pass": pass_name(*pass) })
        })
        .collect();
    serde_json::json!({
        "module": pf.module,
        "qualname": f.qualname,
        "kind": f.kind,
        "params": params,
        "receiver": f.receiver,
        "decorated": f.decorated,
        "is_async": f.is_async,
    })
}

/// How the worker passes a parameter: `pos`, `kw`, `unset` (by name unless `None`), `star` or
/// `starstar`.
fn pass_name(p: Pass) -> &'static str {
    match p {
        Pass::Pos { .. } => "pos",
        Pass::Kw => "kw",
        Pass::Unset => "unset",
        Pass::Star => "star",
        Pass::StarStar => "starstar",
    }
}

/// The import roots of the project inside `scratch`.
pub fn sys_path(project: &Project, scratch: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> =
        project.files.iter().map(|f| scratch.join(&f.import_root)).collect();
    roots.sort();
    roots.dedup();
    roots
}

/// A worker over `targets` (their spec written to `spec_file`), run in `scratch`.
pub fn start(
    python: &Interpreter,
    call_timeout: Duration,
    scratch: &Path,
    spec_file: &Path,
    targets: &[serde_json::Value],
    sys_path: &[PathBuf],
) -> std::io::Result<Worker> {
    let spec = serde_json::json!({ "targets": targets, "sys_path": sys_path });
    std::fs::write(spec_file, spec.to_string())?;
    let env = vec![
        ("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string()),
        ("ABEX_INNER".to_string(), "1".to_string()),
    ];
    Ok(Worker::new(WorkerSpec {
        program: python.python.clone(),
        args: vec!["-m".into(), "pytest_abex.worker".into(), spec_file.display().to_string()],
        env,
        cwd: scratch.to_path_buf(),
        call_timeout,
        memory_limit: python.memory_limit,
    }))
}
