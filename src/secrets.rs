//! The secrets abex itself uses (the GitHub token, the model's key), kept out of the process's
//! environment so that the project's code never finds them there.
//!
//! [`withhold`] moves them from the environment into the process's memory, where only [`var`]
//! reads them: `cargo abex` calls it first thing, the pytest plugin before any `conftest.py` is
//! imported. On Linux it also wipes them from the environment block the process started with,
//! which `/proc/<pid>/environ` shows to any process of the same user (unsetting a variable
//! leaves that block as it was). Every child process then starts without them, and
//! `safety::child_env` gives the processes abex runs an allowlisted environment.
//!
//! [`withhold`] also takes a snapshot of the settings that say where a key goes (`ABEX_BASE_URL`,
//! `ABEX_MODEL`, `ABEX_PRICES`) and what children see (`ABEX_PASS_ENV`): [`var`] reads them from
//! the snapshot, so code that changes the
//! environment later in the same process (a `conftest.py` setting `os.environ`) redirects
//! nothing. Each call replaces the store and the snapshot with what the environment holds then
//! (a pytest session run inside another's test starts from its own environment); nothing hands
//! a withheld secret back.
//!
//! What remains: a withheld secret still lives in the memory of the process holding it, and code
//! running in that process (a `conftest.py` under `pytest --abex`) can read that memory. For an
//! untrusted pull request, give the run no secret at all (`docs/ci.md`, "Threat model").

use std::collections::BTreeMap;
use std::sync::Mutex;

/// The variables abex reads that hold a secret: the ones [`withhold`] takes.
pub const NAMES: &[&str] = &["GITHUB_TOKEN", "GH_TOKEN", "ABEX_API_KEY", "OPENAI_API_KEY"];

/// The variables that say where a key goes, what it may spend and what the project's code may
/// see: [`withhold`] keeps a snapshot of them (and leaves them in the environment).
pub const SETTINGS: &[&str] = &["ABEX_BASE_URL", "ABEX_MODEL", "ABEX_PRICES", "ABEX_PASS_ENV"];

/// The withheld secrets and the settings' snapshot; `None` until [`withhold`] is called.
static WITHHELD: Mutex<Option<BTreeMap<String, String>>> = Mutex::new(None);

/// Moves the variables of [`NAMES`] that are set from the environment into the process's memory
/// (read back with [`var`]), wipes them from the environment block the process started with,
/// and takes the snapshot of [`SETTINGS`]; what an earlier call kept is dropped. Returns the
/// names it took. Call it while the process runs a single thread (first thing in `main`, or from
/// Python before the project's code is imported): changing the environment races with other
/// threads reading it.
pub fn withhold() -> Vec<String> {
    let mut taken = Vec::new();
    let mut kept = BTreeMap::new();
    for name in SETTINGS {
        if let Ok(value) = std::env::var(name) {
            kept.insert((*name).to_string(), value);
        }
    }
    for name in NAMES {
        let Some(value) = std::env::var_os(name) else { continue };
        kept.insert((*name).to_string(), value.to_string_lossy().into_owned());
        std::env::remove_var(name);
        taken.push((*name).to_string());
    }
    if !taken.is_empty() {
        wipe_initial_environment(&taken);
    }
    *WITHHELD.lock().unwrap_or_else(|e| e.into_inner()) = Some(kept);
    taken
}

/// A variable's value: once [`withhold`] was called, a secret or a setting of [`SETTINGS`] comes
/// from what it kept; any other variable (and any before the call) from the environment.
pub fn var(name: &str) -> Option<String> {
    let kept = WITHHELD.lock().unwrap_or_else(|e| e.into_inner());
    match kept.as_ref() {
        Some(k) if NAMES.contains(&name) || SETTINGS.contains(&name) => k.get(name).cloned(),
        _ => std::env::var(name).ok(),
    }
}

/// Overwrites with NUL bytes every `NAME=value` entry of `names` in the environment block the
/// process was started with (the memory between `env_start` and `env_end` of
/// `/proc/self/stat`, which `/proc/self/environ` reads).
#[cfg(target_os = "linux")]
fn wipe_initial_environment(names: &[String]) {
    let Some((start, end)) = initial_environment() else { return };
    // SAFETY: [start, end) is the environment block the kernel placed on this process's stack
    // at exec; it stays mapped and writable for the process's life. The entries of `names` were
    // removed from `environ` before this call, so nothing reads these bytes any more.
    let block = unsafe { std::slice::from_raw_parts_mut(start as *mut u8, end - start) };
    let mut at = 0;
    while at < block.len() {
        let len = block[at..].iter().position(|&b| b == 0).unwrap_or(block.len() - at);
        let entry = &block[at..at + len];
        let secret = names.iter().any(|n| {
            entry.len() > n.len() && entry.starts_with(n.as_bytes()) && entry[n.len()] == b'='
        });
        if secret {
            block[at..at + len].fill(0);
        }
        at += len + 1;
    }
}

