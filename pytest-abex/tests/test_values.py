"""Values of real Python types end to end: the fixture package `projects/kinds` holds a function
per kind of parameter abex builds (unions and aliases, enums, `Literal`, dates and times,
`Decimal`, `Fraction`, `Path`, `UUID`, sets, dataclasses, `NamedTuple`, `TypedDict`, classes
by their `__init__`, keyword-only and `*args`, `lru_cache`, `async def`, methods on built
instances, properties, unannotated parameters); `pytest --abex` explores them, witnesses their
survivors and suggests tests that build the values as a person writes them."""

import json
import shutil
from pathlib import Path

import pytest

KINDS = Path(__file__).parent / "projects" / "kinds"


@pytest.fixture
def kinds(pytester):
    shutil.copytree(KINDS / "kinds", pytester.path / "kinds")
    shutil.copy(KINDS / "kinds_tests.py", pytester.path / "test_kinds.py")
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


def outcomes(target):
    return [o for c in target["exploration"]["cells"] for o in c["outcomes"]]


def inputs(target):
    return [x for c in target["exploration"]["cells"] for i in c["inputs"] for x in i]


def test_every_kind_of_value_is_built_explored_and_written_as_code(kinds):
    result = kinds.runpytest("-p", "no:cacheprovider", "--abex", "--abex-all", "--abex-offline", "--abex-pairs", "80")
    result.assert_outcomes(passed=1)
    rep = json.loads((kinds.path / ".abex" / "out" / "report.json").read_text())
    by = {t["qualified_name"].removeprefix("kinds.values."): t for t in rep["targets"]}
    assert {name: t["drive"] for name, t in by.items() if t["drive"]["status"] != "supported"} == {}
    assert all(t["exploration"]["cells"] for t in by.values()), "every function was called"
    # Recipes travel as {"$ctor", "$args"}: an enum member, a dataclass by its fields.
    assert {"$ctor": "Color.RED", "$args": []} in inputs(by["warmth"])
    assert any(isinstance(x, dict) and x.get("$ctor") == "Point" for x in inputs(by["distance"]))
    # A constructor that raises is the call's error, not a crash of the worker.
    errors = [o for o in outcomes(by["weekend"]) if o["kind"] == "error"]
    assert any(o["type"] == "ValueError" and o["message"].startswith("while building date(") for o in errors)
    assert not [o for t in by.values() for o in outcomes(t) if o["kind"] in ("crash",) or "abex" in o.get("type", "")]
    # An unannotated parameter takes the kinds (and values, as seeds) the project's tests pass.
    value, unit = by["describe"]["params"]
    assert value["ty"] == {"kind": "union", "options": [{"kind": "int", "bits": 64, "signed": True},
                                                         {"kind": "one_of", "values": [5]}]}
    assert unit["ty"]["options"][0] == {"kind": "str"}
    # Survivors are witnessed and their tests build the values as code, with their imports.
    code = {name: [s["code"] for s in t["mutation"]["suggested_tests"]] for name, t in by.items()}
    assert any("from kinds.values import Color" in c and "warmth(Color.RED)" in c for c in code["warmth"])
    assert any("from kinds.values import Account" in c and "Account(owner=" in c for c in code["Account.can_pay"])
    assert any("asyncio.run(later(" in c for c in code["later"])
    assert any("obj.limit = " in c for name, cs in code.items() if name == "Account.limit" for c in cs)
    assert any("from datetime import" in c for name in ("weekend", "late") for c in code[name])
    # A method that returns None shows what it did to its instance: the untested threshold is a
    # gap, and its test binds the instance and asserts its state after the call.
    deposit = by["Account.deposit"]["mutation"]["mutants"]
    boundary = [m for m in deposit if m["description"] == "replace `<=` with `<`"]
    assert boundary and boundary[0]["witness"], boundary
    assert " \u27f9 receiver = {" in boundary[0]["witness"]["original"]["value"]
    assert any("receiver = Account(" in c and "assert vars(receiver) == {" in c for c in code["Account.deposit"])
    # abex suggests only tests it ran: every one passes on the original.
    every = [c for cs in code.values() for c in cs]
    assert len(every) >= 8
    kinds.makepyfile(test_suggested="\n\n".join(every))
    kinds.runpytest("test_suggested.py", "-p", "no:cacheprovider").assert_outcomes(passed=len(every))
