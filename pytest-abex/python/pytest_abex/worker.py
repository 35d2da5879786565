"""The abex worker for Python: calls functions of the project on argument lists.

Started by the core as ``python -m pytest_abex.worker SPEC.json`` in a scratch copy of the
project. It speaks the JSON-lines protocol of ``src/exec/worker.rs``: it greets with
``{"abex_harness":1,"carries_on":true}`` (it carries on after a call it interrupted; with
``"unloaded": {id: reason}`` for the targets it could not load),
then answers each request ``[target_id,[args...]]`` with one line
``{"ok": repr}``, ``{"err": [type, message]}``, ``{"bad": message}`` or ``{"timed_out": true}``
(the timer interrupted the call; the worker carries on), each prefixed by ``@abex@``, on the
file descriptor ``ABEX_ANSWER_FD`` names (else a copy of stdout). A call
that the timer cannot interrupt (a C extension that never returns) is killed from the core. Requests are read in chunks and answered in one
write per chunk. ``ABEX_CALL_TIMEOUT_MS`` is the per-call limit (a SIGALRM timer); a target
that ran into it before (here, or named in ``ABEX_HUNG_TARGETS``) gets twenty times its slowest
call here, at least 50 ms.
A text longer than 4096 bytes (a repr, a message) is cut as the core cuts it (``value::cut``):
its first 256 bytes, then ``… [abex: cut from N, blake2b HASH]``.
A target with a ``patch`` (see :mod:`pytest_abex._patch`) calls that mutant of the function
beside the original, so one worker serves every survivor. A target that also has ``"probe":
true`` calls the mutant instrumented (see :mod:`pytest_abex._probe`), and each of its answers
carries a ``probe`` member about the mutated site: ``{"ok": repr, "probe": {"reached": 1,
"infected": 0, "distance": 3, "operands": ["182", "185"], "guards": [[1, 0]]}}`` (the protocol
of ``src/exec/probe.rs``); a request ``[target_id,[args...],0]`` asks for the outcome only (the report
costs about as much as calling a small function, and the witness search needs it only where the
explored inputs found no witness). A target with ``"trace": true`` and a patch of the original's own
source calls the original with its comparisons traced (see :mod:`pytest_abex._trace`, for the
explorer's threshold operator): its answers carry ``"probe": {"cmps": [...]}``.
"""

import hashlib
import json
import os
import re
import signal
import sys
import time

from . import _patch, calls, values

MARKER = b"@abex@"
# The shortest limit of a target that hung before, in seconds (see ``main``).
HUNG_FLOOR = 0.05
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class _CallTimeout(BaseException):
    """Raised in the call by the per-call timer; a BaseException so `except Exception` in the
    code under test does not swallow it."""


def _on_alarm(signum, frame):
    raise _CallTimeout()


CUT_AT, CUT_KEEP, CUT_MARK = 4096, 256, "\u2026 [abex: cut from "


def _cut(text):
    """``text``, or its start, length and hash when it is longer than ``CUT_AT`` bytes."""
    if len(text) * 4 <= CUT_AT:
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= CUT_AT:
        return text
    start = data[:CUT_KEEP].decode("utf-8", "ignore")
    digest = hashlib.blake2b(data, digest_size=8).hexdigest()
    return f"{start}{CUT_MARK}{len(data)}, blake2b {digest}]"


# Values and calls live in their own modules; these names stay for the worker's users.
_converter = values.converter


def _target(t, index=0):
    """The callable of target ``t`` (the ``index``-th), its argument converters and its probe
    (``None`` unless it probes); how it is called and its arguments built are
    :mod:`pytest_abex.calls`'s and :mod:`pytest_abex.values`'s. A target with a ``patch`` calls
    a mutant of the function (a new function object; the original stays as it is); when the patch
    is of another function (one the target calls), the target runs with that function's code
    swapped for the mutant's."""
    probe = None
    if t.get("patch") and t.get("trace"):
        mutant, probe = _patch.traced_function(t["patch"], f"__abex_trace_{index}__")
    elif t.get("patch") and t.get("probe"):
        mutant, probe = _patch.probed_function(t["patch"], f"__abex_probe_{index}__")
    else:
        mutant = _patch.mutant_function(t["patch"]) if t.get("patch") else None
    patch = t.get("patch") or {}
    if mutant is not None and (patch["module"], patch["qualname"]) != (t["module"], t["qualname"]):
        # The target drives another function (it calls it): the target runs as it is, with the
        # mutated function's code swapped in for the call.
        _, inner = _patch.resolve(patch["module"], patch["qualname"], patch.get("role"))
        plain, convs, _ = _target({**t, "patch": None, "probe": False, "trace": False}, index)
        code = mutant.__code__

        def through(*a):
            saved = inner.__code__
            inner.__code__ = code
            try:
                return plain(*a)
            finally:
                inner.__code__ = saved

        return through, convs, probe
    call, convs = calls.target(t, mutant)
    return call, convs, probe


