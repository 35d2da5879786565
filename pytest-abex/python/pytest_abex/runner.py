"""The abex test runner for Python: runs the tests that reach a function against its mutants.

Started by the core as ``python -m pytest_abex.runner SPEC.json`` in a scratch copy of the
project. It collects the given paths once with pytest (the session's own: its paths, options,
rootdir and ini file, see :mod:`pytest_abex.suite`) and, given the session's ``node_ids``, keeps
exactly those items, in the session's order; then for each request it forks: the
child swaps the mutant's code into the live function (:mod:`pytest_abex._patch`) and runs the
collected items; the parent enforces the time limit and answers. The cost of a mutant is one
fork and one test run, not an interpreter start and an import of the project.

Protocol (JSON lines, answers prefixed by ``@abex@``): the runner greets with
``{"abex_runner": 1, "collected": N}`` (with ``"dropped": [{"file", "error"}, ...]`` when some
test files failed to collect: they are left out and the rest runs; with ``"missing": [node
ids]`` when some of the session's node ids were not collected; or ``{"abex_runner": 1,
"error": "..."}`` when none collected), then answers
each request ``{"patch": null | {...}, "timeout": seconds, "all": bool, "trace": null | [{"module",
"qualname"}, ...]}`` with ``{"status": "pass"|"fail"|"timeout"|"unviable", "failed": [node ids],
"message": "the first failure's exception", "detail": "...", "reached": {"module:qualname": [node
ids]}, "seen": {"module:qualname": [{"param": [tag, json]}, ...]}}``; ``seen`` lists the argument
lists the tests passed to a traced function marked ``"seeds": true`` (see
:func:`pytest_abex.values.describe`; an argument it cannot write, such as a method's receiver,
is left out of its list; with ``"defaults": true``, a constructor's ``__init__``, those left at
their defaults are recorded too). With ``collect`` (a list of test files), the child
collects and runs those files instead (suggested tests, without a new pytest process), with
``only`` (test functions' names) those tests alone; with ``checks`` (``[{"n", "patch", "only"},
...]``) it runs them against each of those mutants and answers ``{"failed_by": {n: [node
ids]}}``, in one forked child when they are plain calls (see ``_Runner.checks``). Suggested
tests that take no fixture and carry no mark run against a mutant as plain calls of their
functions, not through pytest's protocol: which of them fail is all that is asked. So do the
session's own tests in a mutant's run (and a ``replay``) when each is such a test that no plugin
but pytest's own hooks into (see ``_plainly_runnable``, ``_run_plainly``); the baseline's run
stays on the protocol. Without
``all`` the child stops at the first failing test. With ``trace`` (the baseline), the tests that call each function are recorded (see
``_Tracer``), and from then on a mutant runs only the tests that call its function: per-test
call tracing selects the tests of a mutant. The tests that killed earlier mutants of the same
function run first (most recent first), so that a mutant like the last one is killed by the
first test it runs; every answer says how many tests ran (``ran``). An empty line or EOF ends
it at once (``os._exit``: pytest's own end, its plugins' session finish, is not wanted here).

With ``{"twin": LANE}`` the runner forks a twin of itself, collected and traced as it is, that
answers on lane LANE: a pair of pipes the core gave the runner when it started (``"lanes":
{"LANE": [requests fd, answers fd]}`` in the spec). The runner answers ``{"twin": pid}``; the
twin greets on its lane (``{"abex_runner": 1, "twin": true, "collected": N}``) and serves
requests there like a runner. The core's other runners of the same tests cost a fork, not an
interpreter start, a collection and a baseline each.

Forks are kept cheap: a failure is reported as its exception's line, not a formatted
traceback; before the first request the parent computes what pytest would compute
lazily in each child (item locations, keywords) and freezes the garbage collector's objects so
that a child does not copy the parent's pages by merely collecting them; the files of a
``collect`` request are collected once, in the parent, and their items reused.

With ``replay``, the child runs the tests the last failing mutant's request ran, in its order,
up to its first failure (its killer), instead of the request's own: the check of a new killer on
the original (a flaky test kills nothing) costs those tests, not every test of the function.
"""

