import pytest

from grades import badge, grade, lookup


def test_grade():
    assert grade(80) == "pass"
    assert grade(10) == "fail"
    assert badge(99) == "gold"
    assert badge(10) == "plain"
    assert lookup({"a": 1}, "a") == 1
    assert lookup({}, "a", 0) == 0
    with pytest.raises(KeyError):
        lookup({}, "a")
