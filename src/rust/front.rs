//! `cargo abex`'s side of the spine: a cargo workspace's chosen functions as targets, grouped
//! by crate target (one scratch build each), with their rule-based and model-written mutants;
//! [`RustFront::open`] builds a unit into a [`crate::rust::lab::RustLab`].

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::event::Event;
use crate::llm::session::Session;
use crate::llm::subject::Subject;
use crate::mutate::{rust_rules, Mutant, Operator, Origin};
use crate::pipeline::{
    Choice, FrontEnd, Lab, LanguageOptions, Numbered, RunConfig, RunError, Unit,
};
use crate::report::Report;
use crate::rust::error::RustError;
use crate::rust::lab::RustLab;
use crate::rust::model;
use crate::rust::source::FoundFn;
use crate::rust::workspace::{self, Selected};
use crate::value::Ty;
use crate::witness::Hints;

/// A cargo workspace and the functions a run analyses.
pub struct RustFront {
    sel: Selected,
    choice: Choice,
    /// The fingerprint of the code behind each crate target, computed once.
    package_fps: RefCell<BTreeMap<usize, String>>,
    /// [`RustFront::outside_targets`], by crate target.
    outside_fps: RefCell<BTreeMap<usize, String>>,
    /// The fingerprint of what every function depends on, computed once.
    workspace_fp: std::sync::OnceLock<String>,
}

impl RustFront {
    /// Loads the workspace of `cfg`'s Rust section and chooses its targets.
    pub fn load(cfg: &RunConfig) -> Result<RustFront, RunError> {
        let opts = match &cfg.language {
            LanguageOptions::Rust(o) => o.clone(),
            LanguageOptions::Python(_) => Default::default(),
        };
        let mut ws = workspace::load(opts.manifest_path.as_deref(), &opts.packages)
            .map_err(|e| RunError::front(RustError::from(e)))?;
        ws.cargo_flags = opts.cargo_flags.clone();
        ws.skip_tests = opts.skip_tests.clone();
        let (chosen, choice) = crate::pipeline::choose(&ws, cfg, &ws.root.clone(), "rust")?;
        Ok(RustFront {
            sel: Selected {
                ws,
                chosen,
                test_scope: opts.test_scope,
                tests_built: Default::default(),
            },
            choice,
            package_fps: RefCell::new(BTreeMap::new()),
            outside_fps: RefCell::new(BTreeMap::new()),
            workspace_fp: std::sync::OnceLock::new(),
        })
    }

    /// [`RustFront::packages_fingerprint`] with the bodies of the run's targets left out (each
    /// key has its own function's text apart): what stays the same when the next push of a pull
    /// request changes only the bodies of the functions it touched. Signatures, doc comments
    /// (doc-tests), tests and every other function still count.
    fn outside_targets(&self, k: usize) -> String {
        if let Some(fp) = self.outside_fps.borrow().get(&k) {
            return fp.clone();
        }
        let (ws, dirs) = (&self.sel.ws, self.dirs_behind(k));
        let bodies: Vec<(PathBuf, usize, usize)> = (0..self.sel.chosen.len())
            .map(|i| {
                let f = self.sel.found(i);
                (f.file.clone(), f.body_span.0, f.body_span.1)
            })
            .collect();
        let fp = crate::cache_key::tree_without(&ws.root, &dirs, &[], |_| true, &bodies);
        self.outside_fps.borrow_mut().insert(k, fp.clone());
        fp
    }

    /// The folders of the packages whose tests run against crate target `k`'s functions and of
    /// the workspace packages those depend on.
    fn dirs_behind(&self, k: usize) -> Vec<PathBuf> {
        let ws = &self.sel.ws;
        let behind = self.sel.packages_behind(&ws.crates[k].package);
        behind.iter().filter_map(|p| ws.member_dirs.get(p).cloned()).collect()
    }

