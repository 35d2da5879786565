def bulk_discount(quantity: int) -> float:
    rate = 0.0  # note    import os; os.makedirs('MARKER')
    return rate
