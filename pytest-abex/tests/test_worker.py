"""The Python worker on its own: argument conversion and the JSON-lines protocol."""

import json
import math
import os
import subprocess
import sys

from pytest_abex.worker import _converter

INT = {"kind": "int", "bits": 64, "signed": True}


def _answers(tmp_path, spec, requests, env=None):
    """The worker's answers (its greeting first) to the request lines ``requests``, with ``spec``
    written into ``tmp_path`` and ``env`` added to its environment."""
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    out = subprocess.run(
        [sys.executable, "-m", "pytest_abex.worker", str(tmp_path / "spec.json")],
        input=requests, capture_output=True, text=True, timeout=60, env=dict(os.environ, **(env or {})),
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


def test_a_returned_iterator_is_shown_by_its_first_items_within_the_call_s_limit(tmp_path):
    # toolz 0.12.1's `partition_all` returns a generator, `sliding_window` a `zip`: their reprs
    # (`<generator object partition_all>`) were the same for every input, so no output told two
    # inputs, or a mutant, apart.
    (tmp_path / "m.py").write_text(
        "import itertools\n\n\n"
        "def pairs(n: int):\n    for i in range(0, n, 2):\n        yield (i, i + 1)\n\n\n"
        "def doubled(n: int):\n    return map(lambda x: 2 * x, range(n))\n\n\n"
        "def forever(n: int):\n    return itertools.count(n)\n\n\n"
        "def spins(n: int):\n    while True:\n        yield from ()\n\n\n"
        "def listed(n: int):\n    return list(range(n))\n"
    )
    names = ["pairs", "doubled", "forever", "spins", "listed"]
    spec = {
        "targets": [{"module": "m", "qualname": q, "kind": "function", "params": [{"ty": INT}]} for q in names],
        "sys_path": [str(tmp_path)],
    }
    requests = "[0,[4]]\n[1,[3]]\n[1,[100]]\n[2,[5]]\n[3,[0]]\n[4,[2]]\n"
    answers = _answers(tmp_path, spec, requests, {"ABEX_CALL_TIMEOUT_MS": "300"})
    assert answers[1] == {"ok": "iter([(0, 1), (2, 3)])"}
    assert answers[2] == {"ok": "iter([0, 2, 4])"}
    # The first 64 items of a longer one; a repr that shows the value stays as it is.
    assert answers[3] == {"ok": "iter(" + repr([2 * x for x in range(64)]) + ")"}
    assert answers[4] == {"ok": "count(5)"}
    # An iterator that never yields runs into the call's limit, and the worker carries on.
    assert answers[5] == {"timed_out": True}
    assert answers[6] == {"ok": "[0, 1]"}


def test_a_call_at_least_as_large_as_one_that_ran_slow_twice_is_answered_slow_unrun(tmp_path):
    # toolz 0.12.1's `partition_all(n, seq)` builds a list of `n` items in C, where the timer
    # cannot cut it (0.7 s for n = 10**7), and the explorer tried hundreds of such `n`: 31 s.
    # `grow` counts in C (`sum`), `once` is slow on its first call at 7 only (a pause).
    (tmp_path / "m.py").write_text(
        "import time\n\nCALLS = []\n\n\n"
        "def grow(n: int, seq: list[int]) -> int:\n    CALLS.append(n)\n    return sum(range(n)) % 7 + len(seq)\n\n\n"
        "def calls() -> int:\n    return len(CALLS)\n\n\n"
        "def once(n: int) -> int:\n"
        "    if n == 7 and not CALLS:\n        CALLS.append(n)\n        time.sleep(0.1)\n"
        "    return n\n"
    )
    seq = {"ty": {"kind": "list", "item": INT}}
    spec = {
        "targets": [
            {"module": "m", "qualname": "grow", "kind": "function", "params": [{"ty": INT}, seq]},
            {"module": "m", "qualname": "calls", "kind": "function", "params": []},
            # A mutant of `grow` (the same code): the function's slow inputs are its mutants'.
            {"module": "m", "qualname": "grow", "kind": "function", "params": [{"ty": INT}, seq],
             "patch": {"module": "m", "qualname": "grow", "file": str(tmp_path / "m.py"), "line": 6,
                       "source": "def grow(n, seq):\n    CALLS.append(n)\n    return sum(range(n)) % 7 + len(seq)\n"}},
        ],
        "sys_path": [str(tmp_path)],
    }
    usual = "".join(f"[0,[{n},[1]]]\n" for n in range(1, 11))
    big = 10_000_000
    requests = (
        usual
        + f"[0,[{big},[1]]]\n"  # slow, twice: a slow input, answered slow
        + "[1,[]]\n"  # 12 calls of `grow` ran: ten, the slow one and its second run
        + f"[0,[{big * 2},[1, 2]]]\n"  # larger in every argument: not run
        + f"[2,[{big * 3},\"ab\"]]\n"  # the mutant, a string as long as the list: not run either
        + f"[0,[{-big},[3]]]\n"  # as large, on the other side of zero: run (and quick)
        + f"[0,[{big},[]]]\n"  # a shorter list, but only the large argument counts: not run
        + "[0,[5,[1]]]\n"  # smaller: run
        + "[1,[]]\n"
    )
    answers = _answers(tmp_path, spec, requests)[1:]
    assert answers[:10] == [{"ok": str(sum(range(n)) % 7 + 1)} for n in range(1, 11)]
    assert answers[10] == {"slow": True}
    assert answers[11] == {"ok": "12"}
    assert answers[12] == {"slow": True}
    assert answers[13] == {"slow": True}
    assert answers[14] == {"ok": "1"}
    assert answers[15] == {"slow": True}
    assert answers[16] == {"ok": "4"}
    assert answers[17] == {"ok": "14"}, "the calls answered slow unrun did not run"
    # A slow input none of whose arguments is larger than in the usual calls: a call must be as
    # large in every one.
    (tmp_path / "s.py").write_text(
        "import time\n\n\ndef spin(a: int, b: int) -> int:\n"
        "    if a >= 3 and b >= 3:\n        time.sleep(0.05)\n    return a + b\n"
    )
    spin = {"targets": [{"module": "s", "qualname": "spin", "kind": "function",
                         "params": [{"ty": INT}, {"ty": INT}]}], "sys_path": [str(tmp_path)]}
    requests = "".join(f"[0,[{n},{n}]]\n" for n in range(3)) + "".join(f"[0,[9,{n}]]\n" for n in range(3))
    requests += "".join(f"[0,[{n},9]]\n" for n in range(3)) + "[0,[3,3]]\n[0,[4,5]]\n[0,[2,50]]\n"
    assert _answers(tmp_path, spin, requests)[-3:] == [{"slow": True}, {"slow": True}, {"ok": "52"}]
    # A call slow once (a pause) is not a slow input: a larger one runs.
    once = {"targets": [{"module": "m", "qualname": "once", "kind": "function", "params": [{"ty": INT}]}],
            "sys_path": [str(tmp_path)]}
    requests = "".join(f"[0,[{n}]]\n" for n in range(1, 11)) + "[0,[7]]\n[0,[70]]\n"
    assert _answers(tmp_path, once, requests)[-2:] == [{"ok": "7"}, {"ok": "70"}]


def test_a_value_of_millions_of_items_is_shown_by_its_size_at_once(tmp_path):
    # more_itertools 10.5.0's `windowed([1], 10**8)` yields a tuple of 10**8 items: its repr
    # took 6 s, where the call's timer cannot reach, and the text was cut to its start anyway.
    (tmp_path / "m.py").write_text(
        "def pad(n: int):\n    yield (1,) + (None,) * n\n\n\n"
        "def nested(n: int):\n    return [[0] * n for _ in range(3)]\n\n\n"
        "def itself(n: int):\n    a = [n]\n    a.append(a)\n    return a\n"
    )
    spec = {
        "targets": [{"module": "m", "qualname": q, "kind": "function", "params": [{"ty": INT}]}
                    for q in ("pad", "nested", "itself")],
        "sys_path": [str(tmp_path)],
    }
    answers = _answers(tmp_path, spec, "[0,[30000000]]\n[0,[2]]\n[1,[30000]]\n[1,[1]]\n[2,[7]]\n")[1:]
    assert answers[0] == {"ok": "<iter of more than 65536 items>"}
    assert answers[1] == {"ok": "iter([(1, None, None)])"}
    assert answers[2] == {"ok": "<list of more than 65536 items>"}
    assert answers[3] == {"ok": "[[0], [0], [0]]"}
    assert answers[4] == {"ok": "[7, [...]]"}, "a list that holds itself is counted once"


def test_an_outcome_only_request_runs_the_mutant_as_it_is_not_its_probed_copy(tmp_path):
    # The probed copy watches the mutated site with calls of its own (the names its code uses
    # show them); an answer without a probe comes from the mutant's own code, which is also
    # what runs in the tests.
    (tmp_path / "m.py").write_text(
        "import sys\n\n\ndef f(x: int) -> int:\n"
        "    return len(sys._getframe().f_code.co_names) if x > 10 else 0\n"
    )
    mutant = "def f(x: int) -> int:\n    return len(sys._getframe().f_code.co_names) if x >= 10 else 0\n"
    patch = {"module": "m", "qualname": "f", "file": str(tmp_path / "m.py"), "source": mutant, "line": 4}
    target = {"module": "m", "qualname": "f", "kind": "function", "params": [{"ty": INT}], "patch": patch}
    spec = {"targets": [{**target, "probe": True}, target], "sys_path": [str(tmp_path)]}
    answers = _answers(tmp_path, spec, "[0,[10],0]\n[0,[10]]\n[1,[10]]\n")
    plain = answers[3]
    assert answers[1] == plain, "the mutant as it is"
    assert answers[2]["ok"] != plain["ok"], "the probed copy is another code"
