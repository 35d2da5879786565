"""The user's test suite as abex's inner runner must run it: exactly the tests the session ran.

The runner (:mod:`pytest_abex.runner`) runs in a scratch copy of the project, so it cannot read
the outer session. The plugin hands over what pytest itself computed, never a guess from file
names:

- ``node_ids``: the node ids of ``session.items`` (after ``-k``, ``-m``, ``--deselect``, ``--lf``,
  plugins' and conftest files' ``pytest_collection_modifyitems``), in the session's order, minus
  abex's own (anything under ``.abex/``). Under xdist the controller collects nothing itself:
  the node ids of the reports it received stand in. The runner keeps exactly these items.
- ``paths``: what the session collected from (``config.args``: the paths and node ids given on
  the command line, else ``testpaths``, else the invocation folder), relative to the rootdir;
- ``pytest_args``: every option of the session's effective command line (the ini's ``addopts``,
  then ``PYTEST_ADDOPTS``, then the command line, as pytest joins them), tokenised with pytest's
  own parser, except those that cannot or must not run in the runner (xdist, the cache's
  ``--lf``/``--sw``, coverage, debuggers, files written into the user's tree, abex's own) and,
  since ``node_ids`` already say which tests run, the selections ``-k``, ``-m`` and
  ``--deselect``; path options are rebased onto the rootdir (the runner's working folder is the
  rootdir's copy), and the runner is given the session's rootdir and ini file;
- ``test_files`` and ``doctest_files``: the files the session's test items and doctest items
  come from, relative to the rootdir (a test file of any name, ``tests/testparse.py`` passed on
  the command line included; a source module whose doctests ran).
"""

import os
import shlex
from pathlib import Path

# Plugins the runner disables or replaces: a ``-p`` naming one is not passed on.
_NOT_PASSED = {"xdist", "xdist.plugin", "randomly", "cacheprovider", "abex", "pytest_abex.plugin"}

# Option groups of plugins the runner disables or that have no place in it: their options go.
_DROPPED_GROUPS = {"xdist", "randomly", "cov", "abex"}

# pytest's own options (by ``dest``) the runner replaces, cannot honour (the cache is off, it
# runs the tests itself) or must not (a debugger waits for input; a file written into the
# user's tree).
_DROPPED = {
    "rootdir", "inifilename", "basetemp",
    "lf", "last_failed", "failedfirst", "newfirst", "cacheshow", "cacheclear",
    "last_failed_no_failures", "stepwise", "stepwise_skip", "stepwise_reset",
    "exitfirst", "maxfail", "usepdb", "usepdb_cls", "trace", "collectonly", "setuponly",
    "setupshow", "setupplan", "showfixtures", "show_fixtures_per_test", "markers", "version",
    "help", "debug", "xmlpath", "junitprefix", "log_file", "resultlog", "pastebin",
    "fold_skipped",
    # Reports plugins write (pytest-html, pytest-reportlog, pytest-json-report).
    "htmlpath", "self_contained_html", "reportlog", "json_report", "json_report_file",
}

# Selections the node ids already apply (and which could deselect abex's suggested tests).
_SELECTIONS = {"keyword", "markexpr", "deselect"}

# Options whose values are paths, relative to the invocation folder.
_PATHS = {"ignore", "ignore_glob", "confcutdir"}


def _rebase(config, value):
    """``value``, a path given on the command line, relative to the rootdir when it lies under
    it (the runner runs in the rootdir's copy); otherwise absolute."""
    path = Path(value)
    if not path.is_absolute():
        path = Path(config.invocation_params.dir) / path
    path = Path(os.path.normpath(path))
    try:
        rel = path.relative_to(config.rootpath)
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else "."


def _rebase_node(config, arg):
    """A path or node id (``tests/t.py::T::test[1]``) given to the session, rebased."""
    path, sep, rest = str(arg).partition("::")
    return _rebase(config, path) + sep + rest


def rebase_function(config, spec):
    """``FILE::NAME`` given on the command line, its file relative to the rootdir (the core
    reads it from there) when it names a file from where pytest started, so that
    ``--abex-function ../pkg/m.py::f`` works from a subfolder; otherwise as given (a path
    from the rootdir)."""
    file, sep, name = str(spec).partition(".py::")
    if not sep or not (Path(config.invocation_params.dir) / (file + ".py")).is_file():
        return spec
    return _rebase(config, file + ".py") + "::" + name


def _argparser(config):
    """The session's ``argparse`` parser (every option known to it: pytest's, plugins',
    conftest files')."""
    parser = config._parser
    return getattr(parser, "optparser", None) or parser._getparser()


def _dropped_strings(config):
    """The option strings of the option groups the runner leaves out."""
    out = set()
    for group in getattr(config._parser, "_groups", []):
        if group.name in _DROPPED_GROUPS:
            for option in group.options:
                out.update(option.names())
    return out


def effective_args(config):
    """The session's command line as pytest read it: the ini's ``addopts``, then
    ``PYTEST_ADDOPTS``, then the arguments given."""
    ini = [str(a) for a in (config.getini("addopts") or [])]
    env = shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    return ini + env + [str(a) for a in config.invocation_params.args]


