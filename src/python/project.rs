//! A Python project: its source files and their functions, its test files, and which functions
//! a run analyses (the diff's, named ones, or all).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::source::{self, PyFn};
use super::types;

use crate::targets::diff::Changes;
use crate::targets::{Drive, Target};

/// Folders of a Python project that hold no project code.
pub const SKIP_DIRS: &[&str] = &[
    "venv",
    ".tox",
    ".nox",
    "build",
    "dist",
    ".eggs",
    ".pytest_cache",
    ".mypy_cache",
    "node_modules",
];

/// One Python file of the project and its functions.
pub struct PyFile {
    /// Path relative to the project root.
    pub rel: PathBuf,
    /// The dotted module name (`pkg.dates`).
    pub module: String,
    /// The import root it is found from, relative to the project root (`src`, or empty).
    pub import_root: PathBuf,
    /// Its text.
    pub text: String,
    /// Its functions.
    pub fns: Vec<PyFn>,
}

/// A Python project: its root and its non-test source files.
pub struct Project {
    /// The root folder (the repository's top level, or where pytest ran).
    pub root: PathBuf,
    /// The source files, tests excluded.
    pub files: Vec<PyFile>,
    /// The test files, relative to the root: those of the session's test items (any name:
    /// `tests/testparse.py` passed on the command line), else those named `test_*.py` or
    /// `*_test.py`; and `conftest.py` files.
    pub tests: Vec<PathBuf>,
    /// Source files whose doctests the user's pytest runs (`--doctest-modules`).
    pub doctests: Vec<PathBuf>,
    /// What each module declares (for the types of values the tests pass).
    pub index: types::Index,
}

/// A function chosen for the run: its file, its place in that file, and its target record.
#[derive(Clone, Debug)]
pub struct Chosen {
    /// Index into [`Project::files`].
    pub file: usize,
    /// Index into that file's functions.
    pub func: usize,
    /// The language-neutral record.
    pub target: Target,
}

/// Whether `rel` is a pytest test file (or a `conftest.py`).
pub fn is_test_file(rel: &Path) -> bool {
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".py")
        && (name.starts_with("test_") || name.ends_with("_test.py") || name == "conftest.py")
}

/// The module name and import root of `rel`: the import root is the first folder upwards that
/// is not a package (has no `__init__.py`).
pub fn module_of(root: &Path, rel: &Path) -> (String, PathBuf) {
    let mut parts: Vec<String> = Vec::new();
    let stem = rel.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
    if stem != "__init__" {
        parts.push(stem);
    }
    let mut dir = rel.parent().map(Path::to_path_buf).unwrap_or_default();
    while !dir.as_os_str().is_empty() && root.join(&dir).join("__init__.py").is_file() {
        if let Some(name) = dir.file_name().and_then(|n| n.to_str()) {
            parts.push(name.to_string());
        }
        dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    }
    parts.reverse();
    (parts.join("."), dir)
}

impl Project {
    /// Whether the project's own tests are parametrised (a test file uses
    /// `pytest.mark.parametrize`), so that suggested tests are written that way too.
    pub fn parametrises(&self) -> bool {
        self.tests.iter().any(|t| {
            std::fs::read_to_string(self.root.join(t))
                .is_ok_and(|text| text.contains("mark.parametrize("))
        })
    }

