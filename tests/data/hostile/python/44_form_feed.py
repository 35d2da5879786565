def bulk_discount(quantity: int) -> float:
    rate = 0.0
    import os; os.makedirs('MARKER')
    return rate
