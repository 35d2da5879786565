"""The mutant switch (`_patch`) and the forked test runner (`pytest_abex.runner`) on their own."""

import json
import subprocess
import sys
import traceback

import pytest

from pytest_abex import _patch

MODULE = '''\
import math


class Base:
    def scale(self):
        return 1


class Shape(Base):
    __sides = 4

    def corners(self, n):
        return super().scale() * self.__sides + n


def clamp(x: int) -> int:
    if x > 10:
        return 10
    return x
'''


def _function_patch(module, text, qualname, old, new):
    """The patch the core sends: the mutated function alone, from the start of its first line."""
    name = qualname.split(".")[-1]
    start = text.index(f"def {name}")
    start = text.rindex("\n", 0, start) + 1
    end = text.find("\n\n\n", start)
    end = len(text) if end < 0 else end
    source = text[start:end]
    assert old in source
    return {"module": module, "qualname": qualname, "file": f"{module}.py",
            "source": source.replace(old, new, 1), "line": text.count("\n", 0, start) + 1}


@pytest.fixture
def shapes(tmp_path, monkeypatch):
    (tmp_path / "shapes_mod.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import shapes_mod

    yield shapes_mod
    sys.modules.pop("shapes_mod", None)


def test_a_method_using_super_and_a_private_name_is_patched_from_its_own_text(shapes):
    _patch.apply(_function_patch("shapes_mod", MODULE, "Shape.corners", "+ n", "- n"))
    assert shapes.Shape().corners(1) == 3


def test_a_patched_function_points_tracebacks_at_its_real_lines(shapes):
    patch = _function_patch("shapes_mod", MODULE, "clamp", "return 10", "return 10 // (x - x)")
    _patch.apply(patch)
    assert shapes.clamp(3) == 3
    with pytest.raises(ZeroDivisionError) as e:
        shapes.clamp(11)
    frame = traceback.extract_tb(e.value.__traceback__)[-1]
    assert frame.lineno == MODULE.splitlines().index("        return 10") + 1
    assert frame.filename == "shapes_mod.py"


def test_a_mutant_that_does_not_parse_is_refused(shapes):
    with pytest.raises(ValueError, match="does not parse"):
        _patch.apply(_function_patch("shapes_mod", MODULE, "clamp", "x > 10", "x >"))
    assert shapes.clamp(11) == 10


TESTS = "".join(f"def test_other_{n}():\n    assert True\n\n" for n in range(20)) + '''\
from shapes_mod import clamp


def test_small():
    assert clamp(3) == 3


def test_big():
    assert clamp(50) == 10
'''


def test_the_runner_runs_the_tests_that_killed_the_last_mutant_first(tmp_path):
    (tmp_path / "shapes_mod.py").write_text(MODULE)
    (tmp_path / "test_shapes.py").write_text(TESTS)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tests": ["test_shapes.py"], "sys_path": [str(tmp_path)]}))
    (tmp_path / "test_extra.py").write_text(
        "from shapes_mod import clamp\n\ndef test_edge():\n    assert clamp(11) == 10\n"
    )
    patch = lambda old, new: _function_patch("shapes_mod", MODULE, "clamp", old, new)  # noqa: E731
    requests = [
        {"patch": None, "timeout": 60, "all": True, "trace": [{"module": "shapes_mod", "qualname": "clamp"}]},
        {"patch": patch("return 10", "return 11"), "timeout": 60, "all": False},
        {"patch": patch("return 10", "return 9"), "timeout": 60, "all": False},
        {"patch": patch("x > 10", "x > 11"), "timeout": 60, "all": False},
        {"patch": None, "timeout": 60, "all": True, "collect": ["test_extra.py"]},
        {"patch": patch("x > 10", "x > 11"), "timeout": 60, "all": True, "collect": ["test_extra.py"]},
        # The tests named alone (those that do not spare the survivor).
        {"patch": patch("x > 10", "x > 11"), "timeout": 60, "all": True, "collect": ["test_extra.py"],
         "only": ["test_edge"]},
        {"patch": patch("x > 10", "x > 11"), "timeout": 60, "all": True, "collect": ["test_extra.py"],
         "only": ["test_other"]},
    ]
    out = subprocess.run(
        [sys.executable, "-m", "pytest_abex.runner", str(spec)],
        input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True,
        cwd=tmp_path, timeout=120,
    )
    answers = [json.loads(line.split("@abex@", 1)[1]) for line in out.stdout.splitlines() if "@abex@" in line]
    assert answers[0] == {"abex_runner": 1, "collected": 22}
    base = answers[1]
    assert base["status"] == "pass" and base["ran"] == 22
    assert base["reached"] == {"shapes_mod:clamp": ["test_shapes.py::test_big", "test_shapes.py::test_small"]}
    # Only the two tests that call `clamp` run; `test_big` kills the first mutant ...
    first = answers[2]
    assert (first["status"], first["failed"], first["ran"]) == ("fail", ["test_shapes.py::test_big"], 2)
    assert first["message"].startswith("AssertionError: assert 11 == 10"), first["message"]
    # ... so it runs first for the next one, which it kills at once.
    second = answers[3]
    assert (second["status"], second["failed"], second["ran"]) == ("fail", ["test_shapes.py::test_big"], 1)
    # A mutant no test kills ran both tests, killers first.
    third = answers[4]
    assert (third["status"], third["ran"]) == ("pass", 2)
    # Other files (suggested tests): collected once, run on the original and on a mutant.
    assert (answers[5]["status"], answers[5]["ran"]) == ("pass", 1)
    assert answers[6]["status"] == "fail" and answers[6]["failed"] == ["test_extra.py::test_edge"]
    assert (answers[7]["status"], answers[7]["failed"], answers[7]["ran"]) == ("fail", ["test_extra.py::test_edge"], 1)
    assert (answers[8]["status"], answers[8]["ran"]) == ("pass", 0)


def test_a_replay_runs_the_tests_the_last_failing_mutant_ran_in_its_order_up_to_its_killer(tmp_path):
    # The check of a new killer on the original: the killer where it killed, not every test of
    # the function (packaging's `_parse_local_version`: 20 473 tests, three runs per killer).
    (tmp_path / "shapes_mod.py").write_text(MODULE)
    (tmp_path / "test_shapes.py").write_text(TESTS)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tests": ["test_shapes.py"], "sys_path": [str(tmp_path)]}))
    patch = lambda old, new: _function_patch("shapes_mod", MODULE, "clamp", old, new)  # noqa: E731
    both = patch("return x", "return x + 1")  # fails test_small; test_big still passes
    requests = [
        {"patch": None, "timeout": 60, "all": True, "trace": [{"module": "shapes_mod", "qualname": "clamp"}]},
        # test_small, then test_big, which kills it.
        {"patch": patch("return 10", "return 11"), "timeout": 60, "all": False},
        # Replayed: test_small and test_big, in that order, whatever fails.
        {"patch": both, "timeout": 60, "all": True, "replay": True},
        {"patch": both, "timeout": 60, "all": True, "replay": True},
        # Now test_big runs first (the latest killer) and kills at once: the replay is test_big.
        {"patch": patch("return 10", "return 9"), "timeout": 60, "all": False},
        {"patch": patch("return 10", "return 11"), "timeout": 60, "all": True, "replay": True},
        # Without a replay, every test of the function runs, the latest killer first.
        {"patch": both, "timeout": 60, "all": True},
    ]
    out = subprocess.run(
        [sys.executable, "-m", "pytest_abex.runner", str(spec)],
        input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True,
        cwd=tmp_path, timeout=120,
    )
    answers = [json.loads(line.split("@abex@", 1)[1]) for line in out.stdout.splitlines() if "@abex@" in line]
    ran = [(a.get("status"), a.get("failed"), a.get("ran")) for a in answers[2:]]
    assert ran == [
        ("fail", ["test_shapes.py::test_big"], 2),
        ("fail", ["test_shapes.py::test_small"], 2),
        ("fail", ["test_shapes.py::test_small"], 2),
        ("fail", ["test_shapes.py::test_big"], 1),
        ("fail", ["test_shapes.py::test_big"], 1),
        ("fail", ["test_shapes.py::test_small"], 2),
    ], out.stdout


def test_a_twin_answers_on_its_own_lane_traced_as_its_runner_and_ends_at_the_end_of_its_requests(tmp_path):
    # The jobs runners of one test suite: one collects and traces, the others are its forks.
    import os
    import select

    (tmp_path / "shapes_mod.py").write_text(MODULE)
    (tmp_path / "test_shapes.py").write_text(TESTS)
    their_requests, requests = os.pipe()
    answers, their_answers = os.pipe()
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tests": ["test_shapes.py"], "sys_path": [str(tmp_path)],
                                "lanes": {"1": [their_requests, their_answers]}}))
    runner = subprocess.Popen(
        [sys.executable, "-m", "pytest_abex.runner", str(spec)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path,
        pass_fds=(their_requests, their_answers),
    )
    os.close(their_requests)
    os.close(their_answers)
    lane_in, lane_out = os.fdopen(requests, "wb", buffering=0), os.fdopen(answers, "rb")

    def ask(into, out, request):
        into.write((json.dumps(request) + "\n").encode())
        into.flush()
        return read(out)

    def read(out):
        ready, _, _ = select.select([out], [], [], 60)
        assert ready, "no answer within a minute"
        while True:
            line = out.readline()
            assert line, "the process ended"
            if line.startswith(b"@abex@"):
                return json.loads(line[6:])

    patch = lambda old, new: _function_patch("shapes_mod", MODULE, "clamp", old, new)  # noqa: E731
    try:
        assert read(runner.stdout) == {"abex_runner": 1, "collected": 22}
        trace = [{"module": "shapes_mod", "qualname": "clamp"}]
        base = ask(runner.stdin, runner.stdout, {"patch": None, "timeout": 60, "all": True, "trace": trace})
        assert base["status"] == "pass" and base["ran"] == 22
        forked = ask(runner.stdin, runner.stdout, {"twin": 1, "timeout": 60})
        assert forked["twin"] != runner.pid, forked
        assert read(lane_out) == {"abex_runner": 1, "twin": True, "collected": 22}
        # The twin runs a mutant's tests as its runner would: the two that call `clamp`.
        killed = ask(lane_in, lane_out, {"patch": patch("return 10", "return 11"), "timeout": 60, "all": False})
        assert (killed["status"], killed["failed"], killed["ran"]) == ("fail", ["test_shapes.py::test_big"], 2)
        kept = ask(lane_in, lane_out, {"patch": patch("x > 10", "x > 11"), "timeout": 60, "all": False})
        assert (kept["status"], kept["ran"]) == ("pass", 2)
        # The runner still answers on its own lane, and has no second lane to give.
        again = ask(runner.stdin, runner.stdout, {"patch": patch("return 10", "return 11"), "timeout": 60, "all": False})
        assert (again["status"], again["ran"]) == ("fail", 2)
        assert "twin" not in ask(runner.stdin, runner.stdout, {"twin": 1, "timeout": 60})
        # The end of its requests ends the twin, not the runner.
        lane_in.close()
        assert lane_out.read() == b""
        assert runner.poll() is None
        runner.stdin.close()
        assert runner.wait(timeout=60) == 0
    finally:
        runner.kill()
        runner.wait()


def test_a_function_with_an_entry_hook_keeps_its_signature_name_lines_and_behaviour(shapes):
    import importlib
    import inspect

    calls = []
    shapes.hook = lambda: calls.append(dict(sys._getframe(1).f_locals))
    before = (inspect.getfullargspec(shapes.clamp), shapes.clamp.__code__.co_firstlineno)
    shapes.clamp.__code__ = _patch.entry_hooked(shapes.clamp, "clamp", "hook")
    assert (inspect.getfullargspec(shapes.clamp), shapes.clamp.__code__.co_firstlineno) == before
    assert shapes.clamp(50) == 10 and calls == [{"x": 50}]
    # An error is reported at its own line of the file.
    with pytest.raises(TypeError) as e:
        shapes.clamp("a")
    assert traceback.extract_tb(e.value.__traceback__)[-1].line == "if x > 10:"
    # A method using super() has a closure: no hook (the profile hook watches it instead).
    assert _patch.entry_hooked(shapes.Shape.corners, "Shape.corners", "hook") is None
    # One without is compiled inside its class, its private names mangled as in the file.
    with open(shapes.__file__, "w") as f:
        f.write(MODULE + "\n\nclass Box:\n    __w = 2\n\n    def width(self, n):\n        return self.__w * n\n")
    mod = importlib.reload(shapes)
    mod.hook = lambda: calls.append("box")
    mod.Box.width.__code__ = _patch.entry_hooked(mod.Box.width, "Box.width", "hook")
    assert mod.Box().width(3) == 6 and calls[-1] == "box"


CHECKED = '''\
import functools

LIMIT = [10]


def cap(x):
    if x > LIMIT[0]:
        return LIMIT[0]
    return x


@functools.lru_cache(maxsize=None)
def square(x):
    return x * x
'''

# Suggested tests as abex writes them: plain functions that import what they call. Each notes
# the process it ran in.
SUGGESTED = '''\
import os


def _note():
    with open("pids", "a") as f:
        f.write(f"{os.getpid()}\\n")


def test_edge():
    _note()
    from checked_mod import cap
    assert cap(11) == 10


def test_small():
    _note()
    from checked_mod import cap
    assert cap(3) == 3


def test_square():
    _note()
    from checked_mod import square
    assert square(3) == 9
'''


def _served(tmp_path, tests, requests):
    """The answers of a runner of the test file `tests` in `tmp_path` to `requests`, its
    greeting first; the first request must pass."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tests": [tests], "sys_path": [str(tmp_path)]}))
    out = subprocess.run(
        [sys.executable, "-m", "pytest_abex.runner", str(spec)],
        input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True,
        cwd=tmp_path, timeout=120,
    )
    answers = [json.loads(line.split("@abex@", 1)[1]) for line in out.stdout.splitlines() if "@abex@" in line]
    assert answers[1]["status"] == "pass", out.stdout + out.stderr
    return answers


def _checks(tmp_path, suggested, checks):
    """The runner's answer to one `checks` request on `suggested`, and the processes its tests
    ran in (those of the run on the original excluded)."""
    (tmp_path / "checked_mod.py").write_text(CHECKED)
    (tmp_path / "test_suggested.py").write_text(suggested)
    (tmp_path / "test_none.py").write_text("def test_nothing():\n    pass\n")
    patch = lambda qualname, old, new: _function_patch("checked_mod", CHECKED, qualname, old, new)  # noqa: E731
    requests = [
        {"patch": None, "timeout": 60, "all": True, "collect": ["test_suggested.py"]},
        {"collect": ["test_suggested.py"], "timeout": 60,
         "checks": [{"n": n, "patch": patch(*p), "only": only} for n, p, only in checks]},
    ]
    answers = _served(tmp_path, "test_none.py", requests)
    pids = (tmp_path / "pids").read_text().split()
    return answers[2], set(pids[3:])


def test_suggested_tests_are_checked_against_several_mutants_in_one_process(tmp_path):
    answer, processes = _checks(tmp_path, SUGGESTED, [
        (1, ("cap", "x > LIMIT[0]", "x > LIMIT[0] + 1"), None),
        (2, ("cap", "return x", "return x + 1"), ["test_small", "test_edge"]),
        (3, ("cap", "x > LIMIT[0]", "x >"), None),  # does not parse: it fails no test
        # The original's `square(3)` is cached when the mutant runs: the cache is emptied.
        (4, ("square", "x * x", "x + x"), ["test_square"]),
    ])
    assert answer == {"failed_by": {
        "1": ["test_suggested.py::test_edge"],
        "2": ["test_suggested.py::test_small"],
        "3": [],
        "4": ["test_suggested.py::test_square"],
    }}
    assert len(processes) == 1


def test_a_mutant_that_leaves_state_behind_gets_the_check_of_its_own_that_each_mutant_gets(tmp_path):
    # The first mutant sets the limit to 0: in one process the second would fail `test_edge`
    # (cap(11) is 0); on its own it fails no test.
    answer, processes = _checks(tmp_path, SUGGESTED, [
        (1, ("cap", "return x", "LIMIT[0] = 0; return x"), ["test_small", "test_edge"]),
        (2, ("cap", "x > LIMIT[0]", "x >= LIMIT[0]"), ["test_small", "test_edge"]),
    ])
    assert answer == {"failed_by": {"1": [], "2": []}}
    # The batch, then one process per mutant.
    assert len(processes) == 3


def test_suggested_tests_that_take_fixtures_run_through_pytest_one_mutant_at_a_time(tmp_path):
    with_fixture = SUGGESTED.replace("def test_small():", "def test_small(tmp_path):")
    answer, processes = _checks(tmp_path, with_fixture, [
        (1, ("cap", "x > LIMIT[0]", "x > LIMIT[0] + 1"), None),
        (2, ("cap", "return x", "return x + 1"), None),
    ])
    assert answer == {"failed_by": {
        "1": ["test_suggested.py::test_edge"],
        "2": ["test_suggested.py::test_small"],
    }}
    assert len(processes) == 2


WARNED = '''\
import warnings


class Handle:
    def __init__(self, leaks):
        self.leaks = leaks

    def __del__(self):
        if self.leaks:
            raise RuntimeError("leaked")


def clamp(x):
    if x > 10:
        warnings.warn("clamped", UserWarning)
    return min(x, 10)


def opened(x):
    Handle(x > 10)
    return x
'''

# Each test notes how it ran: through pytest's protocol (the frames of pytest's own runner,
# `_pytest/runner.py`, are on the stack) or as a plain call.
HOW = '''\
import inspect
import os

from warned_mod import clamp, opened


def _note():
    protocol = any(f.filename.endswith(os.path.join("_pytest", "runner.py")) for f in inspect.stack())
    with open("how", "a") as f:
        f.write(("protocol" if protocol else "plain") + "\\n")


def test_small():
    _note()
    assert clamp(3) == 3


def test_opened():
    _note()
    assert opened(3) == 3
'''


def _runs(tmp_path, requests, ini="", conftest=None, tests=HOW):
    """The runner's answers to a baseline and then `requests` on `WARNED` and `tests` (`HOW`),
    and how each run of a test went (`protocol` or `plain`, the baseline's excluded)."""
    (tmp_path / "warned_mod.py").write_text(WARNED)
    (tmp_path / "test_how.py").write_text(tests)
    (tmp_path / "how").unlink(missing_ok=True)
    (tmp_path / "pytest.ini").write_text("[pytest]\n" + ini)
    if conftest is not None:
        (tmp_path / "conftest.py").write_text(conftest)
    base = {"patch": None, "timeout": 60, "all": True,
            "trace": [{"module": "warned_mod", "qualname": q} for q in ("clamp", "opened")]}
    answers = _served(tmp_path, "test_how.py", [base, *requests])
    return answers[2:], (tmp_path / "how").read_text().split()[answers[1]["ran"]:]


def _warned(old, new, qualname="clamp"):
    return _function_patch("warned_mod", WARNED, qualname, old, new)


def test_a_mutants_run_calls_plain_tests_without_pytests_protocol(tmp_path):
    answers, how = _runs(tmp_path, [
        {"patch": _warned("min(x, 10)", "min(x, 10) + 1"), "timeout": 60, "all": False},
        {"patch": _warned("min(x, 10)", "min(x, 11)"), "timeout": 60, "all": False},
        # The check of the killer on the original: the same kind of run.
        {"patch": _warned("min(x, 10)", "min(x, 10) + 1"), "timeout": 60, "all": True, "replay": True},
    ])
    ran = [(a["status"], a["failed"], a["ran"]) for a in answers]
    assert ran == [("fail", ["test_how.py::test_small"], 1), ("pass", [], 1), ("fail", ["test_how.py::test_small"], 1)]
    # The failure as pytest's report gives it.
    assert answers[0]["message"].startswith("AssertionError: assert 4 == 3"), answers[0]["message"]
    assert how == ["plain", "plain", "plain"]


def test_a_test_that_warns_fails_a_plain_run_as_the_ini_makes_it_fail_under_pytest(tmp_path):
    mutant = _warned("x > 10", "x > 1")  # clamp(3) warns, and returns 3 as before
    answers, how = _runs(tmp_path, [{"patch": mutant, "timeout": 60, "all": False}])
    assert (answers[0]["status"], how) == ("pass", ["plain"]), answers[0]["message"]
    answers, how = _runs(tmp_path, [{"patch": mutant, "timeout": 60, "all": False}],
                         ini="filterwarnings =\n    error\n")
    assert (answers[0]["status"], answers[0]["failed"], how) == ("fail", ["test_how.py::test_small"], ["plain"])
    assert answers[0]["message"].startswith("UserWarning: clamped"), answers[0]["message"]


def test_what_only_pytests_protocol_judges_sends_the_run_through_it(tmp_path):
    # An exception in a finaliser is pytest's to judge (a warning; an error here): the plain run
    # that saw one runs again through the protocol, which fails the test.
    mutant = _warned("Handle(x > 10)", "Handle(x > 1)", "opened")
    answers, how = _runs(tmp_path, [{"patch": mutant, "timeout": 60, "all": False}],
                         ini="filterwarnings =\n    error\n")
    assert (answers[0]["status"], answers[0]["failed"]) == ("fail", ["test_how.py::test_opened"])
    assert how == ["plain", "protocol"]


def test_a_plugin_that_hooks_into_running_tests_keeps_them_on_pytests_protocol(tmp_path):
    conftest = "def pytest_runtest_call(item):\n    pass\n"
    answers, how = _runs(tmp_path, [{"patch": _warned("min(x, 10)", "min(x, 10) + 1"), "timeout": 60, "all": False}],
                         conftest=conftest)
    assert (answers[0]["status"], how) == ("fail", ["protocol"])


def test_a_test_parametrised_directly_or_a_plain_class_s_is_called_plainly(tmp_path):
    cases = HOW + '''

import pytest


@pytest.mark.parametrize("x, want", [(20, 10), (5, 5)], ids=["big", "small"])
def test_cases(x, want):
    _note()
    assert clamp(x) == want


class TestClamp:
    def test_method(self):
        _note()
        assert clamp(4) == 4


@pytest.fixture(params=[5])
def five(request):
    return request.param


@pytest.mark.parametrize("five", [7], indirect=True)
def test_indirect(five):
    _note()
    assert clamp(five) == 7
'''
    answers, how = _runs(tmp_path, [
        # test_small passes; of the cases, the big one fails.
        {"patch": _warned("min(x, 10)", "min(x, 11)"), "timeout": 60, "all": True},
    ], tests=cases)
    assert (answers[0]["status"], answers[0]["failed"]) == ("fail", ["test_how.py::test_cases[big]"])
    assert answers[0]["message"].startswith("AssertionError: assert 11 == 10"), answers[0]["message"]
    # An indirect parameter is a fixture's: that test keeps the request on pytest's protocol.
    assert how == ["protocol"] * 5
    answers, how = _runs(tmp_path, [
        {"patch": _warned("min(x, 10)", "min(x, 11)"), "timeout": 60, "all": True},
    ], tests=cases.split("\n\n@pytest.fixture")[0] + "\n")
    assert (answers[0]["status"], answers[0]["failed"]) == ("fail", ["test_how.py::test_cases[big]"])
    assert answers[0]["message"].startswith("AssertionError: assert 11 == 10"), answers[0]["message"]
    assert how == ["plain"] * 4


def test_the_tracer_describes_a_function_s_arguments_on_its_first_calls_only(shapes, monkeypatch):
    # A constructor the suite calls a million times with the same few arguments would pay for a
    # description of each: the tracer stops describing after its first calls.
    from pytest_abex import runner, values

    described = []
    real = values.describe
    monkeypatch.setattr(values, "describe", lambda v, depth=0: described.append(v) or real(v, depth))
    tracer = runner._Tracer([{"module": "shapes_mod", "qualname": "clamp", "seeds": True}])
    try:
        for _ in range(runner._DESCRIBED_CALLS + 500):
            shapes.clamp(3)
        shapes.clamp(12)
    finally:
        tracer.stop()
    assert len(described) == runner._DESCRIBED_CALLS
    assert tracer.seen["shapes_mod:clamp"] == [{"x": ("int", 3)}]
    assert tracer.reached["shapes_mod:clamp"] == {None}
