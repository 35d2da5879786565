//! The safety contract for anything abex runs from the user's project (builds, harness workers,
//! tests of mutants): secrets are removed from the environment, and workers get a memory limit.

use std::process::Command;

/// Whether an environment variable holds a secret that code under test must not see.
pub fn is_secret(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    const EXACT: &[&str] = &["GITHUB_TOKEN", "GH_TOKEN", "ABEX_API_KEY", "OPENAI_API_KEY"];
    const SUFFIXES: &[&str] = &[
        "_TOKEN",
        "_API_KEY",
        "_APIKEY",
        "_SECRET",
        "_SECRET_KEY",
        "_SECRET_ACCESS_KEY",
        "_PASSWORD",
    ];
    EXACT.contains(&n.as_str())
        || SUFFIXES.iter().any(|s| n.ends_with(s))
        || n.starts_with("ACTIONS_ID_TOKEN")
        || n.starts_with("ACTIONS_RUNTIME")
}

/// Removes every secret from the environment `cmd` will run with.
pub fn scrub_env(cmd: &mut Command) {
    scrub(cmd, std::env::vars_os().map(|(name, _)| name));
}

/// Removes from `cmd`'s environment every variable of `names` that is a secret, whether it is
/// inherited or was set on `cmd`.
fn scrub(cmd: &mut Command, names: impl IntoIterator<Item = std::ffi::OsString>) {
    for name in names {
        if is_secret(&name.to_string_lossy()) {
            cmd.env_remove(&name);
        }
    }
}

/// Limits the address space of the process `cmd` starts to `bytes` (Linux and other Unixes).
#[cfg(unix)]
pub fn limit_memory(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec; it only calls setrlimit,
    // which is async-signal-safe, and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            let lim =
                libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Starts `cmd` in a process group of its own, so that [`kill_group`] stops it and everything
/// it started (cargo's rustdoc, a test's own children).
#[cfg(unix)]
pub fn own_group(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

/// Kills the process group led by `child` (see [`own_group`]), then reaps `child`.
#[cfg(unix)]
pub fn kill_group(child: &mut std::process::Child) {
    // SAFETY: kill(2) with a negative pid signals the process group; no memory is involved.
    unsafe {
        libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Without process groups, only the child itself is started apart.
#[cfg(not(unix))]
pub fn own_group(_cmd: &mut Command) {}

/// Without process groups, only the child itself is killed.
#[cfg(not(unix))]
pub fn kill_group(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// No memory limit where the platform has no `setrlimit`.
#[cfg(not(unix))]
pub fn limit_memory(_cmd: &mut Command, _bytes: u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_api_keys_are_secrets() {
        for s in
            ["GITHUB_TOKEN", "OPENAI_API_KEY", "CARGO_REGISTRY_TOKEN", "my_api_key", "DB_PASSWORD"]
        {
            assert!(is_secret(s), "{s}");
        }
        for s in ["PATH", "HOME", "CARGO_TARGET_DIR", "TOKENIZERS_PARALLELISM", "RUST_LOG"] {
            assert!(!is_secret(s), "{s}");
        }
    }

    #[test]
    fn a_scrubbed_child_sees_no_secret() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo \"${ABEX_TEST_SECRET_TOKEN-unset} ${ABEX_TEST_PLAIN-unset}\""]);
        cmd.env("ABEX_TEST_SECRET_TOKEN", "s3cr3t").env("ABEX_TEST_PLAIN", "kept");
        scrub(&mut cmd, ["ABEX_TEST_SECRET_TOKEN".into(), "ABEX_TEST_PLAIN".into()]);
        let out = cmd.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "unset kept");
    }
}
