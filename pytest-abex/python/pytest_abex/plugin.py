"""The pytest plugin: ``pytest --abex``.

Inert unless ``--abex`` (or ``abex = true`` in the ini / ``[tool.abex]``) is given. After the test
session, the controller (never an xdist worker) hands the settings to the Rust core
(:mod:`pytest_abex._core`), which analyses the changed functions in a scratch copy of the project
and writes ``.abex/out/``; the terminal summary then gets an ``abex`` section: the core's
terminal text of the report (``_core.render_text``), the same text ``cargo abex`` prints.
"""

import gc
import json
import os
import shlex
import signal
import sys
import threading

import pytest

from . import suite

_RESULT = pytest.StashKey[dict]()
# The run at work: (the session, its `_Running`), from `pytest_sessionfinish` until `_finish`.
_RUNNING = pytest.StashKey[tuple]()
# Node id -> (file, domain) of every test the session heard a report of: under xdist, the tests
# that ran (the controller collects none itself).
_REPORTED = pytest.StashKey[dict]()

# Boundaries shown per validity group in the summary (``cargo abex --show``'s default).
_SHOW = 5

# (option, ini name, type, default, help)
_OPTIONS = [
    ("--abex-base", "abex_base", str, None, "base ref of the diff (default: origin/HEAD, main or master)"),
    ("--abex-function", "abex_function", "list", None, "analyse FILE::NAME instead of the diff (repeatable)"),
    ("--abex-all", "abex_all", bool, False, "analyse every function of the project instead of the diff"),
    ("--abex-offline", "abex_offline", bool, False, "use the built-in offline engine only (no model)"),
    ("--abex-out", "abex_out", str, None, "output folder (default: .abex/out at the project root)"),
    ("--abex-pairs", "abex_pairs", int, None, "input pairs to explore per function (default: 1000)"),
    ("--abex-time-budget", "abex_time_budget", float, None, "wall-time budget of the analysis, in seconds"),
    ("--abex-seed", "abex_seed", int, None, "random seed (default: 0)"),
    ("--abex-jobs", "abex_jobs", int, None, "mutants tested at a time (default: the number of CPUs)"),
    ("--abex-call-timeout", "abex_call_timeout", int, None, "time limit of one call of a function, in ms (default: 1000)"),
    ("--abex-model", "abex_model", str, None, "the model (env ABEX_MODEL; default gpt-5-mini)"),
    ("--abex-base-url", "abex_base_url", str, None, "an OpenAI-compatible endpoint (env ABEX_BASE_URL)"),
    ("--abex-budget-usd", "abex_budget_usd", float, None, "most money the run may spend on the model, in USD"),
    ("--abex-budget-tokens", "abex_budget_tokens", int, None, "most tokens the run may spend on the model"),
    ("--abex-agents", "abex_agents", str, None, "agents taking part: full, no-ideator or explorer-only"),
    ("--abex-reasoning-effort", "abex_reasoning_effort", str, None, "reasoning_effort for models that take it: minimal, low, medium or high"),
    ("--abex-llm-mutants", "abex_llm_mutants", int, None, "model-written mutants per function (default: 3)"),
    ("--abex-explorer-calls", "abex_explorer_calls", int, None, "Explorer calls per function at most (default: no fixed cap)"),
    ("--abex-llm-tests", "abex_llm_tests", int, None, "the Tester's answers per witnessed survivor at most; 0: none (default: 4)"),
    ("--abex-llm-timeout", "abex_llm_timeout", float, None, "time limit of one model request, in seconds (default: 60)"),
    ("--abex-prompts", "abex_prompts", str, None, "folder of prompt templates overriding the built-in ones"),
    ("--abex-post-review", "abex_post_review", bool, False, "post the findings as a pull-request review (GitHub Actions)"),
    ("--abex-write-tests", "abex_write_tests", bool, False, "write the suggested tests into the module's test file (the only option that changes the project's files; without it see .abex/out/suggested-tests.patch)"),
    ("--abex-fail-on", "abex_fail_on", str, None, "`finding`: exit status 1 when a gap is found (default: never, like cargo abex --fail-on)"),
]

