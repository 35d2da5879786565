"""`pytest --abex` judges each mutant with exactly the tests the user's session runs, and never
calls a gap what it did not test (issue 26).

Each project of ``projects/`` has the shape of a real suite that broke this: unittest-style
tests in a file whose name pytest does not collect by default, passed on the command line;
``-k`` selecting a subset; a ``conftest.py`` parametrising with ``pytest_generate_tests``; a
function wrapped by a project decorator defined in another module; a module whose only tests
are its doctests. Each also has an ``oracle/`` of stronger tests, kept out of the analysed
suite. For each, run as the user runs it:

- the inner runner's node ids equal the session's (a ``conftest.py`` the test adds writes the
  ids pytest collected in the user's session, in plain pytest and in abex's runner);
- every reported gap is a mutant the session's own tests let through (the user's command on a
  copy with the mutant applied passes) and one the oracle kills (it is not equivalent);
- a function no test of the session calls is reported once as not reached, with no gap.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECTS = Path(__file__).parent / "projects"

# Appended to the project's `conftest.py`: writes the node ids a session collected, once per
# kind of session (the user's, abex's runner), when `FIDELITY_IDS` names where.
RECORDER = '''

def pytest_collection_finish(session):
    import os

    out = os.environ.get("FIDELITY_IDS")
    ids = [item.nodeid for item in session.items]
    if not out or any("test_abex_suggested" in i for i in ids):
        return
    path = out + (".inner" if os.environ.get("ABEX_INNER") else ".outer")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write("\\n".join(ids))
'''


def copy_project(pytester, name):
    """Copies ``projects/<name>`` into the pytester folder, with the id recorder."""
    src = PROJECTS / name
    shutil.copytree(src, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    conftest = pytester.path / "conftest.py"
    text = conftest.read_text() if conftest.exists() else ""
    conftest.write_text(text + RECORDER)
    return pytester.path


def run(cwd, *args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd, capture_output=True, text=True, env=env, timeout=600,
    )


def ids_of(path):
    return path.read_text().splitlines() if path.exists() else None


def apply(root, mutant):
    """Writes `mutant` (from a report) into its file under `root`."""
    path = root / mutant["file"]
    lines = path.read_text().splitlines(keepends=True)
    at = sum(len(line) for line in lines[: mutant["line"] - 1]) + mutant["column"] - 1
    text = "".join(lines)
    assert text[at:at + len(mutant["original"])] == mutant["original"], mutant
    path.write_text(text[:at] + mutant["replacement"] + text[at + len(mutant["original"]):])


def gaps(report):
    return [(t, m) for t in report["targets"] for m in (t.get("mutation") or {}).get("mutants", [])
            if m["status"] == "survived" and m.get("witness") and not m.get("possibly_equivalent")]


def abex(pytester, tmp_path, args, functions, name="run"):
    """Runs the user's command plainly, then with ``--abex``: the report, the output, and the
    node ids of the plain session, abex's session and abex's runner."""
    env = dict(os.environ)
    ids = tmp_path / name
    env["FIDELITY_IDS"] = str(ids) + ".plain"
    plain = run(pytester.path, *args, env=env)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    env["FIDELITY_IDS"] = str(ids)
    flags = [f"--abex-function={f}" for f in functions]
    result = run(pytester.path, *args, "--abex", "--abex-offline", "--abex-jobs", "1",
                 "--abex-pairs", "300", *flags, env=env)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "abex: error" not in out, out
    report = json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())
    sessions = (ids_of(Path(str(ids) + ".plain.outer")), ids_of(Path(str(ids) + ".outer")),
                ids_of(Path(str(ids) + ".inner")))
    return report, out, sessions


def check_gaps(root, tmp_path, args, report):
    """Every gap survives the user's own command and is killed by the oracle."""
    for n, (t, m) in enumerate(gaps(report)):
        copy = tmp_path / f"mutant-{n}"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".abex", "__pycache__"))
        apply(copy, m)
        own = run(copy, *args)
        assert own.returncode == 0, (
            f"false gap in {t['qualified_name']}: the session's tests kill {m['description']} "
            f"(line {m['line']})\n{own.stdout[-3000:]}"
        )
        oracle = run(copy, *sorted(str(f.relative_to(copy)) for f in (copy / "oracle").glob("*.py")))
        assert oracle.returncode == 1, (
            f"a gap in {t['qualified_name']} the oracle does not kill: {m['description']} "
            f"(line {m['line']}), witness {m['witness']}\n{oracle.stdout[-3000:]}"
        )


def by_name(report):
    return {t["qualified_name"]: t for t in report["targets"]}


