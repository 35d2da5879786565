//! The output folder of a run (`.abex/out/` by default, `--out` / `--abex-out` otherwise): a
//! documented contract (`docs/report.md`, "The output folder").
//!
//! [`OutDir::prepare`] starts a run's folder: the previous run's folder is kept as
//! `<name>.old/` (one generation), and a parent `.abex/` gets a `.gitignore` that ignores it.
//! abex marks each folder it makes with a [`MARKER`] file and renames or deletes only folders
//! that carry it (or that hold nothing but files abex writes, as folders of older versions
//! do): a non-empty folder of anyone else's is refused with an error that names the setting
//! that chose it ([`OutError::NotAbexs`]), and nothing in it is touched.
//! During the run, [`OutDir::write_report`] rewrites `report.json` as results are found (the
//! pipeline's saver decides when: `docs/report.md`, "When the report is written"), with
//! `"complete": false`, so an interrupted run leaves a valid partial report. At the end (and
//! after an interruption), [`OutDir::write_all`] writes the final `report.json`, `summary.md`,
//! `report.html`, `suggested-tests.patch` (the suggested tests placed in the project, as a
//! unified diff) and, when mutants were tested, `mutation-report.json`, `junit.xml` and
//! `abex.sarif`, each rendered from the report by the renderers (`render/`). Every file is
//! written atomically (a temporary file in the folder, renamed into place), so a reader never
//! sees a torn file.

use std::path::{Path, PathBuf};

use crate::render::{html, junit, markdown, sarif, stryker};
use crate::report::Report;

/// File name of the report in the output folder.
pub const REPORT_FILE: &str = "report.json";

/// The file abex writes first in every output folder it makes: the folder is abex's to
/// replace.
pub const MARKER: &str = ".abex-out";

/// What the marker file says to a person who opens it.
const MARKER_TEXT: &str = "Written by abex: this folder is its output folder. Each run moves \
                           it to `<name>.old` and writes a new one; abex replaces only folders \
                           that hold this file.\n";

/// Every file abex writes in an output folder (besides [`MARKER`] and the temporary files of
/// atomic writes): a folder that holds nothing else is one an older abex made.
const WRITTEN: [&str; 7] = [
    REPORT_FILE,
    markdown::FILE_NAME,
    html::FILE_NAME,
    crate::patch::FILE_NAME,
    stryker::FILE_NAME,
    junit::FILE_NAME,
    sarif::FILE_NAME,
];

/// Why an output folder could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    /// The folder (or the `.old` one beside it) holds files abex did not write.
    #[error(
        "refused to replace `{path}`: it holds `{file}`, which abex did not write\nhint: choose \
         a new or empty folder with {flag}; abex replaces only folders it made (they hold a \
         `{MARKER}` file)",
        path = .path.display(),
        file = .file.display()
    )]
    NotAbexs {
        /// The folder.
        path: PathBuf,
        /// One of the files in it that abex did not write.
        file: PathBuf,
        /// The setting that chose the output folder, for the hint (`--out`, `--abex-out` or
        /// `[tool.abex] out`).
        flag: String,
    },
    /// The path is a file, not a folder.
    #[error(
        "refused to use `{path}` as the output folder: it is a file\nhint: choose a folder with \
         {flag}",
        path = .path.display()
    )]
    NotAFolder {
        /// The path.
        path: PathBuf,
        /// The setting that chose it.
        flag: String,
    },
    /// Reading, renaming or creating failed.
    #[error("failed to prepare the output folder `{path}`: {source}", path = .path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Whether the folder `dir` is abex's: it holds the marker, or only files abex writes.
/// `Err` names a file that is not abex's.
fn abexs(dir: &Path) -> std::io::Result<Result<(), PathBuf>> {
    if dir.join(MARKER).is_file() {
        return Ok(Ok(()));
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let text = name.to_string_lossy();
        let ours = entry.file_type()?.is_file()
            && (WRITTEN.contains(&text.as_ref()) || text.starts_with(".tmp"));
        if !ours {
            return Ok(Err(dir.join(name)));
        }
    }
    Ok(Ok(()))
}

/// The output folder of a run.
pub struct OutDir {
    /// The folder.
    pub path: PathBuf,
}