# The numeric settings: (option, ini name, type, key of the core's settings).
_NUMBERS = [
    ("--abex-pairs", "abex_pairs", int, "pairs"),
    ("--abex-seed", "abex_seed", int, "seed"),
    ("--abex-jobs", "abex_jobs", int, "jobs"),
    ("--abex-call-timeout", "abex_call_timeout", int, "call_timeout_ms"),
    ("--abex-time-budget", "abex_time_budget", float, "time_budget_s"),
]

# The model options: (option, ini name, type, key of the core's ``llm`` settings).
_MODEL = [
    ("--abex-model", "abex_model", str, "model"),
    ("--abex-base-url", "abex_base_url", str, "base_url"),
    ("--abex-budget-usd", "abex_budget_usd", float, "budget_usd"),
    ("--abex-budget-tokens", "abex_budget_tokens", int, "budget_tokens"),
    ("--abex-agents", "abex_agents", str, "agents"),
    ("--abex-reasoning-effort", "abex_reasoning_effort", str, "reasoning_effort"),
    ("--abex-llm-mutants", "abex_llm_mutants", int, "mutants"),
    ("--abex-explorer-calls", "abex_explorer_calls", int, "explorer_calls"),
    ("--abex-llm-tests", "abex_llm_tests", int, "tests"),
    ("--abex-llm-timeout", "abex_llm_timeout", float, "timeout_s"),
]


def pytest_addoption(parser):
    group = parser.getgroup("abex", "abex: what the change's tests do not pin down")
    group.addoption("--abex", action="store_true", default=None, help="analyse the changed functions after the tests")
    parser.addini("abex", "run abex after the tests (like --abex)", type="bool", default=False)
    for opt, ini, typ, default, help_text in _OPTIONS:
        if typ is bool:
            group.addoption(opt, action="store_true", default=None, help=help_text)
        elif typ == "list":
            group.addoption(opt, action="append", default=None, metavar="FILE::NAME", help=help_text)
        else:
            group.addoption(opt, action="store", type=typ, default=None, help=help_text)
        parser.addini(ini, help_text, type="linelist" if typ == "list" else ("bool" if typ is bool else "string"))


def _pyproject_settings(config):
    """``[tool.abex]`` of the rootdir's pyproject.toml, keys without the ``abex_`` prefix."""
    path = config.rootpath / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        import tomllib  # Python 3.11+
    except ImportError:  # pragma: no cover - older interpreters
        try:
            import tomli as tomllib
        except ImportError:
            return {}
    with open(path, "rb") as f:
        return tomllib.load(f).get("tool", {}).get("abex", {})


def _setting(config, opt, ini, typ, default):
    """Command line, then ini, then ``[tool.abex]``, then the default."""
    value = config.getoption(opt.lstrip("-").replace("-", "_"))
    if value not in (None, []):
        return value
    raw = config.getini(ini)
    if raw not in (None, "", []):
        if typ == "list" or typ is bool:
            return raw
        return typ(raw)
    key = ini[len("abex_"):]
    table = _pyproject_settings(config)
    if key in table:
        v = table[key]
        return [v] if typ == "list" and isinstance(v, str) else v
    return default


def _on_command_line(config, opt):
    """Whether ``opt`` was given on pytest's command line or in ``PYTEST_ADDOPTS``, not through
    an ini file's ``addopts``, which a pull request writes."""
    args = list(config.invocation_params.args) + shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    return any(a == opt or a.startswith(opt + "=") for a in args)


def _split_setting(config, opt, ini):
    """A setting as ``(command_line_value, from_file)``: the value given on the command line (or
    in ``PYTEST_ADDOPTS``), and the project's own, ``{"file", "key", "value"}``, from the ini
    file (its ``abex_*`` key or its ``addopts``) or ``[tool.abex]``. The core lets the project's
    only tighten what the command line and the defaults set (``abex::python::config``)."""
    value = config.getoption(opt.lstrip("-").replace("-", "_"))
    inipath = str(config.inipath) if config.inipath else "the ini file"
    if value not in (None, []):
        if _on_command_line(config, opt):
            return value, None
        return None, {"file": inipath, "key": f"addopts {opt}", "name": ini, "value": value}
    raw = config.getini(ini)
    if raw not in (None, "", []):
        return None, {"file": inipath, "key": ini, "name": ini, "value": raw}
    key = ini[len("abex_"):]
    table = _pyproject_settings(config)
    if key in table:
        path = str(config.rootpath / "pyproject.toml")
        return None, {"file": path, "key": f"tool.abex.{key}", "name": ini, "value": table[key]}
    return None, None


