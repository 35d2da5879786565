"""Parameters named private, with defaults, shaped like natsort 8.4.0's fake ``fast_int``: the
module's globals bound as locals for speed (``_first_char``, ``_digit``), which no caller
passes."""

import unicodedata

FIRST = frozenset("0123456789+-")


def fast_int(x, _digit=unicodedata.digit, _first_char=FIRST):
    """``x`` as an int when it reads as one, else ``x`` itself."""
    if x[0] in _first_char:
        try:
            return int(x)
        except ValueError:
            return x
    return _digit(x, x) if len(x) == 1 else x
