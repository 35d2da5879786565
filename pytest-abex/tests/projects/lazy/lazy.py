"""Functions that return iterators, shaped like the ones abex broke on in real projects
(more_itertools 10.5.0's ``windowed`` and ``intersperse``, toolz 0.12.1's ``partition_all``)."""

from itertools import chain, islice


def windows(seq, n, fill=None):
    """The windows of ``n`` items of ``seq``, one padded with ``fill`` when ``seq`` is shorter.
    A huge ``n`` builds a huge tuple, in C."""
    if n < 0:
        raise ValueError("n must be >= 0")
    items = tuple(seq)
    if len(items) < n:
        yield items + (fill,) * (n - len(items))
        return
    for i in range(len(items) - n + 1):
        yield items[i : i + n]


def every(seq, n=1):
    """Every ``n``-th item of ``seq``: the same items whichever way, an ``islice`` for 1 and a
    ``chain`` for more, whose reprs differ."""
    if n < 1:
        raise ValueError("n must be >= 1")
    elif n == 1:
        return islice(seq, 0, None)
    else:
        return chain.from_iterable(islice(seq, i, i + 1) for i in range(0, len(seq), n))


def groups(n, seq):
    """``seq`` in tuples of ``n``, the last one shorter. ``[iter(seq)] * n`` takes a second for
    ``n`` = 10**8, in C."""
    args = [iter(seq)] * n
    for group in zip(*args):
        yield group
    rest = len(seq) % n if n else 0
    if rest:
        yield tuple(seq[-rest:])
