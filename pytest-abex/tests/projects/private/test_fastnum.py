from fastnum import fast_int


def test_fast_int():
    assert fast_int("12") == 12
    assert fast_int("-3") == -3
    assert fast_int("1a") == "1a"
    assert fast_int("abc") == "abc"
