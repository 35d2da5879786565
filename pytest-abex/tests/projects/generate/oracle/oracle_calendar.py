"""The oracle: stronger tests kept out of the analysed suite."""

import pytest

from calendar_rules import days_in_year, is_leap

YEARS = {1: False, 4: True, 100: False, 400: True, 1600: True, 1700: False, 1900: False,
         1996: True, 2000: True, 2023: False, 2024: True, 2100: False, 0: True, -4: True}


@pytest.mark.parametrize("y", sorted(YEARS))
def test_is_leap(y):
    assert is_leap(y) is YEARS[y]


@pytest.mark.parametrize("y", sorted(YEARS))
def test_days_in_year(y):
    assert days_in_year(y) == (366 if YEARS[y] else 365)
