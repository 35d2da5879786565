"""The oracle: stronger tests kept out of the analysed suite."""

import pytest

from shipping import insurance, shipping_cost


@pytest.mark.parametrize("weight, express, cost", [
    (0.5, False, 5.0), (1, False, 5.0), (1.5, False, 6.0), (2, False, 7.0), (3, False, 9.0),
    (29, False, 61.0), (29.5, False, 62.0), (30, False, 0.0), (31, False, 0.0),
    (0.5, True, 10.0), (1, True, 10.0), (2, True, 14.0), (3, True, 18.0), (30, True, 0.0),
])
def test_shipping(weight, express, cost):
    assert shipping_cost(weight, express) == cost


@pytest.mark.parametrize("value, fee", [
    (0, 1.0), (50, 1.0), (99, 1.0), (100, 1.0), (101, 1.01), (150, 1.5), (500, 5.0),
])
def test_insurance(value, fee):
    assert insurance(value) == pytest.approx(fee)