import gc
import inspect
import json
import os
import select
import signal
import sys
import threading
import time
import traceback

import pytest

from . import _patch, values

# Argument lists recorded per traced function (seeds of its unannotated parameters).
_SEEDS = 24
# Calls of one traced function whose arguments are described at most (a constructor the suite
# calls a million times with the same few arguments would otherwise pay for each).
_DESCRIBED_CALLS = 2000

MARKER = b"@abex@"


class _Runner:
    """A pytest plugin that replaces the test loop by the request loop."""

    def __init__(self, out, inp, wanted=None, lanes=None):
        self.out = out
        self.inp = inp
        self.lanes = dict(lanes or {})  # lane -> (requests fd, answers fd), until twinned
        self.wanted = wanted  # the session's node ids, in its order (None: every item)
        self.missing = []  # those this runner did not collect
        self.filtered = False
        self.failed = []
        self.message = ""  # the first failure's exception line
        self.greeted = False
        self.selected = {}  # "module:qualname" -> the tests that call it, once traced
        self.killers = {}  # "module:qualname" -> node ids that killed its mutants, latest first
        self.collected = {}  # tuple of test files -> their items, collected in the parent
        self.uncollected = []  # {"file", "error"} of the files that failed to collect
        self.messages = {}  # node id -> its failure's text, for the tests of a `collect` request
        self.collect_errors = []  # why the files of a `collect` request failed to collect
        self.replay = None  # the tests the last failing mutant ran, in its order, killer last
        self.plain = {}  # node id -> whether a mutant's run may call it plainly (`_plainly_runnable`)

    def send(self, obj):
        self.out.write(MARKER + json.dumps(obj).encode() + b"\n")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if session.config.option.collectonly:
            return None
        self.greeted = True
        hello = {"abex_runner": 1}
        if session.testsfailed:
            # A file that does not collect here is left out, and the core says so; the run
            # goes on with the others.
            if not self.uncollected:
                self.send({"abex_runner": 1, "error": "errors while collecting the tests"})
                return True
            hello["dropped"] = self.uncollected
            session.testsfailed = 0
        _short_failures()
        _warm(session.items)
        hello["collected"] = len(session.items)
        if self.missing:
            hello["missing"] = self.missing
        self.send(hello)
        while True:
            line = self.inp.readline()
            if not line.strip():
                # The end: nothing of pytest's own end (its session's finish, the plugins') is
                # wanted here, and a lane ends without it too.
                self.out.flush()
                os._exit(0)
            req = json.loads(line)
            if "twin" in req:
                # In the twin, `twin` has switched to its lane: this is its greeting there.
                self.send(self.twin(session, req["twin"]))
                continue
            self.send(self.checks(session, req) if "checks" in req else self.one(session, req))

    def twin(self, session, lane):
        """Forks a twin of this runner, collected and traced as it is, that answers on lane
        ``lane`` (its pair of pipes, given when the runner started): another runner of the same
        tests without another interpreter start, collection and baseline. Returns, in the
        parent, ``{"twin": pid}``; in the twin, its greeting on its lane."""
        fds = self.lanes.pop(str(lane), None)
        if fds is None:
            return {"error": f"no lane {lane}"}
        pid = os.fork()
        if pid == 0:
            for other in self.lanes.values():
                for fd in other:
                    os.close(fd)
            self.lanes = {}
            self.inp.close()
            self.out.close()
            self.inp = os.fdopen(fds[0], "rb")
            self.out = os.fdopen(fds[1], "wb", buffering=0)
            # Its own files for pytest's capture of the tests' output (shared with the
            # parent's after the fork, where both run tests at once).
            capman = session.config.pluginmanager.getplugin("capturemanager")
            try:
                if capman is not None and capman.is_globally_capturing():
                    capman.stop_global_capturing()
                    capman.start_global_capturing()
            except Exception:  # noqa: BLE001 - without it the output goes where stdout does
                pass
            self.replay = None
            # What it collected (and left out) is its runner's: the core knows it already.
            return {"abex_runner": 1, "twin": True, "collected": len(session.items)}
        for fd in fds:
            os.close(fd)
        return {"twin": pid}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        """Keeps exactly the session's items, in its order (the first collection only: the
        suggested tests a ``collect`` request collects later are abex's own)."""
        if self.filtered or self.wanted is None:
            return
        self.filtered = True
        rank = {nodeid: n for n, nodeid in enumerate(self.wanted)}
        kept = sorted((i for i in items if i.nodeid in rank), key=lambda i: rank[i.nodeid])
        got = {i.nodeid for i in kept}
        self.missing = [nodeid for nodeid in self.wanted if nodeid not in got]
        dropped = [i for i in items if i.nodeid not in rank]
        items[:] = kept
        if dropped:
            config.hook.pytest_deselected(items=dropped)

    def pytest_collectreport(self, report):
        if report.failed and self.greeted:
            self.collect_errors.append(str(report.longrepr)[-2000:])
        if report.failed and not self.greeted:
            lines = [line for line in str(report.longrepr).splitlines() if line.strip()]
            error = next((line for line in reversed(lines) if line.startswith("E ")), lines[-1] if lines else "")
            self.uncollected.append({"file": report.nodeid or str(report.fspath), "error": error[1:].strip() if error.startswith("E ") else error.strip()})

    def pytest_runtest_logreport(self, report):
        if report.failed and report.nodeid not in self.failed:
            if not self.failed:
                self.message = report.longreprtext[:4000]
            if len(self.messages) < 50:
                self.messages[report.nodeid] = report.longreprtext[-2000:]
            self.failed.append(report.nodeid)

    def items_for(self, session, req):
        """The items a request runs, in the order it runs them."""
        if req.get("replay") and self.replay is not None:
            return self.replay
        if req.get("collect"):
            files = tuple(req["collect"])
            if files not in self.collected:
                self.collected[files] = self.collect(session, files)
            items = self.collected[files]
            only = req.get("only")
            if items is None or only is None:
                return items
            # The tests named (a parametrised test's cases by its function's name).
            return [i for i in items if getattr(i, "originalname", i.name) in only]
        if not req.get("patch"):
            return session.items
        key = _key(req["patch"])
        items = self.selected.get(key, session.items)
        killers = self.killers.get(key)
        if not killers:
            return items
        rank = {nodeid: n for n, nodeid in enumerate(killers)}
        first = sorted((i for i in items if i.nodeid in rank), key=lambda i: rank[i.nodeid])
        return first + [i for i in items if i.nodeid not in rank]

    def collect(self, session, files):
        """Collects `files` in the parent, leaving the session's own items as they were; None
        when that fails (the child then collects, and reports what went wrong)."""
        items, failed = session.items, session.testsfailed
        try:
            got = list(session.perform_collect(list(files)))
            _warm(got)
        except BaseException:  # noqa: BLE001 - collection errors are the child's to report
            got = None
        if session.testsfailed != failed:
            got = None
        session.items, session.testsfailed = items, failed
        return got

    def checks(self, session, req):
        """Runs the suggested tests of the files ``collect`` against each of several mutants
        (``checks``: ``[{"n", "patch", "only"}]``, ``only`` naming the tests a mutant runs, all
        when null): ``{"failed_by": {n: [node ids]}}``. When every test is a plain call
        (:func:`_plainly_callable`), one forked child runs them all (:func:`_check_batch`);
        when they are not, or that child is spoilt, runs past its time or dies, each mutant gets
        a run of its own, as a ``collect`` request with its patch."""
        items = self.items_for(session, {"collect": req["collect"]})
        limit = float(req.get("timeout", 60))
        checks = req["checks"]
        batched = None
        if items is not None and all(map(_plainly_callable, items)):
            batched, _, _ = _forked(lambda: _check_batch(items, checks, limit), limit * (len(checks) + 2))
        if isinstance(batched, dict):
            return {"failed_by": batched}
        got = {}
        for c in checks:
            run = {"collect": req["collect"], "all": True, "timeout": limit, "patch": c["patch"],
                   "only": c.get("only")}
            got[str(c["n"])] = self.one(session, run).get("failed", [])
        return {"failed_by": got}

    def plainly(self, req, items):
        """Whether a mutant's request runs ``items`` as plain calls (:func:`_run_plainly`):
        a mutant's run of the session's tests (or the replay of its killer), every one of them
        a plain call under pytest's own hooks alone (:func:`_plainly_runnable`), decided in
        the parent once per test."""
        if not req.get("patch") or req.get("collect") or req.get("trace") or req.get("protocol"):
            return False
        if items is None:
            return False
        for item in items:
            if item.nodeid not in self.plain:
                self.plain[item.nodeid] = _plainly_runnable(item)
            if not self.plain[item.nodeid]:
                return False
        return True

    def one(self, session, req):
        items = self.items_for(session, req)
        as_calls = self.plainly(req, items)

        def work():  # the child: apply, run, report (it exits without cleanup)
            nonlocal items
            result = {"status": "pass", "failed": [], "detail": "", "ran": 0}
            try:
                if req.get("patch"):
                    try:
                        _patch.apply(req["patch"])
                    except ValueError as e:
                        result = {"status": "unviable", "failed": [], "detail": str(e)}
                        raise _Done() from None
                self.failed = []
                self.messages = {}
                if items is None:
                    # Files the parent could not collect: collected here, errors reported.
                    self.collect_errors = []
                    items = session.perform_collect(req["collect"])
                    if self.collect_errors:
                        result = {"status": "fail", "failed": [], "ran": 0,
                                  "detail": "collection failed: " + "\n".join(self.collect_errors)}
                        raise _Done()
                if as_calls:
                    ran = _run_plainly(items, req.get("all"))
                    if ran is None:
                        result = {"status": "unsure"}
                        raise _Done()
                    result["ran"], self.failed, self.message = ran
                    if self.failed:
                        result = {"status": "fail", "failed": self.failed, "detail": "", "ran": result["ran"],
                                  "message": self.message, "messages": {}}
                    raise _Done()
                if req.get("collect") and req.get("patch") and all(map(_plainly_callable, items)):
                    # Suggested tests against a mutant: which of them fail is all that is asked.
                    _quiet()
                    result["failed"] = [item.nodeid for item in items if not _passes(item)]
                    result["ran"] = len(items)
                    if result["failed"]:
                        result["status"] = "fail"
                    raise _Done()
                tracer = _Tracer(req["trace"]) if req.get("trace") else None
                for i, item in enumerate(items):
                    result["ran"] = i + 1
                    nxt = items[i + 1] if i + 1 < len(items) else None
                    if tracer is not None:
                        tracer.current = item.nodeid
                    item.config.hook.pytest_runtest_protocol(item=item, nextitem=nxt)
                    if self.failed and not req.get("all"):
                        break
                if tracer is not None:
                    tracer.stop()
                    result["reached"] = {k: sorted(v) for k, v in tracer.reached.items()}
                    result["seen"] = tracer.seen
                if self.failed:
                    result = {"status": "fail", "failed": self.failed, "detail": "", "ran": result["ran"],
                              "message": self.message, "messages": self.messages}
            except _Done:
                pass
            except BaseException as e:  # noqa: BLE001 - anything the mutant does is a kill
                result = {"status": "fail", "failed": self.failed, "detail": f"{type(e).__name__}: {e}"}
            return result

        result, status, elapsed = _forked(work, float(req.get("timeout", 60)))
        if isinstance(result, dict) and result.get("status") == "unsure":
            # The plain calls saw what only pytest's protocol judges: it runs them again.
            return self.one(session, {**req, "protocol": True})
        if result is _LATE:
            return {"status": "timeout", "failed": [], "detail": "", "time": elapsed}
        if result is None:
            # The child died in a test (os._exit, a signal): the mutant is killed.
            result = {"status": "fail", "failed": [], "detail": f"the test process died (status {status})"}
        if result["status"] == "fail" and req.get("patch") and not req.get("collect") and not req.get("replay"):
            # A `replay` request runs these again: the killer where it killed.
            self.replay = list(items)[: result.get("ran") or len(items)]
            key = _key(req["patch"])
            known = [n for n in self.killers.get(key, []) if n not in result["failed"]]
            self.killers[key] = result["failed"][:1] + known
        if "reached" in result and result["status"] == "pass":
            # From now on, a mutant runs only the tests that call its function.
            for key, nodeids in result["reached"].items():
                wanted = set(nodeids)
                self.selected[key] = [item for item in session.items if item.nodeid in wanted]
        result["time"] = elapsed
        return result