    /// A fingerprint of the code behind crate target `k`'s functions: every file of the
    /// packages whose tests run against them and of the workspace packages those depend on
    /// (sources, tests, `build.rs`, manifests, `.cargo/mutants.toml`).
    fn packages_fingerprint(&self, k: usize) -> String {
        if let Some(fp) = self.package_fps.borrow().get(&k) {
            return fp.clone();
        }
        let (ws, dirs) = (&self.sel.ws, self.dirs_behind(k));
        let fp = crate::cache_key::tree(&ws.root, &dirs, &[], |_| true);
        self.package_fps.borrow_mut().insert(k, fp.clone());
        fp
    }

    /// What every function of the workspace depends on: the lock file and the workspace
    /// manifest, cargo's configuration (`.cargo/config.toml` in the root, its parents and
    /// `CARGO_HOME`), the toolchain (`rustc -vV` in the root, where `rust-toolchain.toml`
    /// applies) and the environment cargo and rustc read.
    fn workspace_fingerprint(&self) -> &str {
        self.workspace_fp.get_or_init(|| {
            let root = &self.sel.ws.root;
            let mut files: Vec<PathBuf> =
                ["Cargo.lock", "Cargo.toml", "rust-toolchain", "rust-toolchain.toml"]
                    .iter()
                    .map(|f| root.join(f))
                    .collect();
            let home = std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
            let configs = root.ancestors().map(|a| a.join(".cargo")).chain(home);
            for dir in configs {
                files.extend([dir.join("config.toml"), dir.join("config")]);
            }
            let rustc =
                std::env::var_os("RUSTC").map_or_else(|| PathBuf::from("rustc"), PathBuf::from);
            let toolchain = crate::cache_key::output(&rustc, &["-vV"], root);
            let env = crate::cache_key::env(|k| {
                ["RUSTFLAGS", "RUSTDOCFLAGS", "RUSTC", "RUSTC_WRAPPER", "RUSTUP_TOOLCHAIN"]
                    .contains(&k)
                    || ["CARGO_BUILD_", "CARGO_PROFILE_", "CARGO_ENCODED_"]
                        .iter()
                        .any(|p| k.starts_with(p))
            });
            let files = crate::cache_key::files(&files);
            crate::cache::key(&[files.as_bytes(), toolchain.as_bytes(), env.as_bytes()])
        })
    }
}

impl FrontEnd for RustFront {
    fn choice(&self) -> &Choice {
        &self.choice
    }

    fn units(&self) -> Vec<Unit> {
        let mut units: Vec<(usize, Unit)> = Vec::new();
        for (i, c) in self.sel.chosen.iter().enumerate().take(self.choice.targets.len()) {
            let at = match units.iter().position(|(k, _)| *k == c.krate) {
                Some(at) => at,
                None => {
                    let name = self.sel.ws.crates[c.krate].package.clone();
                    units.push((c.krate, Unit { name, targets: Vec::new(), vehicles: Vec::new() }));
                    units.len() - 1
                }
            };
            let u = &mut units[at].1;
            u.targets.push(i);
            if let Some(v) = self.choice.vehicles[i].filter(|v| !u.vehicles.contains(v)) {
                u.vehicles.push(v);
            }
        }
        units.into_iter().map(|(_, u)| u).collect()
    }

    fn cache_parts(&self, i: usize) -> Vec<Vec<u8>> {
        let scope = format!(
            "{:?} {:?} {:?}",
            self.sel.test_scope, self.sel.ws.cargo_flags, self.sel.ws.skip_tests
        );
        vec![
            scope.into_bytes(),
            self.packages_fingerprint(self.sel.chosen[i].krate).into_bytes(),
            self.workspace_fingerprint().as_bytes().to_vec(),
        ]
    }

    fn warnings(&self) -> Vec<String> {
        let mut dirs: Vec<&Path> =
            self.sel.ws.crates.iter().map(|c| c.package_dir.as_path()).collect();
        dirs.dedup();
        dirs.into_iter()
            .flat_map(|d| rust_rules::load_skip_rules(d).warnings)
            .map(|w| w.to_string())
            .collect()
    }

