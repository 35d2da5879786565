"""The project's decorator: a check returns True, or a falsy `ValidationFailure` that says which
call failed (as the `validators` package does)."""

import functools


class ValidationFailure:
    """A failed check: falsy, and says what failed."""

    def __init__(self, func, args):
        self.func = func.__name__
        self.args = args

    def __bool__(self):
        return False

    def __eq__(self, other):
        return isinstance(other, ValidationFailure) and (self.func, self.args) == (other.func, other.args)

    def __repr__(self):
        return f"ValidationFailure(func={self.func}, args={self.args!r})"


def validator(func):
    """Turns a check's falsy result into a `ValidationFailure`, a truthy one into `True`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        value = func(*args, **kwargs)
        if not value:
            return ValidationFailure(func, args)
        return True

    return wrapper
