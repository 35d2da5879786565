//! One atomic file write, used wherever abex writes a file another process may read at the same
//! time (the results cache, the output folder, suggested tests written into the project).

use std::path::Path;

/// Writes `bytes` to `path` atomically (a temporary file in the same folder, then a rename), so
/// a concurrent reader sees the old file or the new one, never a torn one. The folder is created.
/// Every error names the path it is about.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs_err::create_dir_all(dir)?;
    // `tempfile` names the temporary file in its creation and write errors, not in a rename's.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| {
        let what =
            format!("failed to rename a temporary file to `{}`: {}", path.display(), e.error);
        std::io::Error::new(e.error.kind(), what)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_path() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("file"), "x").unwrap();
        let target = d.path().join("file").join("entry.json");
        let e = write(&target, b"{}").unwrap_err();
        let folder = d.path().join("file").display().to_string();
        assert!(e.to_string().contains(&folder), "{e}");
        write(&d.path().join("sub").join("entry.json"), b"{}").unwrap();
        let text = std::fs::read_to_string(d.path().join("sub").join("entry.json")).unwrap();
        assert_eq!(text, "{}");
    }
}