def _short_failures():
    """Makes a failure's report its exception's one line instead of pytest's formatted
    traceback: only which tests fail matters here, and formatting a traceback (source lines,
    assertion context) costs more than running the test that raised it."""
    from _pytest import nodes

    def short(self, excinfo, style=None):
        return excinfo.exconly()[:4000]

    nodes.Node._repr_failure_py = short


def _plainly_callable(item):
    """Whether ``item`` runs the same as a plain call of its function as through pytest's
    protocol: a test function of a module or of a plain class (abex's suggested tests are
    module-level; a ``unittest.TestCase``'s are not plain, nor a plugin's own kinds of item)
    that takes no fixture (none of its own, no autouse one, no ``setup_method``) but the
    parameters of its ``@pytest.mark.parametrize`` marks (not ``indirect``), carries no other
    mark (skip, xfail, the module's or class's ``pytestmark``, a case's ``marks=``) and
    returns no coroutine or generator. A method is bound to the instance pytest made for that
    test alone. Running such an item through the protocol (set-up, call and tear-down hooks,
    capture, logging, warnings, the report) costs about 3 ms in a forked child; calling it
    costs what the test does."""
    obj = getattr(item, "obj", None)
    func = getattr(obj, "__func__", obj)
    return (
        type(item) is pytest.Function
        and _plain_arguments(item) is not None
        and inspect.isfunction(func)
        and not inspect.iscoroutinefunction(func)
        and not inspect.isgeneratorfunction(func)
        and not inspect.isasyncgenfunction(func)
    )


