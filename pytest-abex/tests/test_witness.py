"""Witnesses at the exact boundary (issue 19), end to end: ``pytest --abex`` on the
``projects/thresholds`` project, whose boundary mutants survive strong tests and are only told
apart where two compared values are exactly equal; and the probes of the worker on their own."""

import ast
import json
import os

from pytest_abex import _probe

FUNCTIONS = ["underweight", "check_date", "check_name", "fits", "fever", "clamp_percent"]
# The survivors of `clamp_percent` that no input tells apart from the original: (original,
# replacement) of the changed operator or constant.
EQUIVALENT = {(">", ">="), ("100", "99"), ("<", "<="), ("0", "1")}


def run(pytester, directed=True):
    args = ["-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-seed", "1"]
    for f in FUNCTIONS:
        args += ["--abex-function", f"thresholds.py::{f}"]
    if not directed:
        # The search as it was before: no probes, and no threshold operator in the explorer
        # (whose exact pairs are archive witnesses of their own).
        os.environ["ABEX_WITNESS_SEARCH"] = "random"
        os.environ["ABEX_THRESHOLDS"] = "off"
    try:
        result = pytester.runpytest(*args)
    finally:
        os.environ.pop("ABEX_WITNESS_SEARCH", None)
        os.environ.pop("ABEX_THRESHOLDS", None)
    result.assert_outcomes(passed=6)
    return json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())


def survivors(rep):
    for t in rep["targets"]:
        for m in t["mutation"]["mutants"]:
            if m["status"] == "survived":
                yield t["qualified_name"].split(".")[-1], m


def equivalent(function, m):
    return function == "clamp_percent" and (m["original"], m["replacement"]) in EQUIVALENT


def test_every_boundary_mutant_is_witnessed_with_a_suggested_test_and_the_equivalent_ones_are_masked(thresholds):
    rep = run(thresholds)
    found = list(survivors(rep))
    for f in FUNCTIONS[:-1]:
        assert any(g == f and m["operator"] in ("comparison_boundary", "constant_plus_one", "constant_minus_one")
                   for g, m in found), f"{f} has no surviving boundary mutant"
    for f, m in found:
        what = f"{f}: {m['description']} at line {m['line']}"
        if equivalent(f, m):
            assert m.get("witness") is None, what
            assert m["unwitnessed"]["stage"] == "masked", what
            continue
        assert m.get("witness"), f"{what} has no witness: {m.get('unwitnessed')}"
        assert m.get("suggested_test"), f"{what} has no suggested test"
        assert "unwitnessed" not in m
    inputs = {(f, m["original"], m["replacement"], m["line"]): m["witness"]["input"]
              for f, m in found if m.get("witness")}
    fever = next(v for k, v in inputs.items() if k[0] == "fever" and k[1:3] == (">=", ">"))
    assert fever == [37.5]
    w, h = next(v for k, v in inputs.items() if k[0] == "underweight" and k[1:3] == ("185", "186"))
    assert (2 * w * 100_000 + h * h) // (2 * h * h) == 185
    name = next(v for k, v in inputs.items() if k[0] == "check_name" and k[1:3] == (">", ">="))
    assert len(name[0]) == 64


def test_without_the_directed_search_real_gaps_stay_hidden(thresholds):
    rep = run(thresholds, directed=False)
    hidden = [(f, m["description"]) for f, m in survivors(rep) if not equivalent(f, m) and not m.get("witness")]
    assert hidden, "every gap was found without the directed search"


# ---- the probes on their own ----

ORIGINAL = '''
K = 100_000

def underweight(w, h):
    return (2 * w * K + h * h) // (2 * h * h) < 185

def check_date(year, month, day):
    if year < 1812 or year > 9999:
        raise ValueError("year")
    if month == 0 or month > 12:
        raise ValueError("month")
    if day < 1:
        raise ValueError("day")
    bmi = (day * K + 5) // (month * month)
    if bmi < 2000:
        return 0
    return day
'''


def probed(qualname, old, new):
    """The mutant of ``ORIGINAL`` replacing ``old`` by ``new``, probed: (function, probe)."""
    tree = ast.parse(ORIGINAL.replace(old, new, 1))
    probe = _probe.probed_code(ORIGINAL, tree, qualname, "__probe__")
    scope = {"__probe__": probe}
    exec(compile(tree, "m.py", "exec"), scope)
    return scope[qualname], probe


def call(fn, probe, *args):
    probe.reset()
    try:
        fn(*args)
    except ValueError:
        pass
    return probe.report()