    /// Reads the project at `root`; `session_tests` are the files of the user's session's test
    /// items (`None`: not known), test files whatever their names, never sources.
    pub fn load(
        root: &Path,
        session_tests: Option<&[PathBuf]>,
    ) -> Result<Project, crate::scratch::ScratchError> {
        let skip: Vec<PathBuf> = SKIP_DIRS.iter().map(|d| root.join(d)).collect();
        let mut files = Vec::new();
        let mut tests = Vec::new();
        let mut index = types::Index::default();
        for rel in crate::scratch::list_files(root, &skip)? {
            if rel.extension().is_none_or(|e| e != "py") {
                continue;
            }
            if is_test_file(&rel) || session_tests.is_some_and(|t| t.contains(&rel)) {
                tests.push(rel);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(root.join(&rel)) else { continue };
            let (module, import_root) = module_of(root, &rel);
            let is_package = rel.file_name().is_some_and(|n| n == "__init__.py");
            let (fns, scope) = source::read(&text, &module, is_package);
            index.scopes.insert(module.clone(), scope);
            files.push(PyFile { rel, module, import_root, text, fns });
        }
        // Types are read once every module's names are known (a class from another module).
        let r = types::Resolver { index: &index };
        for pf in &mut files {
            for f in &mut pf.fns {
                types::function::resolve(f, &pf.module, &r);
            }
        }
        Ok(Project { root: root.to_path_buf(), files, tests, doctests: Vec::new(), index })
    }

    /// Keeps the tests the user's session ran: `tests` lists the files of its test items
    /// (`None`: unknown, every test file stays), `doctests` the source files whose doctests it
    /// ran.
    pub fn keep_collected(&mut self, tests: Option<&[PathBuf]>, doctests: &[PathBuf]) {
        let Some(tests) = tests else { return };
        self.tests.retain(|t| tests.contains(t) || t.ends_with("conftest.py"));
        self.doctests = self
            .files
            .iter()
            .filter(|f| doctests.contains(&f.rel))
            .map(|f| f.rel.clone())
            .collect();
    }

    /// The target record of function `func` of file `file`.
    pub fn target(&self, file: usize, func: usize, changed: Vec<usize>) -> Target {
        let pf = &self.files[file];
        let f = &pf.fns[func];
        let drive = match &f.unsupported {
            Some(reason) => Drive::Unsupported { reason: reason.clone() },
            None => Drive::Supported,
        };
        Target {
            language: "python".into(),
            package: self.root.file_name().and_then(|n| n.to_str()).unwrap_or("project").into(),
            file: pf.rel.clone(),
            span: f.span,
            name: f.name.clone(),
            qualified_name: format!("{}.{}", pf.module, f.qualname),
            signature: f.signature.clone(),
            params: f.params.clone(),
            doc: f.doc.clone(),
            changed_lines: changed,
            drive,
            source: pf.text[f.byte_span.0..f.byte_span.1].to_string(),
        }
    }

    /// The functions the diff touches.
    pub fn changed(&self, changes: &Changes) -> Vec<Chosen> {
        let mut out = Vec::new();
        for (i, pf) in self.files.iter().enumerate() {
            let abs = self.root.join(&pf.rel);
            for (k, f) in pf.fns.iter().enumerate() {
                let lines = changes.lines_in(&abs, f.span.start_line, f.span.end_line);
                if changes.touches(&abs, f.span.start_line, f.span.end_line) {
                    out.push(Chosen { file: i, func: k, target: self.target(i, k, lines) });
                }
            }
        }
        out
    }

    /// Every function of the project.
    pub fn every(&self) -> Vec<Chosen> {
        let mut out = Vec::new();
        for (i, pf) in self.files.iter().enumerate() {
            for k in 0..pf.fns.len() {
                out.push(Chosen { file: i, func: k, target: self.target(i, k, Vec::new()) });
            }
        }
        out
    }

    /// The functions named by `FILE::NAME` (`src/pkg/dates.py::next_date`, `m.py::Cls.meth`).
    pub fn named(&self, spec: &str, cwd: &Path) -> Result<Vec<Chosen>, String> {
        let Some((file, name)) = spec.rsplit_once(".py::").map(|(f, n)| (format!("{f}.py"), n))
        else {
            return Err(format!(
                "`{spec}` is not of the form FILE::NAME (e.g. `src/pkg/dates.py::next_date`)"
            ));
        };
        let canon = |p: &Path| p.canonicalize().ok();
        let wanted: Vec<PathBuf> =
            [cwd.join(&file), self.root.join(&file)].iter().filter_map(|p| canon(p)).collect();
        let Some(i) = self
            .files
            .iter()
            .position(|pf| canon(&self.root.join(&pf.rel)).is_some_and(|p| wanted.contains(&p)))
        else {
            return Err(format!("no Python source file `{file}` in `{}`", self.root.display()));
        };
        let pf = &self.files[i];
        let hits: Vec<Chosen> = (0..pf.fns.len())
            .map(|k| Chosen { file: i, func: k, target: self.target(i, k, Vec::new()) })
            .filter(|c| {
                c.target.name == name
                    || pf.fns[c.func].qualname == name
                    || c.target.qualified_name == name
            })
            .collect();
        if hits.is_empty() {
            let names: Vec<&str> = pf.fns.iter().map(|f| f.qualname.as_str()).collect();
            return Err(format!("no function `{name}` in `{file}`; it has: {}", names.join(", ")));
        }
        Ok(hits)
    }
}

/// The files inside the project's packages that `.gitignore` leaves out of the scratch copy
/// although the package needs them to import and run as it does in the user's tree (a
/// generated `_version.py`, compiled translations, a built extension), relative to the root,
/// with their contents. `copied` lists the files the scratch copy already has.
pub fn package_extras(project: &Project, copied: &[PathBuf]) -> BTreeMap<PathBuf, Vec<u8>> {
    /// Larger files are left out: a package's generated files are small.
    const MAX_FILE: u64 = 32 << 20;
    let mut tops: Vec<PathBuf> = project
        .files
        .iter()
        .filter_map(|f| {
            let top = f.module.split('.').next().filter(|_| f.module.contains('.'))?;
            Some(f.import_root.join(top))
        })
        .collect();
    tops.sort();
    tops.dedup();
    let mut out = BTreeMap::new();
    let mut stack: Vec<PathBuf> = tops;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(project.root.join(&dir)) else { continue };
        for e in entries.flatten() {
            let name = e.file_name();
            let rel = dir.join(&name);
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if name != "__pycache__" {
                    stack.push(rel);
                }
            } else if kind.is_file()
                && rel.extension().is_none_or(|x| x != "pyc")
                && !copied.contains(&rel)
                && e.metadata().is_ok_and(|m| m.len() <= MAX_FILE)
            {
                if let Ok(bytes) = std::fs::read(e.path()) {
                    out.insert(rel, bytes);
                }
            }
        }
    }
    out
}