def _plain_arguments(item):
    """The arguments of a plain call of ``item``'s function: none for a test that takes no
    fixture and carries no mark; the values of its case for a test whose every parameter comes
    from its ``@pytest.mark.parametrize`` marks (given directly: neither ``indirect`` nor
    ``scope``, which make fixtures of them) and that carries no other mark. ``None`` for any
    other test."""
    names = set()
    for mark in item.iter_markers():
        if mark.name != "parametrize" or len(mark.args) > 2 or set(mark.kwargs) - {"ids", "argvalues", "argnames"}:
            return None
        argnames = mark.args[0] if mark.args else mark.kwargs.get("argnames")
        if isinstance(argnames, str):
            argnames = [a.strip() for a in argnames.split(",")]
        names.update(argnames or ())
    if not item.fixturenames:
        return {}
    params = getattr(getattr(item, "callspec", None), "params", None)
    if params is None or not set(item.fixturenames) <= names or not names <= set(params):
        return None
    return {name: params[name] for name in item.fixturenames}


# The hooks that run a test (pytest's protocol); a plugin other than pytest's own that
# implements one may change what a test does, and its tests run through the protocol.
_RUN_HOOKS = (
    "pytest_runtest_protocol", "pytest_runtest_setup", "pytest_runtest_call",
    "pytest_runtest_teardown", "pytest_pyfunc_call", "pytest_runtest_makereport",
)


