"""The user's test suite as abex's inner runner must run it.

The runner (:mod:`pytest_abex.runner`) runs in a scratch copy of the project, so it cannot read
the outer session's command line. The plugin hands over what decides which tests run and how:

- ``pytest_args``: the options of the outer session that select or configure tests (``--ignore``,
  ``--ignore-glob``, ``--deselect``, ``-k``, ``-m``, ``-p``, ``-W``, ``-o``, ``--import-mode``,
  ``--doctest-modules``, ``--confcutdir``, ``--noconftest``, ``--rootdir``, ``-c``, …), read from
  the parsed options (so the ini's ``addopts`` are included; the runner clears ``addopts`` itself,
  since some, such as ``-n auto`` or ``--lf``, cannot run in it), with paths rebased onto the
  rootdir (the runner's working folder is the rootdir's copy);
- ``test_files``: the files the outer session collected tests from (test modules, and source
  modules whose doctests ran), relative to the rootdir; ``None`` when it collected none itself
  (an xdist controller), in which case every test file of the project is a candidate.

The ini file (``filterwarnings = error`` included) is the copy's own, found as pytest finds it.
"""

import os
from pathlib import Path

# Plugins the runner disables or replaces: a ``-p`` naming one is not passed on.
_NOT_PASSED = {"xdist", "xdist.plugin", "randomly", "cacheprovider", "abex", "pytest_abex.plugin"}


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


def pytest_args(config):
    """The options of the outer session the runner passes to its own pytest."""
    o = config.option
    args = []

    def many(flag, values, path=False):
        for v in values or []:
            args.extend([flag, _rebase(config, v) if path else str(v)])

    many("--ignore", getattr(o, "ignore", None), path=True)
    many("--ignore-glob", getattr(o, "ignore_glob", None))
    many("--deselect", getattr(o, "deselect", None))
    many("-W", getattr(o, "pythonwarnings", None))
    many("-o", [v for v in getattr(o, "override_ini", None) or [] if not v.startswith("addopts=")])
    for p in getattr(o, "plugins", None) or []:
        name = p[3:] if p.startswith("no:") else p
        if name not in _NOT_PASSED:
            args.extend(["-p", p])
    if getattr(o, "keyword", ""):
        args.extend(["-k", o.keyword])
    if getattr(o, "markexpr", ""):
        args.extend(["-m", o.markexpr])
    if getattr(o, "importmode", None):
        args.append(f"--import-mode={o.importmode}")
    if getattr(o, "doctestmodules", False):
        args.append("--doctest-modules")
    many("--doctest-glob", getattr(o, "doctestglob", None))
    if getattr(o, "doctest_continue_on_failure", False):
        args.append("--doctest-continue-on-failure")
    if getattr(o, "doctest_ignore_import_errors", False):
        args.append("--doctest-ignore-import-errors")
    if getattr(o, "noconftest", False):
        args.append("--noconftest")
    if getattr(o, "runxfail", False):
        args.append("--runxfail")
    for flag, dest in (("--confcutdir", "confcutdir"), ("--rootdir", "rootdir")):
        value = getattr(o, dest, None)
        if value and _given(config, flag):
            args.append(f"{flag}={_rebase(config, value)}")
    if getattr(o, "inifilename", None):
        args.extend(["-c", _rebase(config, o.inifilename)])
    return args


def _given(config, flag):
    """Whether ``flag`` was on the command line (pytest fills some options in itself, such as
    ``confcutdir``, with paths of the real tree)."""
    raw = list(config.invocation_params.args)
    return any(a == flag or a.startswith(flag + "=") for a in raw)


def test_files(session):
    """The files the session collected tests from, relative to the rootdir, or ``None`` when it
    collected none itself."""
    items = getattr(session, "items", None) or []
    if not items:
        return None
    root = session.config.rootpath
    files = set()
    for item in items:
        path = getattr(item, "path", None)
        if path is None:
            continue
        try:
            files.add(str(Path(path).relative_to(root)))
        except ValueError:
            continue
    return sorted(files)


def settings(session):
    """The ``suite`` section of the core's settings."""
    return {"pytest_args": pytest_args(session.config), "test_files": test_files(session)}
