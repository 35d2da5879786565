"""The inner runner runs the suite as the user's pytest does: a project whose tests need
`--ignore` (a file that does not import), a plugin given with `-p` (a fixture), `-k` and
`filterwarnings = error` (a test that expects a warning to raise) gives the same results under
`pytest --abex` as under plain pytest, and abex's runner runs its tests with the same options. A
test file that collects in the user's run but not in the runner is left out with a warning."""

import json

import pytest

PRICING = '''
import warnings


def discount(quantity: int) -> float:
    """15% from 100 items; a negative quantity is deprecated."""
    if quantity < 0:
        warnings.warn("negative quantity", DeprecationWarning)
        return 0.0
    if quantity >= 100:
        return 0.15
    return 0.0
'''

PLUGIN = '''
import pytest


@pytest.fixture
def big_order():
    return 500
'''

TESTS = '''
import pytest

from pricing import discount


def test_big(big_order):
    assert discount(big_order) == 0.15


def test_small():
    assert discount(3) == 0.0


def test_negative_warns():
    with pytest.raises(DeprecationWarning):
        discount(-1)


def test_slow_and_failing():
    assert False, "deselected by -k"
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(pricing=PRICING, myplugin=PLUGIN)
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_pricing.py").write_text(TESTS)
    (pytester.path / "tests" / "test_broken.py").write_text("import not_a_module\n")
    pytester.makeini("[pytest]\npythonpath = .\nfilterwarnings =\n    error\n")
    return pytester


ARGS = ["-p", "no:cacheprovider", "-p", "myplugin", "--ignore", "tests/test_broken.py", "-k", "not slow"]


def test_a_suite_that_needs_its_options_runs_in_abex_as_in_plain_pytest(project):
    plain = project.runpytest(*ARGS)
    plain.assert_outcomes(passed=3, deselected=1)
    result = project.runpytest(*ARGS, "--abex", "--abex-offline", "--abex-function", "pricing.py::discount",
                               "--abex-pairs", "60")
    result.assert_outcomes(passed=3, deselected=1)
    out = result.stdout.str()
    assert "abex: error" not in out and "does not collect" not in out, out
    (t,) = json.loads((project.path / ".abex" / "out" / "report.json").read_text())["targets"]
    m = t["mutation"]
    # The runner ran the three tests with the plugin's fixture and warnings as errors: its
    # baseline passed, and each of them kills some mutant.
    assert m["self_check_killed"] is True
    assert "3 tests that call the function" in m["test_tool"], m["test_tool"]
    killers = {x["killed_by"] for x in m["mutants"] if x["status"] == "killed"}
    assert {"tests/test_pricing.py::test_big", "tests/test_pricing.py::test_negative_warns"} <= killers


def test_a_session_with_warnings_as_errors_on_its_command_line_runs_in_abex_too(project):
    # funcy 2.0's tox runs `pytest -W error`: abex's runner, which imports pytest_abex before
    # pytest starts, failed to start on pytest's warning that it cannot rewrite its asserts.
    args = [*ARGS, "-W", "error"]
    result = project.runpytest(*args, "--abex", "--abex-offline", "--abex-function", "pricing.py::discount",
                               "--abex-pairs", "30")
    result.assert_outcomes(passed=3, deselected=1)
    out = result.stdout.str()
    assert "abex: error" not in out, out
    (t,) = json.loads((project.path / ".abex" / "out" / "report.json").read_text())["targets"]
    assert t["mutation"]["self_check_killed"] is True
    assert t["mutation"]["counts"]["killed"] > 0


def test_a_test_file_that_does_not_collect_in_the_runner_is_left_out_with_a_warning(project):
    (project.path / "tests" / "test_outside.py").write_text(
        "import os\n\nif os.environ.get('ABEX_INNER'):\n    raise ImportError('needs the real tree')\n\n"
        "from pricing import discount\n\n\ndef test_outside():\n    assert discount(200) == 0.15\n"
    )
    result = project.runpytest(*ARGS, "--abex", "--abex-offline", "--abex-function", "pricing.py::discount",
                               "--abex-pairs", "30")
    result.assert_outcomes(passed=4, deselected=1)
    result.stdout.fnmatch_lines(["abex: warning: `tests/test_outside.py` does not collect in abex's test runner*"])
    (t,) = json.loads((project.path / ".abex" / "out" / "report.json").read_text())["targets"]
    assert "left out, as they do not collect in abex's runner: tests/test_outside.py" in t["mutation"]["test_tool"]
    assert t["mutation"]["self_check_killed"] is True


class _Capture:
    """Keeps what the plugin hands the core, computed at the end of the session."""

    def __init__(self):
        self.settings = None

    def pytest_sessionfinish(self, session):
        from pytest_abex import suite

        self.settings = suite.settings(session)


def test_the_runner_gets_the_sessions_node_ids_and_effective_options_less_what_cannot_run_there(pytester, monkeypatch):
    pytester.makepyfile(**{"tests/checks_a": "def test_one():\n    pass\n\ndef test_two():\n    pass\n"})
    pytester.makeconftest(
        "def pytest_addoption(parser):\n"
        "    parser.addoption('--level', action='store', default='1')\n"
        "    parser.addoption('--fast', action='store_true')\n"
        "    parser.addoption('--html', action='store', dest='htmlpath')\n"  # as pytest-html
    )
    pytester.makeini("[pytest]\naddopts = -p xdist -n 0 --level 3 -rA\n")
    monkeypatch.setenv("PYTEST_ADDOPTS", "--import-mode=importlib -W error::UserWarning")
    capture = _Capture()
    result = pytester.inline_run(
        "tests/checks_a.py", "-k", "two", "--lf", "-x", "--fast", "-vv", "-p", "no:randomly",
        "--basetemp", str(pytester.path / "tmp"), "--ignore", "tests/old",
        "--html", str(pytester.path / "report.html"), plugins=[capture],
    )
    result.assertoutcome(passed=1)
    s = capture.settings
    assert s["node_ids"] == ["tests/checks_a.py::test_two"]
    assert s["paths"] == ["tests/checks_a.py"]
    assert s["test_files"] == ["tests/checks_a.py"] and s["doctest_files"] == []
    args = s["pytest_args"]
    # The session's own options, from the ini's addopts, PYTEST_ADDOPTS and the command line.
    for kept in ("--level=3", "-r", "A", "--import-mode=importlib", "-W", "error::UserWarning", "--fast",
                 "-v", "--ignore=tests/old", "--rootdir=."):
        assert kept in args, (kept, args)
    assert args.count("-v") == 2
    # What cannot run in the runner, or what the node ids already apply, is left out.
    # (A report file a plugin writes would land in the user's tree.)
    for gone in ("-n", "--lf", "-x", "-k", "two", "xdist", "no:randomly", "--basetemp", "--html"):
        assert not any(a == gone or a.startswith(gone + "=") for a in args), (gone, args)
    assert args[args.index("-c") + 1] == "tox.ini"


def test_a_module_named_with_pyargs_is_handed_over_as_a_module_name(pytester, monkeypatch):
    pytester.makepyfile(**{"mypkg/__init__": "", "mypkg/test_it": "def test_it():\n    pass\n"})
    pytester.makeini("[pytest]\npythonpath = .\n")
    # Started in a subfolder: a path would be rebased onto the rootdir, a module name is not.
    pytester.mkdir("sub")
    monkeypatch.chdir(pytester.path / "sub")
    capture = _Capture()
    result = pytester.inline_run("--pyargs", "mypkg.test_it", plugins=[capture])
    result.assertoutcome(passed=1)
    assert capture.settings["paths"] == ["mypkg.test_it"]
    assert "--pyargs" in capture.settings["pytest_args"]
    assert capture.settings["node_ids"] == ["mypkg/test_it.py::test_it"]
