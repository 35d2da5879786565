import pytest

from lazy import every, groups, windows


def test_windows():
    assert list(windows([1, 2, 3], 2)) == [(1, 2), (2, 3)]
    with pytest.raises(ValueError):
        list(windows([1], -1))


def test_every():
    assert list(every([1, 2, 3, 4], 2)) == [1, 3]
    assert list(every([1, 2], 1)) == [1, 2]
    with pytest.raises(ValueError):
        every([1], 0)


def test_groups():
    assert list(groups(2, [1, 2, 3, 4, 5])) == [(1, 2), (3, 4), (5,)]
