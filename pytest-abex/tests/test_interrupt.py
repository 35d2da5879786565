"""Losing nothing (issue 17): ``pytest --abex`` interrupted by SIGINT or SIGTERM while the core
works exits 130 or 143 with a report that parses and holds what was finished, its summary marked
"interrupted", no runner left running and the project as it was; a re-run resumes from it."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

PRICING = '''
def grade(score: int) -> str:
    if score > 100 or score < 0:
        raise ValueError("a score is out of 100")
    return "A" if score >= 90 else ("B" if score >= 75 else "C")


def shipping(weight: int) -> int:
    if weight <= 0:
        return 0
    if weight < 20:
        return 5
    return 5 + (weight - 20) // 10
'''

# Slow tests: each mutant costs a fraction of a second, so the run can be caught mid-way.
TESTS = '''
import time

from pricing import grade, shipping


def test_grades():
    time.sleep(0.3)
    assert grade(95) == "A"
    assert grade(80) == "B"
    assert grade(10) == "C"


def test_shipping():
    time.sleep(0.3)
    assert shipping(1) == 5
    assert shipping(100) == 13
'''

ARGS = ["-p", "no:cacheprovider", "--abex", "--abex-all", "--abex-offline", "--abex-jobs", "1",
        "--abex-pairs", "200", "--abex-seed", "3"]


@pytest.fixture
def project(pytester):
    pytester.makepyfile(pricing=PRICING, test_pricing=TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


def start(path, log):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONUNBUFFERED"] = "1"
    return subprocess.Popen([sys.executable, "-m", "pytest", *ARGS], cwd=path, env=env,
                            stdout=log, stderr=subprocess.STDOUT)


def read_report(path):
    try:
        return json.loads((path / ".abex" / "out" / "report.json").read_text())
    except (OSError, ValueError):
        return None


def finished_mutants(rep):
    return [m for t in rep["targets"] for m in (t.get("mutation") or {}).get("mutants", [])
            if m["status"] not in ("not_tested", "not_exercised")]


def wait_for(path, ready, log):
    start = time.monotonic()
    while time.monotonic() - start < 120:
        rep = read_report(path)
        if rep is not None and ready(rep, log.read_text()):
            return rep
        time.sleep(0.02)
    raise AssertionError(f"the run never got there:\n{log.read_text()}")


def processes_in(path):
    """Processes whose command line or working folder is in ``path``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if int(pid) != os.getpid() and (str(path) in cmd or cwd.startswith(str(path))):
            found.append((pid, cmd))
    return found


def assert_nothing_left(path):
    deadline = time.monotonic() + 3
    while processes_in(path):
        assert time.monotonic() < deadline, f"processes left running: {processes_in(path)}"
        time.sleep(0.1)


def snapshot(root):
    return {
        p.relative_to(root): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".abex" not in p.parts and "__pycache__" not in p.parts and p.name != "run.log"
    }


def findings(rep):
    return sorted((t["qualified_name"], m["id"], m["status"], json.dumps(m.get("witness", {}).get("input")))
                  for t in rep["targets"] for m in (t.get("mutation") or {}).get("mutants", []))


def test_sigint_while_mutants_are_tested_exits_130_and_a_rerun_resumes(project):
    before = snapshot(project.path)
    log = project.path / "run.log"
    with open(log, "w") as out:
        proc = start(project.path, out)
        wait_for(project.path, lambda rep, _: len(finished_mutants(rep)) >= 2, log)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130, log.read_text()
    text = log.read_text()
    assert "interrupted by SIGINT" in text, text
    rep = read_report(project.path)
    assert rep["complete"] is False and rep["interrupted"]["signal"] == "SIGINT"
    finished = len(finished_mutants(rep))
    assert finished >= 2
    assert_nothing_left(project.path)
    assert snapshot(project.path) == before

    # The re-run (in this process) reuses what was finished and completes.
    result = project.runpytest(*ARGS)
    assert result.ret == 0
    resumed = read_report(project.path)
    assert resumed["complete"] is True and "interrupted" not in resumed
    assert resumed["reused"]["mutants"] >= finished
    assert "reused from an earlier run" in result.stdout.str()

    # And ends where an uninterrupted run ends.
    shutil.rmtree(project.path / ".abex")
    assert project.runpytest(*ARGS).ret == 0
    assert findings(resumed) == findings(read_report(project.path))