def _note(slowest, tid, took):
    """Keeps ``took`` as target ``tid``'s slowest call when it is."""
    if took > slowest.get(tid, 0.0):
        slowest[tid] = took


def _answer(obj):
    return MARKER + json.dumps(obj, ensure_ascii=False).encode("utf-8", "replace") + b"\n"


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    _patch.add_paths(spec.get("sys_path", []))
    # The answers' own channel: the descriptor the core names (a pipe of its own), else a copy
    # of stdout; what the code under test prints goes to stderr, never into the protocol.
    fd = os.environ.get("ABEX_ANSWER_FD")
    out = os.fdopen(int(fd) if fd else os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    targets = []
    unloaded = {}
    for n, t in enumerate(spec["targets"]):
        try:
            targets.append(_target(t, n))
        except Exception as e:  # reported in the greeting and on every call of that target
            reason = f"cannot load {t['module']}.{t['qualname']}: {type(e).__name__}: {e}"
            targets.append((None, reason, None))
            unloaded[str(n)] = reason
    limit = int(os.environ.get("ABEX_CALL_TIMEOUT_MS", "1000")) / 1000.0
    # Targets that ran into the limit (here, or in an earlier process of this worker:
    # ABEX_HUNG_TARGETS) get twenty times their slowest call here, at least HUNG_FLOOR, as the
    # Rust harness does: a function that loops forever on some inputs costs the full limit once.
    hung = {int(t) for t in os.environ.get("ABEX_HUNG_TARGETS", "").split(",") if t.strip().isdigit()}
    slowest = {}
    clock = time.perf_counter
    signal.signal(signal.SIGALRM, _on_alarm)
    setitimer, real = signal.setitimer, signal.ITIMER_REAL
    loads, dumps = json.loads, json.dumps
    hello = {"abex_harness": 1, "carries_on": True}
    if unloaded:
        hello["unloaded"] = unloaded
    out.write(_answer(hello))
    pending = b""
    while True:
        chunk = os.read(0, 1 << 20)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        answers = []
        for line in lines:
            if not line.strip():
                out.write(b"".join(answers))
                return 0
            probe = None
            try:
                tid, args, *asked = loads(line)
                call, convs, probe = targets[tid]
                if call is None:
                    answers.append(_answer({"bad": convs}))
                    continue
                if convs is not None:
                    args = [c(a) for c, a in zip(convs, args)]
            except values.BuildError as e:  # a recipe's constructor raised: the call's error
                answers.append(_answer(values.failure(e)))
                continue
            except Exception as e:
                answers.append(_answer({"bad": f"{type(e).__name__}: {e}"}))
                continue
            if probe is not None:
                probe.reset()
            own = limit
            if tid in hung and limit > 0:
                own = min(limit, max(HUNG_FLOOR, 20 * slowest.get(tid, 0.0)))
            started = clock()
            try:
                if own > 0:
                    setitimer(real, own)
                try:
                    result = call(*args)
                finally:
                    if own > 0:
                        setitimer(real, 0)
                _note(slowest, tid, clock() - started)
                text = repr(result)
                if " at 0x" in text:
                    text = _ADDRESS.sub("", text)
                if len(text) * 4 > CUT_AT:
                    text = _cut(text)
                answer = {"ok": text}
            except _CallTimeout:
                # The timer unwound the call: the worker carries on.
                hung.add(tid)
                answer = {"timed_out": True}
            except RecursionError as e:
                answer = {"err": ["RecursionError", _cut(str(e))]}
            except KeyboardInterrupt:
                raise  # Ctrl-C, or the run's stop: not the function's outcome
            except BaseException as e:  # SystemExit, GeneratorExit too: `pytest.raises` takes them
                _note(slowest, tid, clock() - started)
                answer = {"err": [type(e).__name__, _cut(str(e))]}
            if probe is not None and (not asked or asked[0]):
                answer["probe"] = probe.report()
            if "ok" in answer and len(answer) == 1:
                answers.append(MARKER + b'{"ok":' + dumps(answer["ok"]).encode() + b"}\n")
            else:
                answers.append(_answer(answer))
            if tid in hung:
                # The core waits for each answer of a target that hung a short while only: a
                # call stuck in C, which the timer cannot interrupt, is stopped from there.
                out.write(b"".join(answers))
                answers = []
        out.write(b"".join(answers))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