/// Nothing to wipe where no other process can read the environment block.
#[cfg(not(target_os = "linux"))]
fn wipe_initial_environment(_names: &[String]) {}

/// `env_start` and `env_end` of `/proc/self/stat` (fields 50 and 51, counted after the command
/// name, which may hold spaces and ends at the last `)`).
#[cfg(target_os = "linux")]
fn initial_environment() -> Option<(usize, usize)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Fields from the 3rd on: `env_start` is the 50th, so the 48th of these.
    let mut fields = after_name.split_whitespace().skip(47);
    let start: usize = fields.next()?.parse().ok()?;
    let end: usize = fields.next()?.parse().ok()?;
    (start != 0 && end > start).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set in the child process of [`a_withheld_secret_leaves_the_environment_and_proc_environ`].
    const CHILD: &str = "ABEX_SECRETS_TEST_CHILD";

    #[test]
    fn child_withholds_and_reports() {
        if std::env::var_os(CHILD).is_none() {
            return; // runs only as the child of the test below
        }
        let taken = withhold();
        let environ = std::fs::read("/proc/self/environ").unwrap_or_default();
        let leaked = environ.windows(8).any(|w| w == b"s3cr3t-k");
        let child = std::process::Command::new("sh")
            .args(["-c", "echo ${ABEX_API_KEY-unset}"])
            .output()
            .unwrap();
        println!(
            "RESULT taken={taken:?} leaked={leaked} var={:?} env={:?} child={}",
            var("ABEX_API_KEY"),
            std::env::var("ABEX_API_KEY").ok(),
            String::from_utf8_lossy(&child.stdout).trim(),
        );
    }

    /// Runs the test `name` of this binary as a child with `ABEX_API_KEY=key` and no other
    /// secret; returns what it printed after `RESULT`.
    fn run_child(name: &str, key: &str) -> String {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--nocapture", "--test-threads", "1"])
            .env(CHILD, "1")
            .env("ABEX_API_KEY", key)
            .env_remove("GITHUB_TOKEN")
            .env_remove("GH_TOKEN")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        stdout.lines().find_map(|l| l.split_once("RESULT")).expect(&stdout).1.to_string()
    }

    #[test]
    fn a_withheld_secret_leaves_the_environment_and_proc_environ() {
        let line = run_child("secrets::tests::child_withholds_and_reports", "s3cr3t-key");
        let leaked = if cfg!(target_os = "linux") { "leaked=false" } else { "leaked=" };
        assert!(line.contains("taken=[\"ABEX_API_KEY\"]"), "{line}");
        assert!(line.contains(leaked), "{line}");
        assert!(line.contains("var=Some(\"s3cr3t-key\") env=None child=unset"), "{line}");
    }

    #[test]
    fn child_withholds_twice() {
        if std::env::var_os(CHILD).is_none() {
            return; // runs only as the child of the test below
        }
        std::env::set_var("ABEX_BASE_URL", "http://trusted.test/v1");
        withhold();
        // The process's own code changes the environment after the snapshot.
        std::env::set_var("ABEX_BASE_URL", "http://evil.test/v1");
        let first = (var("ABEX_API_KEY"), var("ABEX_BASE_URL"));
        let again = withhold();
        println!("RESULT first={first:?} again={again:?} key={:?}", var("ABEX_API_KEY"));
    }

    #[test]
    fn the_settings_are_a_snapshot_and_a_second_withhold_hands_nothing_back() {
        let line = run_child("secrets::tests::child_withholds_twice", "k");
        assert_eq!(
            line.trim(),
            r#"first=(Some("k"), Some("http://trusted.test/v1")) again=[] key=None"#
        );
    }

    #[test]
    fn a_variable_not_withheld_comes_from_the_environment() {
        assert_eq!(var("PATH"), std::env::var("PATH").ok());
        assert_eq!(var("ABEX_SECRETS_TEST_NEVER_SET"), None);
    }
}
