//! The safety contract for anything abex runs from the user's project (builds, harness workers,
//! tests of mutants): an allowlisted environment, and workers get a memory limit, with no more
//! of them at once than the machine's memory holds ([`jobs_within`]).
//!
//! A child inherits only the variables a build or a test run needs ([`passes`]: `PATH`, `HOME`,
//! the locale, the toolchains' own `CARGO_*`, `RUST*`, `PYTHON*`, compilers' flags, abex's own
//! `ABEX_*`, and the names the user lists in `ABEX_PASS_ENV`), and never one that looks like a
//! secret by its name (`*_TOKEN`, `*_KEY`, `*_SECRET`, `*_PASSWORD`, `*_PAT`, `*_CREDENTIALS`,
//! the runner's `ACTIONS_*`) or carries credentials in its value (a URL with user info,
//! `https://user:pass@host`). A deny-list alone misses what nobody thought of; this passes only
//! what is known to be needed.

use std::process::Command;

/// Variables every child gets when set.
const PASS: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "PWD",
    "HOSTNAME",
    "CI",
    "GITHUB_ACTIONS",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLUMNS",
    "LINES",
    "SOURCE_DATE_EPOCH",
    "LD_LIBRARY_PATH",
    "DYLD_LIBRARY_PATH",
    "DYLD_FALLBACK_LIBRARY_PATH",
    "LIBRARY_PATH",
    "CPATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
    "CC",
    "CXX",
    "AR",
    "LD",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "MAKEFLAGS",
    "PKG_CONFIG",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "MACOSX_DEPLOYMENT_TARGET",
    "SDKROOT",
    "DEVELOPER_DIR",
    "SYSTEMROOT",
    "SystemRoot",
    "COMSPEC",
    "PATHEXT",
    "WINDIR",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
];

/// Prefixes of the variables every child gets: the locale, the toolchains' and abex's own.
const PASS_PREFIXES: &[&str] = &[
    "LC_",
    "XDG_",
    "CARGO_",
    "RUSTUP_",
    "RUST",
    "PYTHON",
    "PYTEST_",
    "ABEX_",
    "CC_",
    "CXX_",
    "AR_",
    "CFLAGS_",
    "CXXFLAGS_",
    "TARGET_",
    "HOST_",
    "PKG_CONFIG_",
    "COVERAGE_",
];

/// Whether an environment variable's name says it holds a secret: no child gets it, whatever
/// else allows it.
pub fn is_secret(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    const EXACT: &[&str] = &["GITHUB_TOKEN", "GH_TOKEN", "ABEX_API_KEY", "OPENAI_API_KEY"];
    const SUFFIXES: &[&str] = &[
        "_TOKEN",
        "_KEY",
        "_APIKEY",
        "_SECRET",
        "_PASSWORD",
        "_PASSWD",
        "_PAT",
        "_CREDENTIALS",
        "_CREDENTIAL",
        "_AUTH",
        "_COOKIE",
    ];
    EXACT.contains(&n.as_str())
        || SUFFIXES.iter().any(|s| n.ends_with(s))
        || ["TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"].iter().any(|w| n.contains(w))
        || n.starts_with("ACTIONS_")
}

/// Whether `value` holds credentials: a URL with user info (`scheme://user:pass@host`,
/// `https://token@host`).
fn has_credentials(value: &str) -> bool {
    value.split("://").skip(1).any(|rest| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority.contains('@')
    })
}

/// Whether a child may inherit the variable `name` with `value`: it is on the allowlist or in
/// `extra` (`ABEX_PASS_ENV`), its name does not say secret, and its value holds no credentials.
pub fn passes(name: &str, value: &str, extra: &[&str]) -> bool {
    let listed = PASS.contains(&name)
        || PASS_PREFIXES.iter().any(|p| name.starts_with(p))
        || extra.contains(&name);
    listed && !is_secret(name) && !has_credentials(value)
}

/// Leaves `cmd` only the environment [`passes`] allows, of the variables this process has and
/// of those set on `cmd`. `ABEX_PASS_ENV` (read as abex read it at start, `secrets::var`) names
/// further variables the project's tests need (`DJANGO_SETTINGS_MODULE,DATABASE_NAME`), still
/// subject to the secret and credential rules.
pub fn scrub_env(cmd: &mut Command) {
    let extra = crate::secrets::var("ABEX_PASS_ENV").unwrap_or_default();
    let extra: Vec<&str> =
        extra.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()).collect();
    let inherited = std::env::vars_os().map(|(n, v)| (n, Some(v)));
    let set: Vec<_> =
        cmd.get_envs().map(|(n, v)| (n.to_owned(), v.map(|v| v.to_owned()))).collect();
    scrub(cmd, inherited.chain(set), &extra);
}

/// Leaves `cmd` the environment of this process and of `cmd` minus every secret: names that
/// [`is_secret`] and values with credentials. For the runner of a pytest session's own tests:
/// that session already ran the project's code (its `conftest.py`, its tests) with this very
/// environment, so an allowlist there would withhold nothing from the project, and the tests
/// abex runs would see another environment than the user's (a `DJANGO_SETTINGS_MODULE`, a
/// variable a fixture reads) and let mutants through that the user's session kills.
pub fn drop_secrets(cmd: &mut Command) {
    let inherited = std::env::vars_os().map(|(n, v)| (n, Some(v)));
    let set: Vec<_> =
        cmd.get_envs().map(|(n, v)| (n.to_owned(), v.map(|v| v.to_owned()))).collect();
    for (name, value) in inherited.chain(set) {
        let Some(value) = value else { continue };
        if is_secret(&name.to_string_lossy()) || has_credentials(&value.to_string_lossy()) {
            cmd.env_remove(&name);
        }
    }
}