/// A project and the functions a run analyses: what the front end and its lab share.
pub struct Selected {
    /// The project.
    pub project: Project,
    /// The chosen functions, in analysis order (a target's index is its position).
    pub chosen: Vec<Chosen>,
    /// The project's interpreter.
    pub python: PathBuf,
    /// How the user's pytest session ran its tests.
    pub session: crate::pipeline::PytestSession,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_named_from_their_import_root() {
        let d = tempfile::tempdir().unwrap();
        let pkg = d.path().join("src/shop/cart");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(d.path().join("src/shop/__init__.py"), "").unwrap();
        std::fs::write(pkg.join("__init__.py"), "").unwrap();
        std::fs::write(
            pkg.join("price.py"),
            "def total(xs: list[int]) -> int:\n    return sum(xs)\n",
        )
        .unwrap();
        std::fs::write(d.path().join("tool.py"), "def f(x):\n    return x\n").unwrap();
        std::fs::create_dir_all(d.path().join("tests")).unwrap();
        std::fs::write(d.path().join("tests/test_price.py"), "").unwrap();
        let (m, root) = module_of(d.path(), Path::new("src/shop/cart/price.py"));
        assert_eq!((m.as_str(), root.as_path()), ("shop.cart.price", Path::new("src")));
        let (m, root) = module_of(d.path(), Path::new("src/shop/__init__.py"));
        assert_eq!((m.as_str(), root.as_path()), ("shop", Path::new("src")));
        assert_eq!(module_of(d.path(), Path::new("tool.py")).0, "tool");
        let p = Project::load(d.path(), None).unwrap();
        assert_eq!(p.tests, vec![PathBuf::from("tests/test_price.py")]);
        let hits = p.named("src/shop/cart/price.py::total", d.path()).unwrap();
        assert_eq!(hits[0].target.qualified_name, "shop.cart.price.total");
        assert_eq!(hits[0].target.language, "python");
        let err = p.named("tool.py::nope", d.path()).err().unwrap();
        assert!(err.contains("it has: f"), "{err}");
    }
}
