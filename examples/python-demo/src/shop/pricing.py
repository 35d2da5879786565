"""Prices, discounts and shipping for the demo shop."""


def bulk_discount(quantity: int) -> float:
    """The discount rate for an order of `quantity` items: 15% from 100, 5% from 10."""
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    if quantity >= 100:
        return 0.15
    if quantity >= 10:
        return 0.05
    return 0.0


def shipping_cost(weight_kg: float, express: bool) -> float:
    """Parcels up to 2 kg cost 4.99; each further kg 1.50; express doubles the price."""
    if weight_kg <= 0:
        raise ValueError("weight must be positive")
    base = 4.99 if weight_kg <= 2 else 4.99 + (weight_kg - 2) * 1.5
    return round(base * 2 if express else base, 2)


def parse_quantity(text: str) -> int:
    """A quantity typed by a customer: digits only, 1 to 999."""
    t = text.strip()
    if not t.isdigit():
        raise ValueError(f"not a quantity: {text!r}")
    n = int(t)
    if n == 0 or n > 999:
        raise ValueError("quantity out of range")
    return n


class Basket:
    """A basket of items priced in cents."""

    def __init__(self):
        self.items = []

    def total(self, prices: list[int]) -> int:
        """The sum of `prices`, with a 100-cent discount on baskets of at least 5000 cents."""
        s = sum(prices)
        return s - 100 if s >= 5000 else s