def _plainly_runnable(item):
    """Whether a mutant's run of ``item`` may be a plain call of its function
    (:func:`_run_plainly`) instead of pytest's protocol: it is plainly callable
    (:func:`_plainly_callable`), no plugin but pytest's own implements a hook that runs tests
    (a ``conftest.py`` or a third-party plugin may skip, wrap or fail a test there;
    hypothesis's plugin does nothing to a test without ``@given``), and it has no nose-style
    ``setup``/``teardown`` attribute (pytest 7 calls those)."""
    if not _plainly_callable(item) or _catch_warnings is None:
        return False
    if any(callable(getattr(getattr(item.obj, "__func__", item.obj), name, None)) for name in ("setup", "teardown")):
        return False
    for name in _RUN_HOOKS:
        caller = getattr(item.ihook, name, None)
        if caller is None:
            return False
        for impl in caller.get_hookimpls():
            plugin = impl.plugin
            home = plugin.__name__ if inspect.ismodule(plugin) else type(plugin).__module__
            if home.startswith("_pytest.") or home.startswith("pytest_abex"):
                continue
            if home == "_hypothesis_pytestplugin" and not getattr(item.obj, "is_hypothesis_test", False):
                continue
            return False
    return True


try:  # pytest's own warning filters for a test (its ini's `filterwarnings`, `-W`)
    from _pytest.warnings import catch_warnings_for_item as _catch_warnings
