//! The output folder of a run (`.abex/out/` by default, `--out` / `--abex-out` otherwise): a
//! documented contract (`docs/report.md`, "The output folder").
//!
//! [`OutDir::prepare`] starts a run's folder: the previous run's folder is kept as
//! `<name>.old/` (one generation), and a parent `.abex/` gets a `.gitignore` that ignores it.
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

/// The output folder of a run.
pub struct OutDir {
    /// The folder.
    pub path: PathBuf,
}

impl OutDir {
    /// Prepares `path`: the previous run's folder is kept as `<name>.old`, and the parent
    /// `.abex/` folder ignores itself in git.
    pub fn prepare(path: &Path) -> std::io::Result<OutDir> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
            if parent.file_name().is_some_and(|n| n == ".abex") {
                let ignore = parent.join(".gitignore");
                if !ignore.exists() {
                    std::fs::write(ignore, "# Written by abex: nothing here belongs in git.\n*\n")?;
                }
            }
        }
        if path.exists() {
            let mut old = path.as_os_str().to_owned();
            old.push(".old");
            let old = PathBuf::from(old);
            if old.exists() {
                std::fs::remove_dir_all(&old)?;
            }
            std::fs::rename(path, &old)?;
        }
        std::fs::create_dir_all(path)?;
        Ok(OutDir { path: path.to_path_buf() })
    }

    /// Writes `name` atomically (a temporary file renamed into place).
    pub fn write(&self, name: &str, content: &[u8]) -> std::io::Result<PathBuf> {
        let dest = self.path.join(name);
        let mut tmp = tempfile::NamedTempFile::new_in(&self.path)?;
        std::io::Write::write_all(&mut tmp, content)?;
        tmp.persist(&dest).map_err(|e| e.error)?;
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
        let first = OutDir::prepare(&out).unwrap();
        first.write("report.json", b"1").unwrap();
        let second = OutDir::prepare(&out).unwrap();
        second.write("report.json", b"2").unwrap();
        assert_eq!(
            std::fs::read_to_string(d.path().join(".abex/out.old/report.json")).unwrap(),
            "1"
        );
        assert_eq!(std::fs::read_to_string(out.join("report.json")).unwrap(), "2");
        assert!(std::fs::read_to_string(d.path().join(".abex/.gitignore")).unwrap().contains('*'));
    }
}
