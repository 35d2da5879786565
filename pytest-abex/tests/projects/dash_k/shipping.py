"""Shipping costs."""


def shipping_cost(weight_kg: float, express: bool) -> float:
    """A base fee of 5, 2 per kg above 1 kg, doubled for express; free from 30 kg (freight)."""
    if weight_kg >= 30:
        return 0.0
    cost = 5.0
    if weight_kg > 1:
        cost += 2.0 * (weight_kg - 1)
    if express:
        cost *= 2
    return cost


def insurance(value: float) -> float:
    """1% of the value, at least 1."""
    fee = value / 100
    if fee < 1:
        return 1.0
    return fee