except ImportError:  # pragma: no cover - another pytest: every test runs through its protocol
    _catch_warnings = None


def _run_plainly(items, every):
    """In a forked child: runs ``items`` (:func:`_plainly_runnable`) as plain calls, each under
    the warning filters pytest gives it (an ini's ``filterwarnings = error`` fails a test that
    warns) and with ``PYTEST_CURRENT_TEST`` set as pytest sets it, up to the first failure
    unless ``every``. Returns ``(tests run, failed node ids, the first failure's exception
    line)``, or ``None`` when a call saw what only the protocol judges (an exception no one
    caught in a thread or a finaliser, a test that returned a value): the request then runs
    through the protocol. A fork's run of one test through the protocol costs about 7 ms on
    the kit demo (its set-up, call and tear-down hooks, capture, logging, the report, and the
    pages of the parent's memory all that touches); a plain call, what the test does."""
    _quiet()
    odd = []
    sys.unraisablehook = odd.append
    threading.excepthook = odd.append
    failed, message, ran = [], "", 0
    for item in items:
        ran += 1
        os.environ["PYTEST_CURRENT_TEST"] = f"{item.nodeid} (call)"
        with _catch_warnings(item.config, item.ihook, "runtest", item):
            error, returned = _plain_call(item)
        if returned is not None or odd:
            return None
        if error is not None:
            if not failed:
                message = _exception_line(error)
            failed.append(item.nodeid)
            if not every:
                break
    return ran, failed, message


def _plain_call(item, late=()):
    """Calls ``item``'s function: ``(what failed it or None, what it returned)``. A skip or an
    expected failure (``pytest.skip``, ``pytest.xfail``) fails nothing, as in pytest; ``late``,
    a timer's exception, is raised on."""
    try:
        return None, item.obj(**_plain_arguments(item))
    except late:
        raise
    except (pytest.skip.Exception, pytest.xfail.Exception):
        return None, None
    except BaseException as e:  # noqa: BLE001 - whatever the test raises fails it, as in pytest
        return e, None


def _exception_line(error):
    """A failure's exception as pytest's report gives it (see :func:`_short_failures`)."""
    try:
        from _pytest._code import ExceptionInfo

        return ExceptionInfo.from_exception(error).exconly()[:4000]
    except Exception:  # noqa: BLE001 - an older pytest: Python's own line
        return "".join(traceback.format_exception_only(type(error), error)).strip()[:4000]


def _passes(item, late=()):
    """Whether the plain call of ``item`` (see :func:`_plainly_callable`) passes: it returns, or
    skips or expects its failure as pytest counts those (``pytest.skip``, ``pytest.xfail``).
    ``late``, a timer's exception, is raised on."""
    return _plain_call(item, late)[0] is None


# What `_forked` gives for a child that ran past its time.
_LATE = object()


def _forked(work, limit):
    """Runs ``work()`` in a forked child and returns ``(its result, the child's exit status,
    seconds)``: the result ``None`` when the child died before it answered, ``_LATE`` when it
    ran past ``limit`` seconds (it is killed)."""
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            os.write(write_fd, json.dumps(work()).encode())
            os.close(write_fd)
        finally:  # never back into the parent's loop
            os._exit(0)
    os.close(write_fd)
    data = b""
    deadline = started + limit
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read_fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(read_fd)
    elapsed = time.monotonic() - started
    if timed_out:
        return _LATE, status, elapsed
    try:
        return json.loads(data), status, elapsed
    except ValueError:
        return None, status, elapsed


