import pytest

from shop.pricing import Basket, bulk_discount, parse_quantity, shipping_cost


def test_bulk_discount_of_large_small_and_tiny_orders():
    assert bulk_discount(500) == 0.15
    assert bulk_discount(50) == 0.05
    assert bulk_discount(1) == 0.0


def test_shipping_of_a_light_parcel():
    assert shipping_cost(1.0, False) == 4.99
    assert shipping_cost(1.0, True) == 9.98


def test_parse_quantity():
    assert parse_quantity(" 12 ") == 12
    with pytest.raises(ValueError):
        parse_quantity("abc")


def test_basket_total():
    assert Basket().total([100, 200]) == 300
    assert Basket().total([6000]) == 5900
