"""No secret reaches the project's code, run as GitHub's runner runs the Action.

A hostile project looks for the GitHub token and the model's key from every place its code runs:
for the pytest front end a `.pth` file and a `pytest11` entry point of its installed package
(both run before any plugin), its `conftest.py` and a test (in pytest itself and in abex's own
runners); for the cargo front end its `build.rs` and a test. Each looks in its own environment,
in every readable `/proc/*/environ`, in `.git/config` from its folder and the project's up to
`/`, and through the plugin's module, then tries to replace the abex binary of the job with one
that logs it ran. The analysis step runs as the runner runs it (`bash --noprofile --norc -eo
pipefail` on the step's script), with the key (a fake endpoint on loopback logs where it went)
and a token in the step's environment (a job `env:` that holds one). Nothing is found, the
replaced binary never runs, the key reaches only the workflow's endpoint, and the posting job
(its own install, as a separate job has) posts the report.

The first test is `pytest --abex` alone (no Action): the same `conftest.py` finds nothing."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import action_step
from test_action import action_env, cargo_abex, git
from test_model import FakeGitHub, FakeLlm
from test_plugin import PRICING, TESTS

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")

SECRETS = {"GITHUB_TOKEN": "ghs_probe_token_4d1f7", "ABEX_API_KEY": "sk-probe-key-93c2e"}

# The probe every hostile piece of the Python project runs: what of SECRETS it can see, and an
# attempt to replace the job's abex binary. One JSON line a probe in the log.
PROBE = '''
import json
import os
import pathlib

SECRETS = {secrets!r}
LOG = {log!r}
ABEX_BIN = {abex_bin!r}
PROJECT = {project!r}


def leaks():
    found = [f"env {{n}}" for n, v in os.environ.items() if any(s in v for s in SECRETS.values())]
    for p in pathlib.Path("/proc").glob("[0-9]*/environ"):
        try:
            block = p.read_bytes()
        except OSError:
            continue
        found += [f"{{p}} {{n}}" for n, s in SECRETS.items() if s.encode() in block]
    for start in (pathlib.Path.cwd(), pathlib.Path(PROJECT)):
        for d in [start, *start.parents]:
            try:
                text = (d / ".git" / "config").read_text()
            except OSError:
                continue
            found += [f"{{d}}/.git/config {{n}}" for n, s in SECRETS.items() if s in text]
    try:
        from pytest_abex import _core
    except ImportError:
        return found
    # Nothing in the plugin's module hands a secret back.
    words = ("secret", "release", "token", "key", "env", "var")
    found += [f"_core.{{n}}" for n in dir(_core)
              if any(w in n.lower() for w in words) and n != "withhold_secrets"]
    return found


def replace_abex():
    try:
        if os.path.lexists(ABEX_BIN):
            os.remove(ABEX_BIN)
        with open(ABEX_BIN, "w") as f:
            f.write("#!/bin/sh\\necho replaced-abex-ran \\"$*\\" >> " + LOG + "\\nexit 1\\n")
        os.chmod(ABEX_BIN, 0o755)
        return True
    except OSError:
        return False


def probe(who):
    found = leaks()
    replaced = replace_abex()
    with open(LOG, "a") as f:
        f.write(json.dumps({{"who": who, "pid": os.getpid(), "inner": bool(os.environ.get("ABEX_INNER")),
                             "found": found, "replaced": replaced}}) + "\\n")
'''

CONFTEST = "import hostile_probe\n\nhostile_probe.probe('conftest')\n"

TEST_PROBE = "import hostile_probe\n\n\ndef test_probe():\n    hostile_probe.probe('test')\n"

# The same probe in Rust, for `build.rs` and a test of a crate.
RUST_PROBE = r'''
pub fn probe(who: &str) {
    let secrets: [(&str, &str); 2] = [SECRETS];
    let mut found: Vec<String> = Vec::new();
    for (k, v) in std::env::vars() {
        if secrets.iter().any(|(_, s)| v.contains(s)) {
            found.push(format!("env {k}"));
        }
    }
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let p = e.path().join("environ");
            if let Ok(b) = std::fs::read(&p) {
                let t = String::from_utf8_lossy(&b).to_string();
                for (n, s) in secrets {
                    if t.contains(s) {
                        found.push(format!("{} {n}", p.display()));
                    }
                }
            }
        }
    }
    let here = std::env::current_dir().unwrap_or_default();
    for start in [here.as_path(), std::path::Path::new(PROJECT)] {
        let mut d = Some(start);
        while let Some(x) = d {
            if let Ok(t) = std::fs::read_to_string(x.join(".git/config")) {
                for (n, s) in secrets {
                    if t.contains(s) {
                        found.push(format!("{}/.git/config {n}", x.display()));
                    }
                }
            }
            d = x.parent();
        }
    }
    let bin = std::path::Path::new(ABEX_BIN);
    let _ = std::fs::remove_file(bin);
    let script = format!("#!/bin/sh\necho replaced-abex-ran \"$*\" >> {}\nexit 1\n", LOG);
    let replaced = std::fs::write(bin, script).is_ok();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(bin, std::fs::Permissions::from_mode(0o755));
    }
    let line = format!(
        "{{\"who\": \"{who}\", \"pid\": {}, \"found\": {:?}, \"replaced\": {replaced}}}\n",
        std::process::id(),
        found
    );
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(LOG) {
        let _ = f.write_all(line.as_bytes());
    }
}
'''


def probe_source(log, abex_bin, project):
    return PROBE.format(secrets=SECRETS, log=str(log), abex_bin=str(abex_bin), project=str(project))


def rust_probe(log, abex_bin, project):
    pairs = ", ".join(f'("{n}", "{v}")' for n, v in SECRETS.items())
    return (RUST_PROBE.replace("SECRETS", pairs).replace("PROJECT", json.dumps(str(project)))
            .replace("ABEX_BIN", json.dumps(str(abex_bin))).replace("LOG", json.dumps(str(log))))


def probes(log):
    """The log's probes, as dicts; and the lines that say a replaced binary ran."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [json.loads(l) for l in lines if l.startswith("{")], [l for l in lines if "replaced-abex-ran" in l]


