from checks.numbers import even, percentage


def test_percentage():
    assert percentage(50) is True
    assert not percentage(-5)
    assert not percentage(150)


def test_even():
    assert even(4) is True
    assert not even(3)
