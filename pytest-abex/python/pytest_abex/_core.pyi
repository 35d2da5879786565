"""The abex core (Rust), as seen from Python."""

class AbexError(Exception):
    """An abex run failed; the message says why."""

def run(config: str) -> tuple[str, str]:
    """Runs abex on a Python project. ``config`` is the JSON of the run's settings (``root``,
    ``python``, ``functions``, ``base``, ``out``, ``pairs``, ``time_budget_s``, ``seed``,
    ``jobs``, ``call_timeout_ms``, ...). Returns the report as JSON and the output folder."""

def version() -> str:
    """The abex version of the core."""
