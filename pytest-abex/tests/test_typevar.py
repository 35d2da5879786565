"""A parameter typed by a constrained ``TypeVar`` end to end: ``pytest --abex`` on
``projects/platform`` (pathvalidate 3.2.0's ``normalize_platform(name:
Optional[PlatformType])``, ``PlatformType = TypeVar("PlatformType", str, Platform)``). Before,
the ``TypeVar`` was a name abex could not build, so the function was called with ``None``
alone; and a string constant was never put into an argument whose type is an option or a
union holding strings, so ``"mac"`` and ``"darwin"`` were never tried."""


def test_a_constrained_type_var_takes_its_constraints_and_string_constants_reach_it(platform, abex_target):
    target = abex_target(platform, "plat.py::normalize")
    (param,) = target["params"]
    options = [o["kind"] for o in param["ty"]["item"]["options"]]
    assert options == ["str", "built"], param
    witnessed = {m["replacement"]: m["witness"]["input"] for m in target["mutation"]["mutants"]
                 if m.get("witness")}
    # The tests try "macos" only: "mac" and "darwin" are the gaps.
    assert witnessed.get('"MAC"') == ["mac"], witnessed
    assert witnessed.get('"DARWIN"') == ["darwin"], witnessed
