//! The layout rules of `src/` (docs/design.md, "Layout rules"), checked on every test run: no
//! module imports a module that imports it back, no module outside the two front ends imports
//! either, every import points down the floor order that docs/design.md writes, no file holds
//! more than 1000 lines of logic, `mod.rs` files only declare and re-export, and
//! `docs/design.md` names every file. Imports are read as text: `crate::…` and `super::…` paths
//! (brace groups expanded one level), and the names they bind (`use super::types::{self}`,
//! `use crate::a::b;`, `use crate::a::b as c;`) followed where the code uses them (`types::f()`).

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
    let texts = all.into_iter().map(|f| {
        let text = std::fs::read_to_string(&f).unwrap();
        (f, text)
    });
    Src::of(&root, texts)
}

impl Src {
    /// The modules of the files `texts` under `root` (a planted tree in the checks of the checks).
    fn of(root: &Path, texts: impl IntoIterator<Item = (PathBuf, String)>) -> Src {
        let mut modules = BTreeMap::new();
        let mut paths = BTreeMap::new();
        for (f, text) in texts {
            let m = module_of(root, &f);
            modules.insert(m.clone(), logic(&text));
            paths.insert(m, f);
        }
        Src { root: root.to_path_buf(), modules, paths }
    }

    /// A planted tree: `(file under src/, code)` pairs.
    fn planted(files: &[(&str, &str)]) -> Src {
        let root = Path::new("/planted/src");
        Src::of(root, files.iter().map(|(f, code)| (root.join(f), code.to_string())))
    }
}

impl Src {
    /// The longest module path that `path` (`a::b::Item`) starts with.
    fn resolve(&self, path: &str) -> Option<String> {
        let segs: Vec<&str> = path.split("::").collect();
        (1..=segs.len()).rev().map(|k| segs[..k].join("::")).find(|m| self.modules.contains_key(m))
    }

