from dictkeys import offset_minutes, retries


def test_no_timezone():
    assert offset_minutes({}) == 0


def test_plus_two():
    assert offset_minutes({"timezone": "+02:00"}) == 120


def test_default_retries():
    assert retries({}) == 3
