"""pytest-abex end to end, through pytester: a small project per test, pytest run on it."""

import json
import subprocess

import pytest

PRICING = '''
def bulk_discount(quantity: int) -> float:
    """15% from 100 items, 5% from 10."""
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    if quantity >= 100:
        return 0.15
    if quantity >= 10:
        return 0.05
    return 0.0
'''

TESTS = '''
from pricing import bulk_discount


def test_far_from_the_boundaries():
    assert bulk_discount(500) == 0.15
    assert bulk_discount(50) == 0.05
    assert bulk_discount(1) == 0.0
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(pricing=PRICING, test_pricing=TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


def report(pytester):
    return json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())


def snapshot(root):
    return {
        p.relative_to(root): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".abex" not in p.parts and "__pycache__" not in p.parts
    }


def test_the_plugin_is_inert_without_abex(project):
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    assert "= abex =" not in result.stdout.str()
    assert not (project.path / ".abex").exists()


def test_the_plugin_can_be_disabled_by_its_entry_point_name(project):
    result = project.runpytest("-p", "no:abex", "--abex")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unrecognized arguments: --abex" in result.stderr.str()


def test_a_run_finds_a_witnessed_survivor_and_a_suggested_test_that_kills_it(project):
    before = snapshot(project.path)
    result = project.runpytest(
        "-p", "no:cacheprovider", "--abex", "--abex-function", "pricing.py::bulk_discount", "--abex-offline"
    )
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert "= abex =" in out and "pricing.bulk_discount" in out
    # The run's progress lines, the ones `cargo abex` prints, as it goes.
    result.stdout.fnmatch_lines([
        "abex: abex 1 function (1 to explore)",
        "abex: Building project for * (1 function)",
        "abex: Exploring `pricing.bulk_discount` (* pairs)",
        "abex: Testing * mutants of * against * test file*",
        "abex: Proving * survivor* of *: witnesses and suggested tests",
    ])
    quiet = project.runpytest(
        "-q", "-p", "no:cacheprovider", "--abex", "--abex-function", "pricing.py::bulk_discount", "--abex-offline"
    )
    assert "abex: Testing" not in quiet.stdout.str()
    # The user's tree is unchanged, byte for byte (abex writes only under .abex/).
    assert snapshot(project.path) == before
    rep = report(project)
    assert rep["language"] == "python" and rep["complete"]
    (t,) = rep["targets"]
    m = t["mutation"]
    assert m["self_check_killed"] is True
    survivor = next(x for x in m["mutants"] if "-    if quantity >= 100:\n+    if quantity > 100:" in x["diff"])
    assert survivor["status"] == "survived"
    assert survivor["witness"]["input"] == [100]
    assert survivor["witness"]["original"] == {"kind": "ok", "value": "0.15"}
    # report.html shows the function with its boundary map and every gap (issue 15).
    page = (project.path / ".abex" / "out" / "report.html").read_text()
    assert 'data-function="pricing.bulk_discount"' in page and 'class="boundary-map"' in page
    assert page.count('data-gap="true"') == m["counts"]["witnessed"] > 0
    name = survivor["suggested_test"]
    code = next(s["code"] for s in m["suggested_tests"] if s["name"] == name)
    # The suggested test passes on the original ...
    project.makepyfile(test_suggested=code)
    project.runpytest("test_suggested.py").assert_outcomes(passed=1)
    # ... and fails on the mutant.
    mutated = (project.path / "pricing.py").read_text().replace("quantity >= 100", "quantity > 100")
    (project.path / "pricing.py").write_text(mutated)
    project.runpytest("test_suggested.py", "-p", "no:cacheprovider").assert_outcomes(failed=1)


def test_without_pytest_s_terminal_the_mutants_still_run_the_session_s_tests(project):
    # `-p no:terminal` passes on to the runner, where its own `-q` (an option of the terminal
    # plugin) then was a usage error: no mutant was tested, and with no terminal nothing said so.
    args = ("-p", "no:terminal", "-p", "no:cacheprovider", "--abex", "--abex-offline")
    result = project.runpytest(*args, "--abex-function", "pricing.py::bulk_discount")
    assert result.ret == pytest.ExitCode.OK
    rep = report(project)
    assert rep["complete"]
    (t,) = rep["targets"]
    counts = t["mutation"]["counts"]
    assert counts["killed"] > 0 and counts["witnessed"] > 0, counts


def _counted_runs(project, monkeypatch, tmp_path, module, body):
    """Adds test module `module` whose test counts its runs (then does `body`), runs pytest
    --abex on `bulk_discount` with one job, and returns how many times that test ran."""
    runs = tmp_path / f"{module}-runs"
    monkeypatch.setenv("COUNTED_RUNS", str(runs))
    test = (
        "import os\n\nfrom pricing import bulk_discount\n\n\ndef test_counted():\n"
        '    with open(os.environ["COUNTED_RUNS"], "a") as f:\n        f.write("ran\\n")\n'
    )
    project.makepyfile(**{module: test + body})
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--abex", "--abex-function", "pricing.py::bulk_discount",
        "--abex-offline", "--abex-jobs", "1",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return runs.read_text().count("ran")


def test_a_new_killer_is_checked_on_the_original_with_the_function_s_tests_not_the_whole_suite(
    project, monkeypatch, tmp_path
):
    # A test that calls nothing abex analyses counts its runs. A mutant's killer is run on the
    # original before its kill counts (a flaky test kills nothing): with the tests that call the
    # function, as the mutant ran them. It used to be every test of the suite, three times per
    # new killer (packaging 24.2: 317 s of a 350 s run).
    runs = _counted_runs(project, monkeypatch, tmp_path, "test_other", "")
    (t,) = report(project)["targets"]
    assert t["mutation"]["counts"]["killed"] > 0 and t["mutation"]["self_check_killed"] is True
    # The session's own run and the runner's baseline; no mutant's check.
    assert runs == 2, runs


def test_a_new_killer_is_checked_with_the_tests_its_mutant_ran_up_to_it_not_the_function_s_others(
    project, monkeypatch, tmp_path
):
    # A test that calls the function after its killer counts its runs: a check runs the killer
    # where it killed (the tests before it, then it), not every test of the function three times
    # (packaging 24.2: 20 473 tests call `_parse_local_version`; 116 s -> 49 s).
    body = "    try:\n        bulk_discount(3)\n    except Exception:\n        pass\n"
    runs = _counted_runs(project, monkeypatch, tmp_path, "test_pricing_late", body)
    (t,) = report(project)["targets"]
    mutants = t["mutation"]["mutants"]
    assert {m.get("killed_by") for m in mutants if m["status"] == "killed"} == {
        "test_pricing.py::test_far_from_the_boundaries"
    }
    # The session's run, the baseline, and one run per mutant that its killer let through.
    survived = sum(m["status"] == "survived" for m in mutants)
    assert runs == 2 + survived, (runs, survived)


def test_fail_on_finding_sets_pytest_s_exit_status_like_cargo_abex(project):
    args = ("-p", "no:cacheprovider", "--abex", "--abex-function", "pricing.py::bulk_discount", "--abex-offline")
    result = project.runpytest(*args, "--abex-fail-on", "finding")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "gap(s) found: exit status 1 (--abex-fail-on finding)" in result.stdout.str()
    # By default (and with `never`) the exit status is pytest's own.
    assert project.runpytest(*args).ret == pytest.ExitCode.OK
    assert project.runpytest(*args, "--abex-fail-on", "never").ret == pytest.ExitCode.OK
    bad = project.runpytest("--abex", "--abex-fail-on", "sometimes")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_the_session_s_other_end_of_run_work_runs_while_abex_works(project):
    # Another plugin's summary (hypothesis's imports hypothesis there) runs before abex's,
    # while the core is still at work on its own thread; abex's section still comes, whole.
    project.makeconftest("""
import threading

def pytest_terminal_summary(terminalreporter):
    busy = any(t.name == "abex" and t.is_alive() for t in threading.enumerate())
    terminalreporter.write_line(f"other summary: abex busy={busy}")
""")
    args = ("-p", "no:cacheprovider", "--abex", "--abex-function", "pricing.py::bulk_discount", "--abex-offline")
    result = project.runpytest(*args, "--abex-fail-on", "finding")
    out = result.stdout.str()
    assert "other summary: abex busy=True" in out, out
    assert out.index("other summary") < out.index("gap(s) found: exit status 1"), out
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_without_fork_the_plugin_says_abex_needs_posix(project, monkeypatch):
    import os

    monkeypatch.delattr(os, "fork")
    result = project.runpytest("--abex")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "pytest-abex needs os.fork (Linux, macOS" in result.stderr.str()
    # Without --abex the plugin stays out of the way.
    project.runpytest().assert_outcomes(passed=1)


def test_an_exception_is_an_error_outcome_and_an_infinite_loop_a_timeout(pytester):
    pytester.makepyfile(
        spin='''
