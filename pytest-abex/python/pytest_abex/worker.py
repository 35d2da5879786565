"""The abex worker for Python: calls functions of the project on argument lists.

Started by the core as ``python -m pytest_abex.worker SPEC.json`` in a scratch copy of the
project. It speaks the JSON-lines protocol of ``src/exec/worker.rs``: it greets with
``{"abex_harness":1,"carries_on":true}`` (it carries on after a call it interrupted; with
``"unloaded": {id: reason}`` for the targets it could not load),
then answers each request ``[target_id,[args...]]`` with one line
``{"ok": repr}`` (an iterator whose repr shows nothing, a generator say, by its first 64 items:
``iter([1, 2])``), ``{"err": [type, message]}``, ``{"bad": message}``, ``{"timed_out": true}``
(the timer interrupted the call; the worker carries on) or ``{"slow": true}`` (a call far slower
than the function's usual ones, or one it would be, not run: see ``_Slow``), each prefixed by
``@abex@``, on the
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
import itertools
import json
import os
import re
import signal
import statistics
import sys
import time

from . import _patch, calls, values

MARKER = b"@abex@"
# The shortest limit of a target that hung before, in seconds (see ``main``).
HUNG_FLOOR = 0.05
# A call slower than this (seconds) and than SLOW_FACTOR times its function's usual call, twice,
# makes its arguments one of the function's slow inputs (see ``_Slow``).
SLOW_CALL = 0.02
SLOW_FACTOR = 100
# Calls of a function timed before its usual time counts (the first ones import, compile, fill
# caches), the recent calls its usual time is taken from, and the slow inputs it keeps.
SLOW_AFTER, SLOW_TIMES, SLOW_KEPT = 8, 64, 32
# An argument no larger than this (``_size``) is not what makes a call slow, unless none is.
SLOW_LARGE = 64
# A call this slow (seconds) is not tried again to be sure: no pause lasts that long.
SLOW_SURE = 0.25
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# How many items of a returned iterator are shown (``src/python/suggest.rs``'s ``ITER_ITEMS``).
ITEMS = 64
# A repr that says nothing of the value: ``<generator object f>``, ``<map object>``.
_OPAQUE = re.compile(r"<[\w.]+ object[\w. <>]*>\Z")


class _Items(list):
    """The first items of an iterator the function returned, shown as ``iter([1, 2])``."""

    def __repr__(self):
        return f"iter({list.__repr__(self)})"


def _materialized(result):
    """``result``, or its first ``ITEMS`` items when it is an iterator whose repr shows nothing
    of them (a generator, ``map``, ``zip``, ``itertools``' objects), as the Rust harness collects
    an ``impl Iterator``: two iterators that yield different items are told apart. Called inside
    the call's time limit: an iterator may take long, or forever, to yield."""
    if isinstance(result, _Items) or not hasattr(type(result), "__next__"):
        return result
    try:
        if iter(result) is not result or not _OPAQUE.match(_ADDRESS.sub("", repr(result))):
            return result
    except Exception:
        return result
    return _Items(itertools.islice(result, ITEMS))


# Items a value may hold, counted through its lists, tuples, sets and dicts, before its text is
# its size only (``_shown``): the text of more is cut anyway (a text is cut past 4096 bytes),
# and making it takes long where the timer cannot reach (C's ``repr`` of a tuple of 10**8 items,
# more_itertools 10.5.0's ``windowed([1], 10**8)``: 6 s).
SHOWN_ITEMS = 1 << 16
_CONTAINERS = (list, tuple, set, frozenset, dict)


def _items_in(value):
    """How many items ``value`` holds through its builtin containers, counted up to just past
    ``SHOWN_ITEMS`` (a container's length costs nothing; only small ones are looked into)."""
    total, todo, seen = 0, [value], set()
    while todo and total <= SHOWN_ITEMS:
        v = todo.pop()
        if isinstance(v, _CONTAINERS) and id(v) not in seen:
            seen.add(id(v))  # a list that holds itself is shown as `[[...]]`, once
            total += len(v)
            if len(v) <= 4096:
                todo.extend(v.values() if isinstance(v, dict) else v)
    return total


def _shown(result):
    """The text of ``result``: its ``repr``, or, for a value of more than ``SHOWN_ITEMS`` items,
    its type and size."""
    items = _items_in(result)
    if items > SHOWN_ITEMS:
        name = "iter" if isinstance(result, _Items) else type(result).__name__
        return f"<{name} of more than {SHOWN_ITEMS} items>"
    return repr(result)


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
                # A lazy result calls the mutant as it is consumed: here, while it is swapped in.
                return _materialized(plain(*a))
            finally:
                inner.__code__ = saved

        return through, convs, probe
    call, convs = calls.target(t, mutant)
    return call, convs, probe


class _Lazy:
    """A probed mutant's target, built on its first probed call (see ``main``)."""

    def __init__(self, t, index):
        self.t, self.index = t, index

    def built(self, plain, convs):
        """The target's entry, probed: ``(call, convs, probe, plain)``; the plain call
        unprobed when the probed one cannot be built (as a load would have said)."""
        try:
            call, _, probe = _target(self.t, self.index)
        except Exception:  # noqa: BLE001 - the plain mutant loaded: it runs unprobed
            call, probe = plain, None
        return call, convs, probe, plain


def _size(v):
    """How large an argument (its JSON) is: a number's magnitude, a string's, a list's or an
    object's length, 0 for ``null``."""
    if isinstance(v, (int, float)):
        return abs(v)
    return len(v) if isinstance(v, (str, list, dict)) else 0


def _at_least(small, big):
    """Whether the argument ``big`` (its JSON) is at least as large as ``small``: the same value,
    a number as far from zero on the same side, else no smaller (``_size``), whatever the
    types: an argument that makes the call slow takes it far from zero or makes it long."""
    if small == big:
        return True
    if type(small) in (int, float) and type(big) in (int, float):
        return big >= small >= 0 or big <= small < 0
    return _size(big) >= _size(small)


class _Slow:
    """Per function (its original and its mutants alike), its usual call time and its slow
    inputs: argument lists (their JSON) on which a call took over ``SLOW_CALL`` and over
    ``SLOW_FACTOR`` times the function's usual call (the lower quartile of its recent ones: the
    explorer may try slow inputs early), and did again when called once more unless it took
    over ``SLOW_SURE`` (a pause of the collector's does not repeat). That call is answered
    ``{"slow": true}``, and so is, unrun, every call whose arguments are at least as large
    (``_at_least``) as a slow input's that count (``add``): the core counts it as a timeout
    (never a witness, and never a reason to restart the worker). Work that grows with an
    argument is the common slow call, and the timer cannot cut it when it is C's: toolz
    0.12.1's ``partition_all(n, seq)`` builds a list of ``n`` items (0.7 s for ``n = 10**7``),
    more_itertools 10.5.0's ``windowed(seq, n)`` a tuple (2.5 s for ``n = 2**28``), and the
    explorer tried hundreds of such ``n``, bisecting towards the memory limit."""

    def __init__(self):
        self.times = {}  # function -> its recent usual call times, in seconds
        self.usual = {}  # function -> the largest size of each argument in its usual calls
        self.inputs = {}  # function -> its slow inputs, each with the arguments that count

    def predicts(self, key, raw):
        """Whether a call of function ``key`` on ``raw`` (its arguments' JSON) would be slow."""
        for slow, counts in self.inputs.get(key, ()):
            if len(slow) == len(raw) and all(
                _at_least(x, y) for x, y, c in zip(slow, raw, counts) if c
            ):
                return True
        return False

    def is_slow(self, key, took, sizes):
        """Whether a call that took ``took`` seconds is slow for function ``key``; one that is
        not counts towards its usual time and its arguments' usual ``sizes``."""
        times = self.times.setdefault(key, [])
        if took > SLOW_CALL and len(times) >= SLOW_AFTER:
            if took > SLOW_FACTOR * statistics.quantiles(times, n=4)[0]:
                return True
        times.append(took)
        if len(times) > SLOW_TIMES:
            del times[0]
        usual = self.usual.setdefault(key, list(sizes))
        if len(usual) == len(sizes):
            usual[:] = map(max, usual, sizes)
        return False

    def add(self, key, raw, sizes):
        """Keeps ``raw`` (whose arguments have ``sizes``) as a slow input of function ``key``,
        with the arguments a larger call must match, what made it slow: the large ones (over
        ``SLOW_LARGE``) larger than in any usual call of the function (an explorer tries huge
        values of every argument, most of them harmless); else the large ones (a huge value may
        be quick, an allocation failing at once, where a large one is slow); else all."""
        kept = self.inputs.setdefault(key, [])
        if len(kept) < SLOW_KEPT and not self.predicts(key, raw):
            usual = self.usual.get(key)
            large = [s > SLOW_LARGE for s in sizes]
            unusual = [b and usual is not None and len(usual) == len(sizes) and s > u
                       for b, s, u in zip(large, sizes, usual or sizes)]
            counts = unusual if any(unusual) else large if any(large) else [True] * len(raw)
            kept.append((raw, counts))


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
            # An outcome-only request of a probed mutant calls the mutant as it is: the probes
            # cost a report's worth on every guard they watch, and the archive's inputs (run on
            # every survivor, for pinning) ask for the outcome only. The probed mutant is built
            # on its first probed call (`_Lazy`): most survivors have a witness among the
            # archive's inputs and never need one.
            if t.get("patch") and t.get("probe") and not t.get("trace"):
                plain, convs, _ = _target({**t, "probe": False}, n)
                targets.append((_Lazy(t, n), convs, None, plain))
            else:
                call, convs, probe = _target(t, n)
                targets.append((call, convs, probe, call))
        except Exception as e:  # reported in the greeting and on every call of that target
            reason = f"cannot load {t['module']}.{t['qualname']}: {type(e).__name__}: {e}"
            targets.append((None, reason, None, None))
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
    slow = _Slow()
    # What slow inputs are kept by: the function, whose mutants are slow where it is.
    keys = [(t.get("module"), t.get("qualname")) for t in spec["targets"]]

    def attempt(call, args, probe, own):
        """Calls ``call(*args)`` within ``own`` seconds: its answer and how long it took."""
        if probe is not None:
            probe.reset()
        started = clock()
        try:
            if own > 0:
                setitimer(real, own)
            try:
                result = _materialized(call(*args))
            finally:
                if own > 0:
                    setitimer(real, 0)
            text = _shown(result)
            if " at 0x" in text:
                text = _ADDRESS.sub("", text)
            if len(text) * 4 > CUT_AT:
                text = _cut(text)
            # Showing a large value is part of what the call costs.
            return {"ok": text}, clock() - started
        except _CallTimeout:
            # The timer unwound the call: the worker carries on.
            return {"timed_out": True}, clock() - started
        except RecursionError as e:
            return {"err": ["RecursionError", _cut(str(e))]}, clock() - started
        except KeyboardInterrupt:
            raise  # Ctrl-C, or the run's stop: not the function's outcome
        except BaseException as e:  # SystemExit, GeneratorExit too: `pytest.raises` takes them
            return {"err": [type(e).__name__, _cut(str(e))]}, clock() - started

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
                text = line.decode("utf-8", "surrogatepass")
                tid, args, *asked = loads(text)
                call, convs, probe, plain = targets[tid]
                if asked and not asked[0]:
                    call, probe = plain, None
                elif isinstance(call, _Lazy):
                    targets[tid] = call.built(plain, convs)
                    call, _, probe, _ = targets[tid]
                if call is None:
                    answers.append(_answer({"bad": convs}))
                    continue
                key = keys[tid]
                if slow.predicts(key, args):
                    answers.append(_answer({"slow": True}))
                    continue
                sizes = [_size(a) for a in args]
                if convs is not None:
                    args = [c(a) for c, a in zip(convs, args)]
            except values.BuildError as e:  # a recipe's constructor raised: the call's error
                answers.append(_answer(values.failure(e)))
                continue
            except Exception as e:
                answers.append(_answer({"bad": f"{type(e).__name__}: {e}"}))
                continue
            own = limit
            if tid in hung and limit > 0:
                own = min(limit, max(HUNG_FLOOR, 20 * slowest.get(tid, 0.0)))
            answer, took = attempt(call, args, probe, own)
            # The timer fired, yet the call went on long after: C code held it (a timer cannot
            # reach there), a slow call rather than one that hangs.
            overran = "timed_out" in answer and took > own + SLOW_SURE
            if "timed_out" not in answer:
                _note(slowest, tid, took)
            elif not overran:
                hung.add(tid)
            # A call far slower than the function's usual ones is tried once more unless it
            # took long; slow again, its arguments are a slow input, and its answer is the one
            # every call as large gets.
            if overran or ("timed_out" not in answer and slow.is_slow(key, took, sizes)):
                again = loads(text)[1]
                fresh = again if convs is None else [c(a) for c, a in zip(convs, again)]
                if took > SLOW_SURE or attempt(call, fresh, probe, own)[1] > SLOW_CALL:
                    slow.add(key, loads(text)[1], sizes)
                    answer = {"slow": True}
            if probe is not None and "slow" not in answer and (not asked or asked[0]):
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
