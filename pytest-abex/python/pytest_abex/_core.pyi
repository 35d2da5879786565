"""The abex core (Rust), as seen from Python."""

from typing import Callable

class AbexError(Exception):
    """An abex run failed; the message says why."""

def run(config: str, progress: Callable[[str, str, bool], None] | None = None) -> tuple[str, str]:
    """Runs abex on a Python project. ``config`` is the JSON of the run's settings (``root``,
    ``python``, ``functions``, ``base``, ``out``, ``pairs``, ``time_budget_s``, ``seed``,
    ``jobs``, ``call_timeout_ms``, ``llm``, ...; unset ones take the core's defaults). Returns the
    report as JSON and the output folder. ``progress``, when given, is called with
    ``(verb, text, warning)`` for each progress line, the lines ``cargo abex`` prints."""

def publish(report: str, report_path: str, post: bool) -> tuple[list[str], list[str], str]:
    """Publishes ``report`` (JSON, written at ``report_path``) on GitHub Actions: the review when
    ``post``, the job summary (``GITHUB_STEP_SUMMARY``) and step outputs (``GITHUB_OUTPUT``) when
    set, the event (``GITHUB_EVENT_PATH``) copied next to the report. Returns ``(notes,
    warnings, annotations)``; a failed post is a warning; ``annotations`` are the ``::warning``
    workflow commands of the gaps when ``GITHUB_ACTIONS`` is ``true``."""

def withhold_secrets() -> list[str]:
    """Moves ``GITHUB_TOKEN``, ``GH_TOKEN``, ``ABEX_API_KEY`` and ``OPENAI_API_KEY`` from the
    environment into the core (and out of ``/proc/self/environ``) and snapshots the settings
    that say where a key goes; returns the names taken. Nothing hands them back."""

def render_text(report: str, show: int = 5, colour: bool = False, report_path: str | None = None) -> str:
    """The terminal text of ``report`` (JSON), as ``cargo abex`` prints it: a block per function
    (boundaries, mutants, gaps with their witnesses, unpinned boundaries, suggested tests), then
    the totals and the engine line. ``show`` boundaries per validity group; ``colour`` styles it
    with ANSI escapes; ``report_path`` is named on the totals line. Raises :class:`AbexError` for
    a document that is not an abex report."""

def version() -> str:
    """The abex version of the core."""

def defaults() -> str:
    """The core's defaults (JSON) of what the plugin leaves unset: ``pairs``, ``seed``,
    ``call_timeout_ms``, ``memory_limit_mib``, ``witness_evals``; the same as ``cargo abex``'s."""