def test_a_mutated_comparison_reports_its_operands_and_infection():
    fn, probe = probed("underweight", "< 185", "<= 185")
    assert call(fn, probe, 50, 180) == {"reached": 1, "infected": 0, "distance": 31.0,
                                        "operands": ["154", "185"], "guards": []}
    assert call(fn, probe, 6, 57)["infected"] == 1


def test_a_constant_under_arithmetic_is_probed_at_its_comparison_and_the_guards_grade_early_exits():
    fn, probe = probed("check_date", "day < 1", "day < 2")
    stopped = call(fn, probe, 1000, 6, 15)
    assert stopped["reached"] == 0 and stopped["guards"] == [[0, 812.0], [0, None]]
    assert call(fn, probe, 2000, 20, 15)["guards"] == [[1, 0.0], [0, 8.0]]
    near = call(fn, probe, 2000, 6, 3)
    assert near["reached"] == 1 and near["infected"] == 0 and near["distance"] == 2.0
    assert call(fn, probe, 2000, 6, 1)["infected"] == 1


def test_a_value_bound_by_an_assignment_is_compared_where_it_is_read():
    fn, probe = probed("check_date", "K + 5)", "K + 6)")
    r = call(fn, probe, 2000, 6, 7)
    assert r["reached"] == 1 and r["infected"] == 0 and r["operands"] == ["19444", "2000"]
    assert call(fn, probe, 2000, 1, 0)["reached"] == 0


def test_sites_without_an_infection_probe_say_why_and_still_count_their_runs():
    fn, probe = probed("check_date", "year < 1812 or", "year < 1812 and")
    r = call(fn, probe, 2000, 6, 15)
    assert r["reached"] == 1 and r["infected"] is None and "logical" in r["none"]
    fn, probe = probed("check_date", "return day", "return None")
    assert call(fn, probe, 2000, 6, 15)["reached"] == 1
    tree = ast.parse(ORIGINAL.replace("1812", "1813").replace("9999", "9998"))
    probe = _probe.probed_code(ORIGINAL, tree, "check_date", "__probe__")
    assert probe.report()["reached"] is None and "2 places" in probe.none


GET = """
def retries(config):
    count = config.get("retries", 3)
    return min(count, 10)
"""


def test_the_default_of_get_infects_only_where_the_key_is_missing():
    # Before, a changed default counted as infected on every run, so the directed search
    # walked inputs where the key was there and the default never used.
    tree = ast.parse(GET.replace(", 3)", ", 4)", 1))
    probe = _probe.probed_code(GET, tree, "retries", "__probe__")
    scope = {"__probe__": probe}
    exec(compile(tree, "m.py", "exec"), scope)
    fn = scope["retries"]
    kept = call(fn, probe, {"retries": 7})
    assert kept["reached"] == 1 and kept["infected"] == 0, kept
    assert call(fn, probe, {})["infected"] == 1
    # A mapping that cannot say whether it holds the key counts as infected.
    class Odd:
        def get(self, k, d):
            return d

        def __contains__(self, k):
            raise TypeError("no")

    assert call(fn, probe, Odd())["infected"] == 1


def _bmi(w, h):
    return (2 * w * 100_000 + h * h) // (2 * h * h) if h else None


def _exact_bmi_pairs(rep):
    (t,) = [t for t in rep["targets"] if t["qualified_name"].endswith("underweight")]
    out = []
    for c in t["exploration"]["cells"]:
        a, b = c["inputs"]
        if c["pd"] > 0 and all(type(v) is int for v in a + b) and {_bmi(*a), _bmi(*b)} == {184, 185}:
            out.append((a, b))
    return t, out


def test_the_threshold_operator_explores_the_pair_at_the_exact_threshold_of_a_computed_value(thresholds):
    def explore(switch):
        os.environ["ABEX_THRESHOLDS"] = switch
        try:
            result = thresholds.runpytest("-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-seed", "1",
                                          "--abex-function", "thresholds.py::underweight")
        finally:
            os.environ.pop("ABEX_THRESHOLDS", None)
        result.assert_outcomes(passed=6)
        return json.loads((thresholds.path / ".abex" / "out" / "report.json").read_text())

    t, exact = _exact_bmi_pairs(explore("on"))
    assert exact, "no explored pair at 184 | 185"
    assert t["exploration"]["exact_pairs"]["pairs"] >= 1
    assert t["exploration"]["pairs_evaluated"] <= 1000
    import shutil

    shutil.rmtree(thresholds.path / ".abex")
    t, exact = _exact_bmi_pairs(explore("off"))
    assert not exact, exact
    assert "exact_pairs" not in t["exploration"]


