from shop.prices import shipping, tax


def test_shipping_far_from_the_limit():
    assert shipping(1) == 5
    assert shipping(50) == 20


def test_tax_far_from_the_limit():
    assert tax(1000) == 100
    assert tax(5) == 0
