//! The files GitHub Actions reads from a step: the job summary (`GITHUB_STEP_SUMMARY`, Markdown,
//! at most 1 MiB per step or GitHub drops it) and the step outputs (`GITHUB_OUTPUT`).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use super::post::Posted;
use crate::report::Report;

/// GitHub's cap on one step's summary.
pub const MAX_STEP_SUMMARY_BYTES: usize = 1 << 20;

/// The number of real gaps (witnessed survivors) in `report`.
pub fn findings_count(report: &Report) -> usize {
    report.targets.iter().filter_map(|t| t.mutation.as_ref()).map(|m| m.counts.witnessed).sum()
}

/// The job summary: the run's `summary.md` and what posting did (or why it did not).
pub fn step_summary(report: &Report, posting: Option<&Result<Posted, String>>) -> String {
    let mut out = crate::render::markdown::render(report);
    let Some(posting) = posting else { return out };
    out.push_str("\n### Review\n\n");
    match posting {
        Ok(p) => {
            let _ = writeln!(
                out,
                "{} comment(s) posted ({} finding(s)), {} updated, {} closed, {} unchanged.",
                p.created, p.placed, p.updated, p.closed, p.unchanged
            );
            for (title, why) in &p.in_body {
                let _ = writeln!(out, "- in the review body ({why}): {title}");
            }
            for title in &p.suppressed {
                let _ = writeln!(out, "- suppressed by a reviewer: {title}");
            }
            for open in &p.kept_open {
                let _ = writeln!(out, "- left open, not closed: {open}");
            }
            for note in &p.notes {
                let _ =
                    writeln!(out, "- note: {}", crate::render::inert::markdown_text(note, 1_000));
            }
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "Not posted: {}\n\nThe report is intact in the artifact.",
                crate::render::inert::markdown_text(e.lines().next().unwrap_or(e), 1_000)
            );
        }
    }
    out
}

/// Appends `text` to the step summary at `path`, cut so that the file stays under 1 MiB.
pub fn append_step_summary(path: &Path, text: &str) -> std::io::Result<()> {
    let used = std::fs::metadata(path).map_or(0, |m| m.len() as usize);
    let room = MAX_STEP_SUMMARY_BYTES.saturating_sub(used);
    let note = "\n\n… *(cut at GitHub's 1 MiB limit: the full summary is `summary.md` in the report artifact)*\n";
    let text = if text.len() <= room {
        text.to_string()
    } else {
        let mut end = room.saturating_sub(note.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}{note}", &text[..end])
    };
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(text.as_bytes())
}

/// Appends `name=value` lines to the step outputs file at `path`.
pub fn write_outputs(path: &Path, outputs: &[(&str, String)]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    for (name, value) in outputs {
        writeln!(f, "{name}={}", value.replace(['\n', '\r'], " "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_summary_never_grows_past_one_mib() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("summary");
        std::fs::write(&p, "x".repeat(1000)).unwrap();
        append_step_summary(&p, &"é".repeat(MAX_STEP_SUMMARY_BYTES)).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.len() <= MAX_STEP_SUMMARY_BYTES, "{}", text.len());
        assert!(text.ends_with("in the report artifact)*\n"));
    }
}
