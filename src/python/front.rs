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
use crate::llm::session::Session;
use crate::llm::subject::Subject;
use crate::mutate::{python_rules, Mutant};
use crate::pipeline::{
    Choice, Event, FrontEnd, Lab, LanguageOptions, Numbered, RunConfig, RunError, Selection, Unit,
};
use crate::report::Report;
use crate::targets::diff;
use crate::targets::Target;
use crate::value::Ty;
use crate::witness::Hints;

/// A Python project and the functions a run analyses.
pub struct PythonFront {
    sel: Selected,
    choice: Choice,
    /// Every function's record: the targets, then their vehicles.
    functions: Vec<Target>,
    /// Each target's vehicle, when it is driven through a caller.
    vehicles: Vec<Option<usize>>,
    /// A fingerprint of every test file of the project.
    tests_fp: String,
}

impl PythonFront {
    /// Reads the project of `cfg`'s Python section and chooses its targets.
    pub fn load(cfg: &RunConfig) -> Result<PythonFront, RunError> {
        let LanguageOptions::Python(opts) = &cfg.language else {
            return Err(RunError::UnknownFunction("not a Python run".into()));
        };
        let root = opts.root.canonicalize().unwrap_or_else(|_| opts.root.clone());
        let project = Project::load(&root).map_err(|e| RunError::front(PythonError::from(e)))?;
        let (chosen, base) = match &cfg.selection {
            Selection::Functions(specs) => {
                let mut out: Vec<Chosen> = Vec::new();
                for spec in specs {
                    for c in project.named(spec, &cfg.cwd).map_err(RunError::UnknownFunction)? {
                        if !out.iter().any(|o| o.file == c.file && o.func == c.func) {
                            out.push(c);
                        }
                    }
                }
                (out, None)
            }
            Selection::All => (project.every(), None),
            Selection::Diff => {
                let base = diff::resolve_base(&root, cfg.base.as_deref())?;
                let changes = diff::changes(&root, &base)?;
                (project.changed(&changes), Some(base))
            }
        };
        let mut chosen = match cfg.shard {
            Some((k, n)) => crate::pipeline::shard(chosen, |c| &c.target, k, n),
            None => chosen,
        };
        // A function abex cannot call is driven through one of the project's functions that
        // calls it; the callers join the chosen functions, after the targets.
        let n = chosen.len();
        let vehicles = crate::pipeline::attach_vehicles(
            &mut chosen,
            n,
            |c| &mut c.target,
            |a, b| (a.file, a.func) == (b.file, b.func),
            |c| {
                let (file, func) = calls::vehicle(&project, c.file, c.func)?;
                Some(Chosen { file, func, target: project.target(file, func, Vec::new()) })
            },
        );
        let targets = chosen[..n].iter().map(|c| c.target.clone()).collect();
        let functions = chosen.iter().map(|c| c.target.clone()).collect();
        let tests_fp = selection::fingerprint(&project);
        let choice = Choice { language: "python", root: project.root.clone(), base, targets };
        let sel = Selected { project, chosen, python: opts.python.clone() };
        Ok(PythonFront { sel, choice, functions, vehicles, tests_fp })
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
        let targets = (0..self.vehicles.len()).collect();
        let mut vehicles: Vec<usize> = self.vehicles.iter().flatten().copied().collect();
        vehicles.sort_unstable();
        vehicles.dedup();
        vec![Unit { name, targets, vehicles }]
    }

    fn vehicle(&self, i: usize) -> Option<usize> {
        self.vehicles.get(i).copied().flatten()
    }

    fn function(&self, k: usize) -> &Target {
        &self.functions[k]
    }

    fn cache_parts(&self, i: usize) -> Vec<Vec<u8>> {
        let pf = &self.sel.project.files[self.sel.chosen[i].file];
        vec![
            self.sel.python.display().to_string().into_bytes(),
            self.tests_fp.clone().into_bytes(),
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
        model::mutants(session, &self.sel.project, &self.sel.chosen[i], count, earlier)
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