impl OutDir {
    /// Prepares `path`: the previous run's folder is kept as `<name>.old`, the new one gets
    /// the [`MARKER`], and the parent `.abex/` folder ignores itself in git. A folder (or an
    /// `<name>.old`) that is not abex's is refused, untouched; `flag` names the setting that
    /// chose `path`, for the error's hint.
    pub fn prepare(path: &Path, flag: &str) -> Result<OutDir, OutError> {
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |source| OutError::Io { path: p, source }
        };
        let refuse = |file: PathBuf, dir: &Path| OutError::NotAbexs {
            path: dir.to_path_buf(),
            file,
            flag: flag.to_string(),
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
            if parent.file_name().is_some_and(|n| n == ".abex") {
                let ignore = parent.join(".gitignore");
                if !ignore.exists() {
                    std::fs::write(&ignore, "# Written by abex: nothing here belongs in git.\n*\n")
                        .map_err(io(&ignore))?;
                }
            }
        }
        if path.exists() {
            if !path.is_dir() {
                return Err(OutError::NotAFolder { path: path.to_path_buf(), flag: flag.into() });
            }
            let empty = std::fs::read_dir(path).map_err(io(path))?.next().is_none();
            if !empty {
                abexs(path).map_err(io(path))?.map_err(|f| refuse(f, path))?;
                let mut old = path.as_os_str().to_owned();
                old.push(".old");
                let old = PathBuf::from(old);
                if old.is_dir() {
                    abexs(&old).map_err(io(&old))?.map_err(|f| refuse(f, &old))?;
                    std::fs::remove_dir_all(&old).map_err(io(&old))?;
                } else if old.exists() {
                    return Err(refuse(old.clone(), &old));
                }
                std::fs::rename(path, &old).map_err(io(path))?;
            }
        }
        std::fs::create_dir_all(path).map_err(io(path))?;
        let out = OutDir { path: path.to_path_buf() };
        out.write(MARKER, MARKER_TEXT.as_bytes()).map_err(io(path))?;
        Ok(out)
    }

    /// Writes `name` atomically (a temporary file renamed into place).
    pub fn write(&self, name: &str, content: &[u8]) -> std::io::Result<PathBuf> {
        let dest = self.path.join(name);
        crate::atomic::write(&dest, content)?;
        Ok(dest)
    }

    /// Writes `report.json`, `summary.md`, `report.html`, `suggested-tests.patch` and, when
    /// mutants were tested, `mutation-report.json`, `junit.xml` and `abex.sarif`.
    pub fn write_all(&self, report: &Report) -> std::io::Result<()> {
        self.write_report(report)?;
        self.write(markdown::FILE_NAME, markdown::render(report).as_bytes())?;
        let page = html::render(report, &|p| std::fs::read_to_string(p).ok());
        self.write(html::FILE_NAME, page.as_bytes())?;
        let patch = crate::patch::unified(&crate::patch::of_report(report));
        self.write(crate::patch::FILE_NAME, patch.as_bytes())?;
        if report.targets.iter().any(|t| t.mutation.is_some()) {
            let doc = stryker::mutation_report(report, &|p| std::fs::read_to_string(p).ok());
            let bytes = serde_json::to_vec_pretty(&doc).map_err(std::io::Error::other)?;
            self.write(stryker::FILE_NAME, &bytes)?;
            let xml = junit::render(report).map_err(std::io::Error::other)?;
            self.write(junit::FILE_NAME, &xml)?;
            let log =
                serde_json::to_vec_pretty(&sarif::render(report)).map_err(std::io::Error::other)?;
            self.write(sarif::FILE_NAME, &log)?;
        }
        Ok(())
    }

    /// Writes the report as `report.json`.
    pub fn write_report(&self, report: &Report) -> std::io::Result<PathBuf> {
        let text = serde_json::to_vec_pretty(report).map_err(std::io::Error::other)?;
        self.write(REPORT_FILE, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preparing_the_out_folder_keeps_the_previous_run_and_ignores_itself() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join(".abex/out");
        let first = OutDir::prepare(&out, "--out").unwrap();
        first.write("report.json", b"1").unwrap();
        let second = OutDir::prepare(&out, "--out").unwrap();
        second.write("report.json", b"2").unwrap();
        assert_eq!(
            std::fs::read_to_string(d.path().join(".abex/out.old/report.json")).unwrap(),
            "1"
        );
        assert_eq!(std::fs::read_to_string(out.join("report.json")).unwrap(), "2");
        assert!(std::fs::read_to_string(d.path().join(".abex/.gitignore")).unwrap().contains('*'));
        assert!(
            out.join(MARKER).is_file() && d.path().join(".abex/out.old").join(MARKER).is_file()
        );
    }

    #[test]
    fn a_folder_with_a_user_file_is_refused_and_left_as_it_was() {
        let d = tempfile::tempdir().unwrap();
        let docs = d.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(docs.join("guide.md"), "mine").unwrap();
        for _ in 0..2 {
            let e = OutDir::prepare(&docs, "`--abex-out` (or `out` in `[tool.abex]`)").err();
            let e = e.expect("refused").to_string();
            assert!(e.contains("guide.md") && e.contains("`--abex-out`"), "{e}");
            assert!(e.contains("hint:") && e.contains("[tool.abex]"), "{e}");
        }
        assert_eq!(std::fs::read_to_string(docs.join("guide.md")).unwrap(), "mine");
        assert!(!d.path().join("docs.old").exists());
        // An `.old` beside abex's own folder that is someone else's is refused too.
        let out = d.path().join("out");
        OutDir::prepare(&out, "--out").unwrap();
        std::fs::create_dir_all(d.path().join("out.old")).unwrap();
        std::fs::write(d.path().join("out.old/notes.txt"), "mine").unwrap();
        let e = OutDir::prepare(&out, "--out").err().expect("refused").to_string();
        assert!(e.contains("notes.txt") && e.contains("--out"), "{e}");
        assert_eq!(std::fs::read_to_string(d.path().join("out.old/notes.txt")).unwrap(), "mine");
        assert!(out.join(MARKER).is_file());
        // A file is no folder.
        std::fs::write(d.path().join("plain"), "x").unwrap();
        assert!(OutDir::prepare(&d.path().join("plain"), "--out").is_err());
    }

    #[test]
    fn an_empty_folder_or_an_older_abex_s_folder_is_taken() {
        let d = tempfile::tempdir().unwrap();
        let empty = d.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        OutDir::prepare(&empty, "--out").unwrap();
        assert!(empty.join(MARKER).is_file());
        // An older abex wrote no marker, only its own files.
        let older = d.path().join("older");
        std::fs::create_dir_all(&older).unwrap();
        std::fs::write(older.join(REPORT_FILE), "{}").unwrap();
        std::fs::write(older.join(markdown::FILE_NAME), "## abex").unwrap();
        OutDir::prepare(&older, "--out").unwrap();
        assert_eq!(std::fs::read_to_string(d.path().join("older.old/report.json")).unwrap(), "{}");
    }
}
