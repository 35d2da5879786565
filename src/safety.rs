//! The safety contract for anything abex runs from the user's project (builds, harness workers,
//! tests of mutants): secrets are removed from the environment, and workers get a memory limit,
//! with no more of them at once than the machine's memory holds ([`jobs_within`]).

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

/// The machine's memory in bytes (`MemTotal` of `/proc/meminfo`), where it can be read.
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_total(&text)
}

fn meminfo_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemTotal:"))?;
    let kb: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb << 10)
}

/// How many children limited to `limit` bytes each may run at once within `total` bytes of
/// memory: `jobs`, or as many as fit (at least one). The run's total bound: `jobs × limit`
/// never exceeds the machine's memory (with no limit or no known total, `jobs`).
pub fn jobs_within(jobs: usize, limit: Option<u64>, total: Option<u64>) -> usize {
    match (limit, total) {
        (Some(limit), Some(total)) if limit > 0 => jobs.min((total / limit) as usize).max(1),
        _ => jobs,
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

/// A pipe, both ends close-on-exec: `(read end, write end)`.
#[cfg(unix)]
pub fn pipe() -> std::io::Result<(std::fs::File, std::fs::File)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 (pipe) writes two new descriptors into `fds`; nothing else owns them.
    #[cfg(target_os = "linux")]
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    #[cfg(not(target_os = "linux"))]
    let rc = unsafe {
        let rc = libc::pipe(fds.as_mut_ptr());
        for fd in fds {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
        rc
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: each descriptor is new and owned by exactly one `File` from here on.
    Ok(unsafe { (std::fs::File::from_raw_fd(fds[0]), std::fs::File::from_raw_fd(fds[1])) })
}

/// Gives the process `cmd` starts the open file `fd` as its file descriptor `target` (`fd`
/// itself may be close-on-exec: the child's copy is not). The pipe a worker answers on.
#[cfg(unix)]
pub fn pass_fd(cmd: &mut Command, fd: std::os::fd::RawFd, target: std::os::fd::RawFd) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec; it only calls dup2 and
    // fcntl, which are async-signal-safe, and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if fd == target {
                // dup2 onto itself keeps close-on-exec: clear it.
                if libc::fcntl(target, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            } else if libc::dup2(fd, target) == -1 {
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

/// No pipes handed to children where the platform has no file descriptors to hand.
#[cfg(not(unix))]
pub fn pipe() -> std::io::Result<(std::fs::File, std::fs::File)> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "abex's workers need a Unix"))
}

/// See [`pipe`].
#[cfg(not(unix))]
pub fn pass_fd(_cmd: &mut Command, _fd: i32, _target: i32) {}

/// No memory limit where the platform has no `setrlimit`.
#[cfg(not(unix))]
pub fn limit_memory(_cmd: &mut Command, _bytes: u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_times_the_memory_limit_stays_within_the_machine_s_memory() {
        let gib = 1u64 << 30;
        assert_eq!(jobs_within(8, Some(4 * gib), Some(24 * gib)), 6);
        assert_eq!(jobs_within(2, Some(4 * gib), Some(24 * gib)), 2);
        assert_eq!(jobs_within(4, Some(32 * gib), Some(24 * gib)), 1);
        assert_eq!(jobs_within(4, None, Some(gib)), 4);
        assert_eq!(jobs_within(4, Some(gib), None), 4);
        let meminfo = "MemTotal:       24683792 kB\nMemFree:         1078932 kB\n";
        assert_eq!(meminfo_total(meminfo), Some(24683792 << 10));
    }

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