def test_a_traced_function_reports_each_comparison_at_its_closest_operands():
    from pytest_abex import _trace

    src = "def f(x, y):\n    if x < 10 or y == 'a':\n        return 0\n    return 1 if 1 < x < 5 else (x * 2 >= y)\n"
    tree = ast.parse(src)
    trace = _trace.traced_code(tree, "f", "__t")
    g = {"__t": trace}
    exec(compile(tree, "<f>", "exec"), g)
    for x, y in [(3, 50), (12, 30), (9, 40)]:
        g["f"](x, y)
    assert trace.report() == {"cmps": [[1, "<", "9", "10"], [3, ">=", "24", "30"]]}, "y == 'a' and a chain are left out"
    trace.reset()
    assert g["f"](2.5, 1) == 0 and trace.report() == {"cmps": [[1, "<", "2.5", "10"]]}


# The survivors of `retries` no input tells apart, on the line `if count > 10:`: `count >= 10`
# and `count > 9` return 10 for a count of 10 either way (capped or as it is), and any other
# count takes the same branch in both.
DICT_EQUIVALENT = {("retries", ">", ">="), ("retries", "10", "9")}


def test_mutants_behind_a_dictionary_s_keys_are_witnessed_on_every_seed(dictkeys):
    for seed in range(1, 6):
        args = ["-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-all",
                "--abex-seed", str(seed)]
        result = dictkeys.runpytest(*args)
        result.assert_outcomes(passed=3)
        rep = json.loads((dictkeys.path / ".abex" / "out" / "report.json").read_text())
        found = list(survivors(rep))
        assert len(found) >= 20, found
        source = (dictkeys.path / "dictkeys.py").read_text().splitlines()
        guard = next(i for i, line in enumerate(source, 1) if "if count > 10:" in line)
        for f, m in found:
            what = f"seed {seed}, {f}: {m['description']} at line {m['line']}"
            key = (f, m["original"], m["replacement"])
            if key in DICT_EQUIVALENT and m["line"] == guard:
                assert m.get("witness") is None, what
                assert m["unwitnessed"]["stage"] == "masked", what
                continue
            assert m.get("witness"), f"{what} has no witness: {m.get('unwitnessed')}"
            assert m.get("suggested_test"), f"{what} has no suggested test"
        witnessed = [m["witness"]["input"][0] for _, m in found if m.get("witness")]
        assert any("timezone" in d for d in witnessed) and any("retries" in d for d in witnessed)
        # The explorer gets the keys too: before, random dictionaries found no boundary at all.
        for t in rep["targets"]:
            x = t["exploration"]
            assert x["bc_count"] >= 20, (seed, t["name"], x["bc_count"])
            keys = {k for c in x["cells"] for args in c["inputs"] for k in args[0]}
            assert {"timezone", "retries"} & keys, (seed, t["name"], keys)


# ---- a number parsed from a string (webcolors 24.8.0's `_normalize_percent_rgb`) ----

PERCENTS = '''
def percent_text(value: str) -> str:
    """A percentage written in a string, clipped to 0%..100%."""
    value = value.split("%")[0]
    percent = float(value) if "." in value else int(value)
    return "0%" if percent < 0 else "100%" if percent > 100 else f"{percent}%"
'''

PERCENT_TESTS = '''
from percents import percent_text


def test_percents():
    assert percent_text("50%") == "50%"
    assert percent_text("-10%") == "0%"
    assert percent_text("500%") == "100%"
'''


def test_a_bound_parsed_from_a_string_is_witnessed_strictly_between_two_integers(pytester):
    # `percent > 100` made `percent > 99` differs on a fraction between the two ("99.5"; at the
    # integer 100 both give "100%"). The directed search's first batch respells the integer it
    # reached as the halves on either side of it, so the witness is the half below, not a
    # spelling the method happens on later ("100.": "100.0%" against "100%").
    pytester.makepyfile(percents=PERCENTS, test_percents=PERCENT_TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-seed", "0",
                                "--abex-function", "percents.py::percent_text")
    result.assert_outcomes(passed=1)
    rep = json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())
    mutants = rep["targets"][0]["mutation"]["mutants"]
    bound = next(m for m in mutants if (m["original"], m["replacement"]) == ("100", "99"))
    assert bound["status"] == "survived" and bound.get("witness"), bound.get("unwitnessed")
    text = bound["witness"]["input"][0]
    assert 99 < float(text.split("%")[0]) < 100, text