def pull_request_repo(root, base_files, head_files):
    """A repository at `root` whose `main` holds `base_files` and whose checked-out head (the
    pull request, committed) holds `head_files` on top; `origin` is the repository itself."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in base_files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    git(root, "checkout", "-q", "-b", "feature")
    for name, text in head_files.items():
        (root / name).write_text(text)
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "the change")
    git(root, "remote", "add", "origin", str(root))
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()


def post_job(tmp_path, binary, project):
    """The posting job on a fresh runner (its own install) against a fake GitHub: posts the
    report the analysis wrote. Returns (the step's result, the fake, the poster's path)."""
    github = FakeGitHub()
    event = tmp_path / "post-event.json"
    event.write_text(json.dumps({"pull_request": {
        "number": 7, "head": {"sha": "a" * 40, "repo": {"full_name": "octo/shop"}},
        "base": {"sha": "b" * 40, "repo": {"full_name": "octo/shop"}}}}))
    runner = tmp_path / "post-runner"
    runner.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "ABEX_", "PYTEST_"))}
    env.update(RUNNER_TEMP=str(runner), ABEX_BINARY=binary, GITHUB_EVENT_NAME="pull_request",
               GITHUB_EVENT_PATH=str(event), GITHUB_REPOSITORY="octo/shop", GITHUB_TOKEN="gh-post-token",
               GITHUB_API_URL=github.url, ABEX_REPORT_DIR=str(project / ".abex" / "out"))
    env = action_step.install(env, tmp_path, runner)
    done = action_step.run("post", env, tmp_path, runner)
    return done, github, runner / "abex" / "bin" / "cargo-abex"


def test_a_hostile_conftest_finds_no_secret_under_pytest_abex(tmp_path):
    root, log = tmp_path / "project", tmp_path / "probe.log"
    root.mkdir()
    (root / "pricing.py").write_text(PRICING)
    (root / "test_pricing.py").write_text(TESTS)
    (root / "test_probe.py").write_text(TEST_PROBE)
    (root / "hostile_probe.py").write_text(probe_source(log, tmp_path / "no-abex-here", root))
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "ABEX_", "PYTEST_"))}
    env.update(SECRETS)
    args = ["--abex", "--abex-function", "pricing.py::bulk_discount", "--abex-offline"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "= abex =" in out, out
    seen, _ = probes(log)
    assert {p["who"] for p in seen} == {"conftest", "test"}, seen
    assert any(p["inner"] for p in seen), "abex's own runners imported the conftest too"
    assert all(p["found"] == [] for p in seen), seen
    # Without --abex the plugin leaves the environment alone: the same probe sees the secrets
    # (the probe can fail).
    log.unlink()
    subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], cwd=root, env=env,
                   capture_output=True, text=True, timeout=600)
    seen, _ = probes(log)
    assert any(p["found"] for p in seen), seen


def hostile_python_env(tmp_path, log, abex_bin, project):
    """A virtualenv whose site-packages hold a hostile installed package: a `.pth` file and a
    `pytest11` entry point that each run the probe; the test suite's own packages (pytest,
    pytest_abex) are reached through a path file. Returns its `bin` folder."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    ours = next(p for p in sys.path if p.endswith("site-packages") and Path(p, "pytest_abex").exists())
    (site / "00_suite.pth").write_text(ours + "\n")
    (site / "hostile_probe.py").write_text(probe_source(log, abex_bin, project))
    (site / "zz_hostile.pth").write_text("import hostile_probe; hostile_probe.probe('pth')\n")
    (site / "hostile_plugin.py").write_text("import hostile_probe\n\nhostile_probe.probe('pytest11')\n")
    dist = site / "hostile_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hostile-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[pytest11]\nhostile = hostile_plugin\n")
    (dist / "RECORD").write_text("")
    return venv / "bin"


