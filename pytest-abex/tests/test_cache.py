"""The results cache of a Python project (issue 27): a change to what a function's result
depends on (a module constant, a knob) analyses it again and reports the fresh witness; an
unchanged project reuses it once its suggested test was run again."""

import json

import pytest

LIMIT = '''
LIMIT = 100


def classify(n: int) -> str:
    """"small" below the limit, "large" from it on."""
    return "small" if n < LIMIT else "large"
'''

TESTS = '''
from limits import classify


def test_far_from_the_limit():
    assert classify(5) == "small"
    assert classify(500) == "large"
'''

ARGS = ("-p", "no:cacheprovider", "--abex", "--abex-function", "limits.py::classify", "--abex-offline")


@pytest.fixture
def project(pytester):
    pytester.makepyfile(limits=LIMIT, test_limits=TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


def run(project, said=None):
    result = project.runpytest(*ARGS)
    out = result.stdout.str()
    assert result.ret == 0, out
    if said is not None:
        said.append(out)
    return json.loads((project.path / ".abex" / "out" / "report.json").read_text())


def boundary(rep):
    """The witness input of the `<` → `<=` mutant and the suggested tests' code."""
    m = rep["targets"][0]["mutation"]
    mutant = next(x for x in m["mutants"] if "n <= LIMIT" in x["diff"])
    return mutant["witness"]["input"], "".join(t["code"] for t in m["suggested_tests"])


def test_a_changed_constant_or_knob_is_analysed_again_and_an_unchanged_project_reused(project, monkeypatch):
    first = run(project)
    assert boundary(first)[0] == [100] and "reused" not in first
    again = run(project)
    assert again["reused"]["functions"] == 1, again
    assert boundary(again) == boundary(first)
    # The constant the function reads, not its own text.
    (project.path / "limits.py").write_text(LIMIT.replace("LIMIT = 100", "LIMIT = 10"))
    said = []
    rep = run(project, said)
    assert "reused" not in rep, rep
    # The key saw the change: no stale entry had to be caught by re-running its test.
    assert "reused from the results cache" not in said[0], said[0]
    witness, tests = boundary(rep)
    assert witness == [10] and "classify(10)" in tests and "classify(100)" not in tests
    # A knob.
    monkeypatch.setenv("ABEX_SHRINK", "off")
    assert "reused" not in run(project)


def test_another_build_of_the_plugin_is_another_key(tmp_path, monkeypatch):
    # The key's description of the interpreter carries a hash of the plugin's own files: a
    # result of another build of the same version (a checkout between releases, whose runner
    # calls functions another way) is not reused.
    import importlib
    import shutil

    import pytest_abex

    copy = tmp_path / "pytest_abex_copy"
    shutil.copytree(pytest_abex.__path__[0], copy, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    monkeypatch.syspath_prepend(str(tmp_path))
    plugin = importlib.import_module("pytest_abex_copy.plugin")
    before = plugin._interpreter()
    assert before == plugin._interpreter()
    with open(copy / "calls.py", "a") as f:
        f.write("\n# another build\n")
    after = plugin._interpreter()
    assert after != before
    assert after.splitlines()[:2] == before.splitlines()[:2]  # the same interpreter