def _quiet():
    """Sends what the tests print (plain calls, outside pytest's capture) nowhere, and gives
    them an empty input (as pytest's capture does): a test that reads its standard input never
    reads the runner's requests."""
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the child's to the end


class _Late(BaseException):
    """Raised by the timer of a batch of plain calls (:func:`_check_batch`)."""


def _check_batch(items, checks, limit):
    """In a forked child: which of ``items`` (plain calls, :func:`_plainly_callable`) fail on
    each mutant of ``checks`` (see :meth:`_Runner.checks`), ``{n: [node ids]}``, the mutant's
    code swapped into the live function and swapped back after its tests, the caches of a
    ``functools.cache``'d function emptied between mutants. ``None`` when the batch cannot be
    trusted: the tests' verdicts on the original after every mutant are not those before (a
    mutant left state behind), or a mutant's tests ran past ``limit`` seconds (its run of its
    own ends it at the limit, and the state a stopped call leaves is unknown)."""
    _quiet()
    signal.signal(signal.SIGALRM, _on_late)

    def failing(chosen):
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            return [item.nodeid for item in chosen if not _passes(item, _Late)]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    try:
        before = failing(items)
        failed_by = {}
        for c in checks:
            only = c.get("only")
            chosen = [i for i in items if only is None or getattr(i, "originalname", i.name) in only]
            try:
                func, clear = _swappable(c["patch"])
                code = _patch.compiled(c["patch"], func.__code__)
            except ValueError:
                failed_by[str(c["n"])] = []  # unviable: it fails no test
                continue
            saved = func.__code__
            clear()
            func.__code__ = code
            try:
                failed_by[str(c["n"])] = failing(chosen)
            finally:
                func.__code__ = saved
                clear()
        if failing(items) != before:
            return None
        return failed_by
    except _Late:
        return None


def _on_late(signum, frame):
    raise _Late()


def _swappable(patch):
    """The live function of ``patch`` and a callable that empties the caches wrapped around it
    (``functools.cache``, ``lru_cache``: ``cache_clear``)."""
    mod, func = _patch.resolve(patch["module"], patch["qualname"], patch.get("role"))
    owner = mod
    for part in patch["qualname"].split(".")[:-1]:
        owner = getattr(owner, part)
    outer = getattr(owner, patch["qualname"].split(".")[-1], None)
    clears = []
    while outer is not None and outer is not func:
        if callable(getattr(outer, "cache_clear", None)):
            clears.append(outer.cache_clear)
        outer = getattr(outer, "__wrapped__", None)

    def clear():
        for c in clears:
            c()

    return func, clear


def _warm(items):
    """Computes in the parent what each forked child would otherwise compute (and copy pages
    for) on its first test, then moves every live object out of the garbage collector's reach
    so that a child's collections do not touch the parent's pages."""
    for item in items:
        try:
            item.location
            item.keywords
        except Exception:  # noqa: BLE001 - the child computes it again and reports
            pass
    gc.freeze()


def _key(target):
    return f"{target['module']}:{target['qualname']}"


