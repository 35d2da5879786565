//! Where suggested pytest tests go in a project: at the end of the module's existing test file
//! (`test_<module>.py` or `<module>_test.py`, one under `tests/` first), else in a new
//! `tests/test_<module>_abex.py`; their imports move to the file's imports (merged with the
//! ones it has), as a person writes them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::testname::unique;

/// Folders never searched for test files.
const SKIPPED: [&str; 8] =
    ["node_modules", "site-packages", "__pycache__", "venv", "build", "dist", "target", "env"];

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || SKIPPED.contains(&name) {
            continue;
        }
        if p.is_dir() && depth < 6 {
            walk(&p, depth + 1, out);
        } else if name.ends_with(".py") {
            out.push(p);
        }
    }
}

/// The test file, relative to `root`, that the tests of the functions of module `module`
/// (dotted) go into: its existing test file, else `tests/test_<module>_abex.py`.
pub fn test_file(root: &Path, module: &str) -> PathBuf {
    let stem = module.rsplit('.').next().unwrap_or(module);
    let wanted = [format!("test_{stem}.py"), format!("{stem}_test.py")];
    let mut files = Vec::new();
    walk(root, 0, &mut files);
    let found: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| wanted.iter().any(|w| n == w.as_str())))
        .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    let under_tests = found.iter().find(|p| p.starts_with("tests"));
    match under_tests.or(found.first()) {
        Some(p) => p.clone(),
        None => PathBuf::from("tests").join(format!("test_{stem}_abex.py")),
    }
}

/// The imports of a file or a test: plain modules and, per module, the names taken from it.
#[derive(Default)]
struct Imports {
    plain: BTreeSet<String>,
    from: BTreeMap<String, BTreeSet<String>>,
}

impl Imports {
    /// Reads an import line (`import a`, `from m import a, b`); false when it is none.
    fn read(&mut self, line: &str) -> bool {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("import ") {
            self.plain.extend(rest.split(',').map(|m| m.trim().to_string()));
            return true;
        }
        let Some((module, names)) =
            line.strip_prefix("from ").and_then(|r| r.split_once(" import "))
        else {
            return false;
        };
        let names = names.trim().trim_start_matches('(').trim_end_matches(')');
        let set = self.from.entry(module.trim().to_string()).or_default();
        set.extend(names.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()));
        true
    }

    fn has(&self, module: &str, name: Option<&str>) -> bool {
        match name {
            None => self.plain.contains(module),
            Some(n) => self.from.get(module).is_some_and(|s| s.contains(n)),
        }
    }

    /// The import lines of what `self` has and `existing` does not.
    fn lines_missing_from(&self, existing: &Imports) -> Vec<String> {
        let mut out: Vec<String> = self
            .plain
            .iter()
            .filter(|m| !existing.has(m, None))
            .map(|m| format!("import {m}"))
            .collect();
        for (module, names) in &self.from {
            let names: Vec<&str> = names
                .iter()
                .map(String::as_str)
                .filter(|n| !existing.has(module, Some(n)))
                .collect();
            if !names.is_empty() {
                out.push(format!("from {module} import {}", names.join(", ")));
            }
        }
        out
    }
}

