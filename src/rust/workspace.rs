//! A cargo workspace: its packages' library and binary targets with their sources, and which
//! functions a run analyses (the diff's, named ones, or all).

use std::path::{Path, PathBuf};

use crate::rust::harness;
use crate::rust::source::{self, CrateSources, FoundFn, SourceError};
use crate::targets::diff::Changes;
use crate::targets::{Drive, Target};

/// Errors loading a cargo workspace.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// `cargo metadata` failed: not a cargo project, or a broken manifest.
    #[error("`cargo metadata` failed for `{manifest}`: {message}\nhint: run abex in a cargo project or pass `--manifest-path path/to/Cargo.toml`")]
    Metadata {
        /// The manifest looked for.
        manifest: String,
        /// What cargo said.
        message: String,
    },
    /// A `-p` names no package of the workspace.
    #[error("package `{name}` is not in this workspace; its packages are: {available}")]
    UnknownPackage {
        /// The name given.
        name: String,
        /// The workspace's packages.
        available: String,
    },
    /// A source file could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
}

/// One library or binary target of a workspace package, with its sources.
pub struct CrateTarget {
    /// The package name.
    pub package: String,
    /// The package's folder.
    pub package_dir: PathBuf,
    /// `lib` or the binary's name.
    pub host: harness::Host,
    /// The root file.
    pub root_file: PathBuf,
    /// The sources reachable from it.
    pub sources: CrateSources,
    /// Its Rust edition (`2018`): which prelude its code sees.
    pub edition: String,
}

impl CrateTarget {
    /// The request to build a harness reaching `fns` of this crate target in `scratch`.
    pub fn harness_request<'a>(
        &'a self,
        workspace_root: &'a Path,
        fns: Vec<&'a FoundFn>,
        scratch: &'a Path,
    ) -> harness::HarnessRequest<'a> {
        harness::HarnessRequest {
            workspace_root,
            package_dir: &self.package_dir,
            package: &self.package,
            root_file: &self.root_file,
            host: self.host.clone(),
            sources: &self.sources,
            fns,
            scratch,
            target_dir: scratch.join("target"),
            switches: Vec::new(),
            inserts: Vec::new(),
            test_packages: Vec::new(),
            what: crate::rust::cargo::Build::All,
            apply: None,
            known_dropped: Default::default(),
            cargo_flags: &[],
        }
    }
}

/// A loaded workspace.
pub struct Workspace {
    /// The workspace root folder.
    pub root: PathBuf,
    /// Every library and binary target of the selected packages (libraries first).
    pub crates: Vec<CrateTarget>,
    /// Per workspace package, the workspace packages that depend on it (directly or not).
    pub dependents: std::collections::BTreeMap<String, Vec<String>>,
    /// Every workspace package.
    pub members: Vec<String>,
    /// Each workspace package's folder, by name.
    pub member_dirs: std::collections::BTreeMap<String, PathBuf>,
    /// Feature flags every cargo build and test of the workspace gets (`--features …`,
    /// `--all-features`, `--no-default-features`); none from [`load`].
    pub cargo_flags: Vec<String>,
    /// Tests no run of the workspace's tests runs (`--skip-test`: full names, as libtest's
    /// `--skip` with `--exact`); none from [`load`].
    pub skip_tests: Vec<String>,
}

