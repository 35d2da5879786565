from calendar_rules import days_in_year, is_leap

LEAP_YEARS = {1600, 2000, 2024}


def test_is_leap(year):
    assert is_leap(year) == (year in LEAP_YEARS)


def test_days_in_year(year):
    assert days_in_year(year) in (365, 366)