/// A test's code without its own import lines (in its body, or above a parametrised test's
/// decorator) and the blank lines after them, the imports added to `imports`.
fn without_imports(code: &str, imports: &mut Imports) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut dropped = false;
    for line in code.lines() {
        let body = line.starts_with("    ") && !line.starts_with("     ");
        if (body || !line.starts_with(' ')) && imports.read(line) {
            dropped = true;
            continue;
        }
        if dropped && line.trim().is_empty() {
            dropped = !line.starts_with(' ') && out.is_empty();
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// The test file's text with `tests` (name, code) added: `existing` is its text, `None` for a
/// new file. Returns it and the names the tests were placed under (renamed when the file has
/// the name already).
pub fn place(existing: Option<&str>, tests: &[(&str, &str)]) -> (String, Vec<(String, String)>) {
    let text = existing.unwrap_or("");
    let def = regex::Regex::new(r"(?m)^\s*(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)")
        .expect("a valid regex");
    let mut taken: BTreeSet<String> = def.captures_iter(text).map(|c| c[1].to_string()).collect();
    let mut wanted = Imports::default();
    let mut names = Vec::new();
    let mut codes = Vec::new();
    for (name, code) in tests {
        let placed = unique(name, &mut taken);
        let code = code.replacen(&format!("def {name}("), &format!("def {placed}("), 1);
        codes.push(without_imports(&code, &mut wanted));
        names.push((name.to_string(), placed));
    }
    // The file's own imports: the top-level import lines before its first other statement.
    let lines: Vec<&str> = text.lines().collect();
    let mut have = Imports::default();
    let mut last_import = None;
    for (i, line) in lines.iter().enumerate() {
        let top = !line.starts_with([' ', '\t']);
        if top && have.read(line) {
            last_import = Some(i);
        } else if top
            && !line.trim().is_empty()
            && !line.starts_with('#')
            && !line.starts_with("\"\"\"")
        {
            break;
        }
    }
    let missing = wanted.lines_missing_from(&have);
    let mut out = String::new();
    match last_import {
        Some(k) => {
            for line in &lines[..=k] {
                out.push_str(line);
                out.push('\n');
            }
            for m in &missing {
                out.push_str(m);
                out.push('\n');
            }
            for line in &lines[k + 1..] {
                out.push_str(line);
                out.push('\n');
            }
        }
        None => {
            for m in &missing {
                out.push_str(m);
                out.push('\n');
            }
            if !text.trim().is_empty() {
                out.push('\n');
                out.push_str(text.trim_end());
                out.push('\n');
            }
        }
    }
    let mut out = out.trim_end().to_string();
    for code in codes {
        out.push_str("\n\n\n");
        out.push_str(code.trim_end());
    }
    out.push('\n');
    (out, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str = "def test_f_is_1_for_0():\n    \"why\"\n    import pytest\n    from pkg.m import f, g\n\n    assert f(0) == 1\n";

    #[test]
    fn tests_join_the_module_s_test_file_with_their_imports_merged() {
        let text = "import pytest\n\nfrom pkg.m import f\n\n\ndef test_f_is_1_for_0():\n    assert f(0) == 1\n";
        let (out, names) = place(Some(text), &[("test_f_is_1_for_0", TEST)]);
        assert_eq!(names[0].1, "test_f_is_1_for_0_2");
        assert_eq!(
            out,
            "import pytest\n\nfrom pkg.m import f\nfrom pkg.m import g\n\n\ndef test_f_is_1_for_0():\n    assert f(0) == 1\n\n\ndef test_f_is_1_for_0_2():\n    \"why\"\n    assert f(0) == 1\n"
        );
        let (new, _) = place(None, &[("test_f_is_1_for_0", TEST)]);
        assert_eq!(
            new,
            "import pytest\nfrom pkg.m import f, g\n\n\ndef test_f_is_1_for_0():\n    \"why\"\n    assert f(0) == 1\n"
        );
    }

    #[test]
    fn a_parametrised_test_s_module_imports_join_the_file_s() {
        let test = "import pytest\n\n\n@pytest.mark.parametrize(\n    (\"n\", \"expected\"),\n    [\n        (1, 2),\n    ],\n)\ndef test_f_at_1_and_2(n, expected):\n    \"why\"\n    from pkg.m import f\n\n    assert f(n) == expected\n";
        let text = "import pytest\n\nfrom pkg.m import g\n\n\ndef test_g():\n    assert g()\n";
        let (out, _) = place(Some(text), &[("test_f_at_1_and_2", test)]);
        assert_eq!(
            out,
            "import pytest\n\nfrom pkg.m import g\nfrom pkg.m import f\n\n\ndef test_g():\n    assert g()\n\n\n@pytest.mark.parametrize(\n    (\"n\", \"expected\"),\n    [\n        (1, 2),\n    ],\n)\ndef test_f_at_1_and_2(n, expected):\n    \"why\"\n    assert f(n) == expected\n"
        );
    }

    #[test]
    fn the_test_file_is_the_module_s_own_or_a_new_one() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(test_file(d.path(), "shop.pricing"), Path::new("tests/test_pricing_abex.py"));
        std::fs::create_dir_all(d.path().join("tests/unit")).unwrap();
        std::fs::write(d.path().join("tests/unit/test_pricing.py"), "").unwrap();
        assert_eq!(test_file(d.path(), "shop.pricing"), Path::new("tests/unit/test_pricing.py"));
    }
}
