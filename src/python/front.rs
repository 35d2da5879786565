//! `pytest --abex`'s side of the spine: a Python project's chosen functions as targets (one unit:
//! the project, copied once to a scratch folder), with their rule-based and model-written
//! mutants; [`PythonFront::open`] copies the project into a [`super::lab::PythonLab`].

use std::path::PathBuf;
use std::time::Instant;

use super::config::PyRunConfig;
use super::error::PythonError;
use super::lab::PythonLab;
use super::project::{Chosen, Project, Selected};
use super::{calls, model, selection};
use crate::event::Event;
use crate::llm::session::Session;
use crate::llm::subject::Subject;
use crate::mutate::{python_rules, Mutant};
use crate::pipeline::{
    Choice, FrontEnd, Lab, LanguageOptions, Numbered, RunConfig, RunError, Unit,
};
use crate::report::Report;
use crate::value::Ty;
use crate::witness::Hints;

/// A Python project and the functions a run analyses.
pub struct PythonFront {
    sel: Selected,
    choice: Choice,
    /// A fingerprint of what every function's result depends on: the project's code, data and
    /// configuration ([`python_input`]), the tests the session ran and how it selected them
    /// ([`selection::fingerprint`]), and the environment the interpreter reads.
    project_fp: String,
    /// The interpreter's version and installed distributions: the plugin's, else asked of the
    /// interpreter once when a key needs it.
    interpreter: std::sync::OnceLock<String>,
}

/// Whether the project file `rel` can change a result: Python code (tests and `conftest.py`
/// included), the data files of a package (a folder with an `__init__.py`), and the
/// configuration and lock files of the project and of pytest. A log or an output file the
/// project's folder happens to hold does not count.
fn python_input(root: &std::path::Path, rel: &std::path::Path) -> bool {
    const CONFIG: [&str; 9] = [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "tox.ini",
        "pytest.ini",
        "Pipfile",
        "Pipfile.lock",
        ".python-version",
        "MANIFEST.in",
    ];
    let name = rel.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let package_data = rel.parent().is_some_and(|d| root.join(d).join("__init__.py").is_file());
    rel.extension().is_some_and(|e| e == "py" || e == "pyi" || e == "lock")
        || CONFIG.contains(&name.as_ref())
        || (name.starts_with("requirements") && name.ends_with(".txt"))
        || package_data
}

/// The environment variables the interpreter and pytest read that can change a result
/// (`PYTEST_CURRENT_TEST` and the like change with every test, and change nothing).
const PYTHON_ENV: [&str; 9] = [
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "PYTHONWARNINGS",
    "PYTHONUTF8",
    "PYTHONIOENCODING",
    "PYTHONSAFEPATH",
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
];

/// Prints the interpreter's version, every installed distribution with its version, and a hash
/// of the plugin's own Python files (what `pytest_abex.plugin._interpreter` gives in the
/// session's own process): a result of another build of the plugin is not reused.
const DESCRIBE_INTERPRETER: &str =
    "import sys, hashlib, pathlib, importlib.util as u, importlib.metadata as m\n\
print(sys.version)\n\
print(sorted(f\"{d.metadata['Name']}=={d.version}\" for d in m.distributions()))\n\
s = u.find_spec('pytest_abex')\n\
fs = sorted(pathlib.Path(s.origin).parent.glob('*.py')) if s and s.origin else []\n\
print(hashlib.sha256(b''.join(f.name.encode() + f.read_bytes() for f in fs)).hexdigest())";

impl PythonFront {
    /// Reads the project of `cfg`'s Python section and chooses its targets.
    pub fn load(cfg: &RunConfig) -> Result<PythonFront, RunError> {
        let LanguageOptions::Python(opts) = &cfg.language else {
            return Err(RunError::UnknownFunction("not a Python run".into()));
        };
        let root = opts.root.canonicalize().unwrap_or_else(|_| opts.root.clone());
        let session = &opts.session;
        let mut project = Project::load(&root, session.test_files.as_deref())
            .map_err(|e| RunError::front(PythonError::from(e)))?;
        project.keep_collected(session.test_files.as_deref(), &session.doctest_files);
        let (chosen, choice) = crate::pipeline::choose(&project, cfg, &root, "python")?;
        let skip: Vec<PathBuf> =
            super::project::SKIP_DIRS.iter().map(|d| project.root.join(d)).collect();
        let files = crate::cache_key::tree(&project.root, &[project.root.clone()], &skip, |f| {
            python_input(&project.root, f)
        });
        let tests = selection::fingerprint(&project, session);
        let env = crate::cache_key::env(|k| PYTHON_ENV.contains(&k));
        let project_fp = crate::cache::key(&[files.as_bytes(), tests.as_bytes(), env.as_bytes()]);
        let sel =
            Selected { project, chosen, python: opts.python.clone(), session: session.clone() };
        let interpreter = std::sync::OnceLock::new();
        if let Some(described) = &opts.interpreter {
            let _ = interpreter.set(described.clone());
        }
        Ok(PythonFront { sel, choice, project_fp, interpreter })
    }
}

