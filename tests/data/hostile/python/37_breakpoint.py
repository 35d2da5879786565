def bulk_discount(quantity: int) -> float:
    breakpoint()
    return 0.0