def test_sigterm_during_exploration_exits_143_with_a_report_that_parses(project):
    log = project.path / "run.log"
    with open(log, "w") as out:
        proc = start(project.path, out)
        wait_for(project.path, lambda rep, text: "Exploring" in text, log)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 143, log.read_text()
    rep = read_report(project.path)
    assert rep["complete"] is False and rep["interrupted"]["signal"] == "SIGTERM"
    assert "interrupted by SIGTERM" in log.read_text()
    assert_nothing_left(project.path)


def test_sigint_during_the_witness_search_keeps_the_tested_mutants_and_claims_nothing_unproven(project):
    before = snapshot(project.path)
    log = project.path / "run.log"
    with open(log, "w") as out:
        proc = start(project.path, out)
        wait_for(project.path, lambda rep, text: "witnesses and suggested tests" in text, log)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130, log.read_text()
    rep = read_report(project.path)
    assert rep["complete"] is False and rep["interrupted"]["signal"] == "SIGINT"
    # Every mutant was tested before the search: none is lost.
    mutants = [m for t in rep["targets"] for m in (t.get("mutation") or {}).get("mutants", [])]
    assert mutants and not [m for m in mutants if m["status"] == "not_tested"], mutants
    survivors = [m for m in mutants if m["status"] == "survived"]
    assert survivors
    for m in survivors:
        if m.get("witness"):
            continue
        # Cut off by the signal: neither a gap nor "possibly equivalent", and it says why.
        assert m["possibly_equivalent"] is False, m
        assert (m.get("unwitnessed") or {}).get("stage"), (m, rep.get("interrupted"))
        if m["unwitnessed"]["stage"] == "not_searched":
            assert m["unwitnessed"]["because"] == "interrupted by SIGINT", m
    assert_nothing_left(project.path)
    assert snapshot(project.path) == before


def test_a_second_signal_ends_the_run_at_once(project):
    log = project.path / "run.log"
    with open(log, "w") as out:
        proc = start(project.path, out)
        wait_for(project.path, lambda rep, _: len(finished_mutants(rep)) >= 1, log)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        assert time.monotonic() - sent < 2, log.read_text()
    # Either the plugin heard both (exit 143 at once, saying so) or the second came after the
    # core had returned and the handlers were restored, and SIGTERM ended the process: a shell
    # and a CI runner read both as 143.
    assert code in (143, -signal.SIGTERM), (code, log.read_text())
    if code == 143:
        assert "SIGTERM again: stopping now" in log.read_text()
    assert read_report(project.path) is not None
    assert_nothing_left(project.path)


def test_a_run_killed_with_sigkill_leaves_a_report_that_parses_with_what_was_finished(project):
    log = project.path / "run.log"
    with open(log, "w") as out:
        proc = start(project.path, out)
        seen = wait_for(project.path, lambda rep, _: len(finished_mutants(rep)) >= 1, log)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    rep = read_report(project.path)
    assert rep is not None, "the report parses after SIGKILL"
    assert rep["complete"] is False
    assert len(finished_mutants(rep)) >= len(finished_mutants(seen)), "nothing written before the kill is lost"
    # What SIGKILL left behind (it cannot be caught) ends with the test.
    for pid, _ in processes_in(project.path):
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def test_a_test_run_still_going_when_the_time_budget_runs_out_is_killed_and_the_run_ends_normally(pytester):
    # The project's tests take a minute in abex's scratch copy (and no time in the session).
    slow = ('import time\n\nfrom pricing import grade, shipping\n\n\n'
            'def test_grades():\n    if ".abex" in __file__:\n        time.sleep(60)\n'
            '    assert grade(95) == "A"\n    assert shipping(1) == 5\n')
    pytester.makepyfile(pricing=PRICING, test_pricing=slow)
    pytester.makeini("[pytest]\npythonpath = .\n")
    before = snapshot(pytester.path)
    started = time.monotonic()
    result = pytester.runpytest(*ARGS, "--abex-time-budget", "4")
    took = time.monotonic() - started
    out = result.stdout.str()
    assert took < 40, f"a test run went on past the budget: {took:.0f} s\n{out}"
    assert result.ret == 0, out
    rep = read_report(pytester.path)
    # It ends normally, but it is not complete: the budget left every mutant untested.
    assert rep["complete"] is False and "interrupted" not in rep, rep
    assert rep["exhausted"] == "time budget" and rep["unfinished"]["mutants_not_tested"] > 0, rep
    mutants = [m for t in rep["targets"] for m in (t.get("mutation") or {}).get("mutants", [])]
    assert mutants and all(m["status"] == "not_tested" for m in mutants), mutants
    assert "not tested (the run stopped first)" in out, out
    assert_nothing_left(pytester.path)
    assert snapshot(pytester.path) == before