    fn push_parts(&self, i: usize) -> Option<Vec<Vec<u8>>> {
        let scope = format!(
            "{:?} {:?} {:?}",
            self.sel.test_scope, self.sel.ws.cargo_flags, self.sel.ws.skip_tests
        );
        Some(vec![
            scope.into_bytes(),
            self.outside_targets(self.sel.chosen[i].krate).into_bytes(),
            self.workspace_fingerprint().as_bytes().to_vec(),
        ])
    }

    fn file_text(&self, i: usize) -> &str {
        let f = self.sel.found(i);
        self.sel.krate(i).sources.files.iter().find(|s| s.path == f.file).map_or("", |s| &s.text)
    }

    fn rule_mutants(&self, i: usize) -> Vec<Mutant> {
        let f = self.sel.found(i);
        let rules = rust_rules::load_skip_rules(&self.sel.krate(i).package_dir);
        let mut mutants = rust_rules::mutants_of(
            self.file_text(i),
            &self.sel.rel(i),
            &f.qualified_name(),
            f.byte_span,
            &rules,
        );
        for m in &mut mutants {
            m.file = f.file.clone();
        }
        mutants
    }

    fn vet_test(
        &self,
        i: usize,
        written: &str,
        name: &str,
        examples: &[String],
    ) -> Result<String, String> {
        crate::rust::model_check::vet_test(&self.sel.found(i).source, written, name, examples)
    }

    fn hints(&self, i: usize, m: &Mutant) -> Hints {
        crate::rust::constants::of_source(&self.sel.found(i).source).for_mutant(m)
    }

    fn self_check(&self, i: usize) -> Mutant {
        self_check_mutant(self.sel.found(i), &self.sel.rel(i), self.file_text(i))
    }

    fn subject(&self, i: usize, params: Vec<Ty>) -> Subject {
        model::subject(self.sel.found(i), params, &self.sel.krate(i).sources.test_code)
    }

    fn model_mutants(
        &self,
        session: &mut Session,
        i: usize,
        count: usize,
        earlier: &str,
    ) -> Vec<Mutant> {
        let test_code = &self.sel.krate(i).sources.test_code;
        model::mutants(
            session,
            self.sel.found(i),
            self.file_text(i),
            &self.sel.rel(i),
            test_code,
            count,
            earlier,
        )
    }

    fn open<'a>(
        &'a self,
        cfg: &'a RunConfig,
        unit: &Unit,
        mutants: &[Numbered],
        deadline: Option<Instant>,
    ) -> Result<Box<dyn Lab + 'a>, RunError> {
        let lab =
            RustLab::build(&self.sel, cfg, unit, mutants, deadline).map_err(RunError::front)?;
        Ok(Box::new(lab))
    }
}

/// The self-check mutant of a function: its body replaced by a panic.
fn self_check_mutant(f: &FoundFn, file_rel: &Path, text: &str) -> Mutant {
    let (s, e) = f.body_span;
    Mutant {
        id: "self-check".into(),
        origin: Origin::Rules,
        operator: Operator::ReplaceBody,
        function: f.qualified_name(),
        file: f.file.clone(),
        line: f.span.start_line,
        column: 1,
        span: (s, e),
        original: text.get(s..e).unwrap_or_default().to_string(),
        replacement: "{ ::std::panic!(\"abex self-check\") }".into(),
        switchable: true,
        description: format!(
            "self-check: the body of `{}` replaced by a panic ({})",
            f.name,
            file_rel.display()
        ),
        peer_name: None,
    }
}

/// Runs abex on a cargo workspace; returns the report and the folder it was written to.
pub fn run(
    cfg: &RunConfig,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, PathBuf), RunError> {
    let front = RustFront::load(cfg)?;
    crate::pipeline::run(cfg, &front, on_event)
}
