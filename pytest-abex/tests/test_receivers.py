"""Receivers built from what the tests pass, end to end on ``projects/receivers``: a method of a
class whose ``__init__`` takes unannotated arguments and refuses most values (semantic_version
2.10.0's ``Version``). The baseline records the arguments the tests pass to ``__init__``; its
parameters take their kinds and values, and those argument lists seed the receiver. Before,
only random receivers were tried: ``truncate("minor")`` of a whole version was never reached
(``0`` made ``1`` there went unproven), and the witnesses built ``Version("0", partial="a")``."""


def test_a_receiver_is_built_from_the_arguments_the_tests_pass_to_its_constructor(receivers, abex_target):
    target = abex_target(receivers, "versions.py::Version.truncate")
    mutants = target["mutation"]["mutants"]
    # `patch=None if self.partial else 0` made `1`: only a whole (not partial) version shows it.
    (zero,) = [m for m in mutants if m["line"] == 37 and m["description"] == "replace `0` with `1`"]
    assert zero["status"] == "survived", zero
    assert zero.get("witness"), zero.get("unwitnessed")
    receiver, level = zero["witness"]["input"]
    assert level == "minor"
    assert receiver["$ctor"] == "Version"
    text, partial, _ = receiver["$args"]
    assert partial is False, receiver
    assert isinstance(text, str) and text.count(".") == 2, receiver
    # Every receiver a witness uses has a `partial` of the kind the tests pass: a bool.
    for m in mutants:
        if m.get("witness"):
            assert isinstance(m["witness"]["input"][0]["$args"][1], bool), m["witness"]
    code = "\n".join(t["code"] for t in target["mutation"]["suggested_tests"])
    # The receiver is written as the tests write one: its arguments at their defaults left out.
    assert 'assert repr(Version(text="0.0.0").truncate("minor")) == "Version(\'0.0.0\')"' in code, code
    assert 'Version(text="0", partial=True).truncate("major")' in code, code
    assert "build=None" not in code and "partial=False" not in code, code