CASES = {
    # unittest TestCases in `tests/testmoney.py`, a name pytest does not collect by default.
    "unittest_names": (["tests/testmoney.py"], ["ledger/money.py::parse_amount", "ledger/money.py::format_amount"]),
    # `-k` leaves out the tests that check express parcels and insurance.
    "dash_k": (["-k", "not slow"], ["shipping.py::shipping_cost", "shipping.py::insurance"]),
    # The years come from the conftest's `pytest_generate_tests`.
    "generate": ([], ["calendar_rules.py::is_leap"]),
    # `@validator` (functools.wraps, in `checks/utils.py`) turns a falsy result into a failure.
    "decorated": ([], ["checks/numbers.py::percentage", "checks/numbers.py::even"]),
    # `@logged` and `@retry(3)` close over the function, without `functools.wraps`.
    "closures": ([], ["shop/prices.py::shipping", "shop/prices.py::tax"]),
    # The module's doctests are its only tests (`--doctest-modules` in the ini's addopts).
    "doctests": (["textutil"], ["textutil/slug.py::slugify", "textutil/slug.py::truncate",
                               "textutil/slug.py::reading_minutes"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_abex_runs_the_sessions_own_tests_and_reports_no_gap_they_or_the_oracle_disprove(pytester, tmp_path, name):
    args, functions = CASES[name]
    root = copy_project(pytester, name)
    report, out, (plain, outer, inner) = abex(pytester, tmp_path, args, functions)
    # The same tests, the same node ids, in the user's session and in abex's runner.
    assert plain, out
    assert outer == plain, (outer, plain)
    assert inner == plain, (inner, plain)
    assert "did not collect" not in out, out
    targets = by_name(report)
    for t in targets.values():
        m = t["mutation"]
        assert m["self_check_killed"] in (True, False), t["qualified_name"]
        assert m["counts"]["killed"] + m["counts"].get("not_reached", 0) > 0, m
    check_gaps(root, tmp_path, args, report)
    if name == "dash_k":
        # Under `-k "not slow"` only the slow tests call `insurance`.
        unreached = targets["shipping.insurance"]["mutation"]
        assert unreached["self_check_killed"] is False and unreached["reached_by"] == 0, unreached
        assert unreached["counts"]["witnessed"] == 0 and unreached["counts"]["survived"] == 0
        assert unreached["counts"]["not_reached"] == unreached["counts"]["total"] > 0
        assert not unreached["suggested_tests"]
        assert out.count("not reached by any test: no test this session ran calls `shipping.insurance`") == 1, out
        # What only the slow tests check is a gap of this session.
        assert targets["shipping.shipping_cost"]["mutation"]["counts"]["witnessed"] > 0
    if name == "doctests":
        assert targets["textutil.slug.truncate"]["mutation"]["self_check_killed"] is False
        assert targets["textutil.slug.slugify"]["mutation"]["self_check_killed"] is True
        assert targets["textutil.slug.reading_minutes"]["mutation"]["counts"]["witnessed"] > 0
    if name in ("decorated", "closures"):
        # Called through `@validator`, as the tests call it: not "not callable", and the
        # mutant that returns None instead of False is no gap (both are failures).
        for t in targets.values():
            assert t["drive"]["status"] == "supported", t["drive"]
            assert t["exploration"] is not None
    if name == "closures":
        # Mutants are tested through the wrapper (they were all "unviable" before), and the
        # limits the tests leave open are gaps.
        for t in targets.values():
            assert t["mutation"]["counts"]["unviable"] == 0, t["mutation"]["counts"]
            assert t["mutation"]["counts"]["witnessed"] > 0, t["mutation"]["counts"]
    if name == "unittest_names":
        assert all(t["mutation"]["self_check_killed"] for t in targets.values())
        assert "tests/testmoney.py" in targets["ledger.money.parse_amount"]["mutation"]["test_tool"]


def test_a_run_under_another_selection_does_not_reuse_results_of_this_one(pytester, tmp_path):
    copy_project(pytester, "dash_k")
    functions = ["shipping.py::shipping_cost", "shipping.py::insurance"]
    report, _, _ = abex(pytester, tmp_path, ["-k", "not slow"], functions, name="first")
    assert by_name(report)["shipping.insurance"]["mutation"]["self_check_killed"] is False
    again, _, _ = abex(pytester, tmp_path, ["-k", "not slow"], functions, name="again")
    assert again["reused"]["functions"] == 2, again.get("reused")
    # Every test now: the slow tests reach `insurance` and kill what they check.
    every, _, (plain, _, inner) = abex(pytester, tmp_path, [], functions, name="every")
    assert inner == plain and len(plain) == 4
    assert not every.get("reused"), every.get("reused")
    targets = by_name(every)
    assert targets["shipping.insurance"]["mutation"]["self_check_killed"] is True
    first = by_name(report)["shipping.shipping_cost"]["mutation"]["counts"]
    now = targets["shipping.shipping_cost"]["mutation"]["counts"]
    assert now["killed"] > first["killed"], (first, now)


def test_a_function_no_test_reaches_is_no_finding_for_fail_on(pytester, tmp_path):
    copy_project(pytester, "dash_k")
    result = run(pytester.path, "-k", "not slow", "--abex", "--abex-offline", "--abex-pairs", "100",
                 "--abex-function=shipping.py::insurance", "--abex-fail-on", "finding")
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "gap(s) found" not in out and "GAP" not in out, out
    assert "1 function not reached by any test" in out, out


def test_a_session_started_in_a_subfolder_runs_the_same_tests_in_the_runner(pytester, tmp_path):
    root = copy_project(pytester, "dash_k")
    env = dict(os.environ, FIDELITY_IDS=str(tmp_path / "sub"))
    result = run(root / "tests", "-k", "not slow", "--abex", "--abex-offline", "--abex-pairs", "100",
                 "--abex-function=../shipping.py::insurance", "--abex-function=../shipping.py::shipping_cost",
                 env=env)
    out = result.stdout + result.stderr
    assert result.returncode == 0 and "abex: error" not in out, out
    outer, inner = ids_of(tmp_path / "sub.outer"), ids_of(tmp_path / "sub.inner")
    assert outer == inner == ["tests/test_shipping.py::test_light_parcel", "tests/test_shipping.py::test_heavier_parcel"]
    report = json.loads((root / ".abex" / "out" / "report.json").read_text())
    assert by_name(report)["shipping.insurance"]["mutation"]["reached_by"] == 0
    check_gaps(root, tmp_path, ["-k", "not slow"], report)