def tokenise(config, args):
    """``args`` split into options and positionals with the session's own parser: a list of
    ``(action, flag, value)`` (``action`` None for a token the parser does not know, ``value``
    None for a flag without one) and the positionals."""
    actions = _argparser(config)._option_string_actions
    options, positionals = [], []
    i = 0

    def takes(action):
        return action.nargs is None or (isinstance(action.nargs, int) and action.nargs > 0)

    def following():
        """The value tokens after the current one, for an option of ``nargs`` ``?``/``*``/``+``."""
        nonlocal i
        got = []
        while i < len(args) and not (args[i].startswith("-") and len(args[i]) > 1):
            got.append(args[i])
            i += 1
        return got

    while i < len(args):
        token = args[i]
        i += 1
        if token == "--":
            positionals.extend(args[i:])
            break
        if token.startswith("--"):
            flag, eq, value = token.partition("=")
            action = actions.get(flag)
            if eq or action is None or action.nargs == 0:
                options.append((action, flag, value if eq else None))
            elif takes(action):
                options.append((action, flag, args[i] if i < len(args) else ""))
                i += 1
            else:
                got = following()
                if action.nargs == "?":
                    got, rest = got[:1], got[1:]
                    positionals.extend(rest)
                options.append((action, flag, " ".join(got) if got else None))
            continue
        if token.startswith("-") and len(token) > 1:
            j = 1
            while j < len(token):
                flag = "-" + token[j]
                action = actions.get(flag)
                if action is None:  # not the parser's: kept whole
                    options.append((None, "-" + token[j:], None))
                    break
                if takes(action):
                    value = token[j + 1:]
                    if not value and i < len(args):
                        value = args[i]
                        i += 1
                    options.append((action, flag, value))
                    break
                options.append((action, flag, None))
                j += 1
            continue
        positionals.append(token)
    return options, positionals


def pytest_args(config, by_ids=True):
    """The options of the session's effective command line the runner passes to its own
    pytest; with ``by_ids`` (the runner keeps the session's node ids) without the selections."""
    options, _ = tokenise(config, effective_args(config))
    dropped = _dropped_strings(config)
    out = []
    for action, flag, value in options:
        dest = getattr(action, "dest", None)
        if flag in dropped or dest in _DROPPED or (by_ids and dest in _SELECTIONS):
            continue
        if dest == "plugins" and value is not None:
            name = value[3:] if value.startswith("no:") else value
            if name in _NOT_PASSED:
                continue
        if dest == "override_ini" and value is not None and value.startswith("addopts="):
            continue
        if dest in _PATHS and value is not None:
            value = _rebase(config, value)
        if value is None:
            out.append(flag)
        elif flag.startswith("--"):
            out.append(f"{flag}={value}")
        else:
            out.extend([flag, value])
    out.append("--rootdir=.")
    inipath = getattr(config, "inipath", None)
    if inipath is not None:
        out.extend(["-c", _rebase(config, inipath)])
    return out


def paths(config):
    """What the session collected from (``config.args``), relative to the rootdir; with
    ``--pyargs``, a module name that is no path stays as it is."""
    pyargs = getattr(config.option, "pyargs", False)

    def one(arg):
        path = Path(config.invocation_params.dir) / str(arg).partition("::")[0]
        if pyargs and not path.exists():
            return str(arg)
        return _rebase_node(config, arg)

    return [one(a) for a in config.args]


def _own(path):
    """Whether ``path`` (relative to the rootdir) is abex's own (its scratch copies)."""
    return Path(path).parts[:1] == (".abex",)


def _is_doctest(domain):
    return str(domain).startswith("[doctest]")


def collected(session, reported=None):
    """``(node_ids, test_files, doctest_files)`` of the session: its items, or, when it
    collected none itself (an xdist controller), the ``reported`` ``{node id: (file,
    domain)}`` of the tests it heard of."""
    entries = []  # (node id, file relative to the rootdir, is a doctest)
    items = getattr(session, "items", None) or []
    for item in items:
        try:
            file, _, domain = item.location
        except Exception:  # noqa: BLE001 - an item without a location still runs
            file, domain = item.nodeid.split("::")[0], ""
        entries.append((item.nodeid, file, _is_doctest(domain)))
    if not items and reported:
        entries = [(nodeid, file, _is_doctest(domain)) for nodeid, (file, domain) in reported.items()]
    node_ids, tests, doctests = [], set(), set()
    for nodeid, file, doctest in entries:
        if _own(nodeid):
            continue
        node_ids.append(nodeid)
        file = str(file).replace(os.sep, "/")
        if file.endswith(".py") and not file.startswith(".."):
            (doctests if doctest else tests).add(file)
    return node_ids, sorted(tests), sorted(doctests - tests)


def settings(session, reported=None):
    """The ``suite`` section of the core's settings."""
    config = session.config
    node_ids, tests, doctests = collected(session, reported)
    return {
        "pytest_args": pytest_args(config),
        "paths": paths(config),
        "node_ids": node_ids,
        "test_files": tests,
        "doctest_files": doctests,
    }