def _enabled(config):
    if os.environ.get("ABEX_INNER"):  # abex's own runner and worker: never recurse
        return False
    if config.getoption("abex"):
        return True
    return bool(config.getini("abex")) or bool(_pyproject_settings(config).get("enabled", False))


def _enabled_early(early_config):
    """:func:`_enabled` before pytest has parsed its command line (only the known arguments)."""
    if os.environ.get("ABEX_INNER"):
        return False
    if getattr(early_config.known_args_namespace, "abex", None):
        return True
    return bool(early_config.getini("abex")) or bool(_pyproject_settings(early_config).get("enabled", False))


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Before any ``conftest.py`` is imported: the token and the model's key move from the
    environment into the core, which alone reads them (``abex::secrets``). Neither the project's
    tests nor its conftest files find them in ``os.environ`` or ``/proc/self/environ``."""
    if not _enabled_early(early_config):
        return
    from . import _core

    for name in _core.withhold_secrets():
        os.environ.pop(name, None)


def pytest_configure(config):
    config.addinivalue_line("markers", "abex_suggested: a test suggested by abex")
    if _enabled(config) and not hasattr(os, "fork"):
        raise pytest.UsageError(
            "pytest-abex needs os.fork (Linux, macOS and other POSIX systems); it cannot run on "
            "this platform. Run without --abex, or under WSL."
        )
    fail_on = _setting(config, "--abex-fail-on", "abex_fail_on", str, None)
    if fail_on not in (None, "never", "finding"):
        raise pytest.UsageError(f"--abex-fail-on must be `never` or `finding`, not `{fail_on}`")
    if _enabled(config) and not _is_xdist_worker(config):
        config.stash[_REPORTED] = {}
        config.pluginmanager.register(_Reports(config.stash[_REPORTED]), "abex-reports")


class _Reports:
    """Hears the session's test reports: under xdist, which tests ran."""

    def __init__(self, into):
        self.into = into

    def pytest_runtest_logreport(self, report):
        if report.nodeid not in self.into:
            self.into[report.nodeid] = (report.location[0], report.location[2])


def _is_xdist_worker(config):
    return hasattr(config, "workerinput")


def _flag(config, opt, ini):
    """A boolean setting: command line, then ini (``true``/``false``), then ``[tool.abex]``."""
    value = _setting(config, opt, ini, bool, False)
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _model_settings(config, project):
    """The core's ``llm`` settings from the model options given on the command line; what the
    project's files set goes to ``project`` (unset ones are left to the core's environment and
    ``[tool.abex.llm]``)."""
    llm = {"offline": _flag(config, "--abex-offline", "abex_offline")}
    for opt, ini, typ, key in _MODEL + [("--abex-prompts", "abex_prompts", str, "prompts")]:
        value, from_file = _split_setting(config, opt, ini)
        if value is not None:
            llm[key] = str(config.invocation_params.dir / value) if key == "prompts" else typ(value)
        if from_file is not None:
            project.append(from_file)
    return llm


