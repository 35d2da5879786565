"""The GitHub Action's run step (`action/run.sh run`) with the pytest front end, on a fake pull
request: no network, nothing posted (`post: false`), the job summary and step outputs checked."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_plugin import PRICING, TESTS

REPO = Path(__file__).resolve().parents[2]


def cargo_abex():
    """The `cargo-abex` binary that `cargo test --workspace` built (CI builds it before this)."""
    candidates = [os.environ.get("ABEX_BINARY")]
    target = os.environ.get("CARGO_TARGET_DIR")
    candidates += [str(Path(target) / "debug" / "cargo-abex")] if target else []
    candidates += [str(REPO / "target" / "debug" / "cargo-abex"), shutil.which("cargo-abex")]
    for c in candidates:
        if c and Path(c).is_file():
            return c
    if os.environ.get("CI"):
        pytest.fail("no cargo-abex binary: run `cargo build -p cargo-abex` first or set ABEX_BINARY")
    pytest.skip("no cargo-abex binary built")


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def action_env(tmp_path, binary, **extra):
    """The environment of the Action's run step with the pytest front end and `post: false`:
    none of the machine's GitHub, abex or pytest variables, then `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "ABEX_", "PYTEST_"))}
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        RUNNER_TEMP=str(tmp_path / "runner"),
        ABEX_BINARY=binary,
        ABEX_FRONT_END="pytest",
        ABEX_POST="false",
    )
    env.update(extra)
    return env


def run_action(tmp_path, project, env):
    """`action/run.sh install`, then `action/run.sh run` in `project`."""
    run_sh = REPO / "action" / "run.sh"
    install = subprocess.run(["bash", str(run_sh), "install"], env=env, capture_output=True, text=True)
    assert install.returncode == 0, install.stderr
    env = dict(env, PATH=os.pathsep.join([str(tmp_path / "runner" / "abex" / "bin"), env["PATH"]]))
    return subprocess.run(
        ["bash", str(run_sh), "run"], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_action_runs_pytest_and_writes_the_summary_and_outputs(tmp_path):
    binary = cargo_abex()
    project = tmp_path / "project"
    project.mkdir()
    (project / "pricing.py").write_text(PRICING.replace("quantity >= 100", "quantity > 99"))
    (project / "test_pricing.py").write_text(TESTS)
    (project / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    (project / ".gitignore").write_text(".abex/\n__pycache__/\n")
    git(project, "init", "-q", "-b", "main")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    # The pull request's change, uncommitted: the diff against main touches bulk_discount.
    (project / "pricing.py").write_text(PRICING)

    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs"
    env = action_env(
        tmp_path,
        binary,
        ABEX_FAIL_ON="finding",
        GITHUB_ACTIONS="true",
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_OUTPUT=str(outputs),
    )
    run = run_action(tmp_path, project, env)
    out = run.stdout + run.stderr

    report = json.loads((project / ".abex" / "out" / "report.json").read_text())
    assert report["language"] == "python", out
    [target] = report["targets"]
    assert target["name"] == "bulk_discount", out
    gaps = [m for m in target["mutation"]["mutants"] if m["status"] == "survived" and m.get("witness")]
    assert gaps, out
    # A workflow annotation per gap in the step's log, on the changed file.
    annotations = [l for l in run.stdout.splitlines() if l.startswith("::warning file=pricing.py,line=")]
    assert len(annotations) == len(gaps), out
    # The job summary is written once (by the poster, not also by the plugin).
    assert summary.read_text().count("## abex") == 1, summary.read_text()
    # fail-on finding: exit 1 with gaps, and the summary and outputs are written all the same.
    assert run.returncode == 1, out
    text = summary.read_text()
    assert "bulk_discount" in text, text
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    assert values["findings"] == str(len(gaps)), values
    assert values["posted"] == "false", values
    assert values["cost-usd"] == "0.0000", values
    # The pull request's tree is left as it was (only .abex/ is added, and git ignores it).
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True)
    assert status.stdout.strip() == "M pricing.py", status.stdout
