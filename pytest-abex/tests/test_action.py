"""The GitHub Action's analyse step (`action/run.sh analyse`, started as the runner starts it)
with the pytest front end, on a fake pull request: no network, nothing posted, the job summary,
step outputs and annotations checked."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import action_step
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
    """The environment of the Action's analyse step with the pytest front end: none of the
    machine's GitHub, abex or pytest variables, then `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "ABEX_", "PYTEST_"))}
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        RUNNER_TEMP=str(tmp_path / "runner"),
        ABEX_BINARY=binary,
        ABEX_FRONT_END="pytest",
    )
    env.update(extra)
    return env


def run_action(tmp_path, project, env):
    """The install step, then the analyse step in `project`, as the runner runs them."""
    env = action_step.install(env, project, tmp_path)
    return action_step.run("analyse", env, project, tmp_path, timeout=600)


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
    # The job summary is written once, by the plugin.
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


def _report(project):
    try:
        return json.loads((project / ".abex" / "out" / "report.json").read_text())
    except (OSError, ValueError):
        return None


def _wait_for(project, ready, step, timeout=300):
    """Waits until `ready(report)` holds of the report the running step writes."""
    import time

    start = time.monotonic()
    while time.monotonic() - start < timeout:
        r = _report(project)
        if r is not None and ready(r):
            return r
        assert step.poll() is None, f"the step ended first: {step.poll()}"
        time.sleep(0.05)
    pytest.fail("the run never got there")


def _stop_as_the_runner_does(step, signum):
    """Sends `signum` to the step's process (the shell the runner started) and waits at most
    GitHub's 10 s before the runner kills the tree; returns the exit code and the time it took."""
    import signal
    import time

    start = time.monotonic()
    os.kill(step.pid, signum)
    try:
        code = step.wait(timeout=10)
    except subprocess.TimeoutExpired:
        step.kill()
        pytest.fail(f"the step did not end within 10 s of {signal.Signals(signum).name}")
    return code, time.monotonic() - start


def _cancel(env, project, runner, tmp_path, ready, signum):
    """Installs abex, starts the analyse step as the runner does, waits until `ready(report)`,
    then stops it as the runner does with `signum`. Returns the exit code, the step's stderr and
    the step's process (its session holds what it started)."""
    env = action_step.install(env, project, runner)
    step = action_step.start("analyse", env, project, runner, stdout=subprocess.DEVNULL,
                             stderr=open(tmp_path / "step.log", "w"), start_new_session=True)
    try:
        _wait_for(project, ready, step)
        code, _ = _stop_as_the_runner_does(step, signum)
    finally:
        if step.poll() is None:
            step.kill()
    return code, (tmp_path / "step.log").read_text(), step


def _gaps(report):
    return sum((t.get("mutation") or {}).get("counts", {}).get("witnessed", 0) for t in report["targets"])


def test_a_cancelled_cargo_analysis_exits_130_with_a_partial_report_and_the_posting_job_posts_it(tmp_path):
    """Issue 28: the runner's SIGINT to the analyse step's shell reaches abex (the shell `exec`ed
    into it): exit 130 within GitHub's 10 s window, the report of what was finished with
    `complete: false`, the summary and outputs written; the posting job then posts its gaps."""
    import signal

    from test_model import FakeGitHub
    from test_secrets import post_job, pull_request_repo

    binary = cargo_abex()
    fixture = REPO / "tests" / "fixtures" / "gaps"
    base = {str(p.relative_to(fixture)): p.read_text() for p in fixture.rglob("*") if p.is_file()}
    base[".gitignore"] = ".abex/\ntarget/\n"
    lib = base["src/lib.rs"]
    # The pull request touches every function, so the analysis has several to do.
    head = lib.replace("    if total >= 50 {", "    // reviewed\n    if total >= 50 {")
    for marker in ["    x.min(10)", "    let mut i = 0;", "    let mut parts"]:
        head = head.replace(marker, "    // reviewed\n" + marker)
    project = tmp_path / "project"
    pull_request_repo(project, base, {"src/lib.rs": head})
    runner = tmp_path / "runner"
    runner.mkdir()
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs"
    env = action_env(tmp_path, binary, ABEX_FRONT_END="cargo", ABEX_BASE_REF="main",
                     GITHUB_EVENT_NAME="pull_request", GITHUB_STEP_SUMMARY=str(summary),
                     GITHUB_OUTPUT=str(outputs))
    code, log, _ = _cancel(env, project, runner, tmp_path, lambda r: _gaps(r) >= 1, signal.SIGINT)
    assert code == 130, log
    report = _report(project)
    assert report["complete"] is False and report["interrupted"]["signal"] == "SIGINT", log
    assert _gaps(report) >= 1
    assert "interrupted by SIGINT" in summary.read_text()
    assert "findings=" in outputs.read_text()
    # The posting job posts what was finished.
    done, github, _ = post_job(tmp_path, binary, project)
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        (review,) = github.reviews
        assert "shipping" in json.dumps(review), review
    finally:
        github.close()


SLOW_TESTS = TESTS + '''

def test_takes_its_time():
    import time
    time.sleep(0.5)
'''


def test_a_cancelled_pytest_analysis_with_a_key_exits_143_through_the_proxy_s_shell(tmp_path):
    """On the pytest path with a key the step's shell stays (it runs the model proxy) and
    forwards the runner's SIGTERM to pytest: exit 143 within 10 s, the report of what was
    finished, no process of the step left behind."""
    import signal

    from test_model import FakeLlm
    from test_secrets import pull_request_repo

    binary = cargo_abex()
    project = tmp_path / "project"
    files = {"pricing.py": PRICING.replace("quantity >= 100", "quantity > 99"),
             "test_pricing.py": SLOW_TESTS, "pytest.ini": "[pytest]\npythonpath = .\n",
             ".gitignore": ".abex/\n__pycache__/\n"}
    pull_request_repo(project, files, {"pricing.py": PRICING})
    runner = tmp_path / "runner"
    runner.mkdir()
    llm = FakeLlm(lambda role, nth, n: (400, "no model here", []))
    try:
        env = action_env(tmp_path, binary, ABEX_BASE_REF="main", ABEX_API_KEY="sk-k",
                         ABEX_BASE_URL=llm.base_url, GITHUB_EVENT_NAME="pull_request",
                         GITHUB_OUTPUT=str(tmp_path / "outputs"))
        explored = lambda r: any(t.get("exploration") for t in r["targets"])  # noqa: E731
        code, log, step = _cancel(env, project, runner, tmp_path, explored, signal.SIGTERM)
        assert code == 143, log
        report = _report(project)
        assert report["complete"] is False and report["interrupted"]["signal"] == "SIGTERM", log
        # Nothing of the step is left running (pytest and the proxy are gone).
        import time

        time.sleep(0.5)
        ps = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-s", str(step.pid)],
                            capture_output=True, text=True).stdout
        running = [line for line in ps.splitlines() if not line.split()[1].startswith("Z")]
        assert running == [], ps
    finally:
        llm.close()
