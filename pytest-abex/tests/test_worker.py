"""The Python worker on its own: argument conversion and the JSON-lines protocol."""

import json
import math
import os
import subprocess
import sys

from pytest_abex.worker import _converter

INT = {"kind": "int", "bits": 64, "signed": True}


def test_arguments_are_converted_by_their_type():
    assert _converter(INT) is None
    assert _converter({"kind": "list", "item": INT}) is None
    assert _converter({"kind": "list", "item": {"kind": "option", "item": INT}}) is None
    assert _converter({"kind": "list", "item": INT}, True)([1, 2]) == (1, 2)
    pair = _converter({"kind": "tuple", "items": [INT, {"kind": "float", "bits": 64}]})([1, "NaN"])
    assert pair[0] == 1 and math.isnan(pair[1])
    assert _converter({"kind": "option", "item": {"kind": "bytes"}})([104]) == b"h"
    assert _converter({"kind": "option", "item": {"kind": "bytes"}})(None) is None
    assert _converter({"kind": "map", "key": INT, "value": {"kind": "list", "item": {"kind": "bytes"}}})(
        {"3": [[104]]}
    ) == {3: [b"h"]}


def test_the_worker_answers_values_errors_and_timeouts_and_carries_on(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(x: int, xs: list[int]) -> int:\n"
        "    print('noise')\n"
        "    if x < 0:\n        raise ValueError('negative')\n"
        "    while x > 100:\n        pass\n"
        "    return x + sum(xs)\n"
    )
    spec = {
        "targets": [{"module": "m", "qualname": "f", "kind": "function",
                     "params": [{"ty": INT}, {"ty": {"kind": "list", "item": INT}}]}],
        "sys_path": [str(tmp_path)],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    requests = "[0,[1,[2,3]]]\n[0,[-1,[]]]\n[0,[101,[]]]\n[0,[4,[]]]\n[0,[\"x\"]]\n"
    env = dict(os.environ, ABEX_CALL_TIMEOUT_MS="100")
    out = subprocess.run(
        [sys.executable, "-m", "pytest_abex.worker", str(tmp_path / "spec.json")],
        input=requests, capture_output=True, text=True, env=env, timeout=60,
    )
    answers = [json.loads(line.split("@abex@", 1)[1]) for line in out.stdout.splitlines() if "@abex@" in line]
    assert answers[0] == {"abex_harness": 1}
    assert answers[1] == {"ok": "6"}
    assert answers[2] == {"err": ["ValueError", "negative"]}
    assert answers[3] == {"timed_out": True}
    assert answers[4] == {"ok": "4"}, "the worker carries on after a timeout"
    assert answers[5]["err"][0] == "TypeError"
    assert "noise" not in out.stdout.replace("@abex@", "")