/// Loads the workspace of `manifest_path` (or of the current folder) and reads the sources of
/// the library and binary targets of `packages` (all workspace members when empty).
pub fn load(
    manifest_path: Option<&Path>,
    packages: &[String],
) -> Result<Workspace, WorkspaceError> {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    cmd.no_deps();
    if let Some(p) = manifest_path {
        cmd.manifest_path(p);
    }
    let manifest = manifest_path.map_or("Cargo.toml".to_string(), |p| p.display().to_string());
    let md = cmd.exec().map_err(|e| WorkspaceError::Metadata {
        manifest: manifest.clone(),
        message: match e {
            cargo_metadata::Error::CargoMetadata { stderr } => {
                stderr.lines().find(|l| l.contains("error")).unwrap_or(stderr.trim()).to_string()
            }
            other => other.to_string(),
        },
    })?;
    let members = md.workspace_packages();
    for name in packages {
        if !members.iter().any(|p| p.name.as_str() == name) {
            let available =
                members.iter().map(|p| p.name.to_string()).collect::<Vec<_>>().join(", ");
            return Err(WorkspaceError::UnknownPackage { name: name.clone(), available });
        }
    }
    let root = PathBuf::from(md.workspace_root.as_std_path());
    let mut crates = Vec::new();
    for pkg in &members {
        if !packages.is_empty() && !packages.iter().any(|n| n == pkg.name.as_str()) {
            continue;
        }
        let package_dir =
            pkg.manifest_path.parent().map_or(root.clone(), |p| p.as_std_path().to_path_buf());
        let mut seen_roots: Vec<PathBuf> = Vec::new();
        let mut kinds: Vec<_> = pkg.targets.iter().collect();
        // Libraries first, so a file shared by a library and a binary is driven through the library.
        kinds.sort_by_key(|t| !linkable(t));
        for t in kinds {
            let host = if linkable(t) {
                harness::Host::Lib { crate_name: t.name.replace('-', "_") }
            } else if t.is_bin() {
                harness::Host::Bin { name: t.name.clone() }
            } else {
                continue;
            };
            let root_file = t.src_path.as_std_path().to_path_buf();
            if seen_roots.contains(&root_file) {
                continue;
            }
            seen_roots.push(root_file.clone());
            let sources = source::read_crate(&root_file)?;
            crates.push(CrateTarget {
                package: pkg.name.to_string(),
                package_dir: package_dir.clone(),
                host,
                root_file,
                sources,
                edition: t.edition.as_str().to_string(),
            });
        }
    }
    // Reverse dependencies among workspace members, closed transitively.
    let names: Vec<String> = members.iter().map(|p| p.name.to_string()).collect();
    let direct: Vec<(String, Vec<String>)> = members
        .iter()
        .map(|p| {
            let deps = p.dependencies.iter().map(|d| d.name.clone()).filter(|d| names.contains(d));
            (p.name.to_string(), deps.collect())
        })
        .collect();
    let mut dependents = std::collections::BTreeMap::new();
    for name in &names {
        let mut found: Vec<String> = Vec::new();
        let mut todo = vec![name.clone()];
        while let Some(n) = todo.pop() {
            for (user, deps) in &direct {
                if deps.contains(&n) && !found.contains(user) && user != name {
                    found.push(user.clone());
                    todo.push(user.clone());
                }
            }
        }
        found.sort();
        dependents.insert(name.clone(), found);
    }
    let member_dirs = members
        .iter()
        .filter_map(|p| Some((p.name.to_string(), p.manifest_path.parent()?.as_std_path().into())))
        .collect();
    Ok(Workspace {
        root,
        crates,
        dependents,
        members: names,
        member_dirs,
        cargo_flags: Vec::new(),
        skip_tests: Vec::new(),
    })
}

/// A function chosen for analysis, with where it lives.
#[derive(Clone, Debug)]
pub struct Chosen {
    /// Index of its crate target in [`Workspace::crates`].
    pub krate: usize,
    /// Index of the function in that crate target's [`CrateSources::fns`].
    pub func: usize,
    /// Its target record.
    pub target: Target,
}

impl Workspace {
    fn target_of(&self, krate: &CrateTarget, f: &FoundFn, changes: Option<&Changes>) -> Target {
        Target {
            language: "rust".into(),
            package: krate.package.clone(),
            file: f.file.strip_prefix(&self.root).unwrap_or(&f.file).to_path_buf(),
            span: f.span,
            name: f.name.clone(),
            qualified_name: f.qualified_name(),
            signature: f.signature.clone(),
            params: f.params.clone(),
            doc: f.doc.clone(),
            changed_lines: changes
                .map(|c| c.lines_in(&f.file, f.span.start_line, f.span.end_line))
                .unwrap_or_default(),
            drive: match &f.plan {
                Ok(_) => Drive::Supported,
                Err(reason) => Drive::Unsupported { reason: reason.clone() },
            },
            source: f.source.clone(),
        }
    }

