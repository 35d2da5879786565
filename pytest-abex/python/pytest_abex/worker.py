"""The abex worker for Python: calls functions of the project on argument lists.

Started by the core as ``python -m pytest_abex.worker SPEC.json`` in a scratch copy of the
project. It speaks the JSON-lines protocol of ``src/exec/worker.rs``: it greets with
``{"abex_harness":1}`` (with ``"unloaded": {id: reason}`` for the targets it could not load),
then answers each request ``[target_id,[args...]]`` with one line
``{"ok": repr}``, ``{"err": [type, message]}``, ``{"bad": message}`` or ``{"timed_out": true}``
(the timer interrupted the call; the worker carries on), each prefixed by ``@abex@``. A call
that the timer cannot interrupt (a C extension that never returns) is killed from the core. Requests are read in chunks and answered in one
write per chunk. ``ABEX_CALL_TIMEOUT_MS`` is the per-call limit (a SIGALRM timer).
A text longer than 4096 bytes (a repr, a message) is cut as the core cuts it (``value::cut``):
its first 256 bytes, then ``… [abex: cut from N, blake2b HASH]``.
A target with a ``patch`` (see :mod:`pytest_abex._patch`) calls that mutant of the function
beside the original, so one worker serves every survivor.
"""

import hashlib
import json
import os
import re
import signal
import sys

from . import _patch, calls, values

MARKER = b"@abex@"
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


def _target(t):
    """The callable of target ``t`` and its argument converters (see :mod:`pytest_abex.calls`).
    A target with a ``patch`` calls a mutant of the function (the original stays as it is)."""
    return calls.target(t)


def _answer(obj):
    return MARKER + json.dumps(obj, ensure_ascii=False).encode("utf-8", "replace") + b"\n"


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    _patch.add_paths(spec.get("sys_path", []))
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    # What the code under test prints goes to stderr, never into the protocol.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    targets = []
    unloaded = {}
    for n, t in enumerate(spec["targets"]):
        try:
            targets.append(_target(t))
        except Exception as e:  # reported in the greeting and on every call of that target
            reason = f"cannot load {t['module']}.{t['qualname']}: {type(e).__name__}: {e}"
            targets.append((None, reason))
            unloaded[str(n)] = reason
    limit = int(os.environ.get("ABEX_CALL_TIMEOUT_MS", "1000")) / 1000.0
    signal.signal(signal.SIGALRM, _on_alarm)
    setitimer, real = signal.setitimer, signal.ITIMER_REAL
    loads, dumps = json.loads, json.dumps
    out.write(_answer({"abex_harness": 1, "unloaded": unloaded} if unloaded else {"abex_harness": 1}))
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
            try:
                tid, args = loads(line)
                call, convs = targets[tid]
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
            try:
                if limit > 0:
                    setitimer(real, limit)
                try:
                    result = call(*args)
                finally:
                    if limit > 0:
                        setitimer(real, 0)
                text = repr(result)
                if " at 0x" in text:
                    text = _ADDRESS.sub("", text)
                if len(text) * 4 > CUT_AT:
                    text = _cut(text)
                answers.append(MARKER + b'{"ok":' + dumps(text).encode() + b"}\n")
            except _CallTimeout:
                # The timer unwound the call: the worker carries on.
                answers.append(_answer({"timed_out": True}))
            except RecursionError as e:
                answers.append(_answer({"err": ["RecursionError", _cut(str(e))]}))
            except Exception as e:
                answers.append(_answer({"err": [type(e).__name__, _cut(str(e))]}))
        out.write(b"".join(answers))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