impl FrontEnd for PythonFront {
    fn choice(&self) -> &Choice {
        &self.choice
    }

    fn units(&self) -> Vec<Unit> {
        if self.sel.chosen.is_empty() {
            return Vec::new();
        }
        let name = self.choice.targets[0].package.clone();
        let targets = (0..self.choice.targets.len()).collect();
        let mut vehicles: Vec<usize> = self.choice.vehicles.iter().flatten().copied().collect();
        vehicles.sort_unstable();
        vehicles.dedup();
        vec![Unit { name, targets, vehicles }]
    }

    fn cache_parts(&self, i: usize) -> Vec<Vec<u8>> {
        let pf = &self.sel.project.files[self.sel.chosen[i].file];
        let interpreter = self.interpreter.get_or_init(|| {
            let root = &self.sel.project.root;
            crate::cache_key::output(&self.sel.python, &["-c", DESCRIBE_INTERPRETER], root)
        });
        vec![
            self.sel.python.display().to_string().into_bytes(),
            interpreter.clone().into_bytes(),
            self.project_fp.clone().into_bytes(),
            pf.module.clone().into_bytes(),
        ]
    }

    fn file_text(&self, i: usize) -> &str {
        &self.sel.project.files[self.sel.chosen[i].file].text
    }

    fn rule_mutants(&self, i: usize) -> Vec<Mutant> {
        let c = &self.sel.chosen[i];
        let pf = &self.sel.project.files[c.file];
        python_rules::mutants_of(
            &pf.text,
            &pf.rel,
            &c.target.qualified_name,
            pf.fns[c.func].body_span,
        )
    }

    fn vet_test(
        &self,
        i: usize,
        written: &str,
        name: &str,
        examples: &[String],
    ) -> Result<String, String> {
        let test =
            super::model_check::vet_test(&self.choice.targets[i].source, written, name, examples)?;
        super::cpython::same_reading(&self.sel.python, &test)?;
        Ok(test)
    }

    fn hints(&self, i: usize, m: &Mutant) -> Hints {
        super::constants::of_source(&self.choice.targets[i].source).for_mutant(m)
    }

    fn self_check(&self, i: usize) -> Mutant {
        let c = &self.sel.chosen[i];
        let pf = &self.sel.project.files[c.file];
        python_rules::self_check(
            &pf.text,
            &pf.rel,
            &c.target.qualified_name,
            pf.fns[c.func].body_span,
        )
    }

    fn subject(&self, i: usize, params: Vec<Ty>) -> Subject {
        model::subject(&self.sel.project, &self.sel.chosen[i], params)
    }

    fn model_mutants(
        &self,
        session: &mut Session,
        i: usize,
        count: usize,
        earlier: &str,
    ) -> Vec<Mutant> {
        let (project, c) = (&self.sel.project, &self.sel.chosen[i]);
        model::mutants(session, project, c, &self.sel.python, count, earlier)
    }

    fn exec_hint(&self) -> Option<String> {
        Some(format!(
            "check that `{}` can import pytest_abex and the project",
            self.sel.python.display()
        ))
    }

    fn open<'a>(
        &'a self,
        cfg: &'a RunConfig,
        unit: &Unit,
        mutants: &[Numbered],
        deadline: Option<Instant>,
    ) -> Result<Box<dyn Lab + 'a>, RunError> {
        let lab =
            PythonLab::open(&self.sel, cfg, unit, mutants, deadline).map_err(RunError::front)?;
        Ok(Box::new(lab))
    }
}

/// Runs abex on a Python project with the plugin's settings; returns the report and the folder
/// it was written to.
pub fn run(
    cfg: PyRunConfig,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, PathBuf), RunError> {
    let cfg = cfg.resolve().map_err(RunError::Config)?;
    let front = PythonFront::load(&cfg)?;
    crate::pipeline::run(&cfg, &front, on_event)
}

/// How a project lists its functions for the spine's choice of targets.
impl crate::pipeline::Catalog for Project {
    type Item = Chosen;

    fn named(&self, spec: &str, cwd: &std::path::Path) -> Result<Vec<Chosen>, String> {
        Project::named(self, spec, cwd)
    }

    fn every(&self) -> Vec<Chosen> {
        Project::every(self)
    }

    fn changed(&self, changes: &crate::targets::diff::Changes) -> Vec<Chosen> {
        Project::changed(self, changes)
    }

    fn same(&self, a: &Chosen, b: &Chosen) -> bool {
        (a.file, a.func) == (b.file, b.func)
    }

    fn target<'i>(&self, item: &'i Chosen) -> &'i crate::targets::Target {
        &item.target
    }

    fn record<'i>(&self, item: &'i mut Chosen) -> &'i mut crate::targets::Target {
        &mut item.target
    }

    fn caller(&self, item: &Chosen) -> Option<Chosen> {
        let (file, func) = calls::vehicle(self, item.file, item.func)?;
        Some(Chosen { file, func, target: self.target(file, func, Vec::new()) })
    }
}