def analysis_job(tmp_path):
    """The analysis job's places: the built `cargo-abex`, a copy of it for the job's install (the
    project's code may overwrite the job's binary; never the build's), the runner's temp folder,
    the project's folder, the probes' log and the path of the job's abex binary."""
    binary = cargo_abex()
    copy = tmp_path / "cargo-abex"
    shutil.copy(binary, copy)
    runner = tmp_path / "runner"
    runner.mkdir()
    return binary, copy, runner, tmp_path / "project", tmp_path / "probe.log", runner / "abex" / "bin" / "cargo-abex"


def assert_nothing_found(log, llm, kinds):
    """Every probe of `kinds` ran and found nothing, no replaced binary ran, and the key reached
    the workflow's endpoint (`llm`) alone."""
    seen, ran = probes(log)
    assert set(kinds) <= {p["who"] for p in seen}, seen
    assert all(p["found"] == [] for p in seen), json.dumps(seen, indent=1)
    assert ran == [], f"a binary the project replaced ran: {ran}"
    assert any(p["replaced"] for p in seen), "the probes could not even try"
    assert llm.authorizations, "the model was never asked"
    assert set(llm.authorizations) == {f"Bearer {SECRETS['ABEX_API_KEY']}"}, llm.authorizations
    return seen


def test_the_action_s_pytest_path_keeps_the_token_and_key_from_a_hostile_package(tmp_path):
    binary, copy, runner, project, log, abex_bin = analysis_job(tmp_path)
    venv_bin = hostile_python_env(tmp_path, log, abex_bin, project)
    files = {"pricing.py": PRICING.replace("quantity >= 100", "quantity > 99"), "test_pricing.py": TESTS,
             "test_probe.py": TEST_PROBE, "conftest.py": CONFTEST,
             "pytest.ini": "[pytest]\npythonpath = .\n", ".gitignore": ".abex/\n__pycache__/\n"}
    pull_request_repo(project, files, {"pricing.py": PRICING})
    llm = FakeLlm(lambda role, nth, n: (400, "no model here", []))
    try:
        env = action_env(tmp_path, str(copy), ABEX_BASE_REF="main", ABEX_BASE_URL=llm.base_url,
                         ABEX_BUDGET_USD="0.10", GITHUB_EVENT_NAME="pull_request",
                         GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
                         GITHUB_OUTPUT=str(tmp_path / "outputs"), **SECRETS)
        env["PATH"] = os.pathsep.join([str(venv_bin), env["PATH"]])
        env = action_step.install(env, project, runner)
        done = action_step.run("analyse", env, project, runner)
        out = done.stdout + done.stderr
        assert done.returncode == 0, out
        # The key went through abex's proxy to the workflow's endpoint, and only there.
        seen = assert_nothing_found(log, llm, ["pth", "pytest11", "conftest", "test"])
        assert any(p["inner"] for p in seen), "abex's runners ran the probes too"
        report = json.loads((project / ".abex" / "out" / "report.json").read_text())
        assert [t["name"] for t in report["targets"]] == ["bulk_discount"], out
    finally:
        llm.close()
    # The posting job, on its own runner, posts with the abex it installed.
    done, github, poster = post_job(tmp_path, binary, project)
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert len(github.reviews) == 1, github.requests
        assert Path(os.path.realpath(poster)).read_bytes() == Path(binary).read_bytes()
    finally:
        github.close()


