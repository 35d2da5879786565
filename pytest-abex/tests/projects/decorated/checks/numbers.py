"""Checks of numbers."""

from .utils import validator


@validator
def percentage(value: int):
    """Whether `value` is a whole percentage, 0 to 100."""
    if value < 0:
        return False
    if value > 100:
        return False
    return True


@validator
def even(value: int):
    """Whether `value` is even."""
    return value % 2 == 0
