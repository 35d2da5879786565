import pytest

from thresholds import check_date, check_name, clamp_percent, fever, fits, underweight


def test_bmi_far_from_the_threshold():
    assert underweight(50, 180)
    assert not underweight(80, 180)
    assert underweight(40, 160)
    assert not underweight(70, 160)


def test_dates():
    assert check_date(2000, 6, 15) == 15
    for bad in [(1000, 6, 15), (20000, 6, 15), (2000, 0, 15), (2000, 20, 15), (2000, 6, 0), (2000, 6, 40)]:
        with pytest.raises(ValueError):
            check_date(*bad)


def test_names():
    assert check_name("alice") == 5
    with pytest.raises(ValueError):
        check_name("x" * 200)


def test_fitting():
    assert fits(2, 3, 100)
    assert not fits(60, 50, 100)


def test_fevers():
    assert fever(39.0)
    assert not fever(36.6)


def test_clamping():
    assert clamp_percent(150) == 100
    assert clamp_percent(-5) == 0
    assert clamp_percent(50) == 50
