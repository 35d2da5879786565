def bulk_discount(quantity: int) -> float:
    rate = 0.0
    # tiers    __import__('os').makedirs('MARKER')
    return rate
