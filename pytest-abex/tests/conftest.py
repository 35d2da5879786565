import json
import os
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# Projects that tests copy into a pytester folder and run there, not tests of this suite.
collect_ignore = ["projects"]

# Settings from the machine's environment that would point a run at a real model or at GitHub.
# Every test starts without them (tests that need them set loopback values), so nothing here can
# send traffic anywhere but 127.0.0.1.
_OUTSIDE = (
    "ABEX_API_KEY",
    "OPENAI_API_KEY",
    "ABEX_BASE_URL",
    "ABEX_MODEL",
    "GITHUB_TOKEN",
    "GITHUB_API_URL",
    "GITHUB_EVENT_PATH",
    "GITHUB_REPOSITORY",
)


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch):
    for name in _OUTSIDE:
        monkeypatch.delenv(name, raising=False)


# What `pytest --abex` moves out of `os.environ` (`abex::secrets::NAMES`).
_SECRETS = ("GITHUB_TOKEN", "GH_TOKEN", "ABEX_API_KEY", "OPENAI_API_KEY")


@pytest.fixture(autouse=True)
def _secrets_back_after_an_inner_session(monkeypatch):
    """A session that pytester runs in this process under ``--abex`` moves the secrets out of
    ``os.environ``, as it must (the plugin hands nothing back); the test that ran it gets them
    back afterwards, as it would have kept them had the session run in a process of its own."""
    inline_run = pytest.Pytester.inline_run

    def run(self, *args, **kwargs):
        saved = {k: os.environ[k] for k in _SECRETS if k in os.environ}
        try:
            return inline_run(self, *args, **kwargs)
        finally:
            os.environ.update(saved)

    monkeypatch.setattr(pytest.Pytester, "inline_run", run)


def _flat(pytester, name):
    """``pytester`` holding the modules of ``projects/<name>``, importable from its root."""
    for f in (Path(__file__).parent / "projects" / name).iterdir():
        if f.suffix == ".py":
            pytester.makepyfile(**{f.stem: f.read_text()})
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


@pytest.fixture
def abex_target():
    """``analyse(folder, "FILE::NAME")``: ``pytest --abex`` offline (seed 1) on that one function
    in a pytester ``folder`` whose own single test passes; the report's one target."""

    def analyse(folder, function):
        result = folder.runpytest(
            "-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-seed", "1",
            "--abex-function", function,
        )
        result.assert_outcomes(passed=1)
        rep = json.loads((folder.path / ".abex" / "out" / "report.json").read_text())
        (target,) = rep["targets"]
        return target

    return analyse


@pytest.fixture
def thresholds(pytester):
    """A pytester folder holding ``projects/thresholds`` (boundaries only an exact input shows,
    with tests strong away from them), importable from its root."""
    return _flat(pytester, "thresholds")


@pytest.fixture
def lazy(pytester):
    """A pytester folder holding ``projects/lazy`` (functions that return iterators, some of
    them slow on large arguments in C), importable from its root."""
    return _flat(pytester, "lazy")


@pytest.fixture
def private(pytester):
    """A pytester folder holding ``projects/private`` (parameters named private, with defaults:
    natsort 8.4.0's globals bound as locals), importable from its root."""
    return _flat(pytester, "private")


@pytest.fixture
def typecomments(pytester):
    """A pytester folder holding ``projects/typecomments`` (a class typed in PEP 484 comments,
    hyperlink 21.0.0's shape), importable from its root."""
    return _flat(pytester, "typecomments")


@pytest.fixture
def defaults(pytester):
    """A pytester folder holding ``projects/defaults`` (parameters with literal defaults),
    importable from its root."""
    return _flat(pytester, "defaults")


@pytest.fixture
def elements(pytester):
    """A pytester folder holding ``projects/elements`` (an unannotated list parameter the tests
    fill with integers, croniter 2.0.5's shape), importable from its root."""
    return _flat(pytester, "elements")


@pytest.fixture
def receivers(pytester):
    """A pytester folder holding ``projects/receivers`` (a method of a class whose constructor
    takes unannotated arguments, semantic_version 2.10.0's shape), importable from its root."""
    return _flat(pytester, "receivers")


@pytest.fixture
def platform(pytester):
    """A pytester folder holding ``projects/platform`` (a constrained ``TypeVar`` under
    ``Optional``, pathvalidate 3.2.0's shape), importable from its root."""
    return _flat(pytester, "platform")


@pytest.fixture
def dictkeys(pytester):
    """A pytester folder holding ``projects/dictkeys`` (mutants behind guards on a dictionary's
    keys), importable from its root."""
    return _flat(pytester, "dictkeys")
