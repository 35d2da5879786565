"""Fixture: an unannotated list parameter the tests fill with integers (croniter 2.0.5's
``_get_prev_nearest_diff(x, to_check, range_val)``): its elements are explored as integers, so
``candidate > range_val`` made ``>=``, the same for every integer, is not proven a gap by a
list of floats whose ``0.0`` only differs from ``0`` in its type."""


def prev_nearest_diff(x, to_check, range_val):
    """How far back from ``x`` the nearest allowed value of ``to_check`` is, wrapping around
    ``range_val``."""
    candidates = to_check[:]
    candidates.reverse()
    for d in candidates:
        if d <= x:
            return d - x
    candidate = candidates[0]
    for c in candidates:
        if c <= range_val:
            candidate = c
            break
    if candidate > range_val:
        return -x
    return candidate - x - range_val
