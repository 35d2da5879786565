"""A function abex cannot call itself is explored and proven through a function that calls it;
one that nothing callable calls has its survivors listed as not proven, with the reason."""

import json

SCORES = '''
from typing import Callable


def tier(score: int, log: Callable[[str], None]) -> str:
    log(str(score))
    if score >= 90:
        return "gold"
    if score >= 50:
        return "silver"
    return "bronze"


def rate(score: int) -> str:
    return tier(score, lambda _: None)


def twice(f: Callable[[int], int], x: int) -> int:
    if x > 10:
        return f(f(x))
    return f(x)
'''

TESTS = '''
from scores import rate, twice


def test_ratings():
    assert rate(95) == "gold"
    assert rate(60) == "silver"
    assert rate(10) == "bronze"


def test_twice():
    assert twice(lambda x: x + 1, 20) == 22
    assert twice(lambda x: x + 1, 1) == 2
'''


def test_a_function_is_proven_through_its_caller_and_the_rest_says_why(pytester):
    pytester.makepyfile(scores=SCORES, test_scores=TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-seed", "3",
        "--abex-function", "scores.py::tier", "--abex-function", "scores.py::twice",
    )
    result.assert_outcomes(passed=2)
    rep = json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())
    tier = next(t for t in rep["targets"] if t["name"] == "tier")
    assert tier["drive"] == {"status": "via", "caller": "scores.rate", "reason": tier["drive"]["reason"]}
    assert tier["exploration"]["bc_count"] > 0
    m = tier["mutation"]
    at_90 = next(x for x in m["mutants"] if "+    if score > 90:" in x["diff"])
    assert at_90["status"] == "survived" and at_90["witness"]["input"] == [90], at_90
    test = next(t for t in m["suggested_tests"] if t["name"] == at_90["suggested_test"])
    assert "rate(90)" in test["code"], test["code"]
    # The tests reach `tier` through `rate` only: its mutants they kill are killed, not gaps.
    killed = [x for x in m["mutants"] if x["description"] == 'replace `"gold"` with `None`']
    assert killed and killed[0]["status"] == "killed", killed
    twice = next(t for t in rep["targets"] if t["name"] == "twice")
    assert twice["drive"]["status"] == "unsupported"
    left = [x for x in twice["mutation"]["mutants"] if x["status"] == "survived"]
    assert left and all(x["unwitnessed"]["stage"] == "not_callable" for x in left), left
    assert not any(x["possibly_equivalent"] for x in left)
    assert "driven through" in result.stdout.str()
