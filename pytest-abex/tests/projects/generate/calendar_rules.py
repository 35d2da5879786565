"""Gregorian calendar rules."""


def is_leap(year: int) -> bool:
    """Every 4th year, but not every 100th, but every 400th."""
    if year % 400 == 0:
        return True
    if year % 100 == 0:
        return False
    return year % 4 == 0


def days_in_year(year: int) -> int:
    return 366 if is_leap(year) else 365