def spin(x: int) -> int:
    if x > 1000:
        while True:
            pass
    if x < 0:
        raise ValueError("negative")
    return x
''',
        test_spin="from spin import spin\n\ndef test_small():\n    assert spin(3) == 3\n",
    )
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest(
        "--abex", "--abex-function", "spin.py::spin", "--abex-pairs", "60", "--abex-call-timeout", "100",
        "--abex-time-budget", "10",
    )
    result.assert_outcomes(passed=1)
    (t,) = report(pytester)["targets"]
    outcomes = [o for c in t["exploration"]["cells"] for o in c["outcomes"]]
    assert {"kind": "error", "type": "ValueError", "message": "negative"} in outcomes
    assert {"kind": "timeout"} in outcomes


def test_changed_functions_come_from_the_git_diff(project):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=project.path, check=True,
                       capture_output=True)

    (project.path / ".gitignore").write_text(".abex/\n__pycache__/\n")
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "feature")
    pricing = project.path / "pricing.py"
    pricing.write_text(pricing.read_text().replace("return 0.05", "return 0.06") + "\n\ndef untouched(x):\n    return x\n")
    git("commit", "-qam", "change")
    project.makepyfile(test_pricing=TESTS.replace("0.05", "0.06"))
    result = project.runpytest("--abex", "--abex-base", "main", "--abex-pairs", "100")
    result.assert_outcomes(passed=1)
    rep = report(project)
    assert rep["selection"] == "diff"
    assert [t["qualified_name"] for t in rep["targets"]] == ["pricing.bulk_discount", "pricing.untouched"]


def test_under_xdist_the_analysis_runs_once_in_the_controller(project):
    pytest.importorskip("xdist")
    result = project.runpytest_subprocess(
        "-n", "2", "--abex", "--abex-function", "pricing.py::bulk_discount", "--abex-pairs", "100"
    )
    result.assert_outcomes(passed=1)
    assert result.stdout.str().count("= abex =") == 1
    # Every run rotates the previous output to out.old: one run leaves none.
    assert (project.path / ".abex" / "out" / "report.json").is_file()
    assert not (project.path / ".abex" / "out.old").exists()


def test_settings_come_from_the_ini_file(project):
    project.makeini("[pytest]\npythonpath = .\nabex = true\nabex_function = pricing.py::bulk_discount\nabex_pairs = 50\n")
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    rep = report(project)
    assert rep["settings"]["pairs"] == 50
    assert rep["selection"] == "function"


def test_the_help_states_the_cores_defaults_and_the_plugin_sends_none_of_its_own():
    import json

    from pytest_abex import _core, plugin

    core = json.loads(_core.defaults())
    helps = {opt: text for opt, _, _, _, text in plugin._OPTIONS}
    assert f"(default: {core['pairs']})" in helps["--abex-pairs"]
    assert f"(default: {core['seed']})" in helps["--abex-seed"]
    assert f"(default: {core['call_timeout_ms']})" in helps["--abex-call-timeout"]
    # Unset numbers are left out of the settings, so the core's defaults apply.
    assert all(default is None for opt, _, typ, default, _ in plugin._OPTIONS if typ in (int, float))


# A decorator that reads the function's argument names, as `validators` (PyPI) does: its result
# keeps the arguments by name, and the project's tests read them back.
CHECKS = '''
import functools
from inspect import getfullargspec