RUST_LIB = """pub fn shipping(total: u32) -> u32 {
    if total >= 50 {
        0
    } else {
        5
    }
}

#[cfg(test)]
mod probe;

#[cfg(test)]
mod tests {
    #[test]
    fn shipping_is_free_for_big_orders() {
        crate::probe::probe("test");
        assert_eq!(super::shipping(100), 0);
        assert_eq!(super::shipping(10), 5);
    }
}
"""

BUILD_RS = """#[path = "src/probe.rs"]
mod probe;

fn main() {
    probe::probe("build.rs");
}
"""


def test_the_action_s_cargo_path_keeps_the_token_and_key_from_a_hostile_crate(tmp_path):
    binary, copy, runner, project, log, abex_bin = analysis_job(tmp_path)
    files = {
        "Cargo.toml": '[package]\nname = "hostile"\nversion = "0.1.0"\nedition = "2021"\nbuild = "build.rs"\n\n[workspace]\n',
        "build.rs": BUILD_RS,
        "src/probe.rs": rust_probe(log, abex_bin, project),
        "src/lib.rs": RUST_LIB.replace(">= 50", "> 49"),
        ".gitignore": ".abex/\ntarget/\n",
    }
    pull_request_repo(project, files, {"src/lib.rs": RUST_LIB})
    llm = FakeLlm(lambda role, nth, n: (400, "no model here", []))
    try:
        env = action_env(tmp_path, str(copy), ABEX_FRONT_END="cargo", ABEX_BASE_REF="main",
                         ABEX_BASE_URL=llm.base_url, ABEX_BUDGET_USD="0.10",
                         GITHUB_EVENT_NAME="pull_request", GITHUB_OUTPUT=str(tmp_path / "outputs"),
                         **SECRETS)
        env = action_step.install(env, project, runner)
        done = action_step.run("analyse", env, project, runner)
        out = done.stdout + done.stderr
        assert done.returncode == 0, out
        assert_nothing_found(log, llm, ["build.rs", "test"])
        report = json.loads((project / ".abex" / "out" / "report.json").read_text())
        assert [t["name"] for t in report["targets"]] == ["shipping"], out
    finally:
        llm.close()