    /// The modules each module refers to: `crate::…` and `super::…` paths (brace groups expanded
    /// one level), and the paths that a name bound by `use` stands for where the code uses it
    /// (`use super::types::{self}` then `types::function::resolve(…)` refers to
    /// `types::function`).
    fn graph(&self) -> BTreeMap<String, BTreeSet<String>> {
        let brace =
            regex::Regex::new(r"\b((?:crate|super)(?:::super)*(?:::\w+)*)::\{([^{}]*)\}").unwrap();
        let path = regex::Regex::new(r"\b(crate|super(?:::super)*)((?:::\w+)+)").unwrap();
        let renamed = regex::Regex::new(
            r"\buse\s+((?:crate|super)(?:::super)*(?:::\w+)+)(?:\s+as\s+(\w+))?\s*;",
        )
        .unwrap();
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
            // `super` of `a::b` (file b.rs) is `a`; of `a` (a/mod.rs) it is the root.
            let absolute = |head: &str, rest: &str| -> String {
                let rest = rest.trim_start_matches("::");
                if head == "crate" {
                    return rest.to_string();
                }
                let ups = head.matches("super").count() + usize::from(is_mod_rs);
                let base = &here[..here.len().saturating_sub(ups)];
                base.iter().copied().chain(rest.split("::")).collect::<Vec<_>>().join("::")
            };
            let mut edges = BTreeSet::new();
            let add = |full: &str, edges: &mut BTreeSet<String>| {
                if let Some(r) = self.resolve(full) {
                    if r != *m && !r.is_empty() {
                        edges.insert(r);
                    }
                }
            };
            // Names bound to modules: `…::x::self` (from `{self}`), `use …::x;`, `use … as y;`.
            let mut aliases: BTreeMap<String, String> = BTreeMap::new();
            for c in path.captures_iter(&expanded) {
                let full = absolute(&c[1], &c[2]);
                if let Some(module) = full.strip_suffix("::self") {
                    let name = module.rsplit("::").next().unwrap_or(module).to_string();
                    aliases.insert(name, module.to_string());
                }
                add(full.trim_end_matches("::self"), &mut edges);
            }
            for c in renamed.captures_iter(code) {
                let p = path.captures(&c[1]).unwrap();
                let full = absolute(&p[1], &p[2]);
                if self.modules.contains_key(&full) {
                    let name = c.get(2).map_or_else(
                        || full.rsplit("::").next().unwrap_or(&full).to_string(),
                        |n| n.as_str().to_string(),
                    );
                    aliases.insert(name, full);
                }
            }
            for (name, module) in &aliases {
                let used = regex::Regex::new(&format!(r"(?:^|[^\w:]){name}((?:::\w+)+)")).unwrap();
                for c in used.captures_iter(&expanded) {
                    add(&format!("{module}{}", &c[1]), &mut edges);
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

/// The top-level module of `src/` that module `m` belongs to (`rust` for `rust::harness::probe`).
fn top(m: &str) -> &str {
    m.split("::").next().unwrap_or(m)
}

/// The imports of a module outside the two front ends that point into one of them.
fn into_front_ends(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let front = |m: &str| matches!(top(m), "rust" | "python");
    let mut out = Vec::new();
    for (m, edges) in g {
        if !m.is_empty() && !front(m) {
            out.extend(edges.iter().filter(|e| front(e)).map(|e| (m.clone(), e.clone())));
        }
    }
    out
}

#[test]
fn no_module_outside_the_front_ends_imports_either() {
    let bad = into_front_ends(&src().graph());
    assert!(bad.is_empty(), "modules outside rust/ and python/ import a front end: {bad:?}");
}

/// The floor of each top-level module of `src/`, read from the table under "The floor order"
/// in `docs/design.md` (`| 3 | `archive`, `inputs` | … |`).
fn floors(design: &str) -> BTreeMap<String, usize> {
    let table = design.split("### The floor order").nth(1).expect("a floor order section");
    let name = regex::Regex::new(r"`(\w+)`").unwrap();
    let mut out = BTreeMap::new();
    for line in table.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|'))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(Ok(floor)) = cells.get(1).map(|c| c.parse::<usize>()) else { continue };
        for c in name.captures_iter(cells[2]) {
            let before = out.insert(c[1].to_string(), floor);
            assert!(before.is_none(), "`{}` stands on two floors in docs/design.md", &c[1]);
        }
    }
    out
}

/// The imports between top-level modules that do not point down the floor order: to a module
/// on the same floor or a higher one.
fn not_down(
    g: &BTreeMap<String, BTreeSet<String>>,
    floors: &BTreeMap<String, usize>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (m, edges) in g {
        for e in edges {
            let (a, b) = (top(m), top(e));
            if m.is_empty() || a == b {
                continue;
            }
            if let (Some(fa), Some(fb)) = (floors.get(a), floors.get(b)) {
                if fb >= fa {
                    out.push(format!("`{m}` (floor {fa}) imports `{e}` (floor {fb})"));
                }
            }
        }
    }
    out
}

#[test]
fn every_import_points_down_the_floor_order_of_docs_design_md() {
    let design =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/design.md"))
            .unwrap();
    let floors = floors(&design);
    let s = src();
    let tops: BTreeSet<&str> = s.modules.keys().map(|m| top(m)).filter(|t| !t.is_empty()).collect();
    let unplaced: Vec<&&str> = tops.iter().filter(|t| !floors.contains_key(**t)).collect();
    assert!(unplaced.is_empty(), "docs/design.md's floor order does not place {unplaced:?}");
    let gone: Vec<&String> = floors.keys().filter(|f| !tops.contains(f.as_str())).collect();
    assert!(gone.is_empty(), "docs/design.md's floor order names modules src/ lacks: {gone:?}");
    let bad = not_down(&s.graph(), &floors);
    assert!(bad.is_empty(), "imports that do not point down the floor order:\n{}", bad.join("\n"));
}

#[test]
fn the_floor_check_fails_on_a_planted_back_arrow() {
    let planted = Src::planted(&[
        ("low.rs", "use crate::high::Thing;\npub fn f(_: Thing) {}"),
        ("high.rs", "pub struct Thing;"),
        ("front/mod.rs", "pub mod x;"),
        ("front/x.rs", "pub fn g() { crate::low::f(crate::high::Thing) }"),
    ]);
    let placed = BTreeMap::from([("low".into(), 1), ("high".into(), 2), ("front".into(), 3)]);
    let g = planted.graph();
    assert_eq!(not_down(&g, &placed), ["`low` (floor 1) imports `high` (floor 2)"]);
    let design = "### The floor order\n\n| floor | modules |\n| --- | --- |\n| 1 | `low` |\n| 2 | `high`, `front` |\n";
    assert_eq!(
        floors(design),
        BTreeMap::from([("low".into(), 1), ("high".into(), 2), ("front".into(), 2)])
    );
}

#[test]
fn the_cycle_check_follows_names_bound_by_use_and_fails_on_a_planted_alias_circle() {
    // `source` names `types::function` only through the name `types`, as python/source.rs once did.
    let planted = Src::planted(&[
        ("python/mod.rs", "pub mod source;\npub mod types;"),
        ("python/types/mod.rs", "pub mod function;"),
        (
            "python/source.rs",
            "use super::types::{self, Other};\npub fn f() { types::function::resolve() }",
        ),
        ("python/types/function.rs", "use crate::python::source::Kind;\npub fn resolve() {}"),
    ]);
    let circles = cycles(&planted.graph());
    assert_eq!(circles, [["python::source".to_string(), "python::types::function".to_string()]]);
    // The same through `use crate::python::types;` and `use … as t;`.
    for binding in [
        "use crate::python::types;\npub fn f() { types::function::resolve() }",
        "use super::types as t;\npub fn f() { t::function::resolve() }",
    ] {
        let planted = Src::planted(&[
            ("python/mod.rs", "pub mod source;\npub mod types;"),
            ("python/types/mod.rs", "pub mod function;"),
            ("python/source.rs", binding),
            ("python/types/function.rs", "use crate::python::source::Kind;\npub fn resolve() {}"),
        ]);
        assert_eq!(cycles(&planted.graph()).len(), 1, "{binding}");
    }
    // And an import into a front end from outside them is caught.
    let g =
        Src::planted(&[("patch.rs", "use crate::rust::source::Lines;"), ("rust/source.rs", "")])
            .graph();
    assert_eq!(into_front_ends(&g), [("patch".to_string(), "rust::source".to_string())]);
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