class Failure:
    def __init__(self, func, args):
        self.func = func
        self.__dict__.update(args)

    def __bool__(self):
        return False


def validator(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        names = getfullargspec(func)[0]
        return True if func(*args, **kwargs) else Failure(func, {**dict(zip(names, args)), **kwargs})
    return wrapper


@validator
def in_range(value, /, *, low=0, high=10):
    """Whether low <= value <= high."""
    return low <= value <= high
'''

CHECKS_TESTS = '''
from checks import in_range


def test_far_inside_and_outside():
    assert in_range(5)
    assert not in_range(50)


def test_a_failure_keeps_the_arguments_by_name():
    failure = in_range(50, high=20)
    assert failure.__dict__["value"] == 50 and failure.__dict__["high"] == 20
'''


def test_a_decorator_that_reads_the_argument_names_still_finds_them_while_abex_traces_the_tests(pytester):
    # Found on validators 0.35.0: the baseline run recorded which tests call a function by
    # swapping its code for a `*args, **kwargs` wrapper, so `getfullargspec` saw no names, the
    # project's own test failed there, and the run stopped ("fail before any mutation").
    pytester.makepyfile(checks=CHECKS, test_checks=CHECKS_TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--abex", "--abex-function", "checks.py::in_range", "--abex-offline"
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=2)
    rep = report(pytester)
    (t,) = rep["targets"]
    m = t["mutation"]
    assert rep["complete"] and m["self_check_killed"] is True
    # The boundaries the tests leave open are found and witnessed at their exact values.
    witnessed = {line[1:].strip(): x["witness"]["input"] for x in m["mutants"]
                 if x["status"] == "survived" and x.get("witness")
                 for line in x["diff"].splitlines() if line.startswith("+ ")}
    value, _, high = witnessed["return low <= value < high"]
    assert value == high, witnessed


def test_an_out_folder_holding_a_user_file_is_refused_naming_the_option(project):
    docs = project.path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("my guide\n")
    for _ in range(2):
        result = project.runpytest(
            "-p", "no:cacheprovider", "--abex", "--abex-function", "pricing.py::bulk_discount",
            "--abex-offline", "--abex-out", "docs",
        )
        out = result.stdout.str() + result.stderr.str()
        assert result.ret != 0, out
        assert "guide.md" in out and "--abex-out" in out and "[tool.abex]" in out, out
        assert (docs / "guide.md").read_text() == "my guide\n"
        assert sorted(p.name for p in docs.iterdir()) == ["guide.md"]
        assert not (project.path / "docs.old").exists()


LIMITS = '''
class Limits:
    """Has no constructor without arguments: a static or class method is called on the class."""

    def __init__(self, low, high):
        self.low, self.high = low, high

    @staticmethod
    def grade(score: int) -> str:
        if score >= 50:
            return "pass"
        return "fail"

    @classmethod
    def level(cls, n: int) -> str:
        if n >= 10:
            return "high"
        return "low"
'''

LIMITS_TESTS = '''
from limits import Limits


def test_far_from_the_boundaries():
    assert Limits.grade(90) == "pass"
    assert Limits.grade(10) == "fail"
    assert Limits.level(20) == "high"
    assert Limits.level(1) == "low"
'''


def test_static_and_class_methods_are_called_on_their_class_and_their_gaps_witnessed(pytester):
    # The core named these kinds `static_method` and `class_method`, which the worker did not
    # know: it called them on `Limits()`, a TypeError for every input (semver 3's
    # `Version._increment_string`: 0 boundaries in 322 cells), so no survivor had a witness.
    pytester.makepyfile(limits=LIMITS, test_limits=LIMITS_TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--abex", "--abex-offline",
        "--abex-function", "limits.py::Limits.grade", "--abex-function", "limits.py::Limits.level",
    )
    result.assert_outcomes(passed=1)
    targets = {t["qualified_name"]: t for t in report(pytester)["targets"]}
    for name, boundary in [("limits.Limits.grade", 50), ("limits.Limits.level", 10)]:
        t = targets[name]
        assert t["exploration"]["bc_count"] > 0, t["exploration"]
        errors = [c for c in t["exploration"]["cells"] for o in c["outcomes"] if o["kind"] == "error"]
        assert not errors, errors[:3]
        survivor = next(m for m in t["mutation"]["mutants"] if f">= {boundary}:\n+" in m["diff"])
        assert survivor["status"] == "survived"
        assert survivor["witness"]["input"] == [boundary], survivor["witness"]
