"""The abex core (Rust), as seen from Python."""

class AbexError(Exception):
    """An abex run failed; the message says why."""

def run(config: str) -> tuple[str, str]:
    """Runs abex on a Python project. ``config`` is the JSON of the run's settings (``root``,
    ``python``, ``functions``, ``base``, ``out``, ``pairs``, ``time_budget_s``, ``seed``,
    ``jobs``, ``call_timeout_ms``, ``llm``, ...). Returns the report as JSON and the output folder."""

def publish(report: str, report_path: str, post: bool) -> tuple[list[str], list[str]]:
    """Publishes ``report`` (JSON, written at ``report_path``) on GitHub Actions: the review when
    ``post``, the job summary (``GITHUB_STEP_SUMMARY``) and step outputs (``GITHUB_OUTPUT``) when
    set. Returns ``(notes, warnings)``; a failed post is a warning."""

def describe_engine(llm: str) -> str:
    """The engine line for a report's ``llm`` section (JSON)."""

def version() -> str:
    """The abex version of the core."""

def defaults() -> str:
    """The core's defaults (JSON) of what the plugin leaves unset: ``pairs``, ``seed``,
    ``call_timeout_ms``, ``memory_limit_mib``, ``witness_evals``; the same as ``cargo abex``'s."""
