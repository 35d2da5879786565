//! What a function's result depends on beyond its own text, as parts of its results-cache key
//! (`pipeline/run.rs` joins them, `fingerprint::key` hashes them): the files of a folder
//! ([`tree`]: every file a scratch copy would copy, so a constant, a helper, a type, `build.rs`,
//! the manifests and the lock file all count), single files that may be missing ([`files`]),
//! what a tool says of itself ([`output`]: the toolchain or interpreter version), and the
//! environment variables that change a result ([`env`]: every `ABEX_*` knob, which no list has
//! to keep up with, and the language's own). A secret never enters a key.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The fingerprint of the files under `dirs` (each listed as a scratch copy lists them:
/// `.gitignore` honoured, build output, VCS data and `.abex/` left out, and `skip` too) that
/// `keep` keeps (given each one's path relative to its folder): each file's path relative to
/// `root` and its bytes. A file that cannot be read counts as its error.
pub fn tree(
    root: &Path,
    dirs: &[PathBuf],
    skip: &[PathBuf],
    keep: impl Fn(&Path) -> bool,
) -> String {
    tree_without(root, dirs, skip, keep, &[])
}

/// [`tree`] with the byte ranges `left_out` (a file's absolute path, start, end) removed from
/// their files' bytes first: the bodies of functions whose own text counts apart.
pub fn tree_without(
    root: &Path,
    dirs: &[PathBuf],
    skip: &[PathBuf],
    keep: impl Fn(&Path) -> bool,
    left_out: &[(PathBuf, usize, usize)],
) -> String {
    let cut = |path: &Path, mut bytes: Vec<u8>| {
        let mut ranges: Vec<(usize, usize)> =
            left_out.iter().filter(|(p, ..)| p == path).map(|(_, a, b)| (*a, *b)).collect();
        // From the last, so that the earlier offsets still hold; overlapping ones are skipped.
        ranges.sort_unstable_by(|x, y| y.cmp(x));
        let mut end = usize::MAX;
        for (a, b) in ranges {
            if a <= b && b <= bytes.len() && b <= end {
                bytes.drain(a..b);
                end = a;
            }
        }
        bytes
    };
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut dirs: Vec<&PathBuf> = dirs.iter().collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        let rel = dir.strip_prefix(root).unwrap_or(dir);
        parts.push(format!("dir {}", rel.display()).into_bytes());
        match crate::scratch::list_files(dir, skip) {
            Ok(listed) => {
                for f in listed.into_iter().filter(|f| keep(f)) {
                    parts.push(rel.join(&f).display().to_string().into_bytes());
                    let path = dir.join(&f);
                    parts.push(std::fs::read(&path).map_or_else(|e| error(&e), |b| cut(&path, b)));
                }
            }
            Err(e) => parts.push(error(&e)),
        }
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    crate::fingerprint::key(&refs)
}

fn error(e: &dyn std::fmt::Display) -> Vec<u8> {
    format!("unreadable: {e}").into_bytes()
}

/// The fingerprint of `paths`, each with its bytes or its absence (a config file that may or
/// may not be there).
pub fn files(paths: &[PathBuf]) -> String {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for p in paths {
        parts.push(p.display().to_string().into_bytes());
        parts.push(std::fs::read(p).unwrap_or_else(|_| b"(absent)".to_vec()));
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    crate::fingerprint::key(&refs)
}

/// What `program args` prints (stdout, then stderr, then its status) when run in `cwd` with
/// secrets removed from its environment: `rustc -vV`, the interpreter's version and packages.
/// A program that cannot start gives its error, which is as good a key.
pub fn output(program: &Path, args: &[&str], cwd: &Path) -> String {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd).stdin(Stdio::null());
    crate::safety::scrub_env(&mut cmd);
    match cmd.output() {
        Ok(o) => format!(
            "{}\n{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
            o.status
        ),
        Err(e) => format!("`{}` did not start: {e}", program.display()),
    }
}

/// The environment variables that change a result, sorted, as `NAME=value` lines: every
/// `ABEX_*` one and those `wanted` says are the language's (`RUSTFLAGS`…), never a secret.
pub fn env(wanted: impl Fn(&str) -> bool) -> String {
    let vars = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())));
    env_of(vars, wanted)
}

fn env_of(vars: impl Iterator<Item = (String, String)>, wanted: impl Fn(&str) -> bool) -> String {
    let mut lines: Vec<String> = vars
        .filter(|(k, _)| (k.starts_with("ABEX_") || wanted(k)) && !crate::safety::is_secret(k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    lines.sort();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_without_ranges_is_the_same_whatever_those_ranges_hold() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("lib.rs");
        let fp = |text: &str, ranges: &[(usize, usize)]| {
            std::fs::write(&file, text).unwrap();
            let cut: Vec<(PathBuf, usize, usize)> =
                ranges.iter().map(|&(a, b)| (file.clone(), a, b)).collect();
            tree_without(d.path(), &[d.path().to_path_buf()], &[], |_| true, &cut)
        };
        // Two bodies left out: what they hold does not count; what is around them does.
        let a = fp("fn f() { 1 } fn g() { 2 }", &[(7, 12), (20, 25)]);
        let b = fp("fn f() { 10 } fn g() { 2 }", &[(7, 13), (21, 26)]);
        assert_eq!(a, b);
        assert_ne!(a, fp("fn f() { 1 } fn h() { 2 }", &[(7, 12), (20, 25)]));
        assert_eq!(
            fp("fn f() { 1 }", &[]),
            tree(d.path(), &[d.path().to_path_buf()], &[], |_| true)
        );
    }

    #[test]
    fn a_tree_s_fingerprint_changes_with_any_file_it_copies_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "const LIMIT: i64 = 100;").unwrap();
        std::fs::write(root.join("Cargo.lock"), "version = 3").unwrap();
        let fp = || tree(root, &[root.to_path_buf()], &[], |_| true);
        let first = fp();
        assert_eq!(first, fp());
        std::fs::write(root.join("Cargo.lock"), "version = 4").unwrap();
        let second = fp();
        assert_ne!(first, second);
        std::fs::write(root.join("src/lib.rs"), "const LIMIT: i64 = 10;").unwrap();
        assert_ne!(second, fp());
        let third = fp();
        // Build output and abex's own folder are not the project's.
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join("target/x"), "1").unwrap();
        std::fs::create_dir_all(root.join(".abex/cache")).unwrap();
        std::fs::write(root.join(".abex/cache/y"), "1").unwrap();
        assert_eq!(third, fp());
        // What `keep` leaves out does not count.
        let rust = |f: &Path| f.extension().is_some_and(|e| e == "rs");
        let code = tree(root, &[root.to_path_buf()], &[], rust);
        std::fs::write(root.join("Cargo.lock"), "version = 5").unwrap();
        assert_eq!(code, tree(root, &[root.to_path_buf()], &[], rust));
    }

    #[test]
    fn knobs_are_in_the_environment_part_and_secrets_are_not() {
        let vars = [
            ("ABEX_SHRINK", "off"),
            ("ABEX_API_KEY", "sk-secret"),
            ("RUSTFLAGS", "-Cdebuginfo=0"),
            ("HOME", "/root"),
            ("ABEX_THRESHOLDS", "off"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let lines = env_of(vars.into_iter(), |k| k == "RUSTFLAGS");
        assert_eq!(lines, "ABEX_SHRINK=off\nABEX_THRESHOLDS=off\nRUSTFLAGS=-Cdebuginfo=0");
        assert_ne!(files(&[PathBuf::from("/no/such/file")]), files(&[]));
    }
}
