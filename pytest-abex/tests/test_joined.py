"""One suggested test per behaviour (issue 18), end to end on the ``projects/thresholds``
project: a boundary's two sides join one test; where the project's own tests use
``pytest.mark.parametrize``, a function's cases become parametrised tables (the values it
returns, the inputs that raise one exception), which the patch adds, the project's tests pass
with, and a second run sees their mutants killed."""

import json
import re
import subprocess

FUNCTIONS = ["underweight", "check_date", "clamp_percent"]
TABLE = '''

@pytest.mark.parametrize("temp, expected", [(39.0, True), (36.6, False)])
def test_fever_table(temp, expected):
    assert fever(temp) is expected
'''


def git(root, *args):
    subprocess.run(["git", "-c", "user.name=abex", "-c", "user.email=a@b", *args], cwd=root, check=True)


def run(pytester, passed):
    args = ["-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-seed", "1"]
    for f in FUNCTIONS:
        args += ["--abex-function", f"thresholds.py::{f}"]
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=passed)
    return json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())


def suggested(rep):
    return [s for t in rep["targets"] for s in t["mutation"]["suggested_tests"]]


def test_a_boundary_s_two_sides_are_one_test_that_asserts_both(thresholds):
    rep = run(thresholds, passed=6)
    pairs = [s for s in suggested(rep) if re.search(r"_at_.+_and_", s["name"])]
    assert pairs, suggested(rep)
    for s in pairs:
        calls = re.findall(r"^    (?:assert |with pytest\.raises|\w+\()", s["code"], re.M)
        assert len(calls) == 2, s["code"]
        assert "parametrize" not in s["code"], "the project's tests are not parametrised"
        assert s["kills"], s
    # Each pair's two inputs differ in one argument, by one.
    for s in pairs:
        inputs = re.findall(r"on (\[[^\]]*\]) and (\[[^\]]*\])", s["code"])[0]
        a, b = (json.loads(x) for x in inputs)
        differ = [(x, y) for x, y in zip(a, b) if x != y]
        assert len(differ) == 1 and abs(differ[0][0] - differ[0][1]) <= 1, s["code"]


def test_where_the_project_parametrises_its_tests_the_cases_become_tables_the_patch_adds(thresholds):
    root = thresholds.path
    test_file = root / "test_thresholds.py"
    test_file.write_text(test_file.read_text() + TABLE)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "project")
    rep = run(thresholds, passed=8)
    tables = [s for s in suggested(rep) if "@pytest.mark.parametrize(" in s["code"]]
    assert tables, suggested(rep)
    # The inputs `check_date` refuses are one table of `pytest.raises(ValueError)`, whose rows
    # carry the message where a mutant raises a ValueError too.
    raises = next(s for s in tables if s["name"] == "test_check_date_raises_value_error")
    assert "    with pytest.raises(ValueError, match=match):\n        check_date(year, month, day)\n" in raises["code"], raises["code"]
    assert len(raises["kills"]) >= 3, raises
    values = [s for s in tables if "== expected" in s["code"]]
    assert values and all(len(s["kills"]) >= 2 for s in values), tables

    patch = root / ".abex" / "out" / "suggested-tests.patch"
    text = patch.read_text()
    assert text.count("+@pytest.mark.parametrize(") == len(tables), text
    git(root, "apply", "--check", str(patch))
    git(root, "apply", str(patch))
    patched = thresholds.runpytest_subprocess("-p", "no:cacheprovider")
    assert patched.ret == 0, patched.stdout.str()
    rows = sum(len(re.findall(r"^        \(", s["code"], re.M)) for s in tables)
    assert patched.parseoutcomes()["passed"] == 8 + rows + len(suggested(rep)) - len(tables)

    # Again on the patched project: what the tables were chosen for is killed now.
    listed = {k for s in tables for k in s["kills"]}
    again = run(thresholds, passed=patched.parseoutcomes()["passed"])
    statuses = {m["id"]: m["status"] for t in again["targets"] for m in t["mutation"]["mutants"]}
    assert {k: statuses.get(k) for k in listed} == {k: "killed" for k in listed}
