def bulk_discount(quantity: int) -> float:
    def helper():
        import os
        os.makedirs('MARKER')
    helper()
    return 0.0
