"""Suggested tests end to end on ``projects/defaults``: an argument at the end of the call that
equals its parameter's literal default is left out of the call and of the test's name
(boltons 24.1.0's ``bytes2human(1073741824, 0)`` was written so)."""

import re


def test_a_suggested_call_leaves_out_the_defaults_at_its_end(defaults, abex_target):
    target = abex_target(defaults, "grades.py::grade")
    tests = {t["name"]: t["code"] for t in target["mutation"]["suggested_tests"]}
    code = "\n".join(tests.values())
    # `50` made `49`: 49 points, the bonus and the strictness at their defaults.
    assert "assert grade(49) == 'fail'" in code, code
    assert "test_grade_is_fail_for_49" in tests, tests
    # `+` made `-`: the bonus is not the default; the strictness after it is.
    assert "assert grade(40, 10) == 'pass'" in code, code
    # Where the last argument is not its default, every one before it is written.
    assert "grade(0, 1, True)" in code, code


def test_a_none_default_is_left_out_and_an_unannotated_argument_shrinks_to_none(defaults, abex_target):
    # `badge(score, suffix=None)`, the tests never passing a suffix: the witness of `>=` made `>`
    # at 90 shrinks the suffix to `None` (it was `{}`, the simplest value abex had for an
    # argument of any type), and the call leaves it out as the default it is.
    target = abex_target(defaults, "grades.py::badge")
    code = "\n".join(t["code"] for t in target["mutation"]["suggested_tests"])
    assert "assert badge(90) == 'gold'" in code, code
    assert "{}" not in code, code


def test_a_parameter_whose_default_is_no_literal_is_left_out_to_reach_its_default(defaults, abex_target):
    # `lookup(table, key, default=_MISSING)`: its `KeyError` message is raised only when no
    # default is passed, which no value of `default` does; the tests check the error's type
    # alone. `None` there stands for "not given": the message's mutants are proven, and the
    # suggested test calls `lookup` without a default.
    target = abex_target(defaults, "grades.py::lookup")
    message = [
        m for m in target["mutation"]["mutants"]
        if m["line"] == 32 and m["status"] == "survived"
    ]
    assert message and all(m["witness"] for m in message), target["mutation"]["mutants"]
    code = "\n".join(t["code"] for t in target["mutation"]["suggested_tests"])
    assert "pytest.raises(KeyError" in code, code
    # The call has two arguments: no `default=None`, which would return `None` instead.
    calls = [line.strip() for line in code.splitlines() if line.strip().startswith("lookup(")]
    assert calls and all(re.fullmatch(r'lookup\(\{\}, "[^"]*"\)', c) for c in calls), code
