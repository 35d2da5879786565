//! The identity of this build's sources: a hash of every file under `src/` and `prompts/`,
//! which the results cache keys carry (`pipeline/run.rs`), so that a result computed by one
//! build of abex is never taken for another's of the same version (a build from a git
//! checkout, a fix between releases).

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut all = Vec::new();
    for dir in ["src", "prompts"] {
        println!("cargo:rerun-if-changed={dir}");
        files(&root.join(dir), &mut all);
    }
    all.sort();
    // FNV-1a, 64 bits: an identity, not a defence (the version is in every key too).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for f in &all {
        let rel = f.strip_prefix(&root).unwrap_or(f);
        eat(rel.to_string_lossy().as_bytes());
        eat(&[0]);
        eat(&std::fs::read(f).unwrap_or_default());
        eat(&[0]);
    }
    println!("cargo:rustc-env=ABEX_SOURCE_ID={h:016x}");
}
