"""Functions that return iterators, end to end: ``pytest --abex`` on ``projects/lazy``, shaped
like the ones real projects broke it on (more_itertools 10.5.0's ``windowed`` and
``intersperse``, toolz 0.12.1's ``partition_all``): a generator's mutants are told apart by the
items it yields, two iterators that yield the same items are the same behaviour whatever their
types, and huge arguments that make a call slow in C do not eat the exploration's time."""

import json
from pathlib import Path

SOURCE = (Path(__file__).parent / "projects" / "lazy" / "lazy.py").read_text().splitlines()


def line_of(text):
    return next(n for n, line in enumerate(SOURCE, 1) if text in line)


def test_a_generator_s_mutants_are_proven_by_its_items_and_equal_items_are_no_gap(lazy):
    args = ["-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-seed", "1"]
    for f in ("windows", "every", "groups"):
        args += ["--abex-function", f"lazy.py::{f}"]
    result = lazy.runpytest(*args)
    result.assert_outcomes(passed=3)
    rep = json.loads((lazy.path / ".abex" / "out" / "report.json").read_text())
    targets = {t["name"]: t for t in rep["targets"]}
    # Calls in the millions of items were answered slow, not waited for: every function's
    # exploration ran all its pairs, none was stopped by its time.
    for name, t in targets.items():
        assert t["exploration"]["stop"] == "pairs", name
    # `windows`' padding, which no test reaches, is pinned by the items it yields: a test per
    # gap, asserting the first items of what the call yields.
    pad = line_of("yield items + (fill,)")
    padded = [m for m in targets["windows"]["mutation"]["mutants"] if m["line"] == pad and m["status"] == "survived"]
    assert padded, "no survivor on the padding line"
    for m in padded:
        w = m.get("witness")
        assert w, f"{m['description']}: {m.get('unwitnessed')}"
        assert w["original"]["kind"] == "ok" and w["original"]["value"].startswith("iter(["), w
        assert m.get("suggested_test"), m["description"]
    section = result.stdout.str()
    assert "list(itertools.islice(windows(" in section, section
    # `every` returns an `islice` for 1 and a `chain` for more, of the same items: the mutant
    # that takes the other branch for 1 is no gap (its reprs differed: `<itertools.islice
    # object>` against `<itertools.chain object>`).
    branch = line_of("elif n == 1:")
    same = [m for m in targets["every"]["mutation"]["mutants"] if m["line"] == branch and m["status"] == "survived"]
    assert same, "the branch mutant was killed"
    for m in same:
        assert m.get("witness") is None, m["witness"]
        assert m["unwitnessed"]["stage"] == "masked", m["unwitnessed"]
    # `groups` builds `[iter(seq)] * n`: its `n == 0` guard is pinned.
    assert targets["groups"]["mutation"]["counts"]["witnessed"] >= 1
