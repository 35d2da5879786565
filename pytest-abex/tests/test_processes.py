"""The processes a run starts (issue 30: `pytest --abex` at most 0.4 times mutmut 3's cost).

An interpreter start and an import of the project cost more than the calls a function's
exploration makes, so a run starts as few as it can: one worker explores every function and
traces their originals, one worker per job calls the survivors of every function (the witness
searches run on `jobs` threads, each on a worker of its own), the session's own
process describes the interpreter for the results cache, the `jobs` runners
start side by side while the functions are explored, and the runners share the checks of the
suggested tests as they share the mutants. Counted here, never timed: each interpreter that
starts logs its command line (a ``sitecustomize`` on ``PYTHONPATH``), each runner that collects
a suggested test logs its process (the project's ``conftest.py``).
"""

import json
import re
import shutil

import pytest

from test_plugin import PRICING, TESTS

SHIPPING = '''

def shipping_cost(weight: float, express: bool) -> float:
    base = 4.99 if weight <= 2.0 else 4.99 + (weight - 2.0) * 1.5
    return base * 2 if express else base
'''

# Far from the boundaries, as test_plugin's TESTS are: both functions keep survivors that a
# witness proves.
SHIPPING_TESTS = '''
from pricing import shipping_cost


def test_a_light_parcel():
    assert shipping_cost(1.0, False) == 4.99
'''

# Logs the command line of every interpreter that starts.
SITECUSTOMIZE = '''
import json
import os
import sys

argv = getattr(sys, "orig_argv", sys.argv)
if os.environ.get("ABEX_TEST_STARTS"):
    with open(os.environ["ABEX_TEST_STARTS"], "a") as f:
        f.write(json.dumps(argv) + "\\n")
'''

# Logs the process that collects a file of suggested tests, and the file (a runner's parent
# collects it once, before its first check); and each run of a suggested test, through pytest's
# protocol or as a plain call (a check against mutants), by wrapping its function.
CONFTEST = '''
import os


def _log(line):
    if os.environ.get("ABEX_TEST_CHECKS"):
        with open(os.environ["ABEX_TEST_CHECKS"], "a") as f:
            f.write(line + "\\n")


def _code():
    import pricing

    return (pricing.bulk_discount.__code__, pricing.shipping_cost.__code__)


def pytest_itemcollected(item):
    if "test_abex_suggested" in item.nodeid:
        _log(f"collected {item.path.name} {os.getpid()}")
        # Collected in the runner's parent, where the functions are the original.
        test, nodeid, original = item.obj, item.nodeid, _code()

        def logged(*args, **kwargs):
            _log(f"ran {nodeid} {'original' if _code() == original else 'mutant'}")
            return test(*args, **kwargs)

        item.obj = logged
'''


def _project(pytester):
    pytester.makepyfile(
        pricing=PRICING + SHIPPING, test_pricing=TESTS, test_shipping=SHIPPING_TESTS, conftest=CONFTEST
    )
    pytester.makeini("[pytest]\npythonpath = .\n")


def _analyse(pytester, jobs):
    """The session with ``--abex`` on both functions, ``jobs`` at a time: its report."""
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-jobs", str(jobs),
        "--abex-function", "pricing.py::bulk_discount", "--abex-function", "pricing.py::shipping_cost",
    )
    result.assert_outcomes(passed=2)
    return json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())


@pytest.fixture
def run(pytester, monkeypatch, tmp_path):
    _project(pytester)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    monkeypatch.setenv("PYTHONPATH", str(site))
    starts, checks = tmp_path / "starts.log", tmp_path / "checks.log"
    monkeypatch.setenv("ABEX_TEST_STARTS", str(starts))
    monkeypatch.setenv("ABEX_TEST_CHECKS", str(checks))
    report = _analyse(pytester, 2)
    lines = starts.read_text().splitlines() if starts.exists() else []
    started = [json.loads(line) for line in lines]
    collected, ran = {}, {}
    for line in checks.read_text().splitlines() if checks.exists() else []:
        what, name, where = line.split()
        if what == "collected":
            collected.setdefault(name, set()).add(where)
        else:
            ran.setdefault(name, {"original": 0, "mutant": 0})[where] += 1
    return report, started, (collected, ran)


