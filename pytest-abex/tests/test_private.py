"""Parameters named private, with defaults, end to end: ``pytest --abex`` on
``projects/private`` (natsort 8.4.0's fake ``fast_int``, whose ``_first_char`` and ``_digit``
bind globals for speed). abex leaves them to their defaults: a witness that set them reached
what no caller can, and its test pinned an implementation detail
(``fast_int(" 0", _first_char=frozenset(["0"]))``)."""


def test_a_private_parameter_is_left_to_its_default_and_the_gap_is_proven_through_the_public_one(private, abex_target):
    target = abex_target(private, "fastnum.py::fast_int")
    mutants = target["mutation"]["mutants"]
    gaps = [m for m in mutants if m.get("witness")]
    # `x[0]` made `x[-1]` is a real gap a caller reaches: `fast_int(" 1")` is " 1", and 1 on
    # the mutant.
    assert any(m["original"] == "0" and m["replacement"] == "-1" for m in gaps), [m["description"] for m in gaps]
    for m in gaps:
        assert len(m["witness"]["input"]) == 1, (m["description"], m["witness"]["input"])
    for s in target["mutation"]["suggested_tests"]:
        assert "_first_char" not in s["code"] and "_digit" not in s["code"], s["code"]
