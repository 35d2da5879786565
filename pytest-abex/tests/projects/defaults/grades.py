"""Fixture: functions whose parameters have literal defaults (boltons 24.1.0's
``bytes2human(nbytes, ndigits=0)``): a suggested test leaves out the arguments at the end that
equal their defaults, as a person writes the call."""


def grade(score: int, bonus: int = 0, strict: bool = False) -> str:
    """``"pass"`` from 50 points (the score and the bonus), else ``"fail"``; a bonus is refused
    when ``strict``."""
    if strict and bonus:
        raise ValueError("no bonus when strict")
    if score + bonus >= 50:
        return "pass"
    return "fail"


def badge(score: int, suffix=None) -> str:
    """``"gold"`` from 90 points, else ``"plain"``; with ``suffix`` after it."""
    name = "gold" if score >= 90 else "plain"
    return name if suffix is None else f"{name}-{suffix}"


_MISSING = object()


def lookup(table: dict, key: str, default=_MISSING):
    """``table[key]``; ``default`` when it has none, else a ``KeyError`` that names the key
    (cachetools 5.5's ``Cache.pop(key, default=__marker)``: a default that is no literal, whose
    "not given" branch no argument reaches)."""
    if key in table:
        return table[key]
    if default is _MISSING:
        raise KeyError(f"no {key}")
    return default