def _publish(config, text, out):
    """``--abex-post-review`` and the GitHub Actions outputs: ``(notes, warnings, annotations)``."""
    post = _flag(config, "--abex-post-review", "abex_post_review")
    in_actions = any(os.environ.get(k) for k in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"))
    if not post and not in_actions:
        return [], [], ""
    from . import _core

    try:
        return _core.publish(text, os.path.join(out, "report.json"), post)
    except _core.AbexError as e:
        return [], [f"failed to publish the report: {e}"], ""


def _progress(config):
    """The progress lines of the run (the ones ``cargo abex`` prints), on pytest's terminal:
    warnings always, the rest unless ``-q``."""
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is None:
        return None
    quiet = config.getoption("verbose") < 0

    def line(verb, text, warning):
        if quiet and not warning:
            return
        first, *rest = text.splitlines() or [""]
        tr.write_line(f"abex: {verb} {first}", yellow=warning)
        for more in rest:
            tr.write_line(f"abex: {more}")

    return line


class _Running:
    """``_core.run`` at work in a thread of its own, started by ``pytest_sessionfinish`` and
    waited for in this plugin's ``pytest_terminal_summary`` (the last one to run), so that the
    session's other end-of-run work (hypothesis's plugin imports hypothesis there, 0.6 s) is
    done while the core works, not after it; ``pytest_unconfigure`` waits where there is no
    terminal.

    Python runs signal handlers only in the main thread, between bytecodes, so a core working
    in the main thread would hear Ctrl-C only when it returns. Until the wait ends, the first
    SIGINT or SIGTERM asks the core to stop (it kills its runners and returns the report of what
    was finished); a second ends the process at once. SIGHUP counts as one too."""

    def __init__(self, settings, progress):
        from . import _core

        self._box = {}

        def work():
            try:
                self._box["result"] = _core.run(settings, progress)
            except BaseException as e:  # handed to the main thread
                self._box["error"] = e

        def on_signal(signum, frame):
            name = signal.Signals(signum).name
            if _core.interrupt(signum) > 1:
                sys.stderr.write(f"\nabex: {name} again: stopping now\n")
                os._exit(128 + signum)
            sys.stderr.write(f"\nabex: {name}: stopping, saving what is finished (send it again to stop at once)\n")

        self._handlers = {}
        if threading.current_thread() is threading.main_thread():
            for s in _SIGNALS.values():
                self._handlers[s] = signal.signal(s, on_signal)
        self._worker = threading.Thread(target=work, name="abex", daemon=True)
        try:
            self._worker.start()
        except BaseException:
            self._restore()
            raise

    def _restore(self):
        for s, h in self._handlers.items():
            signal.signal(s, h)
        self._handlers = {}

    def wait(self):
        """Waits for the core: ``(report_json, out_dir)``; raises what the core raised."""
        try:
            while self._worker.is_alive():
                self._worker.join(0.1)
        finally:
            self._restore()
        if "error" in self._box:
            raise self._box["error"]
        return self._box["result"]


# The signals that stop a run (SIGHUP: a closed terminal or session), by name.
_SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}
if hasattr(signal, "SIGHUP"):
    _SIGNALS["SIGHUP"] = signal.SIGHUP


def _interpreter():
    """This interpreter's version and installed distributions, and a hash of this plugin's own
    Python files, for the results cache's key: the text the core would otherwise start the
    interpreter to print (``DESCRIBE_INTERPRETER`` in ``src/python/front.rs``)."""
    import hashlib
    import importlib.metadata as m
    import pathlib

    def named(d):
        # One parse of its METADATA (`d.version` would parse it again).
        meta = d.metadata
        return f"{meta['Name']}=={meta['Version']}"

    names = sorted(named(d) for d in m.distributions())
    files = sorted(pathlib.Path(__file__).parent.glob("*.py"))
    own = hashlib.sha256(b"".join(f.name.encode() + f.read_bytes() for f in files)).hexdigest()
    return f"{sys.version}\n{names}\n{own}\n"


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if not _enabled(config) or _is_xdist_worker(config) or config.option.collectonly:
        return
    if int(exitstatus) not in (0, 5):
        config.stash[_RESULT] = {"skipped": "the tests failed; abex needs a passing test run"}
        return
    settings = {
        "root": str(config.rootpath),
        "python": sys.executable,
        "functions": [suite.rebase_function(config, f)
                      for f in _setting(config, "--abex-function", "abex_function", "list", None) or []],
        "all": _flag(config, "--abex-all", "abex_all"),
        "write_tests": _flag(config, "--abex-write-tests", "abex_write_tests"),
        "base": _setting(config, "--abex-base", "abex_base", str, None),
        "suite": suite.settings(session, config.stash.get(_REPORTED, None)),
        "out": _setting(config, "--abex-out", "abex_out", str, None),
        "project": [],
        "interpreter": _interpreter(),
    }
    settings["llm"] = _model_settings(config, settings["project"])
    # What the user did not set is left to the core's defaults (the same as `cargo abex`'s);
    # what the project's files set may only tighten them, checked by the core.
    for opt, ini, typ, key in _NUMBERS:
        value, from_file = _split_setting(config, opt, ini)
        if value is not None:
            settings[key] = typ(value)
        if from_file is not None:
            settings["project"].append(from_file)
    # The native module is imported only when abex runs (`_Running` imports it).
    config.stash[_RUNNING] = (session, _Running(json.dumps(settings), _progress(config)))