    /// The function of a choice.
    pub fn found(&self, c: &Chosen) -> &FoundFn {
        &self.crates[c.krate].sources.fns[c.func]
    }

    /// Every function, once (a file reached from a library and a binary counts once), as
    /// (crate target, function index, function).
    fn all(&self) -> Vec<(usize, usize, &FoundFn)> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (k, c) in self.crates.iter().enumerate() {
            for (j, f) in c.sources.fns.iter().enumerate() {
                if seen.insert((f.file.clone(), f.span.start_line)) {
                    out.push((k, j, f));
                }
            }
        }
        out
    }

    /// The choice of function `j` of crate target `k`.
    pub fn chosen(&self, k: usize, j: usize, changes: Option<&Changes>) -> Chosen {
        let f = &self.crates[k].sources.fns[j];
        Chosen { krate: k, func: j, target: self.target_of(&self.crates[k], f, changes) }
    }

    /// The functions whose span a change touches.
    pub fn changed(&self, changes: &Changes) -> Vec<Chosen> {
        self.all()
            .into_iter()
            .filter(|(_, _, f)| changes.touches(&f.file, f.span.start_line, f.span.end_line))
            .map(|(k, j, _)| self.chosen(k, j, Some(changes)))
            .collect()
    }

    /// Every function of the selected packages.
    pub fn every(&self) -> Vec<Chosen> {
        self.all().into_iter().map(|(k, j, _)| self.chosen(k, j, None)).collect()
    }

    /// The functions named `FILE::NAME`; `FILE` is relative to the current folder, the
    /// workspace root or a package folder.
    pub fn named(&self, spec: &str, cwd: &Path) -> Result<Vec<Chosen>, String> {
        let Some((file, name)) = spec.rsplit_once(".rs::").map(|(f, n)| (format!("{f}.rs"), n))
        else {
            return Err(format!(
                "`{spec}` is not of the form FILE::NAME (e.g. `src/date.rs::next_date`)"
            ));
        };
        let mut candidates = vec![cwd.join(&file), self.root.join(&file)];
        candidates.extend(self.crates.iter().map(|c| c.package_dir.join(&file)));
        let canon = |p: &Path| p.canonicalize().ok();
        let wanted: Vec<PathBuf> = candidates.iter().filter_map(|p| canon(p)).collect();
        if wanted.is_empty() {
            return Err(format!("no file `{file}` in this workspace"));
        }
        let in_file: Vec<(usize, usize, &FoundFn)> = self
            .all()
            .into_iter()
            .filter(|(_, _, f)| canon(&f.file).is_some_and(|p| wanted.contains(&p)))
            .collect();
        if in_file.is_empty() {
            return Err(format!(
                "`{file}` is not part of a library or binary target, or has no functions (a \
                 library's `crate-type` must name `lib` or `rlib`: a `cdylib` or `staticlib` \
                 alone cannot be linked by Rust code)"
            ));
        }
        let chosen: Vec<Chosen> = in_file
            .iter()
            .map(|(k, j, _)| self.chosen(*k, *j, None))
            .filter(|c| c.target.matches_name(name))
            .collect();
        if chosen.is_empty() {
            let names: Vec<String> = in_file.iter().map(|(_, _, f)| f.qualified_name()).collect();
            return Err(format!("no function `{name}` in `{file}`; it has: {}", names.join(", ")));
        }
        Ok(chosen)
    }
}

