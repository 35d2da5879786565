//! Helpers shared by the integration tests: fixture projects copied into temp dirs and turned
//! into git repositories, and snapshots of a tree to prove that abex leaves it untouched.

#![allow(dead_code)]

pub mod fake_llm;
pub mod llama;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's `tests/fixtures` folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|p| p.join("tests/fixtures").is_dir())
        .expect("tests/fixtures")
        .join("tests/fixtures")
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let (from, to) = (entry.path(), dst.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "target" && entry.file_name() != ".abex" {
                copy_dir(&from, &to);
            }
        } else {
            std::fs::copy(&from, &to).unwrap();
        }
    }
}

/// Runs git in `dir`, panicking with its output on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=abex",
            "-c",
            "user.email=abex@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A copy of fixture `name` in a new temp dir, committed on branch `main` of a fresh repository.
pub fn project(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    copy_dir(&fixtures().join(name), &dir);
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "fixture"]);
    (tmp, dir)
}

/// A copy of the repository's `examples/<name>` in a new temp dir, committed on branch `main`
/// of a fresh repository.
pub fn example(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    copy_dir(&fixtures().parent().unwrap().parent().unwrap().join("examples").join(name), &dir);
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "example"]);
    (tmp, dir)
}

/// Runs `bin abex ARGS` (the `cargo-abex` binary) in `dir`, panicking with its stderr on
/// failure; the report it wrote (`.abex/out/report.json`) and its text.
pub fn abex_report(bin: &str, dir: &Path, args: &[&str]) -> (serde_json::Value, String) {
    let o = Command::new(bin)
        .arg("abex")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), text)
}

/// Every file under `dir` except `.git/` and `.abex/`, with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = entry.file_name();
            if entry.file_type().unwrap().is_dir() {
                if name != ".git" && name != ".abex" {
                    walk(root, &path, out);
                }
            } else {
                out.insert(
                    path.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}
