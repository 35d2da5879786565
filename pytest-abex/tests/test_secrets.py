"""No secret reaches the project's code: a hostile ``conftest.py`` looks for the GitHub token and
the model's key in ``os.environ`` and in ``/proc/<pid>/environ`` of its process and of every
ancestor, in every process that imports it (pytest itself, abex's worker and runners), and logs
what it finds. The runs are offline (the key is never used) and post nothing."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_action import action_env, cargo_abex, git, run_action
from test_plugin import PRICING, TESTS

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")

SECRETS = {"GITHUB_TOKEN": "ghs_probe_token_4d1f7", "ABEX_API_KEY": "sk-probe-key-93c2e"}

# Imported by the conftest and by a test: what of SECRETS this process can see.
PROBE = '''
import os
from pathlib import Path

SECRETS = {secrets!r}


def ancestors():
    pid = os.getpid()
    while pid > 1:
        yield pid
        try:
            stat = Path(f"/proc/{{pid}}/stat").read_text()
        except OSError:
            return
        pid = int(stat[stat.rfind(")") + 2:].split()[1])


def leaks():
    found = [name for name in SECRETS if name in os.environ]
    for pid in ancestors():
        try:
            block = Path(f"/proc/{{pid}}/environ").read_bytes()
        except OSError:
            continue
        found += [f"{{n}} in /proc/{{pid}}/environ" for n, v in SECRETS.items() if v.encode() in block]
    return found
'''

CONFTEST = '''
import os

from probe_secrets import leaks

found = leaks()
with open({log!r}, "a") as f:
    f.write(f"{{os.getpid()}} {{os.environ.get('ABEX_INNER', 'outer')}} {{found}}\\n")
if found:
    raise RuntimeError(f"conftest found secrets: {{found}}")
'''

TEST_NO_SECRETS = '''
from probe_secrets import leaks


def test_no_secret_in_sight():
    assert leaks() == []
'''


def write_project(root, log):
    (root / "pricing.py").write_text(PRICING)
    (root / "test_pricing.py").write_text(TESTS)
    (root / "test_no_secrets.py").write_text(TEST_NO_SECRETS)
    (root / "probe_secrets.py").write_text(PROBE.format(secrets=SECRETS))
    (root / "conftest.py").write_text(CONFTEST.format(log=str(log)))
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")


def check_log(log, out):
    """Every process that imported the conftest logged an empty list; the run's own processes
    (abex's worker or runners) imported it too."""
    lines = log.read_text().splitlines()
    assert lines, out
    assert all(line.endswith(" []") for line in lines), "\n".join(lines) + "\n" + out
    assert any(" outer " in line for line in lines), lines
    assert any(" outer " not in line for line in lines), lines


def test_a_hostile_conftest_finds_no_secret_under_pytest_abex(tmp_path):
    root, log = tmp_path / "project", tmp_path / "conftest.log"
    root.mkdir()
    write_project(root, log)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "ABEX_", "PYTEST_"))}
    env.update(SECRETS)
    args = ["--abex", "--abex-function", "pricing.py::bulk_discount", "--abex-offline"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "2 passed" in out and "= abex =" in out, out
    check_log(log, out)
    # Without --abex the plugin leaves the environment alone: the same conftest sees the
    # secrets and fails the run (the probe can fail).
    log.unlink()
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )
    assert plain.returncode != 0 and "conftest found secrets" in plain.stdout + plain.stderr


def test_a_hostile_conftest_finds_no_secret_in_the_actions_pytest_path(tmp_path):
    binary = cargo_abex()
    root, log = tmp_path / "project", tmp_path / "conftest.log"
    root.mkdir()
    write_project(root, log)
    (root / "pricing.py").write_text(PRICING.replace("quantity >= 100", "quantity > 99"))
    (root / ".gitignore").write_text(".abex/\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    (root / "pricing.py").write_text(PRICING)
    env = action_env(
        tmp_path,
        binary,
        # The key makes the run use the model: a closed loopback port, so nothing leaves the
        # machine (the run falls back to the offline engine).
        ABEX_BASE_URL="http://127.0.0.1:9/v1",
        ABEX_TIME_BUDGET="120",
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        GITHUB_OUTPUT=str(tmp_path / "outputs"),
        **SECRETS,
    )
    run = run_action(tmp_path, root, env)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    report = json.loads((root / ".abex" / "out" / "report.json").read_text())
    assert [t["name"] for t in report["targets"]] == ["bulk_discount"], out
    check_log(log, out)
    assert (tmp_path / "summary.md").read_text().count("## abex") == 1