/// A workspace and the functions a run analyses: what the front end and its labs share.
pub struct Selected {
    /// The workspace.
    pub ws: Workspace,
    /// The chosen functions, in analysis order (a target's index is its position).
    pub chosen: Vec<Chosen>,
    /// Which tests run against a mutant.
    pub test_scope: crate::pipeline::TestScope,
    /// The packages whose tests a unit of this run has built: their dependencies are compiled
    /// in the shared target folder.
    pub tests_built: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl Selected {
    /// The function of target `i`.
    pub fn found(&self, i: usize) -> &FoundFn {
        self.ws.found(&self.chosen[i])
    }

    /// The crate target of target `i`.
    pub fn krate(&self, i: usize) -> &CrateTarget {
        &self.ws.crates[self.chosen[i].krate]
    }

    /// Target `i`'s file, relative to the workspace root.
    pub fn rel(&self, i: usize) -> PathBuf {
        let f = self.found(i);
        f.file.strip_prefix(&self.ws.root).unwrap_or(&f.file).to_path_buf()
    }

    /// The workspace packages whose code can change the result of a function of `package`:
    /// the packages whose tests run against it ([`Selected::test_packages`]) and every
    /// workspace package they depend on, directly or not.
    pub fn packages_behind(&self, package: &str) -> Vec<String> {
        let mut out = self.test_packages(package);
        for (dependency, users) in &self.ws.dependents {
            if out.iter().any(|p| users.contains(p)) && !out.contains(dependency) {
                out.push(dependency.clone());
            }
        }
        out.sort();
        out
    }

    /// The packages whose tests run against mutants of `package`.
    pub fn test_packages(&self, package: &str) -> Vec<String> {
        use crate::pipeline::TestScope;
        match self.test_scope {
            TestScope::Package => vec![package.to_string()],
            TestScope::Dependents => {
                let mut v = vec![package.to_string()];
                v.extend(self.ws.dependents.get(package).cloned().unwrap_or_default());
                v
            }
            TestScope::Workspace => self.ws.members.clone(),
        }
    }
}

impl crate::pipeline::Catalog for Workspace {
    type Item = Chosen;

    fn named(&self, spec: &str, cwd: &Path) -> Result<Vec<Chosen>, String> {
        Workspace::named(self, spec, cwd)
    }

    fn every(&self) -> Vec<Chosen> {
        Workspace::every(self)
    }

    fn changed(&self, changes: &Changes) -> Vec<Chosen> {
        Workspace::changed(self, changes)
    }

    fn same(&self, a: &Chosen, b: &Chosen) -> bool {
        (a.krate, a.func) == (b.krate, b.func)
    }

    fn target<'i>(&self, item: &'i Chosen) -> &'i Target {
        &item.target
    }

    fn record<'i>(&self, item: &'i mut Chosen) -> &'i mut Target {
        &mut item.target
    }

    fn caller(&self, item: &Chosen) -> Option<Chosen> {
        let j = crate::rust::calls::vehicle(&self.crates[item.krate].sources.fns, item.func)?;
        Some(self.chosen(item.krate, j, None))
    }
}

/// Whether the package in `package_dir` has `rstest` among its dev-dependencies (its tests are
/// then parametrised with it, and suggested tests are written that way too).
pub fn uses_rstest(package_dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(package_dir.join("Cargo.toml")) else { return false };
    let Ok(manifest) = text.parse::<toml::Table>() else { return false };
    let has = |t: &toml::Table| {
        let dev = t.get("dev-dependencies").and_then(toml::Value::as_table);
        dev.is_some_and(|d| d.contains_key("rstest"))
    };
    // `[target.'cfg(…)'.dev-dependencies]` counts too.
    let targets = manifest.get("target").and_then(toml::Value::as_table);
    has(&manifest)
        || targets.is_some_and(|ts| ts.values().filter_map(toml::Value::as_table).any(has))
}

/// Whether a target is a library Rust code links: `crate-type` names `lib` or `rlib` (slug
/// 0.1.6's `["cdylib", "rlib"]`, a library for WebAssembly and for Rust alike, is one).
fn linkable(t: &cargo_metadata::Target) -> bool {
    t.is_lib() || t.is_rlib()
}
