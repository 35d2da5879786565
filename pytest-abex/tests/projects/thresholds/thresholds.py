"""Boundaries that only an exact input shows, each with tests that are strong away from the
boundary and silent at it, so the boundary mutants survive them (issue 19)."""

K = 100_000  # a module constant: not mutated


def underweight(weight_kg: int, height_cm: int) -> bool:
    """BMI × 10, rounded, below 185: a threshold reached through integer arithmetic."""
    return (2 * weight_kg * K + height_cm * height_cm) // (2 * height_cm * height_cm) < 185


def check_date(year: int, month: int, day: int) -> int:
    """A day checked after its year and month: `day < 1` runs only for a valid year and month."""
    if year < 1812 or year > 9999:
        raise ValueError(f"year {year} out of range")
    if month == 0 or month > 12:
        raise ValueError(f"month {month} out of range")
    if day < 1:
        raise ValueError("day 0")
    if day > 31:
        raise ValueError(f"day {day} out of range")
    return day


def check_name(name: str) -> int:
    """A user name of at most 64 characters."""
    if len(name) > 64:
        raise ValueError("too long")
    return len(name)


def fits(item: int, used: int, capacity: int) -> bool:
    """Whether an item fits: a comparison between arguments."""
    return item + used <= capacity


def fever(temp_c: float) -> bool:
    """Fever from 37.5 °C: a float threshold."""
    return temp_c >= 37.5


def clamp_percent(x: int) -> int:
    """Clamps to 0..100; `x > 100` → `x >= 100` is truly equivalent (at 100 both give 100)."""
    if x > 100:
        return 100
    if x < 0:
        return 0
    return x