class _Tracer:
    """Records which tests call each of a list of functions. A function's code is swapped (in
    the forked child only) for its own code with a call to a hook before its first statement
    (:func:`pytest_abex._patch.entry_hooked`), which costs next to nothing and leaves its
    signature, name and lines as they were: a decorator that reads the function's argument names
    still finds them. A function that cannot be compiled again alike (a closure, e.g. one using
    ``super()``; no source) is watched by a profile hook comparing code objects instead."""

    def __init__(self, targets):
        self.current = None
        self.reached = {}
        self.seen = {}  # key -> argument lists the tests passed, described (targets with "seeds")
        self.profiled = {}  # code object -> key
        for n, target in enumerate(targets):
            key = _key(target)
            self.reached[key] = set()
            try:
                _, func = _patch.resolve(target["module"], target["qualname"], target.get("role"))
            except Exception:  # noqa: BLE001 - not importable here: no test reaches it
                continue
            tag = f"__abex_trace_{n}_hit__"
            hooked = _patch.entry_hooked(func, target["qualname"], tag)
            if hooked is None:
                self.profiled[func.__code__] = key
                continue
            func.__globals__[tag] = self._hitter(key, func if target.get("seeds") else None,
                                                 target.get("defaults", False))
            func.__code__ = hooked
        if self.profiled:
            sys.setprofile(self._profile)
            threading.setprofile(self._profile)

    def _hitter(self, key, seeds_of, defaults=False):
        """The hook of one function: notes the running test, and with ``seeds_of`` (the
        function) the arguments it was called with, read from the caller's frame at entry;
        with ``defaults`` those left at their defaults too (a constructor's: a seed of it is a
        whole argument list)."""
        reached = self.reached[key]
        if seeds_of is None:
            return lambda: reached.add(self.current)
        seen = self.seen.setdefault(key, [])
        params = list(inspect.signature(seeds_of).parameters.values())

        def passed(p, value):
            """Whether the call gave ``p`` a value of its own: one left at its default, or an
            empty ``*args``/``**kwargs``, is not described (a default abex cannot write spoils
            no seed)."""
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                return len(value) > 0
            return defaults or value is not p.default

        calls = [0]

        def hit():
            reached.add(self.current)
            calls[0] += 1
            if len(seen) < _SEEDS and calls[0] <= _DESCRIBED_CALLS:
                arguments = sys._getframe(1).f_locals
                described = {}
                for p in params:
                    value = arguments[p.name]
                    if not passed(p, value):
                        continue
                    try:
                        described[p.name] = values.describe(value)
                    except Exception:  # noqa: BLE001 - a value abex cannot write is no seed
                        continue  # (a method's receiver, an instance being initialised)
                if described and described not in seen:
                    seen.append(described)

        return hit

    def _profile(self, frame, event, arg):
        if event == "call" and frame.f_code in self.profiled:
            self.reached[self.profiled[frame.f_code]].add(self.current)

    def stop(self):
        if self.profiled:
            sys.setprofile(None)
            threading.setprofile(None)


class _Done(Exception):
    pass


def _terminal_off(args):
    """Whether pytest's command line ``args`` disables its terminal plugin (``-p no:terminal``)."""
    return any(
        a == "-pno:terminal" or (a == "-p" and args[i + 1:i + 2] == ["no:terminal"])
        for i, a in enumerate(args)
    )


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    _patch.add_paths(spec.get("sys_path", []))
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = sys.stderr
    # pytest replaces sys.stdin while it captures: requests come on a copy of the real one.
    inp = os.fdopen(os.dup(0), "rb")
    runner = _Runner(out, inp, spec.get("node_ids"), spec.get("lanes"))
    pytest_args = spec.get("pytest_args", [])
    args = [
        # `-q` is an option of pytest's terminal plugin: with the session's `-p no:terminal`
        # (passed on, as every `-p` is) it would be a usage error.
        *([] if _terminal_off(pytest_args) else ["-q"]),
        "-p", "no:cacheprovider",
        "-p", "no:xdist",
        "-p", "no:randomly",
        # The outer session's options come in `pytest_args`, the ini's `addopts` and
        # `PYTEST_ADDOPTS` included (see `pytest_abex.suite`), less those that cannot run here
        # (`-n`, `--lf`).
        "-o", "addopts=",
        *pytest_args,
        # pytest_abex is imported before pytest starts, so pytest warns that it cannot rewrite
        # its asserts: an error under the user's `filterwarnings = error` or `-W error` (funcy
        # 2.0's tox). After the session's own `-W`s, as the last one wins.
        "-W", "ignore::pytest.PytestAssertRewriteWarning",
        *spec["tests"],
    ]
    try:
        code = pytest.main(args, plugins=[runner])
    except BaseException as e:  # noqa: BLE001 - said in the greeting, not lost on stderr
        if not runner.greeted:
            runner.send({"abex_runner": 1, "error": f"pytest failed to start: {type(e).__name__}: {e}"})
        return 0
    if code not in (0, 1) and not runner.greeted:
        runner.send({"abex_runner": 1, "error": f"pytest could not collect the tests (exit code {int(code)})"})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
