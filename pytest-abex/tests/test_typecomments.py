"""PEP 484 type comments end to end: ``pytest --abex`` on ``projects/typecomments``
(hyperlink 21.0.0's shape). Before, the constructor's parameters took anything, every `Link`
built to call `authority` on failed the constructor's own type checks, and no survivor of
`authority` was witnessed."""


def test_a_method_of_a_class_typed_in_comments_is_called_on_instances_it_accepts(typecomments, abex_target):
    target = abex_target(typecomments, "link.py::Link.authority")
    assert [p["ty"]["kind"] for p in target["params"]] == ["built", "bool"], target["params"]
    ctor = target["params"][0]["ty"]["ctors"][0]["params"]
    assert [ty["kind"] for _, ty in ctor] == ["str", "option", "str", "str", "bool", "str"], ctor
    gaps = [m for m in target["mutation"]["mutants"] if m.get("witness")]
    # `index` made `rindex`: a user information with two colons (the test's has one).
    rindex = [m for m in gaps if m["replacement"] == "rindex"]
    assert rindex, [m["description"] for m in target["mutation"]["mutants"]]
    assert rindex[0]["witness"]["original"]["kind"] == "ok", rindex[0]["witness"]
    # Every witness's receiver is one the constructor accepts.
    for m in gaps:
        assert m["witness"]["original"].get("type") != "TypeError", (m["description"], m["witness"])
