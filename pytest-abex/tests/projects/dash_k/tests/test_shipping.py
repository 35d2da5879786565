from shipping import insurance, shipping_cost


def test_light_parcel():
    assert shipping_cost(0.5, False) == 5.0


def test_heavier_parcel():
    assert shipping_cost(3, False) == 9.0


def test_express_slow():
    # Slow in the real project; deselected by the user's `-k "not slow"`.
    assert shipping_cost(3, True) == 18.0
    assert shipping_cost(30, True) == 0.0


def test_insurance_slow():
    assert insurance(50) == 1.0
    assert insurance(500) == 5.0