def _finish(config):
    """Waits for the run ``pytest_sessionfinish`` started, if any, and keeps its result for the
    summary: the session's exit status, the review and the job summary are set here, before
    pytest returns the status."""
    running = config.stash.get(_RUNNING, None)
    if running is None:
        return
    del config.stash[_RUNNING]
    session, core = running
    from . import _core

    try:
        text, out = core.wait()
    except _core.AbexError as e:
        config.stash[_RESULT] = {"error": str(e)}
        # A settings error the user must fix (`cargo abex` exits 2 on it too): not a green run.
        if getattr(e, "exit_code", None) == 2:
            session.exitstatus = 2
        return
    report = _parsed(text)
    interrupted = report.get("interrupted")
    if interrupted:
        # The shell's code of a process the signal ended: 130 for SIGINT, 143 for SIGTERM, 129
        # for SIGHUP.
        session.exitstatus = 128 + int(_SIGNALS.get(interrupted["signal"], signal.SIGINT))
    # What an interrupted run proved still reaches the pull request.
    notes, warnings, annotations = _publish(config, text, out)
    config.stash[_RESULT] = {
        "report": text, "out": out, "notes": notes, "warnings": warnings, "annotations": annotations,
        "targets": bool(report.get("targets")),
    }
    gaps = _gaps(report)
    if gaps and _setting(config, "--abex-fail-on", "abex_fail_on", str, None) == "finding":
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        config.stash[_RESULT]["notes"].append(f"{gaps} gap(s) found: exit status 1 (--abex-fail-on finding)")


def pytest_unconfigure(config):
    # Without a terminal (`-p no:terminal`) no summary waits for the run: it ends here, still
    # before pytest returns the session's exit status.
    _finish(config)


def _parsed(report_json):
    """The report, parsed once with the garbage collector off: parsing makes hundreds of
    thousands of containers, each of which counts towards a collection of the session's whole
    heap (pytest's, its plugins', the user's modules'); none of them is in a cycle. On the kit
    demo three parses cost 45-80 ms at the end of the run; one with the collector off, 7 ms."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return json.loads(report_json)
    finally:
        if enabled:
            gc.enable()


def _gaps(report):
    """The gaps of a parsed report: witnessed survivors, as ``cargo abex --fail-on`` counts
    them."""
    return sum(
        (t.get("mutation") or {}).get("counts", {}).get("witnessed", 0) for t in report.get("targets", [])
    )


def _section(result, colour):
    """The lines of the ``abex`` section: the core's terminal text of the report (the text
    ``cargo abex`` prints), after a hint when the change touched no function."""
    from . import _core

    lines = []
    if not result["targets"]:
        lines.append("abex: no changed Python function (use --abex-function FILE::NAME to name one)")
    report_path = os.path.join(result["out"], "report.json")
    text = _core.render_text(result["report"], _SHOW, colour, report_path)
    return lines + text.lstrip("\n").splitlines()


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    _finish(config)
    result = config.stash.get(_RESULT, None)
    if result is None:
        return
    tr = terminalreporter
    tr.write_sep("=", "abex")
    if "skipped" in result:
        tr.write_line(f"abex: skipped: {result['skipped']}")
    elif "error" in result:
        tr.write_line(f"abex: error: {result['error']}", red=True)
    else:
        # pytest's own choice of colour: a terminal, ``--color``, ``NO_COLOR``, ``PY_COLORS``.
        for line in _section(result, tr.hasmarkup):
            tr.write_line(line)
        for note in result.get("notes", []):
            tr.write_line(f"abex: {note}")
        for warning in result.get("warnings", []):
            tr.write_line(f"abex: warning: {warning}", yellow=True)
        # GitHub Actions' workflow commands, each on a line of its own: a warning per gap.
        for line in result.get("annotations", "").splitlines():
            tr.write_line(line)
