"""A list parameter's elements take the kinds the tests put in it, end to end on
``projects/elements`` (croniter 2.0.5's ``_get_prev_nearest_diff``): before, its elements were
of any type, and ``candidate > range_val`` made ``>=`` (the same for every integer) was a gap
on ``[60.0]``, where ``0.0`` differs from ``0`` only in its type; other witnesses were lists of
booleans."""


def test_a_list_is_explored_with_the_kind_of_elements_the_tests_pass(elements, abex_target):
    target = abex_target(elements, "nearest.py::prev_nearest_diff")
    mutants = target["mutation"]["mutants"]
    (ge,) = [m for m in mutants if m["description"] == "replace `>` with `>=`"]
    assert ge["status"] == "survived" and not ge.get("witness"), ge
    witnessed = [m for m in mutants if m.get("witness")]
    assert witnessed
    for m in witnessed:
        _, to_check, _ = m["witness"]["input"]
        assert all(type(x) is int for x in to_check), m["witness"]
