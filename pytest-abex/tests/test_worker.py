"""The Python worker on its own: argument conversion and the JSON-lines protocol."""

import json
import math
import os
import subprocess
import sys

from pytest_abex.worker import _converter

INT = {"kind": "int", "bits": 64, "signed": True}


def _answers(tmp_path, spec, requests):
    """The worker's answers (its greeting first) to the request lines ``requests``, with ``spec``
    written into ``tmp_path``."""
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    out = subprocess.run(
        [sys.executable, "-m", "pytest_abex.worker", str(tmp_path / "spec.json")],
        input=requests, capture_output=True, text=True, timeout=60,
    )
    return [json.loads(line.split("@abex@", 1)[1]) for line in out.stdout.splitlines() if "@abex@" in line]


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
    assert answers[0] == {"abex_harness": 1, "carries_on": True}
    assert answers[1] == {"ok": "6"}
    assert answers[2] == {"err": ["ValueError", "negative"]}
    assert answers[3] == {"timed_out": True}
    assert answers[4] == {"ok": "4"}, "the worker carries on after a timeout"
    assert answers[5]["err"][0] == "TypeError"
    assert "noise" not in out.stdout.replace("@abex@", "")


def test_a_target_that_hung_gets_twenty_times_its_slowest_call_at_least_50_ms(tmp_path):
    # `f` writes how long each of its calls ran, the interrupted ones too.
    (tmp_path / "m.py").write_text(
        "import time\n\n\ndef f(x: int) -> int:\n"
        "    started = time.monotonic()\n"
        "    try:\n        while x > 100:\n            pass\n        return x\n"
        "    finally:\n"
        "        with open('took.txt', 'a') as log:\n"
        "            log.write(f'{time.monotonic() - started}\\n')\n"
    )
    spec = {"targets": [{"module": "m", "qualname": "f", "kind": "function", "params": [{"ty": INT}]}],
            "sys_path": [str(tmp_path)]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))

    def run(requests, hung=""):
        (tmp_path / "took.txt").unlink(missing_ok=True)
        env = dict(os.environ, ABEX_CALL_TIMEOUT_MS="2000", ABEX_HUNG_TARGETS=hung)
        out = subprocess.run(
            [sys.executable, "-m", "pytest_abex.worker", str(tmp_path / "spec.json")],
            input=requests, capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path,
        )
        answers = [json.loads(line.split("@abex@", 1)[1]) for line in out.stdout.splitlines() if "@abex@" in line]
        took = [float(t) for t in (tmp_path / "took.txt").read_text().split()]
        return answers[1:], took

    # The first hang costs the full limit; after it, a quick call sets the limit's scale.
    answers, took = run("[0,[101]]\n[0,[4]]\n[0,[101]]\n")
    assert answers == [{"timed_out": True}, {"ok": "4"}, {"timed_out": True}]
    assert took[0] >= 1.9 and took[2] < 1.0, took
    # A new process of a worker whose target hung (ABEX_HUNG_TARGETS) starts at the floor.
    answers, took = run("[0,[101]]\n", hung="0")
    assert answers == [{"timed_out": True}] and took[0] < 1.0, took


def test_an_exception_that_is_no_exception_is_the_call_s_error_and_the_worker_carries_on(tmp_path):
    (tmp_path / "m.py").write_text(
        "import sys\n"
        "def f(x: int) -> int:\n"
        "    if x < 0:\n        sys.exit(2)\n"
        "    if x == 0:\n        raise GeneratorExit('closed')\n"
        "    return x\n"
    )
    spec = {
        "targets": [{"module": "m", "qualname": "f", "kind": "function", "params": [{"ty": INT}]}],
        "sys_path": [str(tmp_path)],
    }
    answers = _answers(tmp_path, spec, "[0,[-1]]\n[0,[0]]\n[0,[3]]\n")
    assert answers[1] == {"err": ["SystemExit", "2"]}
    assert answers[2] == {"err": ["GeneratorExit", "closed"]}
    assert answers[3] == {"ok": "3"}, "the worker carries on after a SystemExit"


def test_a_long_value_or_message_is_cut_to_its_start_length_and_hash(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(n: int, last: str) -> str:\n"
        "    if n < 0:\n        raise ValueError('e' * -n)\n"
        "    return 'a' * n + last\n"
    )
    spec = {
        "targets": [{"module": "m", "qualname": "f", "kind": "function",
                     "params": [{"ty": INT}, {"ty": {"kind": "str"}}]}],
        "sys_path": [str(tmp_path)],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    requests = '[0,[1000000,"x"]]\n[0,[1000000,"y"]]\n[0,[-100000,""]]\n[0,[4095,"b"]]\n'
    out = subprocess.run(
        [sys.executable, "-m", "pytest_abex.worker", str(tmp_path / "spec.json")],
        input=requests, capture_output=True, text=True, timeout=60,
    )
    assert len(out.stdout) < 10_000, "a cut value travels as a short line"
    answers = [json.loads(line.split("@abex@", 1)[1]) for line in out.stdout.splitlines() if "@abex@" in line]
    x, y, err, edge = answers[1]["ok"], answers[2]["ok"], answers[3]["err"], answers[4]["ok"]
    mark = "\u2026 [abex: cut from "
    assert x.startswith("'" + "a" * 255 + mark + "1000003, blake2b "), x
    assert x != y, "values that differ after their start differ once cut"
    assert err[0] == "ValueError" and err[1].startswith("e" * 256 + mark + "100000, blake2b "), err
    assert mark in edge and "from 4098," in edge, "4,098 bytes is over the limit"


def test_a_probed_mutant_answers_without_its_probe_when_the_request_asks_for_none(tmp_path):
    # The witness search runs the explored inputs without probes first (the report costs about
    # as much as the call): `[id, args, 0]` gets the outcome only, `[id, args]` the probe too.
    (tmp_path / "m.py").write_text("def f(x: int) -> bool:\n    return x > 10\n")
    mutant = "def f(x: int) -> bool:\n    return x >= 10\n"
    patch = {"module": "m", "qualname": "f", "file": str(tmp_path / "m.py"), "source": mutant, "line": 1}
    spec = {
        "targets": [{"module": "m", "qualname": "f", "kind": "function", "params": [{"ty": INT}],
                     "patch": patch, "probe": True}],
        "sys_path": [str(tmp_path)],
    }
    answers = _answers(tmp_path, spec, "[0,[10],0]\n[0,[10]]\n[0,[3],0]\n[0,[3],1]\n")
    assert answers[1] == {"ok": "True"}, "the mutant runs, without its probe"
    assert answers[2]["ok"] == "True" and answers[2]["probe"]["infected"] == 1, answers[2]
    assert answers[3] == {"ok": "False"}
    assert answers[4]["ok"] == "False" and answers[4]["probe"]["reached"] == 1, answers[4]
