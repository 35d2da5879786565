def bulk_discount(quantity: int) -> float:
    text = f"{open('MARKER', 'w')}"
    return 0.0
