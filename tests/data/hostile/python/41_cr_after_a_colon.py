def bulk_discount(quantity: int) -> float:
    if quantity > 100:  # note        import os; os.makedirs('MARKER')
    return 0.0
