//! The edits of a project that its suggested tests make, one per file (gathered from each
//! language's placement), as a unified diff and written in place.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::report::Report;

/// File name of the patch in the output folder.
pub const FILE_NAME: &str = "suggested-tests.patch";

/// One file the suggested tests change.
#[derive(Clone, Debug, PartialEq)]
pub struct FileEdit {
    /// Path relative to the project root, with `/` separators.
    pub path: PathBuf,
    /// Its text now; `None` for a new file.
    pub before: Option<String>,
    /// Its text with the tests.
    pub after: String,
    /// The tests placed in it: (name in the report, name in the file).
    pub tests: Vec<(String, String)>,
}

/// A test to place, with what the languages need to place it.
struct Pending<'a> {
    name: &'a str,
    code: &'a str,
    function: &'a str,
}

/// The edits that place the chosen suggested tests of `report`; `read` reads a project file
/// (a path relative to the project root). A file that cannot be read or parsed is left out.
pub fn edits(report: &Report, read: &dyn Fn(&Path) -> Option<String>) -> Vec<FileEdit> {
    let mut by_file: BTreeMap<(String, PathBuf), Vec<Pending<'_>>> = BTreeMap::new();
    for t in &report.targets {
        let Some(mr) = &t.mutation else { continue };
        for s in &mr.suggested_tests {
            let (file, function) = if s.file.as_os_str().is_empty() {
                (&t.target.file, t.target.name.as_str())
            } else {
                (&s.file, s.function.as_str())
            };
            let lang = t.target.language.clone();
            let pending = Pending { name: &s.name, code: &s.code, function };
            by_file.entry((lang, file.clone())).or_default().push(pending);
        }
    }
    let mut out: Vec<FileEdit> = Vec::new();
    for ((lang, file), tests) in by_file {
        match lang.as_str() {
            "rust" => {
                let Some(text) = read(&file) else { continue };
                let placed: Vec<super::rust::Placed<'_>> = tests
                    .iter()
                    .map(|t| super::rust::Placed {
                        function: t.function,
                        name: t.name,
                        code: t.code,
                    })
                    .collect();
                let Some((after, names)) = super::rust::place(&text, &placed) else {
                    continue;
                };
                if after != text {
                    out.push(FileEdit { path: file, before: Some(text), after, tests: names });
                }
            }
            "python" => {
                let test_file = super::python::test_file(&report.project_root, &stem(&file));
                let pairs: Vec<(&str, &str)> = tests.iter().map(|t| (t.name, t.code)).collect();
                // Two modules of one stem share a test file: the second adds to the first's.
                if let Some(e) = out.iter_mut().find(|e| e.path == test_file) {
                    let (after, names) = super::python::place(Some(&e.after), &pairs);
                    e.after = after;
                    e.tests.extend(names);
                    continue;
                }
                let before = read(&test_file);
                let (after, names) = super::python::place(before.as_deref(), &pairs);
                out.push(FileEdit { path: test_file, before, after, tests: names });
            }
            _ => {}
        }
    }
    out
}

fn stem(file: &Path) -> String {
    file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn slashed(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// `edits` as one unified diff (`git apply` and `patch -p1` take it), relative to the project
/// root; empty when there is nothing to add.
pub fn unified(edits: &[FileEdit]) -> String {
    let mut out = String::new();
    for e in edits {
        let path = slashed(&e.path);
        let before = e.before.as_deref().unwrap_or("");
        let diff = similar::TextDiff::from_lines(before, e.after.as_str());
        let (old, new) = match &e.before {
            Some(_) => (format!("a/{path}"), format!("b/{path}")),
            None => ("/dev/null".to_string(), format!("b/{path}")),
        };
        out.push_str(&format!("diff --git a/{path} b/{path}\n"));
        if e.before.is_none() {
            out.push_str("new file mode 100644\n");
        }
        let body = diff.unified_diff().context_radius(3).header(&old, &new).to_string();
        out.push_str(&body);
    }
    out
}

/// Writes `edits` into the project at `root`: a file whose text is no longer the one the edit
/// was made from is left alone and named in the error.
pub fn apply(root: &Path, edits: &[FileEdit]) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for e in edits {
        let path = root.join(&e.path);
        let now = std::fs::read_to_string(&path).ok();
        if now != e.before {
            return Err(std::io::Error::other(format!(
                "`{}` changed since abex read it; its suggested tests were not written\nhint: run abex again",
                path.display()
            )));
        }
        crate::atomic::write(&path, e.after.as_bytes())?;
        written.push(e.path.clone());
    }
    Ok(written)
}

/// The edits of `report`, read from its project.
pub fn of_report(report: &Report) -> Vec<FileEdit> {
    let root = report.project_root.clone();
    edits(report, &|p| std::fs::read_to_string(root.join(p)).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_adds_to_a_file_and_creates_another() {
        let edits = vec![
            FileEdit {
                path: "src/lib.rs".into(),
                before: Some("a\nb\n".into()),
                after: "a\nb\nc\n".into(),
                tests: Vec::new(),
            },
            FileEdit {
                path: "tests/test_m_abex.py".into(),
                before: None,
                after: "x\n".into(),
                tests: Vec::new(),
            },
        ];
        let diff = unified(&edits);
        assert!(diff.starts_with("diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"), "{diff}");
        assert!(diff.contains("diff --git a/tests/test_m_abex.py b/tests/test_m_abex.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_m_abex.py\n@@ -0,0 +1 @@\n+x\n"), "{diff}");
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        std::fs::write(d.path().join("src/lib.rs"), "a\nb\n").unwrap();
        apply(d.path(), &edits).unwrap();
        assert_eq!(std::fs::read_to_string(d.path().join("src/lib.rs")).unwrap(), "a\nb\nc\n");
        assert_eq!(std::fs::read_to_string(d.path().join("tests/test_m_abex.py")).unwrap(), "x\n");
        // Applied already: the files are no longer what the edits were made from.
        assert!(apply(d.path(), &edits).is_err());
    }
}