def _specs(started, module):
    """The spec files' names of the processes of ``module`` that started."""
    return sorted(argv[-1].rsplit("/", 1)[-1] for argv in started if module in argv)


def test_one_worker_explores_and_traces_every_function_and_one_per_job_calls_every_survivor(run):
    report, started, _ = run
    witnessed = {t["name"]: t["mutation"]["counts"]["witnessed"] for t in report["targets"]}
    assert witnessed["bulk_discount"] > 0 and witnessed["shipping_cost"] > 0, witnessed
    # Before: a tracer worker per explored function, and a survivors' worker per function;
    # then one survivors' worker for the two search threads, both of one spec (named after
    # its content: the survivors' workers may start while the mutants are tested).
    specs = _specs(started, "pytest_abex.worker")
    assert len(specs) == 3 and specs[2] == "worker.json", started
    assert specs[0] == specs[1] and re.fullmatch(r"mutants-[0-9a-f]{12}\.json", specs[0]), specs
    # The results cache's key names the interpreter's packages, read in the session's process
    # (before: an interpreter started to print them).
    assert not [argv for argv in started if "-c" in argv], started


def test_the_jobs_runners_start_ahead_and_share_the_checks_of_the_suggested_tests(run):
    report, started, (collected, _) = run
    assert any(t["mutation"]["suggested_tests"] for t in report["targets"]), report["targets"]
    # Both warmed while the functions were explored (before: the second started when the
    # mutants' tests did), the second a twin of the first: one runner process started (before:
    # two, each collecting and tracing on its own).
    assert _specs(started, "pytest_abex.runner") == ["warm-0-0.json"], started
    # Each function's suggested tests were checked by both (before: by one runner, in turn).
    assert collected and all(len(pids) == 2 for pids in collected.values()), collected


def test_each_suggested_test_runs_on_the_original_and_once_on_each_survivor_it_does_not_spare(run):
    # The checks that start while the next function's witnesses are searched are read, not
    # run again.
    # A test joining a boundary's two sides (`…_at_9_and_10`) is checked once more, on the
    # original and on the survivors the joined tests' cases killed only: at least its own.
    # A test is not run on a survivor whose outcome on its input is the original's (a call
    # said so; before, every test ran on every survivor of its function): at least on its own.
    # On the original it runs through pytest once, and as a plain call before and after each
    # batch of survivors (a batch whose verdicts there changed is not trusted).
    report, _, (_, ran) = run
    witnessed = {t["name"]: t["mutation"]["counts"]["witnessed"] for t in report["targets"]}
    kills = {s["name"]: len(s["kills"]) for t in report["targets"]
             for s in t["mutation"]["suggested_tests"]}
    assert ran, ran
    spared = 0
    for nodeid, runs in ran.items():
        function = next(f for f in witnessed if f"test_abex_suggested_{f}_" in nodeid)
        name = nodeid.split("::")[-1]
        assert runs["original"] in (1, 3, 5), (nodeid, runs)
        if "_at_" in name and "_and_" in name:
            least = kills.get(name, 0)
            assert least <= runs["mutant"] <= witnessed[function], (nodeid, runs, kills, witnessed)
        else:
            assert max(kills.get(name, 1), 1) <= runs["mutant"] <= witnessed[function], (nodeid, runs, witnessed)
            spared += runs["mutant"] < witnessed[function]
    assert spared, (ran, witnessed)


def test_the_witnesses_searched_on_two_workers_are_those_one_worker_finds(pytester):
    # Each search thread calls the survivors on a worker of its own: the witnesses, their
    # shrinking and the suggested tests do not depend on which worker served a call.
    _project(pytester)
    one = _analyse(pytester, 1)
    # Searched again, not read from the results cache.
    shutil.rmtree(pytester.path / ".abex")
    two = _analyse(pytester, 2)

    def witnesses(report):
        return {m["id"]: (m["status"], m.get("witness"))
                for t in report["targets"] for m in t["mutation"]["mutants"]}

    def tests(report):
        return [(s["name"], s["code"]) for t in report["targets"]
                for s in t["mutation"]["suggested_tests"]]

    found = witnesses(two)
    assert sum(1 for _, w in found.values() if w) >= 2, found
    assert found == witnesses(one)
    assert tests(two) == tests(one)