/// Removes from `cmd`'s environment every variable of `vars` that may not pass.
fn scrub(
    cmd: &mut Command,
    vars: impl IntoIterator<Item = (std::ffi::OsString, Option<std::ffi::OsString>)>,
    extra: &[&str],
) {
    for (name, value) in vars {
        let Some(value) = value else { continue };
        if !passes(&name.to_string_lossy(), &value.to_string_lossy(), extra) {
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
    pass_fds(cmd, &[(fd, target)]);
}

/// [`pass_fd`] for several files at once, `(fd, target)` each: every `fd` is first copied
/// above the targets, so that no target overwrites an `fd` still to be given (a runner's
/// twins' pipes).
#[cfg(unix)]
pub fn pass_fds(cmd: &mut Command, fds: &[(std::os::fd::RawFd, std::os::fd::RawFd)]) {
    use std::os::unix::process::CommandExt;
    if fds.is_empty() {
        return;
    }
    let fds = fds.to_vec();
    let above = fds.iter().map(|&(_, t)| t).max().unwrap_or(0) + 1;
    // The copies' numbers, filled in the child (allocated here, before the fork).
    let mut copies = vec![0 as libc::c_int; fds.len()];
    // SAFETY: the closure runs in the child between fork and exec; it only calls fcntl and
    // dup2, which are async-signal-safe, and allocates nothing (it writes into `copies`).
    unsafe {
        cmd.pre_exec(move || {
            for (copy, &(fd, _)) in copies.iter_mut().zip(&fds) {
                *copy = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, above);
                if *copy == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            // dup2 clears close-on-exec on the target; the copies keep it and go at exec.
            for (&copy, &(_, target)) in copies.iter().zip(&fds) {
                if libc::dup2(copy, target) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
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

/// See [`pipe`].
#[cfg(not(unix))]
pub fn pass_fds(_cmd: &mut Command, _fds: &[(i32, i32)]) {}

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
    fn tokens_keys_and_credentials_are_secrets() {
        for s in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "CARGO_REGISTRY_TOKEN",
            "my_api_key",
            "DB_PASSWORD",
            "STRIPE_KEY",
            "NPM_PAT",
            "GCP_CREDENTIALS",
            "ACTIONS_RUNTIME_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(is_secret(s), "{s}");
        }
        for s in ["PATH", "HOME", "CARGO_TARGET_DIR", "RUST_LOG", "PYTHONPATH"] {
            assert!(!is_secret(s), "{s}");
        }
        assert!(has_credentials("postgres://app:hunter2@db:5432/x"));
        assert!(has_credentials("https://ghp_x@github.com/o/r.git"));
        assert!(!has_credentials("https://example.com/a@b"));
    }

    #[test]
    fn a_sessions_runner_keeps_its_environment_but_no_secret() {
        let mut cmd = Command::new("true");
        cmd.env("FIXTURE_DIR", "/data")
            .env("DEPLOY_TOKEN", "t")
            .env("DATABASE_URL", "postgres://app:hunter2@db/x");
        drop_secrets(&mut cmd);
        let envs: std::collections::BTreeMap<_, _> =
            cmd.get_envs().map(|(n, v)| (n.to_string_lossy().into_owned(), v.is_some())).collect();
        assert_eq!(envs.get("FIXTURE_DIR"), Some(&true), "a variable the tests read stays");
        assert_eq!(envs.get("DEPLOY_TOKEN"), Some(&false), "a secret by its name goes");
        assert_eq!(envs.get("DATABASE_URL"), Some(&false), "credentials in the value go");
    }

    #[test]
    fn only_listed_variables_pass_and_never_a_secret_or_a_url_with_credentials() {
        assert!(passes("PATH", "/usr/bin", &[]));
        assert!(passes("RUSTFLAGS", "-C opt-level=1", &[]));
        assert!(passes("ABEX_MUTANT", "3", &[]));
        assert!(!passes("SOME_VARIABLE", "x", &[]), "not listed");
        assert!(passes("DJANGO_SETTINGS_MODULE", "site.settings", &["DJANGO_SETTINGS_MODULE"]));
        assert!(!passes("ABEX_API_KEY", "sk", &[]), "a secret by its name");
        assert!(!passes("CARGO_REGISTRIES_X_TOKEN", "t", &[]));
        assert!(!passes("MY_PAT", "t", &["MY_PAT"]), "listing a secret does not pass it");
        let url = "https://user:pass@registry.test/index";
        assert!(!passes("CARGO_REGISTRIES_X_INDEX", url, &[]), "credentials in the value");
    }

    #[test]
    fn a_scrubbed_child_sees_no_secret() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo \"${ABEX_TEST_SECRET_TOKEN-unset} ${ABEX_TEST_PLAIN-unset}\""]);
        cmd.env("ABEX_TEST_SECRET_TOKEN", "s3cr3t").env("ABEX_TEST_PLAIN", "kept");
        let vars = [("ABEX_TEST_SECRET_TOKEN", "s3cr3t"), ("ABEX_TEST_PLAIN", "kept")];
        scrub(&mut cmd, vars.map(|(n, v)| (n.into(), Some(v.into()))), &[]);
        let out = cmd.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "unset kept");
    }
}
