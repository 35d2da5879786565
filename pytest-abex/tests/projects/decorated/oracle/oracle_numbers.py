"""The oracle: stronger tests kept out of the analysed suite, through the decorator as every
caller sees the checks."""

import pytest

from checks.numbers import even, percentage
from checks.utils import ValidationFailure


@pytest.mark.parametrize("value, ok", [
    (-1, False), (0, True), (1, True), (50, True), (99, True), (100, True), (101, False), (-5, False),
])
def test_percentage(value, ok):
    assert percentage(value) == (True if ok else ValidationFailure(percentage.__wrapped__, (value,)))


@pytest.mark.parametrize("value, ok", [(-2, True), (-1, False), (0, True), (1, False), (2, True), (3, False)])
def test_even(value, ok):
    assert even(value) == (True if ok else ValidationFailure(even.__wrapped__, (value,)))
