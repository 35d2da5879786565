"""The oracle: stronger tests kept out of the analysed suite. A gap abex reports must be a
mutant these tests kill."""

import pytest

from ledger.money import format_amount, parse_amount


@pytest.mark.parametrize("text, cents", [
    ("12.34", 1234), (" 7.05 ", 705), ("0.5", 50), ("-1.5", -150), ("3", 300), ("-0.01", -1),
    (".25", 25), ("1.", 100), ("10", 1000), ("0", 0), ("-3", -300), ("1.99", 199), ("99.9", 9990),
])
def test_parse(text, cents):
    assert parse_amount(text) == cents


@pytest.mark.parametrize("text", ["1.234", "-0.001", "2.5555"])
def test_too_many_decimals(text):
    # The message names the problem and the amount (the sign taken off).
    with pytest.raises(ValueError, match=f"^too many decimals: {text.lstrip('-')}$"):
        parse_amount(text)


@pytest.mark.parametrize("cents, text", [
    (1234, "12.34"), (-150, "-1.50"), (5, "0.05"), (99, "0.99"), (0, "0.00"), (-1, "-0.01"),
    (100, "1.00"), (101, "1.01"), (1000, "10.00"), (-100, "-1.00"), (199, "1.99"), (-99, "-0.99"),
])
def test_format(cents, text):
    assert format_amount(cents) == text
