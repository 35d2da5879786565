//! The layout rules of `src/` (issue 12), checked on every test run: no module imports a module
//! that imports it back, the spine and the model layer know neither front end, no file holds
//! more than 1000 lines of logic, `mod.rs` files only declare and re-export, and `docs/design.md`
//! names every file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file: `rust::lab` for `src/rust/lab.rs`, `rust` for `src/rust/mod.rs`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> =
        rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without its comments and its `#[cfg(test)] mod tests` block.
fn logic(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    text.lines()
        .map(|l| {
            if l.trim_start().starts_with("//") {
                ""
            } else {
                l.split(" // ").next().unwrap_or(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

struct Src {
    root: PathBuf,
    /// Module path → its code without comments and tests.
    modules: BTreeMap<String, String>,
    /// Module path → file.
    paths: BTreeMap<String, PathBuf>,
}

fn src() -> Src {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut modules = BTreeMap::new();
    let mut paths = BTreeMap::new();
    for f in all {
        let m = module_of(&root, &f);
        modules.insert(m.clone(), logic(&std::fs::read_to_string(&f).unwrap()));
        paths.insert(m, f);
    }
    Src { root, modules, paths }
}

impl Src {
    /// The longest module path that `path` (`a::b::Item`) starts with.
    fn resolve(&self, path: &str) -> Option<String> {
        let segs: Vec<&str> = path.split("::").collect();
        (1..=segs.len()).rev().map(|k| segs[..k].join("::")).find(|m| self.modules.contains_key(m))
    }

    /// The modules each module refers to (`crate::…` and `super::…` paths, brace groups
    /// expanded one level).
    fn graph(&self) -> BTreeMap<String, BTreeSet<String>> {
        let brace =
            regex::Regex::new(r"\b((?:crate|super)(?:::super)*(?:::\w+)*)::\{([^{}]*)\}").unwrap();
        let path = regex::Regex::new(r"\b(crate|super(?:::super)*)((?:::\w+)+)").unwrap();
        let mut g = BTreeMap::new();
        for (m, code) in &self.modules {
            let expanded = brace.replace_all(code, |c: &regex::Captures| {
                c[2].split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(|x| format!("{}::{x}", &c[1]))
                    .collect::<Vec<_>>()
                    .join(" ")
            });
            let here: Vec<&str> = if m.is_empty() { Vec::new() } else { m.split("::").collect() };
            let is_mod_rs = self.paths[m].file_name().is_some_and(|n| n == "mod.rs");
            let mut edges = BTreeSet::new();
            for c in path.captures_iter(&expanded) {
                let rest = c[2].trim_start_matches("::");
                let full = if &c[1] == "crate" {
                    rest.to_string()
                } else {
                    // `super` of `a::b` (file b.rs) is `a`; of `a` (a/mod.rs) it is the root.
                    let ups = c[1].matches("super").count() + usize::from(is_mod_rs);
                    let base = &here[..here.len().saturating_sub(ups)];
                    base.iter().copied().chain(rest.split("::")).collect::<Vec<_>>().join("::")
                };
                if let Some(r) = self.resolve(&full) {
                    if r != *m && !r.is_empty() {
                        edges.insert(r);
                    }
                }
            }
            g.insert(m.clone(), edges);
        }
        g
    }
}

/// The strongly connected groups of more than one module (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut group = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                t.out.push(group);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let s = src();
    let found = cycles(&s.graph());
    assert!(found.is_empty(), "import cycles among modules of {}: {found:?}", s.root.display());
}

#[test]
fn the_cycle_check_can_fail() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
}

#[test]
fn the_spine_and_the_model_layer_know_neither_front_end() {
    let s = src();
    let g = s.graph();
    for (m, edges) in &g {
        if m.starts_with("pipeline") || m.starts_with("llm") {
            let bad: Vec<&String> =
                edges.iter().filter(|e| e.starts_with("rust") || e.starts_with("python")).collect();
            assert!(bad.is_empty(), "`{m}` imports a front end: {bad:?}");
        }
    }
}

#[test]
fn no_file_holds_more_than_1000_lines_of_logic() {
    let s = src();
    for (m, code) in &s.modules {
        let n = code.lines().filter(|l| !l.trim().is_empty()).count();
        assert!(n <= 1000, "`{}` ({m}) holds {n} lines of logic", s.paths[m].display());
    }
}

#[test]
fn mod_rs_files_only_declare_and_re_export() {
    let s = src();
    let item = regex::Regex::new(
        r"(?m)^\s*(pub(\([^)]*\))?\s+)?(fn|impl|struct|enum|trait|const|static)\b",
    )
    .unwrap();
    for (m, path) in &s.paths {
        if path.file_name().is_some_and(|n| n == "mod.rs") {
            let hit = item.find(&s.modules[m]).map(|x| x.as_str().trim().to_string());
            assert!(
                hit.is_none(),
                "`{}` holds logic: `{}`",
                path.display(),
                hit.unwrap_or_default()
            );
        }
    }
}

#[test]
fn no_file_holds_a_merge_conflict_marker() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for dir in ["src", "docs", "cargo-abex/src", "pytest-abex/src", "pytest-abex/python", "tests"] {
        let d = root.join(dir);
        if d.is_dir() {
            every_file(&d, &mut all);
        }
    }
    all.push(root.join("README.md"));
    for f in all {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let marked = text.lines().any(|l| l.starts_with("<<<<<<< ") || l.starts_with(">>>>>>> "));
        assert!(!marked, "`{}` holds a merge conflict marker", f.display());
    }
}

fn every_file(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if !p.ends_with("target") && !p.ends_with(".abex") {
                every_file(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}

/// Whether `docs/design.md` names the file `rel` (a path under `src/`): by its own path, or,
/// outside the spine and the two front ends (mapped file by file), by a folder it is in.
fn mapped(design: &str, rel: &str) -> bool {
    if design.contains(&format!("`{rel}`")) {
        return true;
    }
    let Some((folder, _)) = rel.rsplit_once('/') else { return false };
    if ["pipeline", "rust", "python"].contains(&folder) {
        return false;
    }
    let mut at = folder;
    loop {
        if design.contains(&format!("`{at}/`")) {
            return true;
        }
        match at.rsplit_once('/') {
            Some((up, _)) => at = up,
            None => return false,
        }
    }
}

#[test]
fn docs_design_md_maps_every_file_of_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join("docs/design.md")).unwrap();
    // A table cell may name several files: `a.rs`, `b.rs` counts for both.
    let design = design.replace("`, `", "` `");
    let src = root.join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let missing: Vec<String> = all
        .iter()
        .map(|f| f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/"))
        .filter(|rel| !rel.ends_with("tests.rs") && rel != "lib.rs" && rel != "main.rs")
        .filter(|rel| !mapped(&design, rel))
        .collect();
    assert!(missing.is_empty(), "docs/design.md does not name these files of src/: {missing:?}");
    assert!(!mapped("| `rust/lab.rs` |", "rust/other.rs"), "the check can fail");
}
